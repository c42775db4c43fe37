import ArgumentParser
import AVFoundation
import Foundation

struct Thumbnails: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write pictures spread over a movie's timeline, as files or as one contact sheet.",
        discussion: """
            The pictures are taken at the middle of COUNT equal parts of the duration, through \
            AVAssetImageGenerator.images(for:), which keeps one decoder for all of them. With -o DIR \
            they are written as DIR/thumbnail-001.png and so on; with --sheet as one image, a grid in \
            timeline order. A progress line shows on a terminal. A picture that cannot be made leaves \
            its cell dark and the exit status 1.
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(help: "How many pictures (1 to 1000).")
    var count: Int

    @Option(name: .shortAndLong, help: "A directory to write the pictures into (made if missing).")
    var output: String?

    @Option(help: "One contact sheet image to write instead: .png, .jpg or .jpeg.")
    var sheet: String?

    @Option(help: "Format of the files written with -o: png or jpeg.")
    var format = "png"

    @Option(help: "Columns of the contact sheet (default: about the square root of COUNT).")
    var columns: Int?

    @Flag(help: "The pictures showing at those times exactly, not the nearest keyframes.")
    var exact = false

    @Option(name: .customLong("max-size"), help: "Shrink each picture to fit WxH; 0 leaves a side free. Sheets default to 240x0.")
    var maxSize: String?

    /// The format `--format` names ("jpg" counts as jpeg).
    private var fileFormat: ImageOutput.Format? {
        ImageOutput.Format(rawValue: format == "jpg" ? "jpeg" : format)
    }

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("--count must be from 1 to 1000") }
        guard (output == nil) != (sheet == nil) else { throw ValidationError("give either -o DIR or --sheet FILE") }
        if let sheet, ImageOutput.Format(path: sheet) == nil { throw ValidationError("--sheet must name a .png, .jpg or .jpeg file") }
        guard fileFormat != nil else { throw ValidationError("--format must be png or jpeg") }
        if let columns, !(1...100).contains(columns) { throw ValidationError("--columns must be from 1 to 100") }
        if let maxSize, ImageOutput.size(maxSize) == nil { throw ValidationError("--max-size must be WxH, such as 320x240 or 320x0") }
    }

    func run() async throws {
        let asset = AVURLAsset(url: MediaLocation.url(file))
        let duration: CMTime
        do {
            duration = try await asset.load(.duration)
            guard try await !asset.loadTracks(withMediaType: .video).isEmpty else {
                AVTool.complain("\(file): the asset has no video track to make images from")
                throw ExitCode(1)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            AVTool.complain(AVTool.message(error, file: file))
            throw ExitCode(1)
        }
        guard duration.isNumeric, duration.seconds > 0 else {
            AVTool.complain("\(file): the duration is not known, so there is no timeline to spread pictures over")
            throw ExitCode(1)
        }
        let times = (0..<count).map { CMTime(seconds: duration.seconds * (Double($0) + 0.5) / Double(count), preferredTimescale: 90000) }
        let maximum = maxSize.flatMap(ImageOutput.size) ?? (sheet != nil ? CGSize(width: 240, height: 0) : nil)
        let generator = ImageOutput.generator(for: asset, maximumSize: maximum, exact: exact)
        if let output {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                AVTool.complain("\(output): cannot make the directory: \(error.localizedDescription)")
                throw ExitCode(1)
            }
        }
        let fileFormat = self.fileFormat ?? .png
        let digits = String(count).count
        // Pictures are kept only for a sheet; written files are let go at once.
        var images: [CGImage?] = []
        var done = 0
        var failures = 0
        for await result in generator.images(for: times) {
            let index = done
            done += 1
            switch result {
            case .success(requestedTime: _, image: let image, actualTime: _):
                if sheet != nil { images.append(image) }
                if let output {
                    let name = "thumbnail-" + String(repeating: "0", count: max(0, digits - String(index + 1).count)) + "\(index + 1)"
                    try ImageOutput.write(image, as: fileFormat, to: (output as NSString).appendingPathComponent("\(name).\(fileFormat.fileExtension)"))
                }
            case .failure(requestedTime: let time, error: let error):
                if sheet != nil { images.append(nil) }
                failures += 1
                AVTool.complain(AVTool.message(error, file: file) + String(format: " (at %.3f s)", time.seconds))
            }
            ImageOutput.progress(done, of: count)
        }
        if let sheet, let format = ImageOutput.Format(path: sheet) {
            guard let image = ContactSheet.make(images, columns: columns ?? Int(Double(count).squareRoot().rounded(.up))) else {
                AVTool.complain("\(file): no picture could be made")
                throw ExitCode(1)
            }
            try ImageOutput.write(image, as: format, to: sheet)
            print("\(sheet): \(image.width)x\(image.height), \(count - failures) pictures")
        } else if let output {
            print("\(output): \(count - failures) pictures")
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
