import Foundation

/// Everything an export writes, decided by AVFoundation: which file spans become which output tracks,
/// copied or encoded, and the container's tags. Plain values and closures; no FFmpeg types.
package struct ExportPlan: Sendable {
    /// A span of a file's stream placed on the output timeline, in seconds.
    package struct Piece: Sendable {
        package var open: @Sendable () throws -> any ByteSource
        package var options: DemuxerOptions
        package var streamIndex: Int
        /// The span of the stream's timeline played.
        package var sourceStart: Double
        package var sourceEnd: Double
        /// Where it plays in the output; a different length plays it faster or slower.
        package var targetStart: Double
        package var targetEnd: Double
        /// A player item's container that reads this stream already: a mix reads the piece's sound from
        /// it rather than opening the file again (nil, or gone with its item: open it). Weak, so that a
        /// plan kept for later (a player's cached mix) does not keep the container and its file open.
        package weak var demuxer: ItemDemuxer?

        /// Source seconds played a second of output: 1 at its own pace, 0 for a moment held still (a
        /// target of no length counts as a nanosecond).
        package var speed: Double { (sourceEnd - sourceStart) / max(1e-9, targetEnd - targetStart) }

        package init(open: @escaping @Sendable () throws -> any ByteSource, options: DemuxerOptions, streamIndex: Int,
                     sourceStart: Double, sourceEnd: Double, targetStart: Double, targetEnd: Double) {
            self.open = open
            self.options = options
            self.streamIndex = streamIndex
            self.sourceStart = sourceStart
            self.sourceEnd = sourceEnd
            self.targetStart = targetStart
            self.targetEnd = targetEnd
        }
    }

    /// A track whose packets are copied unchanged from its pieces' streams.
    package struct CopiedTrack: Sendable {
        package var pieces: [Piece]
        /// The QuickTime display matrix (nil: none).
        package var displayMatrix: [Int32]?
        package var language: String?

        package init(pieces: [Piece], displayMatrix: [Int32]?, language: String?) {
            self.pieces = pieces
            self.displayMatrix = displayMatrix
            self.language = language
        }
    }

    /// Where an encoded video track's pictures come from.
    package enum PictureSource: Sendable {
        /// The caller renders each: frame `index` (shown at index / frameRate s) as `width` x `height`
        /// RGBA (a video composition's output).
        case rendered(@Sendable (_ index: Int, CancellationToken) throws -> Data)
        /// Decoded from these pieces of one track and scaled straight to the encoder's format and size:
        /// for each frame, the picture showing then (black where no piece plays).
        case decoded([Piece])
    }

    /// A video track encoded from pictures.
    package struct EncodedVideo: Sendable {
        package var codec: EncodedCodec
        package var width: Int
        package var height: Int
        /// Frames per second, as a fraction.
        package var frameRate: Rational
        /// Frames on the output's timeline, from 0 to the track's end.
        package var frameCount: Int
        /// The frame the track begins with: where a file's video starts after the window does, the
        /// frames before it are not written (the muxer's edit list keeps the empty time), not black.
        package var firstFrame = 0
        /// x264/x265's constant rate factor.
        package var quality: Int
        package var preset: String
        package var pictures: PictureSource
        package var displayMatrix: [Int32]?

        package init(codec: EncodedCodec, width: Int, height: Int, frameRate: Rational, frameCount: Int, quality: Int, preset: String,
                     pictures: PictureSource, displayMatrix: [Int32]?) {
            self.codec = codec
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.frameCount = frameCount
            self.quality = quality
            self.preset = preset
            self.pictures = pictures
            self.displayMatrix = displayMatrix
        }
    }

    /// One audio track mixed from several timelines of pieces and encoded as AAC.
    package struct EncodedAudio: Sendable {
        /// Each input timeline: its pieces in order, and its gain at an output time in seconds.
        package struct Input: Sendable {
            package var pieces: [Piece]
            package var gain: @Sendable (Double) -> Float

            package init(pieces: [Piece], gain: @escaping @Sendable (Double) -> Float) {
                self.pieces = pieces
                self.gain = gain
            }
        }

        package var inputs: [Input]
        package var sampleRate: Int32
        package var channels: Int32
        package var bitRate: Int
        /// Seconds of output.
        package var duration: Double

        package init(inputs: [Input], sampleRate: Int32, channels: Int32, bitRate: Int, duration: Double) {
            self.inputs = inputs
            self.sampleRate = sampleRate
            self.channels = channels
            self.bitRate = bitRate
            self.duration = duration
        }
    }

    package struct Chapter: Sendable {
        package var start: Double
        package var end: Double
        package var title: String

        package init(start: Double, end: Double, title: String) {
            self.start = start
            self.end = end
            self.title = title
        }
    }

    package var container: OutputContainer
    package var fastStart = false
    package var copied: [CopiedTrack] = []
    package var video: EncodedVideo?
    package var audio: EncodedAudio?
    /// Container tags, FFmpeg's keys ("title", "artist", ...).
    package var metadata: [(key: String, value: String)] = []
    package var chapters: [Chapter] = []
    /// Seconds of output, for progress.
    package var duration: Double
    /// Stop writing once the file is this long (0: no limit).
    package var fileLengthLimit: Int64 = 0

    package init(container: OutputContainer, duration: Double) {
        self.container = container
        self.duration = duration
    }
}
