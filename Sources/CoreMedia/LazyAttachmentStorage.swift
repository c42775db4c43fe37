import Synchronization

/// A buffer's attachment storage, made on first use by whichever thread comes first: a buffer without
/// attachments (most sample buffers, made one a sample) costs no allocation for them. Held inline in
/// its buffer (a `Mutex` is no object of its own).
struct LazyAttachmentStorage: ~Copyable {
    private let made = Mutex<AttachmentStorage?>(nil)

    var storage: AttachmentStorage {
        made.withLock { made in
            if let made { return made }
            let storage = AttachmentStorage()
            made = storage
            return storage
        }
    }

    /// The storage if it was made; nil otherwise (nothing is made).
    var existing: AttachmentStorage? { made.withLock { $0 } }
}
