import Foundation

/// One key of a boxed metadata format description (`'mebx'`): the samples' atoms of type `localID`
/// hold values for the key `key` of `namespace`, of the well-known type `wellKnownType` when stated.
/// Apple keeps these in the description's key table (`CMMetadataFormatDescriptionGetKeyWithLocalID`).
package struct CMMetadataKeyTableEntry: Sendable, Hashable {
    package var localID: UInt32
    /// A four-character namespace, such as "mdta".
    package var namespace: String
    package var key: Data
    /// QuickTime's well-known data type, all big-endian: 1 UTF-8, 2 UTF-16, 13 JPEG, 14 PNG, 21 and 22 a
    /// signed and an unsigned integer of 1, 2, 3, 4 or 8 bytes, 23 Float32, 24 Float64, 65, 66, 67 and
    /// 74 a signed integer of 8, 16, 32 and 64 bits, 75, 76, 77 and 78 an unsigned one, 70 a point, 71
    /// dimensions and 72 a rectangle of Float32s, 79 a 3×3 affine transform of Float64s; nil when not
    /// stated.
    package var wellKnownType: UInt32?

    package init(localID: UInt32, namespace: String, key: Data, wellKnownType: UInt32?) {
        self.localID = localID
        self.namespace = namespace
        self.key = key
        self.wellKnownType = wellKnownType
    }
}
