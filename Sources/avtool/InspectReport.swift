import Foundation
import MediaEngine

/// What `avtool inspect` reports for one file; encodes as the `--json` output.
struct InspectReport: Encodable {
    struct Track: Encodable {
        var index: Int
        var id: Int32
        var type: String
        var codec: String
        var codecTag: String?
        var profile: String?
        var duration: Double?
        var frames: Int64?
        var width: Int?
        var height: Int?
        var frameRate: Double?
        var pixelAspectRatio: String?
        var rotation: Double?
        var sampleRate: Int?
        var channels: Int?
        var channelLayout: String?
        var language: String?
        var isDefault: Bool
        var isAttachedPicture: Bool
        var attachedPictureBytes: Int?
        var metadata: [String: String]
    }

    struct Chapter: Encodable {
        var start: Double
        var end: Double
        var title: String?
    }

    var file: String
    var format: String
    var formatName: String
    var size: Int64?
    var duration: Double?
    var startTime: Double?
    var bitRate: Int64?
    var tracks: [Track]
    var metadata: [String: String]
    var chapters: [Chapter]

    init(file: String, info: ContainerInfo) {
        self.file = file
        format = info.formatLongName
        formatName = info.formatName
        size = info.byteSize
        duration = info.durationSeconds
        startTime = info.startTime.map { Double($0) / 1_000_000 }
        bitRate = info.bitRate
        metadata = InspectReport.dictionary(info.metadata)
        chapters = info.chapters.map { Chapter(start: $0.start.seconds, end: $0.end.seconds, title: $0.title) }
        tracks = info.streams.map { s in
            Track(
                index: s.index, id: s.id, type: s.kind.rawValue, codec: s.codecName,
                codecTag: s.codecTag == 0 ? nil : InspectReport.fourCC(s.codecTag), profile: s.profile,
                duration: s.durationSeconds, frames: s.frameCount, width: s.width, height: s.height,
                frameRate: s.kind == .video && !s.disposition.contains(.attachedPicture) ? (s.averageFrameRate?.value ?? s.realFrameRate?.value) : nil,
                pixelAspectRatio: s.sampleAspectRatio.map { "\($0.numerator):\($0.denominator)" },
                rotation: s.kind == .video ? s.rotation : nil,
                sampleRate: s.sampleRate, channels: s.channels, channelLayout: s.channelLayout, language: s.language,
                isDefault: s.disposition.contains(.default), isAttachedPicture: s.disposition.contains(.attachedPicture),
                attachedPictureBytes: s.attachedPicture?.count, metadata: InspectReport.dictionary(s.metadata))
        }
    }

    /// FFmpeg stores tags little-endian: 'avc1' is 0x31637661.
    private static func fourCC(_ tag: UInt32) -> String {
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xff) }
        return bytes.allSatisfy { (0x20..<0x7f).contains($0) } ? String(decoding: bytes, as: UTF8.self) : String(format: "0x%08x", tag)
    }

    private static func dictionary(_ tags: [Tag]) -> [String: String] {
        var result: [String: String] = [:]
        for tag in tags where result[tag.key] == nil { result[tag.key] = tag.value }
        return result
    }

    /// The human-readable form: one header line, then one line per track, tag and chapter.
    var text: String {
        var lines = [file]
        var container = "  container  \(format.isEmpty ? formatName : format)"
        if let size { container += ", \(size) bytes" }
        lines.append(container)
        var timing = "  duration   " + (duration.map { String(format: "%.3f s", $0) } ?? "unknown")
        if let bitRate { timing += String(format: ", %.0f kb/s", Double(bitRate) / 1000) }
        lines.append(timing)
        for t in tracks {
            var parts = ["  track \(t.index + 1)    \(t.type)", t.codec + (t.profile.map { " (\($0))" } ?? "")]
            if let w = t.width, let h = t.height { parts.append("\(w)x\(h)") }
            if let fps = t.frameRate { parts.append(String(format: "%.3g fps", fps)) }
            if let r = t.rotation, r != 0 { parts.append(String(format: "rotated %.0f°", r)) }
            if let rate = t.sampleRate { parts.append("\(rate) Hz") }
            if let layout = t.channelLayout { parts.append(layout) }
            if let language = t.language { parts.append("[\(language)]") }
            if let title = t.metadata["title"], !t.isAttachedPicture { parts.append("“\(title)”") }
            if let d = t.duration { parts.append(String(format: "%.3f s", d)) }
            if t.isAttachedPicture { parts.append("cover art, \(t.attachedPictureBytes ?? 0) bytes") }
            lines.append(parts.joined(separator: "  "))
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            lines.append("  tag        \(key): \(value)")
        }
        for c in chapters {
            lines.append(String(format: "  chapter    %.3f–%.3f  ", c.start, c.end) + (c.title ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
