import Foundation

// CoreMedia's attachment API, on sample buffers, block buffers and pixel buffers: values by key, each
// propagating to buffers made from its bearer or not. Calls on any other object do nothing, as
// Apple's do on a CF object that bears no attachments.

/// Any object that may bear attachments (a ``CMSampleBuffer``, ``CMBlockBuffer`` or `CVBuffer`).
public typealias CMAttachmentBearer = AnyObject
/// Whether an attachment propagates to buffers made from its bearer.
public typealias CMAttachmentMode = UInt32
/// Stays with its bearer.
public let kCMAttachmentMode_ShouldNotPropagate: CMAttachmentMode = 0
/// Copied to buffers made from its bearer (copies, references).
public let kCMAttachmentMode_ShouldPropagate: CMAttachmentMode = 1

/// The attachment storage of an object that bears attachments; nil for any other object. For a read
/// (`creating` false), nil too where a sample or block buffer has none yet: such buffers make their
/// storage only when an attachment is set.
func attachmentStorage(_ target: CMAttachmentBearer, creating: Bool = true) -> AttachmentStorage? {
    switch target {
    case let sample as CMSampleBuffer: creating ? sample.attachmentStorage : sample.existingAttachments
    case let block as CMBlockBuffer: creating ? block.attachmentStorage : block.existingAttachments
    case let pixels as CVBuffer: pixels.attachmentStorage
    default: nil
    }
}

/// Attaches `value` under `key` (nil removes it), propagating or not.
///
/// - Parameters:
///   - target: A ``CMSampleBuffer``, ``CMBlockBuffer`` or `CVBuffer`; the call does nothing on any
///     other object.
///   - key: The attachment's key; a value already under it is replaced.
///   - value: The value, kept by the bearer; nil removes the attachment.
///   - attachmentMode: ``kCMAttachmentMode_ShouldPropagate`` to have the attachment copied to buffers
///     made from `target`, else ``kCMAttachmentMode_ShouldNotPropagate``.
public func CMSetAttachment(_ target: CMAttachmentBearer, key: CFString, value: Any?, attachmentMode: CMAttachmentMode) {
    attachmentStorage(target)?[key as String] = value.map { AttachmentStorage.Entry(value: $0, mode: attachmentMode) }
}

/// The value attached under `key`, and its mode through `attachmentModeOut`; nil when there is none.
///
/// - Parameters:
///   - target: The bearer to read.
///   - key: The attachment's key.
///   - attachmentModeOut: Receives the attachment's mode; nil when not wanted. Left unchanged when
///     there is no attachment under `key`.
/// - Returns: The value; nil when there is no attachment under `key`, or `target` bears no
///   attachments.
public func CMGetAttachment(_ target: CMAttachmentBearer, key: CFString, attachmentModeOut: UnsafeMutablePointer<CMAttachmentMode>?) -> Any? {
    guard let entry = attachmentStorage(target, creating: false)?[key as String] else { return nil }
    attachmentModeOut?.pointee = entry.mode
    return entry.value
}

/// Removes the attachment under `key`.
public func CMRemoveAttachment(_ target: CMAttachmentBearer, key: CFString) {
    attachmentStorage(target)?[key as String] = nil
}

/// Removes every attachment.
public func CMRemoveAllAttachments(_ target: CMAttachmentBearer) {
    attachmentStorage(target)?.removeAll()
}

/// The attachments of one mode, as a dictionary; nil for an object that bears none.
///
/// - Parameters:
///   - allocator: Ignored.
///   - target: The bearer to read.
///   - attachmentMode: The mode whose attachments to give.
/// - Returns: A new dictionary of the attachments of `attachmentMode` by key, empty when there are
///   none; nil when `target` is not a ``CMSampleBuffer``, ``CMBlockBuffer`` or `CVBuffer`.
public func CMCopyDictionaryOfAttachments(allocator: CFAllocator?, target: CMAttachmentBearer, attachmentMode: CMAttachmentMode) -> CFDictionary? {
    attachmentStorage(target).map { $0.all(mode: attachmentMode) as CFDictionary }
}

/// Attaches every value of `theAttachments` in one mode.
///
/// - Parameters:
///   - target: The bearer to attach to; the call does nothing on an object that bears no attachments.
///   - theAttachments: Values by key; an entry whose key is not a string is skipped. Values already
///     under the same keys are replaced; other attachments stay.
///   - attachmentMode: The mode every value gets.
public func CMSetAttachments(_ target: CMAttachmentBearer, attachments theAttachments: CFDictionary, attachmentMode: CMAttachmentMode) {
    guard let storage = attachmentStorage(target) else { return }
    for (key, value) in theAttachments {
        guard let name = (key as? String) ?? (key as? NSString).map({ $0 as String }) else { continue }
        storage[name] = AttachmentStorage.Entry(value: value, mode: attachmentMode)
    }
}

/// Copies the propagating attachments of `source` to `destination`.
///
/// Attachments with ``kCMAttachmentMode_ShouldPropagate`` replace those under the same keys in
/// `destination`; its other attachments stay. Nothing happens unless both bear attachments.
public func CMPropagateAttachments(_ source: CMAttachmentBearer, destination: CMAttachmentBearer) {
    guard let from = attachmentStorage(source), let to = attachmentStorage(destination) else { return }
    for (key, value) in from.all(mode: kCMAttachmentMode_ShouldPropagate) {
        to[key] = AttachmentStorage.Entry(value: value, mode: kCMAttachmentMode_ShouldPropagate)
    }
}
