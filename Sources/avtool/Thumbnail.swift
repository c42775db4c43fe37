import ArgumentParser
import AVFoundation
import Foundation

struct Thumbnail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the picture of a movie at a time as a PNG or JPEG file, through AVAssetImageGenerator.",
        discussion: """
            By default the picture is the keyframe nearest the time (one picture decoded: fast); with \
            --exact it is the picture showing at that time, which may mean decoding a group of pictures. \
            Pictures come out upright (the track's rotation applied). Prints the size and the picture's \
            time; a file that cannot be read gets one line on standard error and exit status 1.
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(help: "The time, in seconds.")
    var at: Double

    @Flag(help: "The picture showing at that time exactly, not the nearest keyframe.")
    var exact = false

    @Option(name: .customLong("max-size"), help: "Shrink to fit WxH, keeping the aspect ratio; 0 leaves a side free (320x0).")
    var maxSize: String?

    @Option(name: .shortAndLong, help: "The image file to write: .png, .jpg or .jpeg.")
    var output: String

    func validate() throws {
        guard at.isFinite else { throw ValidationError("--at must be a number of seconds") }
        guard ImageOutput.Format(path: output) != nil else { throw ValidationError("-o must name a .png, .jpg or .jpeg file") }
        if let maxSize, ImageOutput.size(maxSize) == nil { throw ValidationError("--max-size must be WxH, such as 320x240 or 320x0") }
    }

    func run() async throws {
        guard let format = ImageOutput.Format(path: output) else { throw ExitCode(2) }
        let asset = AVURLAsset(url: MediaLocation.url(file))
        let generator = ImageOutput.generator(for: asset, maximumSize: maxSize.flatMap(ImageOutput.size), exact: exact)
        let image: CGImage, actual: CMTime
        do {
            (image, actual) = try await generator.image(at: CMTime(seconds: at, preferredTimescale: 90000))
        } catch {
            AVTool.complain(AVTool.message(error, file: file))
            throw ExitCode(1)
        }
        try ImageOutput.write(image, as: format, to: output)
        print("\(output): \(image.width)x\(image.height), the picture at \(String(format: "%.3f", actual.seconds)) s")
    }
}
