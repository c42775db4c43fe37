internal import MediaEngine
import Foundation

/// Reads a QuickTime timed metadata sample (`'mebx'`): a run of atoms, each typed by the local ID of a
/// key of the track's key table and holding one value of that key, typed by the key's well-known data
/// type. Atoms of no key (padding, "NULL" samples) are skipped; a malformed atom ends the sample.
enum BoxedMetadata {
    static let maximumItems = 1_000

    /// The items of the sample `data`, each at `time` for `duration`. Keys whose bytes are not text in
    /// their key space (`keyText`) are skipped.
    static func items(in data: Data, keys: [CMMetadataKeyTableEntry], time: CMTime, duration: CMTime) -> [AVMetadataItem] {
        var byID: [UInt32: CMMetadataKeyTableEntry] = [:]
        for key in keys where byID[key.localID] == nil { byID[key.localID] = key }
        let bytes = [UInt8](data)
        var items: [AVMetadataItem] = []
        for (id, value) in Atoms.list(in: bytes[...]) where items.count < maximumItems {
            guard let key = byID[id] else { continue }
            let space = AVMetadataKeySpace(rawValue: key.namespace)
            guard let keyText = keyText(key.key, in: space) else { continue }
            var fields = AVMetadataItem.Fields()
            fields.key = MetadataValues.keyObject(keyText, in: space)
            fields.keySpace = space
            fields.commonKey = MetadataMapping.commonKey(forKey: keyText, space: space)
            fields.time = time
            fields.duration = duration
            (fields.value, fields.dataType) = decode(value, type: key.wellKnownType)
            items.append(AVMetadataItem(fields: fields))
        }
        return items
    }

    /// A key's bytes as text: in the key spaces of four-character codes (QuickTime user data `udta`,
    /// iTunes `itsk`) an atom type read as ISO Latin-1 (0xA9 'n' 'a' 'm' is "©nam", which
    /// `MetadataValues.keyObject` turns into its number), elsewhere UTF-8; nil when not UTF-8.
    static func keyText(_ key: Data, in space: AVMetadataKeySpace) -> String? {
        if MetadataValues.fourCharCodeSpaces.contains(space) { return String(data: key, encoding: .isoLatin1) }
        return String(data: key, encoding: .utf8)
    }

    /// A value of one of QuickTime's well-known data types, with Apple's data type identifier; bytes
    /// of another type, or that do not fit theirs, are raw data.
    ///
    /// Text (1 UTF-8, 2 UTF-16), images (13 JPEG, 14 PNG), big-endian integers (21 and 22 signed and
    /// unsigned of 1, 2, 3, 4 or 8 bytes, a three-byte one given as 32 bits; 65, 66, 67 and 74 signed of
    /// exactly 8, 16, 32 and 64 bits; 75, 76, 77 and 78 unsigned ones) and floating point numbers (23
    /// Float32, 24 Float64). Points, dimensions and rectangles of Float32s (70, 71, 72) and affine
    /// transforms of Float64s (79) stay raw data: the data type identifiers Apple gives them, and the
    /// form of their values, are not verified.
    static func decode(_ bytes: ArraySlice<UInt8>, type: UInt32?) -> (any NSCopying & NSObjectProtocol, String) {
        let raw = (Data(bytes) as NSData, MetadataValues.dataTypeRaw)
        switch type {
        case 1?:
            guard let text = String(bytes: bytes, encoding: .utf8) else { return raw }
            return (text as NSString, MetadataValues.dataTypeUTF8)
        case 2?:
            guard let text = String(bytes: bytes, encoding: .utf16BigEndian) else { return raw }
            return (text as NSString, dataTypePrefix + "UTF-16")
        case 13?:
            return (Data(bytes) as NSData, MetadataValues.dataTypeJPEG)
        case 14?:
            return (Data(bytes) as NSData, MetadataValues.dataTypePNG)
        case 21?, 22?:
            return integer(bytes, signed: type == 21) ?? raw
        case 65?, 66?, 67?, 74?, 75?, 76?, 77?, 78?:
            guard let type, bytes.count == fixedSizes[type] else { return raw }
            return integer(bytes, signed: type < 75) ?? raw
        case 23?:
            guard bytes.count == 4 else { return raw }
            return (NSNumber(value: Float(bitPattern: Atoms.bigEndian(bytes))), dataTypePrefix + "float32")
        case 24?:
            guard bytes.count == 8 else { return raw }
            return (NSNumber(value: Double(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })), dataTypePrefix + "float64")
        default:
            return raw
        }
    }

    private static let dataTypePrefix = "com.apple.metadata.datatype."

    /// The byte count of each fixed-size integer type: 65, 66, 67 and 74 signed, 75 to 78 unsigned.
    private static let fixedSizes: [UInt32: Int] = [65: 1, 66: 2, 67: 4, 74: 8, 75: 1, 76: 2, 77: 4, 78: 8]

    /// A big-endian integer of 1, 2, 3, 4 or 8 bytes as a number of its width (three bytes widen to 32
    /// bits) with Apple's identifier ("com.apple.metadata.datatype.int16"); nil for another count.
    private static func integer(_ bytes: ArraySlice<UInt8>, signed: Bool) -> (any NSCopying & NSObjectProtocol, String)? {
        guard [1, 2, 3, 4, 8].contains(bytes.count) else { return nil }
        let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let bits = bytes.count * 8
        if signed {
            // Sign-extend from the value's own width.
            let shift = UInt64(64 - bits)
            let value = Int64(bitPattern: unsigned << shift) >> Int64(shift)
            switch bits {
            case 8: return (NSNumber(value: Int8(truncatingIfNeeded: value)), dataTypePrefix + "int8")
            case 16: return (NSNumber(value: Int16(truncatingIfNeeded: value)), dataTypePrefix + "int16")
            case 24, 32: return (NSNumber(value: Int32(truncatingIfNeeded: value)), dataTypePrefix + "int32")
            default: return (NSNumber(value: value), dataTypePrefix + "int64")
            }
        }
        switch bits {
        case 8: return (NSNumber(value: UInt8(truncatingIfNeeded: unsigned)), dataTypePrefix + "uint8")
        case 16: return (NSNumber(value: UInt16(truncatingIfNeeded: unsigned)), dataTypePrefix + "uint16")
        case 24, 32: return (NSNumber(value: UInt32(truncatingIfNeeded: unsigned)), dataTypePrefix + "uint32")
        default: return (NSNumber(value: unsigned), dataTypePrefix + "uint64")
        }
    }

}
