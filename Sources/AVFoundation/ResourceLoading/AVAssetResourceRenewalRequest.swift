import Foundation

/// A request to renew a resource (content keys) before it expires. Avocet reads no protected content
/// and never makes one; the type exists so that delegates written for Apple's platforms compile.
open class AVAssetResourceRenewalRequest: AVAssetResourceLoadingRequest, @unchecked Sendable {}
