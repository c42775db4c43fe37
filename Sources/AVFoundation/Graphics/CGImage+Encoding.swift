internal import MediaEngine
import Foundation

extension CGImage {
    /// The image as a PNG file (Avocet's, Linux only: on Apple's platforms use ImageIO's
    /// `CGImageDestination`). Encodes with libavcodec's PNG encoder on the calling thread; lossless,
    /// with straight alpha. Cost grows with width × height; no I/O.
    ///
    /// - Returns: The bytes of a PNG file.
    /// - Throws: An ``AVError`` when FFmpeg has no PNG encoder or the encoder fails.
    public func pngData() throws -> Data {
        try encoded(as: .png)
    }

    /// The image as a JPEG file (Avocet's, Linux only). Alpha is dropped. Encodes with libavcodec's
    /// MJPEG encoder on the calling thread; no I/O.
    ///
    /// - Parameter compressionQuality: From 0 (smallest) to 1 (best), as UIKit's
    ///   `jpegData(compressionQuality:)`.
    /// - Returns: The bytes of a JPEG file.
    /// - Throws: An ``AVError`` when FFmpeg has no MJPEG encoder or the encoder fails.
    public func jpegData(compressionQuality: Double = 0.9) throws -> Data {
        try encoded(as: .jpeg(quality: compressionQuality))
    }

    /// Decodes a PNG or JPEG file into an 8-bit RGBA image (Avocet's, Linux only). Runs on the calling
    /// thread.
    ///
    /// - Parameter data: The bytes of a PNG or JPEG file.
    /// - Returns: The image, with straight alpha.
    /// - Throws: ``AVError/Code-swift.enum/fileFormatNotRecognized`` for other data,
    ///   ``AVError/Code-swift.enum/decodeFailed`` when the file holds no picture, or another
    ///   ``AVError`` when FFmpeg has no decoder for it.
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
