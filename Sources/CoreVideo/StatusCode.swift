import Foundation

/// A status of the C-style calls (`OSStatus`, `CVReturn`; 0 is success) as a Swift error inside
/// CoreVideo and CoreMedia, and as the `NSOSStatusErrorDomain` NSError their Swift overlays throw.
package struct StatusCode: Error, Sendable {
    package let status: Int32

    package init(_ status: Int32) { self.status = status }

    /// The NSError the overlays throw: `NSOSStatusErrorDomain`, the status as its code.
    package var nsError: NSError { NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }

    /// Throws the overlay's NSError for a failing status.
    package static func check(_ status: Int32) throws {
        if status != 0 { throw StatusCode(status).nsError }
    }
}
