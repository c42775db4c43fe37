internal import MediaEngine
import Foundation

extension CGImage {
    /// The image as a PNG file (Avocet's, Linux only: on Apple's platforms use ImageIO's
    /// `CGImageDestination`). Encodes with libavcodec's PNG encoder on the calling thread; lossless,
    /// with straight alpha. Cost grows with width × height; no I/O.
    public func pngData() throws -> Data {
        try encoded(as: .png)
    }

    /// The image as a JPEG file (Avocet's, Linux only). `compressionQuality` runs from 0 (smallest) to
    /// 1 (best), as UIKit's `jpegData(compressionQuality:)`. Alpha is dropped. Encodes with libavcodec's
    /// MJPEG encoder on the calling thread; no I/O.
    public func jpegData(compressionQuality: Double = 0.9) throws -> Data {
        try encoded(as: .jpeg(quality: compressionQuality))
    }

    /// Decodes a PNG or JPEG file into an 8-bit RGBA image (Avocet's, Linux only). Runs on the calling
    /// thread. Throws `AVError(.fileFormatNotRecognized)` for other data.
    public static func decoded(from data: Data) throws -> CGImage {
        let image = try AVError.converting { try ImageCodec.decode(data) }
        guard let cg = CGImage(rgbaPixels: image.pixels, width: image.width, height: image.height) else {
            throw AVError(.decodeFailed, userInfo: [NSLocalizedDescriptionKey: "The image has no pixels."])
        }
        return cg
    }

    private func encoded(as format: ImageCodec.Format) throws -> Data {
        let image = ImageCodec.RGBAImage(width: width, height: height, pixels: straightRGBA)
        return try AVError.converting { try ImageCodec.encode(image, as: format) }
    }
}
