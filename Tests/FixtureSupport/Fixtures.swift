import Foundation

/// The fixtures' facts as `Fixtures/make-fixtures.py` put them in, read from `Fixtures/facts.json`.
public struct FixtureFacts: Decodable, Sendable {
    /// The HLS stream in Fixtures/hls: variants of the same picture and tone.
    public struct HLS: Decodable, Sendable {
        public struct Variant: Decodable, Sendable {
            public let name: String
            public let width: Int
            public let height: Int
            public let bandwidth: Int
        }

        public struct Audio: Decodable, Sendable {
            public let codec: String
            public let sampleRate: Int
            public let channels: Int
        }

        public let directory: String
        public let duration: Double
        public let segmentSeconds: Int
        public let fps: Int
        public let audio: Audio
        /// The folder holding the first variant as byte ranges of one file.
        public let singleFile: String
        public let variants: [Variant]
    }

    public struct Cover: Decodable, Sendable {
        public let file: String
        public let width: Int
        public let height: Int
    }

    public struct Video: Decodable, Sendable {
        public let codec: String
        public let width: Int
        public let height: Int
        /// The frame rate, rounded to a whole number where it is not one (29.97 is 30); `frameRate` is exact.
        public let fps: Int
        /// The exact frame rate as a fraction, where it is not a whole number (30000/1001).
        public let fpsNum: Int?
        public let fpsDen: Int?
        /// The pixel aspect ratio ffprobe reports, where it is not square ("12:11" for H.263).
        public let sampleAspectRatio: String?
        /// The track header's size, which `naturalSize` must give, where a pixel aspect ratio could
        /// suggest another (H.263's 12:11 would widen 176 to 192).
        public let naturalWidth: Int?
        public let naturalHeight: Int?

        /// The exact frame rate: `fpsNum / fpsDen` where given, else `fps`.
        public var frameRate: Double {
            if let fpsNum, let fpsDen, fpsDen != 0 { return Double(fpsNum) / Double(fpsDen) }
            return Double(fps)
        }
    }

    public struct Audio: Decodable, Sendable {
        public let codec: String
        public let sampleRate: Int
        public let channels: Int
        public let language: String?
        public let title: String?
    }

    public struct Subtitle: Decodable, Sendable {
        public let codec: String
        public let language: String
    }

    public struct Chapter: Decodable, Sendable {
        public let start: Double
        public let end: Double
        public let title: String
    }

    public struct Fixture: Decodable, Sendable {
        public let name: String
        public let recipe: String
        public let container: String?
        public let duration: Double?
        public let faststart: Bool?
        public let fragmented: Bool?
        public let rotation: Double?
        /// VBR MP3 without a Xing header: the header's duration is only an estimate.
        public let vbrWithoutXing: Bool?
        /// Encoded `trimStart` seconds longer, then stream-copied from there: the video's edit list
        /// skips the frames between the keyframe before `trimStart` and `trimStart` itself.
        public let trimStart: Double?
        /// The video track has an edit list whose media time is past 0 (a trim, or B-frames' delay).
        public let editList: Bool?
        /// MP4 whose moov holds the first samples, with moof fragments after them.
        public let partiallyFragmented: Bool?
        /// Written to a pipe: the header gives no duration (ffprobe reports none), though the media
        /// lasts `duration` seconds.
        public let unknownDuration: Bool?
        public let video: Video?
        public let audio: [Audio]?
        public let subtitle: Subtitle?
        public let tags: [String: String]?
        public let chapters: [Chapter]?
        public let coverArt: Bool?
        /// For fixtures that must fail: "truncated" or "notMedia".
        public let bad: String?

        public var path: String { Fixtures.path(name) }
        public var isMedia: Bool { bad == nil }
    }

    /// A frame-index movie (Fixtures/frames-*): see facts.json's `frames` comment and `FramePattern`.
    public struct FrameFixture: Decodable, Sendable {
        public let name: String
        public let codec: String
        public let container: String
        /// The coded size.
        public let width: Int
        public let height: Int
        public let fps: Int
        public let duration: Double
        public let gop: Int
        public let bFrames: Int
        public let pixFmt: String
        public let rotation: Double?
        public let sampleAspectRatio: String?
        public let audioSeconds: Double?
        /// Written to a pipe: no keyframe index (cues) and no duration in the header.
        public let live: Bool?
        /// When frame N shows, in seconds, as an expression of N (ffmpeg's `setpts`); nil: from N / fps.
        public let showsAt: String?

        public var path: String { Fixtures.path(name) }
        public var frameCount: Int { Int((duration * Double(fps)).rounded()) }
    }

