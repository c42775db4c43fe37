internal import CFFmpeg

/// What an audio reader decodes through: one `StreamDecoder`, or a `SegmentedAudioDecoder` that
/// spreads one stream over several decoders and gives the same frames in the same order. FFmpeg's
/// send and receive pattern: `receive` first, and on `.needsInput` send the next packet (nil at the
/// end of the stream). Blocking: call on an engine thread, one caller at a time.
protocol AudioFrameDecoding: AnyObject {
    /// Sends a packet, or nil to drain what the decoder holds. The decoder may take the packet's data
    /// and leave it empty: its caller reads the next packet into it afresh.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?, _ token: CancellationToken) throws -> StreamDecoder.Sent
    /// Takes the next decoded frame into `frame`.
    func receive(into frame: UnsafeMutablePointer<AVFrame>, _ token: CancellationToken) throws -> StreamDecoder.Received
    /// Forgets everything sent and not yet received (a seek).
    func flush()
}

extension StreamDecoder: AudioFrameDecoding {
    func send(_ packet: UnsafeMutablePointer<AVPacket>?, _ token: CancellationToken) throws -> Sent {
        try send(packet.map { UnsafePointer($0) })
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>, _ token: CancellationToken) throws -> Received {
        receive(into: frame)
    }
}
