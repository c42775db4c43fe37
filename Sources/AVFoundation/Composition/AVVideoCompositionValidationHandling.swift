import Foundation

/// A delegate told of each problem `AVVideoComposition.isValid(for:timeRange:validationDelegate:)`
/// finds, which says whether validation goes on (the result is false either way). Every method is
/// optional, as in Apple's Objective-C protocol: the defaults go on. Called on the validating thread.
public protocol AVVideoCompositionValidationHandling: NSObjectProtocol {
    /// A composition value is invalid. Default: go on.
    ///
    /// - Parameters:
    ///   - videoComposition: The composition validated.
    ///   - key: The value's name: "frameDuration", "renderSize" or "renderScale".
    /// - Returns: True to go on validating; false to stop.
    func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String) -> Bool
    /// No instruction covers `timeRange`. Default: go on.
    ///
    /// - Parameters:
    ///   - videoComposition: The composition validated.
    ///   - timeRange: The gap between instructions, or after the last one up to the asset's end.
    /// - Returns: True to go on validating; false to stop.
    func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange) -> Bool
    /// The instruction's time range is not a valid range, or overlaps or comes before the one before it.
    /// Default: go on.
    ///
    /// - Parameters:
    ///   - videoComposition: The composition validated.
    ///   - videoCompositionInstruction: The instruction at fault.
    /// - Returns: True to go on validating; false to stop.
    func videoComposition(_ videoComposition: AVVideoComposition,
                          shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol) -> Bool
    /// A layer instruction names a track that is not a video track of the asset. Default: go on.
    ///
    /// - Parameters:
    ///   - videoComposition: The composition validated.
    ///   - videoCompositionInstruction: The instruction holding the layer instruction.
    ///   - layerInstruction: The layer instruction at fault.
    ///   - asset: The asset validated against.
    /// - Returns: True to go on validating; false to stop.
    func videoComposition(_ videoComposition: AVVideoComposition,
                          shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol,
                          layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool
}

extension AVVideoCompositionValidationHandling {
    /// Returns true: validation goes on.
    public func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String) -> Bool {
        true
    }

    /// Returns true: validation goes on.
    public func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange) -> Bool {
        true
    }

    /// Returns true: validation goes on.
    public func videoComposition(_ videoComposition: AVVideoComposition,
                                 shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol) -> Bool {
        true
    }

    /// Returns true: validation goes on.
    public func videoComposition(_ videoComposition: AVVideoComposition,
                                 shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol,
                                 layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool {
        true
    }
}
