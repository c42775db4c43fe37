import Foundation

extension AVAssetImageGenerator {
    /// Which part of the encoded picture an image shows, and in what shape.
    ///
    /// FFmpeg reports no clean aperture, so Avocet's clean and production apertures are the same: the
    /// whole picture at the track's display size (the pixel aspect ratio applied, as the track's
    /// natural size gives it). Encoded pixels: the picture as coded, one image pixel per coded pixel.
    public struct ApertureMode: RawRepresentable, Hashable, Sendable {
        /// The mode's name.
        public let rawValue: String

        /// A mode from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Both the pixel aspect ratio and the clean aperture applied (the default).
        public static let cleanAperture = ApertureMode(rawValue: "CleanAperture")
        /// The pixel aspect ratio applied, the whole picture.
        public static let productionAperture = ApertureMode(rawValue: "ProductionAperture")
        /// Neither: the pixels as encoded.
        public static let encodedPixels = ApertureMode(rawValue: "EncodedPixels")
    }
}
