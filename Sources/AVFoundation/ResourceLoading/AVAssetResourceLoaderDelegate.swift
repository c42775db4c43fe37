import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an `AVAssetResourceLoader`'s delegate implements to serve an asset's bytes itself: for URLs
/// with a scheme Avocet does not load (a custom scheme), every request for content information and
/// bytes comes here.
///
/// Apple declares every method `optional`; here each has a default, so a conformer implements only
/// what it needs, as on Apple's platforms. Every method is called on the loader's delegate queue, one
/// call at a time.
public protocol AVAssetResourceLoaderDelegate: NSObjectProtocol {
    /// Whether the delegate will load the resource `loadingRequest` asks for. Return true after
    /// finishing it or to finish it later (keep the request until then); false fails the load.
    /// Default: false.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool

    /// Whether the delegate will renew a resource (content keys). Avocet never asks for renewal.
    /// Default: false.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForRenewalOfRequestedResource renewalRequest: AVAssetResourceRenewalRequest) -> Bool

    /// The asset no longer wants `loadingRequest` (its load was cancelled, or it read elsewhere):
    /// stop working on it. Its `isCancelled` is true already. Default: does nothing.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest)

    /// Whether the delegate answers an authentication challenge. Avocet raises none. Default: false.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForResponseTo authenticationChallenge: URLAuthenticationChallenge) -> Bool

    /// An authentication challenge was cancelled. Default: does nothing.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel authenticationChallenge: URLAuthenticationChallenge)
}

extension AVAssetResourceLoaderDelegate {
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        false
    }

    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForRenewalOfRequestedResource renewalRequest: AVAssetResourceRenewalRequest) -> Bool {
        false
    }

    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {}

    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForResponseTo authenticationChallenge: URLAuthenticationChallenge) -> Bool {
        false
    }

    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel authenticationChallenge: URLAuthenticationChallenge) {}
}
