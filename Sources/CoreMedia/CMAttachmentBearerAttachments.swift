import Foundation

/// A bearer's attachments: values by key, each propagating to buffers made from the bearer or not.
/// Setting through a subscript changes the bearer's own (the overlay's
/// ``CMAttachmentBearerProtocol/attachments`` is a view).
public struct CMAttachmentBearerAttachments {
    let storage: AttachmentStorage

    /// Whether an attachment propagates.
    public enum Mode: CMAttachmentMode, Sendable {
        /// Stays with its bearer.
        case shouldNotPropagate = 0
        /// Copied to buffers made from its bearer.
        case shouldPropagate = 1
    }

    /// An attachment's value with its mode.
    public enum Value {
        /// A value that stays with its bearer.
        case shouldNotPropagate(Any)
        /// A value copied to buffers made from its bearer.
        case shouldPropagate(Any)

        /// The value.
        public var value: Any {
            switch self {
            case .shouldNotPropagate(let value), .shouldPropagate(let value): value
            }
        }

        /// The mode.
        public var mode: Mode {
            switch self {
            case .shouldNotPropagate: .shouldNotPropagate
            case .shouldPropagate: .shouldPropagate
            }
        }
    }

    /// The attachment under `key`; setting nil removes it.
    public subscript(key: String) -> Value? {
        get {
            guard let entry = storage[key] else { return nil }
            return entry.mode == kCMAttachmentMode_ShouldPropagate ? .shouldPropagate(entry.value) : .shouldNotPropagate(entry.value)
        }
        nonmutating set {
            storage[key] = newValue.map { AttachmentStorage.Entry(value: $0.value, mode: $0.mode.rawValue) }
        }
    }

    /// The attachment under a sample buffer's attachment key (``CMSampleBuffer/AttachmentKey``); setting
    /// nil removes it.
    public subscript(key: CMSampleBuffer.AttachmentKey) -> Value? {
        get { self[key.rawValue as String] }
        nonmutating set { self[key.rawValue as String] = newValue }
    }

    /// Removes every attachment.
    public func removeAll() { storage.removeAll() }

    /// The attachments that propagate.
    public var propagated: [String: Any] { storage.all(mode: kCMAttachmentMode_ShouldPropagate) }

    /// The attachments that do not propagate.
    public var nonPropagated: [String: Any] { storage.all(mode: kCMAttachmentMode_ShouldNotPropagate) }

    /// Adds (or replaces) `attachments` in one mode.
    ///
    /// - Parameters:
    ///   - attachments: Values by key; they replace the values under the same keys. Other attachments
    ///     stay.
    ///   - mode: The mode every value gets.
    public func merge(_ attachments: [String: Any], mode: Mode) {
        for (key, value) in attachments { storage[key] = AttachmentStorage.Entry(value: value, mode: mode.rawValue) }
    }
}
