import Dispatch
import Foundation
internal import Locking

/// Lets an ``AVURLAsset``'s owner serve its bytes: set a delegate and a queue, and every request for a
/// URL whose scheme Avocet does not load itself (not `file`, `http` or `https`) goes to the delegate,
/// on that queue, one at a time. Obtained from ``AVURLAsset/resourceLoader``; never created directly.
///
/// Set the delegate before loading anything from the asset. With no delegate (or no queue), loads of
/// such an asset fail with ``AVError/Code-swift.enum/failedToLoadMediaData`` whose underlying error is
/// `NSURLErrorUnsupportedURL`.
open class AVAssetResourceLoader: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is guarded by `lock`. The delegate itself is only ever
    // called on its queue, as its contract says.
    private let lock = Locked()
    private weak var storedDelegate: (any AVAssetResourceLoaderDelegate)?
    private var storedQueue: DispatchQueue?
    private var preloads = false
    private var sendsCMCD = false
    /// The asset's URL, for messages.
    let url: URL

    init(url: URL) {
        self.url = url
        super.init()
    }

    /// Sets the delegate and the queue its methods are called on. Requests already made keep going to
    /// the delegate and queue they were made with.
    ///
    /// - Parameters:
    ///   - delegate: The delegate, held weakly as Apple's is; nil for none (later loads then fail).
    ///   - delegateQueue: The queue the delegate's methods are called on, one call at a time; held
    ///     strongly. Nil makes later loads fail, as no delegate does.
    open func setDelegate(_ delegate: (any AVAssetResourceLoaderDelegate)?, queue delegateQueue: DispatchQueue?) {
        lock.withLock {
            storedDelegate = delegate
            storedQueue = delegateQueue
        }
    }

    /// The delegate, if it is still alive (it is not retained).
    open var delegate: (any AVAssetResourceLoaderDelegate)? { lock.withLock { storedDelegate } }

    /// The queue the delegate's methods are called on.
    open var delegateQueue: DispatchQueue? { lock.withLock { storedQueue } }

    /// Whether content keys should be loaded as early as possible. Recorded; Avocet reads no protected
    /// content, so no key is ever requested.
    open var preloadsEligibleContentKeys: Bool {
        get { lock.withLock { preloads } }
        set { lock.withLock { preloads = newValue } }
    }

    /// Whether Common Media Client Data is sent as HTTP headers. Recorded; Avocet sends none.
    open var sendsCommonMediaClientDataAsHTTPHeaders: Bool {
        get { lock.withLock { sendsCMCD } }
        set { lock.withLock { sendsCMCD = newValue } }
    }

    /// The delegate and its queue, read together.
    var route: DelegateRoute? {
        lock.withLock {
            guard let delegate = storedDelegate, let queue = storedQueue else { return nil }
            return DelegateRoute(delegate: delegate, queue: queue)
        }
    }
}

/// A delegate and the queue it is called on. The delegate is held weakly, as the loader holds it: a
/// delegate that keeps its asset must not be kept alive by the asset's requests.
struct DelegateRoute: @unchecked Sendable {
    // @unchecked Sendable: the delegate is only called on `queue`, as AVAssetResourceLoader's contract says.
    weak var delegate: (any AVAssetResourceLoaderDelegate)?
    let queue: DispatchQueue
}