    /// A picture as FFmpeg's command decodes it (RGB PNG): picture `frame` of `source` in presentation
    /// order, which shows from `frame / fps` seconds.
    public struct Reference: Decodable, Sendable {
        public let source: String
        public let frame: Int
        public let fps: Int
        public let file: String
    }

    public struct Frames: Decodable, Sendable {
        public let fixtures: [FrameFixture]
        public let references: [Reference]
    }

    /// The timed ID3 movie and its HLS stream (facts.json's `timed_metadata`): each cue is an ID3 tag
    /// at `time` seconds after the first video frame, its frames as [ID, text] (TIT2), [ID,
    /// description, text] (TXXX) or [ID, owner, hex bytes] (PRIV).
    public struct TimedMetadata: Decodable, Sendable {
        public struct Cue: Decodable, Sendable {
            public let time: Double
            public let frames: [[String]]
        }

        public let name: String
        public let hlsDirectory: String
        public let duration: Double
        public let cues: [Cue]
    }

    /// The movie with a QuickTime timed metadata track (facts.json's `boxed_metadata`): keys as
    /// [namespace, key, well-known type], samples as [start, end, [values in key order]], the values
    /// strings (type 1) or numbers (type 23).
    public struct BoxedMetadata: Decodable, Sendable {
        public struct Key: Decodable, Sendable {
            public let namespace: String
            public let key: String
            public let type: Int
            public init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                namespace = try list.decode(String.self)
                key = try list.decode(String.self)
                type = try list.decode(Int.self)
            }
        }

        public enum Value: Decodable, Sendable, Equatable {
            case text(String)
            case number(Double)
            public init(from decoder: any Decoder) throws {
                let single = try decoder.singleValueContainer()
                if let text = try? single.decode(String.self) { self = .text(text) } else { self = .number(try single.decode(Double.self)) }
            }
        }

        public struct Sample: Decodable, Sendable {
            public let start: Double
            public let end: Double
            public let values: [Value]
            public init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                start = try list.decode(Double.self)
                end = try list.decode(Double.self)
                values = try list.decode([Value].self)
            }
        }

        public let name: String
        public let duration: Double
        public let keys: [Key]
        public let samples: [Sample]
    }

    /// The HLS stream with renditions (facts.json's `hls_renditions`): its WebVTT subtitle renditions,
    /// each cue [start, end, text] in seconds from the video's first frame.
    public struct HLSRenditions: Decodable, Sendable {
        public struct Subtitles: Decodable, Sendable {
            public struct Cue: Decodable, Sendable {
                public let start: Double
                public let end: Double
                public let text: String
                public init(from decoder: any Decoder) throws {
                    var list = try decoder.unkeyedContainer()
                    start = try list.decode(Double.self)
                    end = try list.decode(Double.self)
                    text = try list.decode(String.self)
                }
            }

            public let folder: String
            public let name: String
            public let language: String
            public let `default`: Bool
            public let forced: Bool
            public let cues: [Cue]
        }

        public let directory: String
        /// Timed ID3 tags in the video rendition, as `TimedMetadata`'s cues.
        public let id3: [TimedMetadata.Cue]
        public let subtitles: [Subtitles]
    }

    public let cover: Cover
    public let fixtures: [Fixture]
    public let hls: HLS
    public let frames: Frames
    public let timedMetadata: TimedMetadata
    public let boxedMetadata: BoxedMetadata
    public let hlsRenditions: HLSRenditions
}

public enum Fixtures {
    /// The repository's `Fixtures/` folder, found from this file's location.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    public static let facts: FixtureFacts = {
        let url = directory.appendingPathComponent("facts.json")
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(FixtureFacts.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public static func fixture(_ name: String) -> FixtureFacts.Fixture {
        guard let f = facts.fixtures.first(where: { $0.name == name }) else { fatalError("no fixture \(name) in facts.json") }
        return f
    }

    public static func frames(_ name: String) -> FixtureFacts.FrameFixture {
        guard let f = facts.frames.fixtures.first(where: { $0.name == name }) else { fatalError("no frames fixture \(name) in facts.json") }
        return f
    }

    /// The fixtures that are real media, and those that must fail.
    public static var media: [FixtureFacts.Fixture] { facts.fixtures.filter(\.isMedia) }
    public static var bad: [FixtureFacts.Fixture] { facts.fixtures.filter { !$0.isMedia } }

    /// A fresh temporary directory for a test's own files.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A copy of the fixture `name`, changed by `damage`, in a fresh temporary directory (remove the
    /// file's directory when done).
    public static func damagedCopy(of name: String, _ damage: (inout Data) throws -> Void) throws -> URL {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path(name)))
        try damage(&bytes)
        let url = try temporaryDirectory().appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }
}
