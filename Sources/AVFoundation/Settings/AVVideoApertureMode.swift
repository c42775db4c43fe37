/// Which part of a picture counts as its size, as Apple's.
public struct AVVideoApertureMode: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The clean aperture: the picture without its edge processing region.
    public static let cleanAperture = AVVideoApertureMode(rawValue: "CleanAperture")
    /// The production aperture: the whole picture, at its pixel aspect ratio.
    public static let productionAperture = AVVideoApertureMode(rawValue: "ProductionAperture")
    /// The encoded pixels, as stored.
    public static let encodedPixels = AVVideoApertureMode(rawValue: "EncodedPixels")
}
