/// How colours outside a colour space's gamut are mapped. Recorded on a `CGImage`; Avocet does no
/// colour management, so it changes nothing.
public enum CGColorRenderingIntent: Int32, Sendable {
    /// The colour space's default.
    case defaultIntent = 0
    /// Keeps in-gamut colours exactly, white point included; clips the rest.
    case absoluteColorimetric = 1
    /// Keeps in-gamut colours relative to the white point; clips the rest.
    case relativeColorimetric = 2
    /// Compresses the whole gamut to keep colours' relations.
    case perceptual = 3
    /// Keeps colours saturated.
    case saturation = 4
}
