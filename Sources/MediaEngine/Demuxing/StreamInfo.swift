import Foundation

/// Everything the demuxer knows about one stream after parsing the header, as plain Swift values.
package struct StreamInfo: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable {
        case video, audio, subtitle, data, attachment, unknown
    }

    /// Stream dispositions (FFmpeg's `AV_DISPOSITION_*`).
    package struct Disposition: OptionSet, Sendable, Hashable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        package static let `default` = Disposition(rawValue: 1 << 0)
        package static let dub = Disposition(rawValue: 1 << 1)
        package static let original = Disposition(rawValue: 1 << 2)
        package static let comment = Disposition(rawValue: 1 << 3)
        package static let lyrics = Disposition(rawValue: 1 << 4)
        package static let karaoke = Disposition(rawValue: 1 << 5)
        package static let forced = Disposition(rawValue: 1 << 6)
        package static let hearingImpaired = Disposition(rawValue: 1 << 7)
        package static let visualImpaired = Disposition(rawValue: 1 << 8)
        package static let cleanEffects = Disposition(rawValue: 1 << 9)
        package static let attachedPicture = Disposition(rawValue: 1 << 10)
        package static let timedThumbnails = Disposition(rawValue: 1 << 11)
        package static let captions = Disposition(rawValue: 1 << 16)
        package static let descriptions = Disposition(rawValue: 1 << 17)
        package static let metadata = Disposition(rawValue: 1 << 18)
    }

    /// Position in the container's stream list.
    package var index: Int
    /// The container's own ID for the stream (the track ID in MP4 and Matroska).
    package var id: Int32
    package var kind: Kind
    /// FFmpeg's codec name ("h264", "aac", "opus", ...), for messages and tests.
    package var codecName: String
    /// The codec, for decisions.
    package var codec: Codec
    /// The AAC object type, for AAC streams whose setup data or analysis tells it.
    package var aacProfile: AACProfile?
    /// The codec tag as stored in the container (a FourCC such as 'avc1'), 0 when none.
    package var codecTag: UInt32
    /// The codec profile's name ("High", "LC", ...), when known.
    package var profile: String?
    package var timeBase: Rational
    package var startTime: Int64?
    /// Duration in `timeBase` units, when the container gives one.
    package var duration: Int64?
    /// Number of frames (samples in MP4 terms), when the container gives it.
    package var frameCount: Int64?
    package var bitRate: Int64?
    // Video
    package var width: Int?
    package var height: Int?
    package var sampleAspectRatio: Rational?
    package var averageFrameRate: Rational?
    package var realFrameRate: Rational?
    package var pixelFormat: String?
    /// The display size the container's track header states (MP4's `tkhd`), when it states one.
    package var trackHeaderSize: MP4Boxes.TrackSize?
    /// The duration the track header states (MP4's `tkhd`: its edit list's total, what the track
    /// presents), in the movie's time scale, when it states one.
    package var trackHeaderDuration: MediaTimestamp?
    /// The alternate group the container's track header states (MP4's `tkhd`; 0: none); nil where the
    /// container has no such thing.
    package var alternateGroup: Int?
    /// The key table of a QuickTime timed metadata track (`mebx`); nil for other streams.
    package var metadataKeys: [BoxedMetadataKey]?
    /// The video's dynamic range, from its transfer function (standard where none is stated).
    package var dynamicRange = DynamicRange.standard
    package enum DynamicRange: Sendable, Equatable {
        case standard
        /// SMPTE ST 2084, the perceptual quantizer.
        case pq
        /// ARIB STD-B67, hybrid log-gamma.
        case hlg
    }
    /// Full-range (JPEG) luma and chroma, as the container or codec declares it.
    package var isFullRange = false
    /// The matrix from Y'CbCr to RGB the stream's parameters state; nil where they state none (decoders
    /// then assume BT.709 above 576 lines and BT.601 below).
    package var yCbCrMatrix: YCbCrMatrix?
    package enum YCbCrMatrix: Sendable, Equatable {
        case bt601, bt709, bt2020
        /// SMPTE 240M, FCC and the rest: stated, but none of the three.
        case other
    }
    /// Frames the decoder holds back before output; above zero means decode order differs from
    /// presentation order (B-frames).
    package var videoDelay: Int = 0
    /// Clockwise rotation to apply for display, in degrees (0, 90, 180, 270 for the usual cases).
    package var rotation: Double
    /// The 3x3 display matrix in the container's 16.16/2.30 fixed point, row by row, when present.
    package var displayMatrix: [Int32]?
    // Audio
    package var sampleRate: Int?
    package var channels: Int?
    /// FFmpeg's name of the layout ("mono", "stereo", "5.1"); the default for the channel count when
    /// the file leaves the layout unspecified.
    package var channelLayout: String?
    package var sampleFormat: String?
    /// Samples per audio frame (packet) when constant.
    package var frameSize: Int?
    package var bitsPerSample: Int?
    // Everything
    package var language: String?
    package var disposition: Disposition
    package var metadata: [Tag]
    /// The picture's encoded bytes for an attached picture (cover art) stream.
    package var attachedPicture: Data?
    /// The codec's setup data (for example the AudioSpecificConfig of AAC).
    package var extradata: Data?
    /// Bytes of media data in this stream, when the container's index tells it.
    package var totalSampleBytes: Int64?
    /// The stream carries encryption information (CENC and the like).
    package var isEncrypted = false
    /// A decoder for this codec exists in the FFmpeg at hand.
    package var hasDecoder = false

    /// Where the stream ends, in microseconds from zero, when its duration is known.
    package var endMicroseconds: Int64? {
        guard let duration, let tb = timeBase.value else { return nil }
        let end = (Double(startTime ?? 0) + Double(duration)) * tb * 1_000_000
        guard end.isFinite, end >= 0, end < 9.2e18 else { return nil }
        return Int64(end.rounded())
    }

    /// The duration in seconds, when known.
    package var durationSeconds: Double? {
        guard let duration, let tb = timeBase.value else { return nil }
        return Double(duration) * tb
    }
}
