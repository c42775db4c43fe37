/// What a segment holds, with Apple's raw values.
public enum AVAssetSegmentType: Int, Sendable {
    /// The initialization segment: 'ftyp' and a 'moov' without samples.
    case initialization = 1
    /// A media segment that stands alone after the initialization segment: one 'moof' and one 'mdat'.
    case separable = 2
}
