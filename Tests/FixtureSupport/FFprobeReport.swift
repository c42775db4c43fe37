import Foundation

/// ffprobe's report of a fixture (Fixtures/ffprobe/NAME.json, written by make-fixtures.py), to check
/// Avocet's values against ffprobe's for the same file.
public struct FFprobeReport: Decodable, Sendable {
    public struct Format: Decodable, Sendable {
        public let duration: String?
        public let size: String?
        public let formatName: String
        public let tags: [String: String]?
    }

    public struct Stream: Decodable, Sendable {
        public struct Disposition: Decodable, Sendable {
            public let attachedPic: Int?
        }

        public struct SideData: Decodable, Sendable {
            public let rotation: Int?
        }

        public let index: Int
        public let codecType: String
        public let codecName: String?
        public let width: Int?
        public let height: Int?
        /// The pixel format (`yuv420p10le`) and the codec's profile (`Profile 2`), when ffprobe knows them.
        public let pixFmt: String?
        public let profile: String?
        public let sampleRate: String?
        public let channels: Int?
        public let nbFrames: String?
        public let duration: String?
        public let disposition: Disposition?
        public let sideDataList: [SideData]?
        public let tags: [String: String]?

        public var isAttachedPicture: Bool { disposition?.attachedPic == 1 }
        public var rotation: Int? { sideDataList?.compactMap(\.rotation).first }
    }

    public struct Chapter: Decodable, Sendable {
        public let startTime: String
        public let endTime: String
        public let tags: [String: String]?
    }

    public let format: Format
    public let streams: [Stream]
    public let chapters: [Chapter]?

    public var duration: Double? { format.duration.flatMap(Double.init) }

    /// ffprobe's report of any file (streams, format, chapters), run now. Blocking: call it off Swift's
    /// cooperative pool (see `onOwnThread`).
    public static func probe(_ url: URL) throws -> FFprobeReport {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "-show_chapters", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(FFprobeReport.self, from: data)
    }

    public static func of(_ name: String) -> FFprobeReport {
        let url = Fixtures.directory.appendingPathComponent("ffprobe").appendingPathComponent(name + ".json")
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(FFprobeReport.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }
}
