import Foundation

/// One key of a boxed metadata format description (`'mebx'`): the samples' atoms of type `localID`
/// hold values for the key `key` of `namespace`, of the well-known type `wellKnownType` when stated.
/// Apple keeps these in the description's key table (`CMMetadataFormatDescriptionGetKeyWithLocalID`).
package struct CMMetadataKeyTableEntry: Sendable, Hashable {
    package var localID: UInt32
    /// A four-character namespace, such as "mdta".
    package var namespace: String
    package var key: Data
    /// QuickTime's well-known data type (1 UTF-8, 2 UTF-16, 13 JPEG, 14 PNG, 21 signed integer,
    /// 22 unsigned integer, 23 Float32, 24 Float64, all big-endian); nil when not stated.
    package var wellKnownType: UInt32?

    package init(localID: UInt32, namespace: String, key: Data, wellKnownType: UInt32?) {
        self.localID = localID
        self.namespace = namespace
        self.key = key
        self.wellKnownType = wellKnownType
    }
}
