import Foundation
import Synchronization

/// The attachments of a buffer (a pixel buffer, a block buffer, a sample buffer): values by key, each
/// with whether it propagates to buffers made from this one. Safe from any thread.
package final class AttachmentStorage: Sendable {
    /// One attachment.
    package struct Entry: @unchecked Sendable {
        // @unchecked Sendable: an attachment's value is the caller's to share, as with Apple's CF
        // attachments; the storage only keeps it behind its lock.
        package var value: Any
        /// 1: copied to buffers made from this one (`kCMAttachmentMode_ShouldPropagate`); 0: not.
        package var mode: UInt32

        package init(value: Any, mode: UInt32) {
            self.value = value
            self.mode = mode
        }
    }

    private let table = Mutex<[String: Entry]>([:])

    package init() {}

    package subscript(key: String) -> Entry? {
        get { table.withLock { $0[key] } }
        set { table.withLock { $0[key] = newValue } }
    }

    package func removeAll() {
        table.withLock { $0 = [:] }
    }

    /// Every attachment of `mode`, as plain values.
    package func all(mode: UInt32) -> [String: Any] {
        table.withLock { t in t.filter { $0.value.mode == mode }.mapValues(\.value) }
    }
}
