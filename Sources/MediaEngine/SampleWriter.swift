internal import CFFmpeg
import Foundation

/// Writes a media file from samples: tracks encoded from pictures in pixel memory or from
/// interleaved float sound, and tracks whose packets are written unchanged; one `MediaWriter` (the
/// file, its header and interleaving) and an encoder per encoded track. The writing layer behind
/// `AVAssetWriter`.
///
/// Order: `addTrack` for every track, `start()` (the header), appends in any order across tracks,
/// `finish()` (drains every encoder, writes the trailer, closes the file). Blocking CPU work and file
/// I/O: call on an engine thread, one caller at a time.
package final class SampleWriter {
    private let writer: MediaWriter
    private var tracks: [Track] = []
    private var started = false
    package let path: String

    private final class Track {
        let stream: Int32
        let encoder: StreamEncoder?
        let timeBase: AVRational
        let isVideo: Bool
        var finished = false
        let packet: UnsafeMutablePointer<AVPacket>?

        init(stream: Int32, encoder: StreamEncoder?, timeBase: AVRational, isVideo: Bool) {
            (self.stream, self.encoder, self.timeBase, self.isVideo) = (stream, encoder, timeBase, isVideo)
            packet = encoder == nil ? av_packet_alloc() : nil
        }

        deinit {
            var p = packet
            av_packet_free(&p)
        }
    }

    /// Creates the file at `path` (a local path only, never a URL) for `container`.
    package init(path: String, container: OutputContainer) throws {
        self.path = path
        writer = try MediaWriter(path: path, container: container)
    }

    /// Adds a track; returns its number for the appends. `language` is ISO 639-2; `displayMatrix` the
    /// QuickTime track matrix.
    package func addTrack(_ settings: WriterTrackSettings, language: String?, displayMatrix: [Int32]?) throws -> Int {
        let global = writer.wantsGlobalHeaders
        let track: Track
        switch settings {
        case .video(let video):
            let encoder = try FFmpegLog.capturing { try StreamEncoder.video(video, globalHeader: global, source: path) }
            guard let context = encoder.codecContext else { throw closed() }
            track = Track(stream: try writer.addStream(encoder: context), encoder: encoder, timeBase: encoder.timeBase, isVideo: true)
        case .audio(let audio):
            let encoder = try FFmpegLog.capturing { try StreamEncoder.audio(audio, globalHeader: global, source: path) }
            guard let context = encoder.codecContext else { throw closed() }
            track = Track(stream: try writer.addStream(encoder: context), encoder: encoder, timeBase: encoder.timeBase, isVideo: false)
        case .copy(let copied):
            let timeBase = AVRational(num: 1, den: max(1, copied.timeScale))
            let stream = try withParameters(of: copied) { try writer.addStream(copying: $0, timeBase: timeBase) }
            track = Track(stream: stream, encoder: nil, timeBase: timeBase, isVideo: copied.isVideo)
        }
        if let language, !language.isEmpty { writer.setStreamMetadata("language", language, stream: track.stream) }
        if let displayMatrix { writer.setDisplayMatrix(displayMatrix, stream: track.stream) }
        tracks.append(track)
        return tracks.count - 1
    }

    private func withParameters<T>(of copied: WriterTrackSettings.CopiedStream, _ body: (UnsafePointer<AVCodecParameters>) throws -> T) throws -> T {
        var allocated = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&allocated) }
        guard let parameters = allocated else {
            throw MediaEngineError(.outOfMemory, source: path, operation: "add a stream", reason: "out of memory")
        }
        guard let name = copied.codec.ffmpegName, let descriptor = avcodec_descriptor_get_by_name(name) else {
            throw MediaEngineError(.unsupported, source: path, operation: "add a stream", reason: "the samples' codec has no FFmpeg name")
        }
        parameters.pointee.codec_id = descriptor.pointee.id
        parameters.pointee.codec_type = copied.isVideo ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        if copied.isVideo {
            parameters.pointee.width = Int32(clamping: copied.width)
            parameters.pointee.height = Int32(clamping: copied.height)
        } else {
            parameters.pointee.sample_rate = copied.sampleRate
            av_channel_layout_default(&parameters.pointee.ch_layout, max(1, copied.channels))
            parameters.pointee.frame_size = copied.frameSize
        }
        if let extra = copied.extradata, !extra.isEmpty, extra.count < 1 << 24,
           let memory = av_mallocz(extra.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) {
            extra.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(memory), byteCount: extra.count) }
            parameters.pointee.extradata = memory.assumingMemoryBound(to: UInt8.self)
            parameters.pointee.extradata_size = Int32(extra.count)
        }
        return try body(UnsafePointer(parameters))
    }

    /// Sets a file tag (title, artist, ...), before `start()`.
    package func setMetadata(_ key: String, _ value: String) {
        writer.setMetadata(key, value)
    }

    /// Writes the header. `fastStart` puts MP4's index first; `fragmentSeconds` writes fragments.
    package func start(fastStart: Bool, fragmentSeconds: Double?) throws {
        let fragment = fragmentSeconds.flatMap { $0 > 0 && $0.isFinite ? Int64(min($0, 86_400) * 1_000_000) : nil }
        try FFmpegLog.capturing { try writer.writeHeader(fastStart: fastStart, fragmentMicroseconds: fragment) }
        started = true
    }

    /// The time base a track's times are counted in (its encoder's, or the copied stream's).
    package func timeBase(of track: Int) -> Rational? {
        guard tracks.indices.contains(track) else { return nil }
        return Rational(tracks[track].timeBase.num, tracks[track].timeBase.den)
    }

    /// Encodes a picture shown at `pts` (output time) on video track `track`.
    package func append(pixels: PixelMemory, pts: MediaTimestamp, track: Int) throws {
        let t = try active(track)
        guard let encoder = t.encoder, t.isVideo else { throw misuse("track \(track) does not encode pictures") }
        let ticks = rescale(pts, to: t.timeBase)
        try FFmpegLog.capturing { try encoder.encode(pixels: pixels, pts: ticks) { try writer.write($0, stream: t.stream, timeBase: t.timeBase) } }
    }

    /// Encodes interleaved float sound starting at `pts` (output time) on audio track `track`.
    package func append(sound samples: [Float], pts: MediaTimestamp, track: Int) throws {
        let t = try active(track)
        guard let encoder = t.encoder, !t.isVideo else { throw misuse("track \(track) does not encode sound") }
        let ticks = rescale(pts, to: t.timeBase)
        try FFmpegLog.capturing {
            try encoder.encode(interleaved: samples, pts: ticks) { try writer.write($0, stream: t.stream, timeBase: t.timeBase) }
        }
    }

    /// Writes one packet unchanged on copied track `track`, its times in output time.
    package func append(packet bytes: UnsafeRawBufferPointer, pts: MediaTimestamp?, dts: MediaTimestamp?, duration: MediaTimestamp?,
                        isKeyframe: Bool, track: Int) throws {
        let t = try active(track)
        guard t.encoder == nil, let packet = t.packet else { throw misuse("track \(track) encodes; it takes no packets") }
        guard bytes.count > 0, bytes.count < Int(Int32.max) else { return }
        av_packet_unref(packet)
        try FFmpeg.check(av_new_packet(packet, Int32(bytes.count)), "write a sample", source: path)
        if let base = bytes.baseAddress, let data = packet.pointee.data { UnsafeMutableRawPointer(data).copyMemory(from: base, byteCount: bytes.count) }
        let nopts = avocet_nopts_value()
        packet.pointee.pts = pts.map { rescale($0, to: t.timeBase) } ?? nopts
        packet.pointee.dts = dts.map { rescale($0, to: t.timeBase) } ?? packet.pointee.pts
        packet.pointee.duration = duration.map { rescale($0, to: t.timeBase) } ?? 0
        packet.pointee.flags = isKeyframe ? AV_PKT_FLAG_KEY : 0
        try FFmpegLog.capturing { try writer.write(packet, stream: t.stream, timeBase: t.timeBase) }
    }

    /// Drains track `track`'s encoder: it takes nothing more.
    package func finish(track: Int) throws {
        let t = try active(track)
        t.finished = true
        guard let encoder = t.encoder else { return }
        try FFmpegLog.capturing {
            let write: (UnsafeMutablePointer<AVPacket>) throws -> Void = { try self.writer.write($0, stream: t.stream, timeBase: t.timeBase) }
            if t.isVideo { try encoder.drain(write) } else { try encoder.finishSound(write) }
        }
    }

    /// Drains every track not yet finished, writes the trailer and closes the file.
    package func finish() throws {
        for (i, track) in tracks.enumerated() where !track.finished { try finish(track: i) }
        try FFmpegLog.capturing { try writer.finish() }
    }

    /// Bytes written so far.
    package var bytesWritten: Int64 { writer.bytesWritten }

    private func active(_ track: Int) throws -> Track {
        guard started else { throw misuse("the file's header is not written yet") }
        guard tracks.indices.contains(track), !tracks[track].finished else { throw misuse("track \(track) is finished or unknown") }
        return tracks[track]
    }

    private func rescale(_ time: MediaTimestamp, to base: AVRational) -> Int64 {
        guard time.timeBase.numerator > 0, time.timeBase.denominator > 0 else { return 0 }
        let rounding = AVRounding(rawValue: AV_ROUND_NEAR_INF.rawValue | AV_ROUND_PASS_MINMAX.rawValue)
        return av_rescale_q_rnd(time.value, AVRational(num: time.timeBase.numerator, den: time.timeBase.denominator), base, rounding)
    }

    private func misuse(_ words: String) -> MediaEngineError {
        MediaEngineError(.invalidArgument, source: path, operation: "write", reason: words)
    }

    private func closed() -> MediaEngineError {
        MediaEngineError(.failed, source: path, operation: "add a stream", reason: "the encoder closed")
    }
}
