import Foundation

/// What sample buffers, block buffers and pixel buffers share in the attachment overlay (Apple's, iOS
/// 13): their `attachments`, read and changed in place.
public protocol CMAttachmentBearerProtocol {
    /// The bearer's attachments, by key.
    var attachments: CMAttachmentBearerAttachments { get }
    /// Copies the propagating attachments to `destination`.
    func propagateAttachments<T: CMAttachmentBearerProtocol>(to destination: T)
}

extension CMAttachmentBearerProtocol {
    /// Copies the propagating attachments to `destination`, as ``CMPropagateAttachments(_:destination:)`` does.
    ///
    /// - Parameter destination: The bearer to copy to; the attachments replace its own under the same
    ///   keys, and its other attachments stay.
    public func propagateAttachments<T: CMAttachmentBearerProtocol>(to destination: T) {
        destination.attachments.merge(attachments.propagated, mode: .shouldPropagate)
    }
}

extension CMSampleBuffer: CMAttachmentBearerProtocol {
    /// The buffer's attachments (not its samples': those are ``CMSampleBuffer/sampleAttachments``).
    public var attachments: CMAttachmentBearerAttachments { CMAttachmentBearerAttachments(storage: attachmentStorage) }
}

extension CMBlockBuffer: CMAttachmentBearerProtocol {
    /// The buffer's attachments.
    public var attachments: CMAttachmentBearerAttachments { CMAttachmentBearerAttachments(storage: attachmentStorage) }
}

extension CVBuffer: CMAttachmentBearerProtocol {
    /// The buffer's attachments.
    public var attachments: CMAttachmentBearerAttachments { CMAttachmentBearerAttachments(storage: attachmentStorage) }
}
