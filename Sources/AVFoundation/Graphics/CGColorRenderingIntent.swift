/// How colours outside a colour space's gamut are mapped. Recorded on a `CGImage`; Avocet does no
/// colour management, so it changes nothing.
public enum CGColorRenderingIntent: Int32, Sendable {
    case defaultIntent = 0
    case absoluteColorimetric = 1
    case relativeColorimetric = 2
    case perceptual = 3
    case saturation = 4
}
