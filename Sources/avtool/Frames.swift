import ArgumentParser
import AVFoundation
import Foundation

struct Frames: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream a movie's decoded pictures as raw pixels or PNG files, through AVAssetReader.",
        discussion: """
            Every picture of the first video track is decoded once, in order, and converted once into \
            the pixel format asked: bgra (8-bit B, G, R, A), rgba, or nv12 (4:2:0, a Y plane then \
            interleaved CbCr, video range). With --every S only the first picture at or after each \
            multiple of S seconds is kept. --format raw writes the kept pictures one after another, \
            rows tightly packed, to -o FILE or to standard output (-o - or no -o); --format png writes \
            DIR/frame-000001.png and so on (bgra or rgba only). A progress line shows on a terminal; \
            --json prints a summary (pictures, size, pixel format, first and last times) as one JSON \
            object on standard output (or standard error when raw pixels go there).
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(help: "Keep the first picture at or after every multiple of this many seconds (default: every picture).")
    var every: Double?

    @Option(help: "raw or png.")
    var format = "raw"

    @Option(name: .customLong("pixel-format"), help: "bgra, rgba or nv12.")
    var pixelFormat = "bgra"

    @Option(help: "Scale each picture to WxH (both sides given).")
    var size: String?

    @Option(help: "Start at this time, in seconds.")
    var start: Double?

    @Option(help: "Read this many seconds.")
    var duration: Double?

    @Option(name: .shortAndLong, help: "The raw output file (- or nothing: standard output), or the PNG directory.")
    var output: String?

    @Flag(help: "Print a JSON summary.")
    var json = false

    private var osType: OSType? {
        switch pixelFormat {
        case "bgra": return kCVPixelFormatType_32BGRA
        case "rgba": return kCVPixelFormatType_32RGBA
        case "nv12": return kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        default: return nil
        }
    }

    private var scaled: (width: Int, height: Int)? {
        guard let size, let parsed = ImageOutput.size(size), parsed.width >= 2, parsed.height >= 2 else { return nil }
        return (Int(parsed.width), Int(parsed.height))
    }

    func validate() throws {
        guard format == "raw" || format == "png" else { throw ValidationError("--format must be raw or png") }
        guard osType != nil else { throw ValidationError("--pixel-format must be bgra, rgba or nv12") }
        if format == "png" {
            guard pixelFormat != "nv12" else { throw ValidationError("--format png takes bgra or rgba pixels") }
            guard let output, output != "-" else { throw ValidationError("--format png needs -o DIR") }
        }
        if let every { guard every > 0, every.isFinite else { throw ValidationError("--every must be a positive number of seconds") } }
        if let start { guard start >= 0, start.isFinite else { throw ValidationError("--start must be zero or more seconds") } }
        if let duration { guard duration > 0, duration.isFinite else { throw ValidationError("--duration must be a positive number of seconds") } }
        if size != nil, scaled == nil { throw ValidationError("--size must be WxH with both sides at least 2, such as 640x360") }
    }

    func run() async throws {
        let asset = AVURLAsset(url: MediaLocation.url(file))
        let track: AVAssetTrack
        let length: CMTime
        do {
            guard let first = try await asset.loadTracks(withMediaType: .video).first else {
                AVTool.complain("\(file): the asset has no video track")
                throw ExitCode(1)
            }
            track = first
            length = try await asset.load(.duration)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            AVTool.complain(AVTool.message(error, file: file))
            throw ExitCode(1)
        }
        var settings: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: osType ?? kCVPixelFormatType_32BGRA]
        if let scaled {
            settings[kCVPixelBufferWidthKey as String] = scaled.width
            settings[kCVPixelBufferHeightKey as String] = scaled.height
        }
        let reader = try AVAssetReader(asset: asset)
        let pictures = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
        reader.add(pictures)
        let from = CMTime(seconds: start ?? 0, preferredTimescale: 90_000)
        reader.timeRange = CMTimeRange(start: from, duration: duration.map { CMTime(seconds: $0, preferredTimescale: 90_000) } ?? .positiveInfinity)
        guard reader.startReading() else {
            AVTool.complain(AVTool.message(reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        let sink = try FrameSink(format: format, output: output)
        let total = length.isNumeric ? (duration ?? max(0, length.seconds - (start ?? 0))) : nil
        var kept = 0
        var next = start ?? 0
        var summary = Summary(pixelFormat: pixelFormat)
        for try await buffer in pictures.sampleBuffers {
            let time = buffer.presentationTimeStamp.seconds
            if let every {
                guard time + 1e-9 >= next else { continue }
                while next <= time + 1e-9 { next += every }
            }
            guard let image = buffer.imageBuffer else { continue }
            kept += 1
            try sink.write(image, number: kept)
            summary.add(image, at: time)
            if let total, total > 0, ImageOutput.showsProgress {
                try? FileHandle.standardError.write(contentsOf: Data(String(format: "\rframes: %d pictures, %3.0f%%", kept, min(100, (time - (start ?? 0)) / total * 100)).utf8))
            }
        }
        if ImageOutput.showsProgress { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        try sink.close()
        guard reader.status == .completed else {
            AVTool.complain(AVTool.message(reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        if json {
            let text = summary.json(file: file)
            if sink.writesToStandardOutput { try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8)) } else { print(text) }
        } else if !sink.writesToStandardOutput {
            print("\(output ?? "-"): \(kept) pictures")
        }
    }

    /// What the pictures were: count, size, the first and last times.
    struct Summary {
        let pixelFormat: String
        var count = 0
        var width = 0, height = 0
        var first: Double?, last: Double?

        mutating func add(_ image: CVPixelBuffer, at time: Double) {
            count += 1
            (width, height) = (CVPixelBufferGetWidth(image), CVPixelBufferGetHeight(image))
            first = first ?? time
            last = time
        }

        func json(file: String) -> String {
            let object: [String: Any] = ["file": file, "pictures": count, "width": width, "height": height, "pixelFormat": pixelFormat,
                                         "firstTime": first ?? NSNull(), "lastTime": last ?? NSNull()]
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
            return String(decoding: data, as: UTF8.self)
        }
    }
}

/// Where `avtool frames` puts pictures: raw rows to a file or standard output, or PNG files.
final class FrameSink {
    private let handle: FileHandle?
    private let directory: String?
    let writesToStandardOutput: Bool

    init(format: String, output: String?) throws {
        if format == "png", let output {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                AVTool.complain("\(output): cannot make the directory: \(error.localizedDescription)")
                throw ExitCode(1)
            }
            (handle, directory, writesToStandardOutput) = (nil, output, false)
        } else if let output, output != "-" {
            guard let opened = AVTool.openForWriting(output) else {
                AVTool.complain("\(output): cannot write the file")
                throw ExitCode(1)
            }
            (handle, directory, writesToStandardOutput) = (opened, nil, false)
        } else {
            (handle, directory, writesToStandardOutput) = (FileHandle.standardOutput, nil, true)
        }
    }

    /// Writes one picture: its planes' rows without padding, or a PNG file.
    func write(_ image: CVPixelBuffer, number: Int) throws {
        CVPixelBufferLockBaseAddress(image, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(image, .readOnly) }
        var bytes = Data()
        let planes = max(1, CVPixelBufferGetPlaneCount(image))
        for plane in 0..<planes {
            let planar = CVPixelBufferIsPlanar(image)
            guard let base = planar ? CVPixelBufferGetBaseAddressOfPlane(image, plane) : CVPixelBufferGetBaseAddress(image) else { continue }
            let rows = planar ? CVPixelBufferGetHeightOfPlane(image, plane) : CVPixelBufferGetHeight(image)
            let stride = planar ? CVPixelBufferGetBytesPerRowOfPlane(image, plane) : CVPixelBufferGetBytesPerRow(image)
            let width = planar ? CVPixelBufferGetWidthOfPlane(image, plane) * (plane == 0 ? 1 : 2) : CVPixelBufferGetWidth(image) * 4
            for row in 0..<rows { bytes.append(base.advanced(by: row * stride).assumingMemoryBound(to: UInt8.self), count: width) }
        }
        if let directory {
            var rgba = bytes
            if CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_32BGRA {
                rgba.withUnsafeMutableBytes { raw in
                    for i in stride(from: 0, to: raw.count - 3, by: 4) { raw.swapAt(i, i + 2) }
                }
            }
            guard let provider = CGDataProvider(data: rgba), let space = CGColorSpace(name: CGColorSpace.sRGB),
                  let picture = CGImage(width: CVPixelBufferGetWidth(image), height: CVPixelBufferGetHeight(image), bitsPerComponent: 8,
                                        bitsPerPixel: 32, bytesPerRow: CVPixelBufferGetWidth(image) * 4, space: space,
                                        bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipLast.rawValue), provider: provider,
                                        decode: nil, shouldInterpolate: true, intent: .defaultIntent) else {
                AVTool.complain("cannot make picture \(number) into an image")
                throw ExitCode(1)
            }
            let name = String(format: "frame-%06d.png", number)
            try ImageOutput.write(picture, as: .png, to: (directory as NSString).appendingPathComponent(name))
        } else if let handle {
            do {
                try handle.write(contentsOf: bytes)
            } catch {
                AVTool.complain("cannot write the pictures: \(error.localizedDescription)")
                throw ExitCode(1)
            }
        }
    }

    func close() throws {
        if let handle, !writesToStandardOutput { try handle.close() }
    }
}
