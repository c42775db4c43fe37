internal import MediaEngine
import Foundation

/// What the writing layer shares with every writer of files (`AVAssetWriter`, the export session): the
/// container a file type is written as, and file tags from metadata items.
enum OutputFiles {
    /// The container `fileType` is written as; nil for a type Avocet does not write.
    static func container(for fileType: AVFileType) -> OutputContainer? {
        switch fileType {
        case .mov: return .mov
        case .mp4: return .mp4
        case .m4v: return .m4v
        case .m4a: return .m4a
        case .mkv: return .matroska
        case .webm: return .webm
        default: return nil
        }
    }

    /// File tags for `container`, in its own key space (see `MetadataMapping.tags(for:space:)`), from
    /// the items `filter` lets through.
    static func metadataTags(_ items: [AVMetadataItem], filter: AVMetadataItemFilter?, container: OutputContainer) -> [(key: String, value: String)] {
        MetadataMapping.tags(for: filter?.filtered(items) ?? items, space: MetadataMapping.keySpace(writing: container))
    }

    /// A transform as QuickTime's display matrix (16.16 fixed point, the last column 2.30), its
    /// translation scaled with the picture.
    static func displayMatrix(_ t: CGAffineTransform, scale: CGFloat) -> [Int32]? {
        guard t != .identity, [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite) else { return nil }
        // 16.16 fixed point holds -32768 to 32767.99998.
        func fixed(_ v: CGFloat) -> Int32 { Int32((max(-32768, min(32767.99998, Double(v))) * 65536).rounded()) }
        return [fixed(t.a), fixed(t.b), 0, fixed(t.c), fixed(t.d), 0, fixed(t.tx * scale), fixed(t.ty * scale), 1 << 30]
    }
}
