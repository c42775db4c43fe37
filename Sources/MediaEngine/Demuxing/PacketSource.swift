internal import CFFmpeg

/// One stream's packets in decode order from a container, with a seek: what `StreamReader` decodes
/// from. A `PacketReader` is one (a container opened for the stream alone); an `ItemDemuxer`'s
/// consumer is another (the stream's share of a container a player item reads once for all its
/// streams). Blocking: call on an engine thread, one caller at a time.
protocol PacketSource: AnyObject {
    /// The stream's time base.
    var timeBase: AVRational { get }
    /// The source's name, for errors.
    var name: String { get }
    /// The container's kind.
    var format: ContainerFormat { get }
    /// Whether reading on without a seek starts at the stream's first packet.
    var standsAtStart: Bool { get }
    /// Where item time zero falls on the container's timeline, in ticks of `timeBase`.
    func origin(in timeBase: AVRational) -> Int64
    /// Positions reading at the keyframe at or before `timestamp` (stream ticks), or the nearest the
    /// demuxer can.
    func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws
    /// Runs `body` with the stream read (its codec parameters and rates), where reading the container
    /// cannot change it meanwhile (a shared container reads on other threads).
    func withStream<T>(_ body: (UnsafeMutablePointer<AVStream>) throws -> T) rethrows -> T
    /// Reads the stream's next packet into `packet`; false at the end.
    func next(_ packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool
}
