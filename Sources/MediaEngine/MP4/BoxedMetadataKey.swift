/// One key of a timed metadata track's key table (QuickTime's `mebx` sample description): the
/// samples' atoms of type `localID` hold values for it.
package struct BoxedMetadataKey: Sendable, Equatable {
    /// The 32-bit atom type the samples use for this key's values.
    package var localID: UInt32
    /// The key's namespace, a four-character code ("mdta" for reverse-DNS QuickTime metadata keys).
    package var namespace: String
    /// The key's bytes ("com.apple.quicktime.location.ISO6709").
    package var key: [UInt8]
    /// The well-known data type of the values (1 UTF-8, 23 big-endian Float32, ...); nil when the key
    /// does not say, or names a type by another namespace.
    package var wellKnownType: UInt32?

    package init(localID: UInt32, namespace: String, key: [UInt8], wellKnownType: UInt32?) {
        self.localID = localID
        self.namespace = namespace
        self.key = key
        self.wellKnownType = wellKnownType
    }

    /// The most keys read from one table.
    static let maximumKeys = 1_000

    /// The keys of a `keys` atom's body: a run of key atoms, each a `keyd` (namespace and key) and
    /// optionally a `dtyp` (data type). Keys without a `keyd`, with local ID 0 (unused) or beyond
    /// `maximumKeys` are left out; a malformed atom ends the table.
    static func keys(inTable body: ArraySlice<UInt8>) -> [BoxedMetadataKey] {
        var keys: [BoxedMetadataKey] = []
        for (id, content) in Atoms.list(in: body) where keys.count < maximumKeys {
            guard id != 0 else { continue }
            var namespace: String?, key: [UInt8] = [], type: UInt32?
            for (kind, field) in Atoms.list(in: content) {
                switch kind {
                case Atoms.fourCC("keyd") where field.count >= 4:
                    namespace = String(decoding: field.prefix(4), as: UTF8.self)
                    key = Array(field.dropFirst(4))
                case Atoms.fourCC("dtyp") where field.count == 8 && Atoms.bigEndian(field.prefix(4)) == 0:
                    type = Atoms.bigEndian(field.suffix(4))
                default:
                    break
                }
            }
            if let namespace { keys.append(BoxedMetadataKey(localID: id, namespace: namespace, key: key, wellKnownType: type)) }
        }
        return keys
    }

    /// The key table of a `stsd` body whose first entry is a `mebx` sample description; nil otherwise.
    ///
    /// Only the first sample description's table is read: a track whose samples point at a later
    /// description (a sample-to-chunk entry's description index above 1) has those samples read with
    /// the first description's keys, so a key whose local ID the later table gives another meaning is
    /// misread, and one only the later table holds is skipped.
    static func keys(inSampleDescriptions stsd: ArraySlice<UInt8>) -> [BoxedMetadataKey]? {
        // Version and flags (4), entry count (4), then the first entry: its size and type, six reserved
        // bytes and the data reference index, then its atoms.
        let entries = stsd.dropFirst(8)
        guard let (kind, entry) = Atoms.list(in: entries).first, kind == Atoms.fourCC("mebx"), entry.count >= 8 else { return nil }
        guard let table = Atoms.list(in: entry.dropFirst(8)).first(where: { $0.0 == Atoms.fourCC("keys") })?.1 else { return [] }
        return keys(inTable: table)
    }
}
