import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an ``AVAssetResourceLoader``'s delegate implements to serve an asset's bytes itself: for URLs
/// with a scheme Avocet does not load (a custom scheme), every request for content information and
/// bytes comes here.
///
/// Apple declares every method `optional`; here each has a default, so a conformer implements only
/// what it needs, as on Apple's platforms. Every method is called on the loader's delegate queue, one
/// call at a time.
public protocol AVAssetResourceLoaderDelegate: NSObjectProtocol {
    /// Whether the delegate will load the resource `loadingRequest` asks for. Default: false.
    ///
    /// - Parameters:
    ///   - resourceLoader: The asset's loader.
    ///   - loadingRequest: What the asset asks for: content information, a range of bytes, or both.
    /// - Returns: True after finishing the request, or to finish it later (keep the request until
    ///   then, and end it with ``AVAssetResourceLoadingRequest/finishLoading()`` or
    ///   ``AVAssetResourceLoadingRequest/finishLoading(with:)``); false fails the load.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool

    /// Whether the delegate will renew a resource (content keys). Avocet never asks for renewal.
    /// Default: false.
    ///
    /// - Parameters:
    ///   - resourceLoader: The asset's loader.
    ///   - renewalRequest: The renewal asked for.
    /// - Returns: True to renew the resource; false otherwise.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForRenewalOfRequestedResource renewalRequest: AVAssetResourceRenewalRequest) -> Bool

    /// The asset no longer wants `loadingRequest` (its load was cancelled, or it read elsewhere):
    /// stop working on it. Its ``AVAssetResourceLoadingRequest/isCancelled`` is true already. Default:
    /// does nothing.
    ///
    /// - Parameters:
    ///   - resourceLoader: The asset's loader.
    ///   - loadingRequest: A request the delegate kept; anything done with it now is ignored.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest)

    /// Whether the delegate answers an authentication challenge. Avocet raises none. Default: false.
    ///
    /// - Parameters:
    ///   - resourceLoader: The asset's loader.
    ///   - authenticationChallenge: The challenge.
    /// - Returns: True when the delegate answers it.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForResponseTo authenticationChallenge: URLAuthenticationChallenge) -> Bool

    /// An authentication challenge was cancelled. Default: does nothing.
    ///
    /// - Parameters:
    ///   - resourceLoader: The asset's loader.
    ///   - authenticationChallenge: The challenge no longer wanted.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel authenticationChallenge: URLAuthenticationChallenge)
}

extension AVAssetResourceLoaderDelegate {
    /// Returns false: the delegate loads nothing.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        false
    }

    /// Returns false: the delegate renews nothing.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForRenewalOfRequestedResource renewalRequest: AVAssetResourceRenewalRequest) -> Bool {
        false
    }

    /// Does nothing.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {}

    /// Returns false: the delegate answers no challenge.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForResponseTo authenticationChallenge: URLAuthenticationChallenge) -> Bool {
        false
    }

    /// Does nothing.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel authenticationChallenge: URLAuthenticationChallenge) {}
}
