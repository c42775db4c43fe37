import AVFoundation
import Foundation

/// What `avtool inspect` reports for one file, all of it from the public AVFoundation API; encodes as
/// the `--json` output.
struct InspectReport: Encodable {
    struct Track: Encodable {
        var id: Int32
        var mediaType: String
        var codec: String
        var format: String?
        var enabled: Bool
        var playable: Bool
        var start: Double
        var duration: Double
        var timescale: Int32
        var dataRate: Float
        var language: String?
        var width: Int?
        var height: Int?
        var rotation: Double?
        var frameRate: Float?
        var sampleRate: Double?
        var channels: Int?
        var title: String?
    }

    struct Tag: Encodable {
        var identifier: String
        var commonKey: String?
        var value: String?
        var bytes: Int?
    }

    struct Chapter: Encodable {
        var start: Double
        var end: Double
        var title: String?
    }

    var file: String
    var size: Int64?
    var duration: Double
    var preciseTiming: Bool
    var playable: Bool
    var tracks: [Track]
    var metadata: [Tag]
    var chapters: [Chapter]

    /// Loads everything the report needs: the asset's keys in one `load`, then each track's.
    static func load(file: String) async throws -> InspectReport {
        // Precise timing costs a packet scan only for files whose header merely estimates (VBR MP3).
        let asset = AVURLAsset(url: URL(fileURLWithPath: file), options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        let (duration, precise, playable, tracks, metadata) = try await asset.load(
            .duration, .providesPreciseDurationAndTiming, .isPlayable, .tracks, .metadata)
        var report = InspectReport(
            file: file, size: (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int).flatMap { $0.map(Int64.init) },
            duration: duration.seconds, preciseTiming: precise, playable: playable, tracks: [], metadata: [], chapters: [])
        for track in tracks { report.tracks.append(try await Self.track(track)) }
        for item in metadata { report.metadata.append(try await Self.tag(item)) }
        for group in try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: Locale.preferredLanguages) {
            let title = try await group.items.first?.load(.stringValue) ?? nil
            report.chapters.append(Chapter(start: group.timeRange.start.seconds, end: group.timeRange.end.seconds, title: title))
        }
        return report
    }

    private static func track(_ track: AVAssetTrack) async throws -> Track {
        let (descriptions, enabled, playable, range, rate, language, common) = try await track.load(
            .formatDescriptions, .isEnabled, .isPlayable, .timeRange, .estimatedDataRate, .languageCode, .commonMetadata)
        let description = descriptions.first
        let format = description?.extensions[.formatName]?.propertyListRepresentation as? String
        let title = try await AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierTitle).first?.load(.stringValue) ?? nil
        var result = Track(
            id: track.trackID, mediaType: track.mediaType.rawValue, codec: description?.mediaSubType.description ?? "?",
            format: format, enabled: enabled, playable: playable, start: range.start.seconds, duration: range.duration.seconds,
            timescale: try await track.load(.naturalTimeScale), dataRate: rate, language: language, title: title)
        if track.mediaType == .video {
            let (size, transform, frameRate) = try await track.load(.naturalSize, .preferredTransform, .nominalFrameRate)
            result.width = Int(size.width)
            result.height = Int(size.height)
            var degrees = (atan2(Double(transform.b), Double(transform.a)) * 180 / .pi).rounded()
            if degrees < 0 { degrees += 360 }
            result.rotation = degrees
            result.frameRate = frameRate
        }
        if let asbd = description?.audioStreamBasicDescription {
            result.sampleRate = asbd.mSampleRate
            result.channels = Int(asbd.mChannelsPerFrame)
        }
        return result
    }

    private static func tag(_ item: AVMetadataItem) async throws -> Tag {
        let (text, data) = try await item.load(.stringValue, .dataValue)
        return Tag(identifier: item.identifier?.rawValue ?? "?", commonKey: item.commonKey?.rawValue, value: text, bytes: data?.count)
    }

    /// The human-readable form: the file, then one line per fact, track, tag and chapter.
    var text: String {
        var lines = [file]
        if let size { lines.append("  size       \(size) bytes") }
        lines.append("  duration   " + String(format: "%.3f s", duration) + (preciseTiming ? "" : " (estimated)"))
        for t in tracks {
            let kinds = ["vide": "video", "soun": "audio", "sbtl": "subtitle", "clcp": "closed captions", "meta": "metadata",
                         "tmcd": "timecode", "text": "text"]
            var parts = ["  track \(t.id)    \(kinds[t.mediaType] ?? t.mediaType)", t.codec.trimmingCharacters(in: .whitespaces)]
            if let format = t.format { parts.append(format) }
            if let w = t.width, let h = t.height { parts.append("\(w)x\(h)") }
            if let fps = t.frameRate, fps > 0 { parts.append(String(format: "%.3g fps", fps)) }
            if let r = t.rotation, r != 0 { parts.append(String(format: "rotated %.0f°", r)) }
            if let rate = t.sampleRate { parts.append(String(format: "%.0f Hz", rate)) }
            if let channels = t.channels { parts.append(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch") }
            if let language = t.language { parts.append("[\(language)]") }
            if let title = t.title { parts.append("“\(title)”") }
            if !t.enabled { parts.append("disabled") }
            lines.append(parts.joined(separator: "  "))
        }
        for tag in metadata {
            let value = tag.value ?? tag.bytes.map { "<\($0) bytes>" } ?? ""
            lines.append("  tag        \(tag.identifier): \(value)")
        }
        for c in chapters {
            lines.append(String(format: "  chapter    %.3f–%.3f  ", c.start, c.end) + (c.title ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
