import Foundation

extension AVAssetImageGenerator {
    /// How one request of `generateCGImagesAsynchronously(forTimes:completionHandler:)` ended.
    public enum Result: Int, Sendable {
        case succeeded = 0
        case failed = 1
        case cancelled = 2
    }
}

/// The block `generateCGImagesAsynchronously(forTimes:completionHandler:)` calls once per requested
/// time: the requested time, the image (nil unless it succeeded), the image's actual time (`.invalid`
/// unless it succeeded), how the request ended, and the error when it failed.
public typealias AVAssetImageGeneratorCompletionHandler =
    @Sendable (CMTime, CGImage?, CMTime, AVAssetImageGenerator.Result, (any Error)?) -> Void
