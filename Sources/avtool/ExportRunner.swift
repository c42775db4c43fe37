import AVFoundation
import Foundation

/// What `splice` and `export` share: preset names, output types, and running an export session with a
/// progress bar on a terminal and one-line errors.
enum ExportRunner {
    /// The preset a short or full name means ("1280x720", "passthrough", "AVAssetExportPresetHighestQuality").
    static func preset(named name: String) -> String? {
        let all = AVAssetExportSession.allExportPresets()
        if all.contains(name) { return name }
        let short: [String: String] = [
            "passthrough": AVAssetExportPresetPassthrough, "low": AVAssetExportPresetLowQuality, "medium": AVAssetExportPresetMediumQuality,
            "highest": AVAssetExportPresetHighestQuality, "hevc": AVAssetExportPresetHEVCHighestQuality, "m4a": AVAssetExportPresetAppleM4A,
        ]
        return short[name.lowercased()] ?? all.first { $0.lowercased() == "avassetexportpreset" + name.lowercased() }
    }

    /// The short names of every preset, for help and errors.
    static let presetNames = "passthrough, low, medium, highest, hevc, 640x480, 960x540, 1280x720, 1920x1080, 3840x2160, " +
        "hevc1920x1080, hevc3840x2160, m4a"

    /// The file type an output path's extension names.
    static func fileType(for path: String) -> AVFileType? {
        switch (path as NSString).pathExtension.lowercased() {
        case "mp4": return .mp4
        case "mov": return .mov
        case "m4v": return .m4v
        case "m4a": return .m4a
        case "mkv": return .mkv
        case "webm": return .webm
        default: return nil
        }
    }

    /// A time range from optional `--from` and `--to` seconds (the whole asset without them).
    static func range(from: Double?, to: Double?) -> CMTimeRange {
        let start = CMTime(seconds: max(0, from ?? 0), preferredTimescale: 90000)
        guard let to else { return CMTimeRange(start: start, duration: .positiveInfinity) }
        return CMTimeRange(start: start, end: CMTime(seconds: to, preferredTimescale: 90000))
    }

    /// Exports `asset` with `preset` to `output`; shows a progress bar on a terminal. Returns the error
    /// message on failure (nil on success).
    static func run(_ asset: AVAsset, preset: String, range: CMTimeRange, to output: String, label: String) async -> String? {
        guard let type = fileType(for: output) else { return "\(output): the output must be a .mp4, .mov, .m4v, .m4a, .mkv or .webm file" }
        guard let session = AVAssetExportSession(asset: asset, presetName: preset) else { return "no preset named \(preset)" }
        session.timeRange = range
        let bar = Task {
            guard ImageOutput.showsProgress else { return }
            while !Task.isCancelled {
                let percent = Int((session.progress * 100).rounded(.down))
                let filled = percent / 5
                let line = "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "] \(percent)%"
                try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
                try? await Task.sleep(nanoseconds: 100_000_000)
            }
        }
        defer { bar.cancel() }
        do {
            try await session.export(to: URL(fileURLWithPath: output), as: type)
            bar.cancel()
            if ImageOutput.showsProgress { try? FileHandle.standardError.write(contentsOf: Data("\r\(label) [\(String(repeating: "#", count: 20))] 100%\n".utf8)) }
            return nil
        } catch {
            bar.cancel()
            if ImageOutput.showsProgress { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
            return AVTool.message(error, file: output)
        }
    }

    /// A one-line description of a written file.
    static func describe(_ output: String) async -> String {
        let asset = AVURLAsset(url: URL(fileURLWithPath: output))
        guard let (duration, tracks) = try? await asset.load(.duration, .tracks) else { return output }
        var parts: [String] = []
        for track in tracks {
            let formats = (try? await track.load(.formatDescriptions)) ?? []
            let codec = formats.first.map { String(describing: $0.mediaSubType).trimmingCharacters(in: .whitespaces) } ?? "?"
            if track.mediaType == .video, let size = try? await track.load(.naturalSize) {
                parts.append("\(codec) \(Int(size.width))x\(Int(size.height))")
            } else {
                parts.append(codec)
            }
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return "\(output): \(String(format: "%.3f", duration.seconds)) s, \(parts.joined(separator: ", ")), \(bytes) bytes"
    }
}
