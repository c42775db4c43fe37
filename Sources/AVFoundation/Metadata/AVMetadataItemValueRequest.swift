import Foundation

/// A request for the value of a metadata item made with
/// ``AVMetadataItem/init(propertiesOf:valueLoadingHandler:)``: the item's value-loading handler gets one
/// when the value is first loaded, and answers it once with ``respond(value:)`` or ``respond(error:)``.
///
/// The first answer counts; later ones are ignored. A request let go without an answer fails the load
/// (with `AVError.Code.failedToLoadMediaData`), so no one waits for it forever. Safe from any thread.
open class AVMetadataItemValueRequest: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the item reference is set once; the load guards itself.
    /// The item whose value is asked for (not retained).
    open private(set) weak var metadataItem: AVMetadataItem?
    private let load: MetadataValueLoad

    init(metadataItem: AVMetadataItem, load: MetadataValueLoad) {
        self.metadataItem = metadataItem
        self.load = load
        super.init()
    }

    deinit {
        load.finish(.failure(AVError(.failedToLoadMediaData, userInfo: [
            NSLocalizedDescriptionKey: "The metadata item's value-loading handler let go of its request without answering it.",
        ])))
    }

    /// Gives the item its value: a string, number, date or data object, as a file's items hold.
    ///
    /// - Parameter value: The value; the item's ``AVMetadataItem/stringValue`` and the other typed forms
    ///   convert it as they convert any item's.
    open func respond(value: any NSCopying & NSObjectProtocol) {
        load.finish(.success(value))
    }

    /// Fails the load of the item's value with `error`; loads of the value throw it.
    ///
    /// - Parameter error: Why the value cannot be had.
    open func respond(error: any Error) {
        load.finish(.failure(error))
    }
}
