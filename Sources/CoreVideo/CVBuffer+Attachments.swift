import Foundation

// CoreVideo's attachment functions (Apple's section "CVBuffer attachments"): values by key on a
// buffer, each propagating or not. They share the buffer's attachments with CoreMedia's
// `CMSetAttachment`. Safe from any thread.

/// Attaches `value` under `key`.
///
/// The buffer's attachments are the ones CoreMedia's `CMSetAttachment` sets and reads.
///
/// - Parameters:
///   - buffer: The buffer to attach to.
///   - key: The attachment's key; a value already under it is replaced.
///   - value: The value, kept by the buffer.
///   - attachmentMode: Whether the attachment propagates (see ``CVBufferPropagateAttachments(_:_:)``).
public func CVBufferSetAttachment(_ buffer: CVBuffer, _ key: CFString, _ value: CFTypeRef, _ attachmentMode: CVAttachmentMode) {
    buffer.attachmentStorage[key as String] = AttachmentStorage.Entry(value: value, mode: attachmentMode.rawValue)
}

/// The value under `key` and its mode, unretained (valid while the attachment stays), as Apple's
/// deprecated call gives it; nil when there is none.
///
/// Prefer ``CVBufferCopyAttachment(_:_:_:)``.
///
/// - Parameters:
///   - buffer: The buffer to read.
///   - key: The attachment's key.
///   - attachmentMode: Receives the attachment's mode; nil when not wanted. Left unchanged when there
///     is no attachment under `key`.
/// - Returns: The value, unretained; nil when there is no attachment under `key`.
public func CVBufferGetAttachment(_ buffer: CVBuffer, _ key: CFString,
                                  _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?) -> Unmanaged<CFTypeRef>? {
    guard let entry = buffer.attachmentStorage[key as String] else { return nil }
    attachmentMode?.pointee = CVAttachmentMode(rawValue: entry.mode) ?? .shouldNotPropagate
    // Values set through CVBufferSetAttachment are objects already, kept by the buffer; a value set as
    // a Swift value elsewhere is boxed once and the box kept, so the unretained reference stays valid.
    let object = entry.value as AnyObject
    if !(type(of: entry.value) is AnyClass) {
        buffer.attachmentStorage[key as String] = AttachmentStorage.Entry(value: object, mode: entry.mode)
    }
    return Unmanaged.passUnretained(object)
}

/// The value under `key` and its mode; nil when there is none.
///
/// - Parameters:
///   - buffer: The buffer to read.
///   - key: The attachment's key.
///   - attachmentMode: Receives the attachment's mode; nil when not wanted. Left unchanged when there
///     is no attachment under `key`.
/// - Returns: The value; nil when there is no attachment under `key`.
public func CVBufferCopyAttachment(_ buffer: CVBuffer, _ key: CFString, _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?) -> CFTypeRef? {
    guard let entry = buffer.attachmentStorage[key as String] else { return nil }
    attachmentMode?.pointee = CVAttachmentMode(rawValue: entry.mode) ?? .shouldNotPropagate
    return entry.value as AnyObject
}

/// Removes the attachment under `key`.
public func CVBufferRemoveAttachment(_ buffer: CVBuffer, _ key: CFString) {
    buffer.attachmentStorage[key as String] = nil
}

/// Removes every attachment.
public func CVBufferRemoveAllAttachments(_ buffer: CVBuffer) {
    buffer.attachmentStorage.removeAll()
}

/// The attachments of one mode; nil when there are none.
///
/// - Parameters:
///   - buffer: The buffer to read.
///   - attachmentMode: The mode whose attachments to give.
/// - Returns: A new dictionary of the attachments of `attachmentMode` by key; nil when the buffer has
///   none of that mode.
public func CVBufferCopyAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    let values = buffer.attachmentStorage.all(mode: attachmentMode.rawValue)
    return values.isEmpty ? nil : values as CFDictionary
}

/// The attachments of one mode (Apple's deprecated spelling of ``CVBufferCopyAttachments(_:_:)``).
///
/// - Returns: The attachments of `attachmentMode` by key; nil when the buffer has none of that mode.
public func CVBufferGetAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    CVBufferCopyAttachments(buffer, attachmentMode)
}

/// Attaches every value of `theAttachments` in one mode.
///
/// - Parameters:
///   - buffer: The buffer to attach to.
///   - theAttachments: Values by key; an entry whose key is not a string is skipped. Values already
///     under the same keys are replaced; other attachments stay.
///   - attachmentMode: The mode every value gets.
public func CVBufferSetAttachments(_ buffer: CVBuffer, _ theAttachments: CFDictionary, _ attachmentMode: CVAttachmentMode) {
    for (key, value) in theAttachments {
        guard let name = key as? String else { continue }
        buffer.attachmentStorage[name] = AttachmentStorage.Entry(value: value, mode: attachmentMode.rawValue)
    }
}

/// Copies the propagating attachments of `sourceBuffer` to `destinationBuffer`.
///
/// Attachments with ``CVAttachmentMode/shouldPropagate`` replace those under the same keys in
/// `destinationBuffer`; its other attachments stay.
public func CVBufferPropagateAttachments(_ sourceBuffer: CVBuffer, _ destinationBuffer: CVBuffer) {
    for (key, value) in sourceBuffer.attachmentStorage.all(mode: CVAttachmentMode.shouldPropagate.rawValue) {
        destinationBuffer.attachmentStorage[key] = AttachmentStorage.Entry(value: value, mode: CVAttachmentMode.shouldPropagate.rawValue)
    }
}
