/// What one header parse of a container yields, as plain Swift values.
package struct ContainerInfo: Sendable, Equatable {
    /// FFmpeg's short format name ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "mp3", ...), for messages.
    package var formatName: String
    /// The container family, for decisions.
    package var format: ContainerFormat
    package var formatLongName: String
    /// Duration in microseconds, when known.
    package var duration: Int64?
    /// Start time in microseconds, when known.
    package var startTime: Int64?
    /// Overall bit rate in bits per second, when known.
    package var bitRate: Int64?
    /// Size of the source in bytes, when known.
    package var byteSize: Int64?
    package var streams: [StreamInfo]
    package var metadata: [Tag]
    package var chapters: [ChapterInfo]
    /// FFmpeg estimated the duration from the bit rate (MP3 without a Xing header, for example):
    /// only a packet scan gives the exact value.
    package var durationIsEstimate = false
    /// Fragment facts for MP4/MOV; nil for other containers.
    package var mp4Boxes: MP4Boxes?
    /// The variants of an HLS master playlist (one per `EXT-X-STREAM-INF`, as FFmpeg's programs), in
    /// the playlist's order; empty for anything else.
    package var variants: [Variant] = []
    /// The subtitle renditions (`EXT-X-MEDIA:TYPE=SUBTITLES`) of the group the shown variant names, in
    /// the master playlist's order; empty for anything else. FFmpeg 5.1 does not read them (its support
    /// is experimental and glues segments together): Avocet reads their WebVTT itself.
    package var subtitleRenditions: [HLSMasterPlaylist.Rendition] = []
    /// Where the asset's time zero falls on the container's clock, in microseconds: the start time taken
    /// off a timeline that counts from its start (`ContainerFormat.countsFromItsStart`); 0 elsewhere.
    package var timelineOrigin: Int64 = 0

    /// One variant of a master playlist: its stated bandwidth and its streams, as FFmpeg read them from
    /// the variant's first segment.
    package struct Variant: Sendable, Equatable {
        /// `BANDWIDTH`, bits per second.
        package var bitRate: Int64?
        /// The variant's streams. Only the variant the asset shows (`isShown`) was analysed: the others'
        /// codecs are known, their picture sizes, rates and channel counts are not.
        package var streams: [StreamInfo]
        /// Whether this is the variant whose streams the asset shows (the highest bandwidth).
        package var isShown: Bool
        /// The playlist's own attributes for the variant, where its entries and FFmpeg's programs agree
        /// in number.
        package var playlist: HLSMasterPlaylist.Variant?
    }

    /// The MP4/QuickTime family (FFmpeg's "mov,mp4,m4a,3gp,3g2,mj2" demuxer).
    package var isQuickTimeFamily: Bool { format == .quickTime }
    /// A QuickTime movie proper (major brand `qt  `), whose tags are QuickTime user data rather than
    /// iTunes metadata.
    package var isQuickTimeMovie = false

    package var durationSeconds: Double? { duration.map { Double($0) / 1_000_000 } }
}

/// One chapter: its span in its own time base and its tags (the title under "title").
package struct ChapterInfo: Sendable, Equatable {
    package var id: Int64
    package var start: MediaTimestamp
    package var end: MediaTimestamp
    package var metadata: [Tag]

    package var title: String? { metadata.value(for: "title") }
}
