import ArgumentParser
import AVFoundation
import Foundation

/// What the picture commands share: parsing sizes, the generator's set-up, encoding by file
/// extension, and the progress line.
enum ImageOutput {
    enum Format: String {
        case png
        case jpeg

        /// The format a file name's extension names (.png, .jpg, .jpeg), or nil.
        init?(path: String) {
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            default: return nil
            }
        }

        var fileExtension: String { self == .png ? "png" : "jpg" }
    }

    /// "WxH" (either may be 0, leaving that side free) as a maximum size; nil when malformed.
    static func size(_ text: String) -> CGSize? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0, w <= 16384, h <= 16384, w + h > 0 else {
            return nil
        }
        return CGSize(width: w, height: h)
    }

    /// Encodes and writes `image`; a failure gets its one line and exit status 1.
    static func write(_ image: CGImage, as format: Format, to path: String) throws {
        do {
            let data = format == .png ? try image.pngData() : try image.jpegData(compressionQuality: 0.85)
            // A new file appears whole (written aside, then renamed); a device or pipe is written into.
            var info = stat()
            let special = stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG
            try data.write(to: URL(fileURLWithPath: path), options: special ? [] : .atomic)
        } catch {
            AVTool.complain("\(path): cannot write the image: \(error.localizedDescription)")
            throw ExitCode(1)
        }
    }

    /// A generator set up as a command-line user expects: upright pictures, the size asked for, and
    /// exact pictures or the faster nearest keyframe.
    static func generator(for asset: AVAsset, maximumSize: CGSize?, exact: Bool) -> AVAssetImageGenerator {
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        if let maximumSize { generator.maximumSize = maximumSize }
        if exact {
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
        }
        return generator
    }

    /// Whether standard error is a terminal (progress lines go there only then).
    static var showsProgress: Bool { isatty(STDERR_FILENO) == 1 }

    static func progress(_ done: Int, of total: Int) {
        guard showsProgress else { return }
        try? FileHandle.standardError.write(contentsOf: Data("\rthumbnails: \(done)/\(total)".utf8))
        if done == total { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
    }
}
