/// What reading every packet of one stream (without decoding) tells: exact sizes, counts and times.
package struct PacketStatistics: Sendable, Equatable {
    package var packetCount: Int64 = 0
    package var totalBytes: Int64 = 0
    package var keyframes: Int64 = 0
    /// Earliest presentation time, in the stream's time base.
    package var firstPresentationTime: Int64?
    /// Latest presentation time plus that packet's duration, in the stream's time base.
    package var endPresentationTime: Int64?
    /// Shortest positive packet duration seen, in the stream's time base.
    package var minimumDuration: Int64?
    /// True when some packet presents earlier than one decoded before it (B-frames).
    package var hasReordering = false
    /// Audio samples the container tells the decoder to drop at the start of packets (FFmpeg's
    /// skip-samples side data: an MP3's encoder delay from its LAME header, an Ogg Opus stream's
    /// pre-skip), and at their end (an MP3's padding, an Ogg stream's end trim: which Ogg's demuxer
    /// has already taken out of the last packet's duration).
    package var skippedAtStart: Int64 = 0
    package var discardedAtEnd: Int64 = 0

    package init() {}
}
