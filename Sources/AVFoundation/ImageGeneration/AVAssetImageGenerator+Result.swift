import Foundation

extension AVAssetImageGenerator {
    /// How one request of
    /// ``AVAssetImageGenerator/generateCGImagesAsynchronously(forTimes:completionHandler:)`` ended.
    public enum Result: Int, Sendable {
        /// The image was made.
        case succeeded = 0
        /// No image was made; the handler's error says why.
        case failed = 1
        /// The request was cancelled by ``AVAssetImageGenerator/cancelAllCGImageGeneration()``.
        case cancelled = 2
    }
}

/// The block ``AVAssetImageGenerator/generateCGImagesAsynchronously(forTimes:completionHandler:)``
/// calls once per requested time: the requested time, the image (nil unless it succeeded), the image's
/// actual time (`.invalid` unless it succeeded), how the request ended, and the error when it failed.
public typealias AVAssetImageGeneratorCompletionHandler =
    @Sendable (CMTime, CGImage?, CMTime, AVAssetImageGenerator.Result, (any Error)?) -> Void
