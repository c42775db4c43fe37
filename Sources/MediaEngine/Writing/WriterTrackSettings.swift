import Foundation

/// What a track of a `SampleWriter` holds: pictures or sound encoded from raw media, or packets
/// written as they come. Plain values; the AVFoundation layer reads them from settings dictionaries.
package enum WriterTrackSettings: Sendable, Equatable {
    case video(VideoEncoding)
    case audio(AudioEncoding)
    case copy(CopiedStream)

    /// A video encoder's settings.
    package struct VideoEncoding: Sendable, Equatable {
        package enum Codec: String, Sendable, Equatable {
            case h264, hevc, jpeg
            /// Apple ProRes, by FFmpeg's prores_ks profile: proxy, LT, 422, HQ, 4444.
            case proResProxy, proResLT, proRes422, proResHQ, proRes4444
        }

        package var codec: Codec
        package var width: Int
        package var height: Int
        /// Ticks a second of the pictures' times.
        package var timeScale: Int32
        package var bitRate: Int?
        /// 0 (smallest) to 1 (best).
        package var quality: Double?
        package var maxKeyFrameInterval: Int?
        package var maxKeyFrameIntervalSeconds: Double?
        package var allowsFrameReordering = true
        /// The profile by FFmpeg's name: baseline, main, high (H.264); main, main10 (HEVC).
        package var profile: String?
        package var expectedFrameRate: Double?
        /// x264/x265's constant rate factor, taken before `quality` (an export preset's).
        package var constantRateFactor: Int?
        /// x264/x265's speed preset ("veryfast", "medium", ...); nil: the encoder's default.
        package var speedPreset: String?

        package init(codec: Codec, width: Int, height: Int, timeScale: Int32) {
            self.codec = codec
            self.width = width
            self.height = height
            self.timeScale = timeScale
        }
    }

    /// An audio encoder's settings.
    package struct AudioEncoding: Sendable, Equatable {
        package enum Codec: Sendable, Equatable {
            case aac, flac, opus, alac
            /// Linear PCM: bits a sample, float or integer, byte order.
            case linearPCM(bits: Int, isFloat: Bool, isBigEndian: Bool)
        }

        package var codec: Codec
        package var sampleRate: Int32
        package var channels: Int32
        package var bitRate: Int?

        package init(codec: Codec, sampleRate: Int32, channels: Int32, bitRate: Int? = nil) {
            self.codec = codec
            self.sampleRate = sampleRate
            self.channels = channels
            self.bitRate = bitRate
        }
    }

    /// A stream whose packets are written unchanged: its codec, setup bytes and shape.
    package struct CopiedStream: Sendable, Equatable {
        package var codec: Codec
        package var isVideo: Bool
        package var extradata: Data?
        package var width = 0
        package var height = 0
        package var sampleRate: Int32 = 0
        package var channels: Int32 = 0
        /// Audio frames a packet (AAC's 1024), when constant.
        package var frameSize: Int32 = 0
        /// Ticks a second of the packets' times.
        package var timeScale: Int32

        package init(codec: Codec, isVideo: Bool, extradata: Data?, timeScale: Int32) {
            self.codec = codec
            self.isVideo = isVideo
            self.extradata = extradata
            self.timeScale = timeScale
        }
    }
}
