import Foundation

/// Reads a QuickTime timed metadata sample (`'mebx'`): a run of atoms, each typed by the local ID of a
/// key of the track's key table and holding one value of that key, typed by the key's well-known data
/// type. Atoms of no key (padding, "NULL" samples) are skipped; a malformed atom ends the sample.
enum BoxedMetadata {
    static let maximumItems = 1_000

    /// The items of the sample `data`, each at `time` for `duration`.
    static func items(in data: Data, keys: [CMMetadataKeyTableEntry], time: CMTime, duration: CMTime) -> [AVMetadataItem] {
        var byID: [UInt32: CMMetadataKeyTableEntry] = [:]
        for key in keys where byID[key.localID] == nil { byID[key.localID] = key }
        let bytes = [UInt8](data)
        var items: [AVMetadataItem] = []
        var at = 0
        while bytes.count - at >= 8, items.count < maximumItems {
            let size = Int(bigEndian(bytes[at..<at + 4]))
            guard size >= 8, size <= bytes.count - at else { break }
            let id = bigEndian(bytes[at + 4..<at + 8])
            let value = bytes[(at + 8)..<(at + size)]
            at += size
            guard let key = byID[id], let keyText = String(data: key.key, encoding: .utf8) else { continue }
            let space = AVMetadataKeySpace(rawValue: key.namespace)
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

    /// A value of one of QuickTime's well-known data types, with Apple's data type identifier; bytes
    /// of another type, or that do not fit theirs, are raw data.
    static func decode(_ bytes: ArraySlice<UInt8>, type: UInt32?) -> (any NSCopying & NSObjectProtocol, String) {
        let raw = (Data(bytes) as NSData, MetadataValues.dataTypeRaw)
        let prefix = "com.apple.metadata.datatype."
        switch type {
        case 1?:
            guard let text = String(bytes: bytes, encoding: .utf8) else { return raw }
            return (text as NSString, MetadataValues.dataTypeUTF8)
        case 2?:
            guard let text = String(bytes: bytes, encoding: .utf16BigEndian) else { return raw }
            return (text as NSString, prefix + "UTF-16")
        case 13?:
            return (Data(bytes) as NSData, MetadataValues.dataTypeJPEG)
        case 14?:
            return (Data(bytes) as NSData, MetadataValues.dataTypePNG)
        case 21?, 22?:
            let signed = type == 21
            guard [1, 2, 4, 8].contains(bytes.count) else { return raw }
            let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let bits = bytes.count * 8
            if signed {
                // Sign-extend from the value's own width.
                let shift = UInt64(64 - bits)
                let value = Int64(bitPattern: unsigned << shift) >> Int64(shift)
                return (NSNumber(value: value), prefix + "int\(bits)")
            }
            return (NSNumber(value: unsigned), prefix + "uint\(bits)")
        case 23?:
            guard bytes.count == 4 else { return raw }
            return (NSNumber(value: Float(bitPattern: UInt32(bigEndian(bytes)))), prefix + "float32")
        case 24?:
            guard bytes.count == 8 else { return raw }
            return (NSNumber(value: Double(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })), prefix + "float64")
        default:
            return raw
        }
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
}
