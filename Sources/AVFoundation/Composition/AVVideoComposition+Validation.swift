import Foundation

extension AVVideoComposition {
    /// Whether the composition can render `asset` over `timeRange`, problem by problem. Loads the
    /// asset's tracks and duration without blocking (for a file: its header, on the engine's threads);
    /// the checks are in memory.
    ///
    /// Checked, as Apple documents: a positive numeric ``frameDuration``, a positive ``renderSize`` and
    /// ``renderScale``; instructions with valid, positive time ranges in increasing order without
    /// overlap; no time left uncovered from the start of `timeRange` (or zero) to the last instruction
    /// and, with an asset, on to the asset's end within `timeRange`; and, with an asset, layer
    /// instructions naming its video tracks. Only instructions overlapping `timeRange` are checked;
    /// pass `CMTimeRange(start: .zero, duration: .positiveInfinity)` to check them all.
    /// The result may be ignored (as in seed 002), as with Apple's imported async method.
    ///
    /// - Parameters:
    ///   - asset: The asset to render, or nil to check the composition alone.
    ///   - timeRange: The part of the timeline whose instructions are checked.
    ///   - validationDelegate: Told of each problem found, and asked whether to go on; nil goes on.
    /// - Returns: True when no problem was found; false when any was, whether or not the delegate
    ///   stopped the validation.
    /// - Throws: The asset's loading error, as ``AVAsynchronousKeyValueLoading/load(_:)`` throws it.
    @discardableResult
    public func isValid(for asset: AVAsset?, timeRange: CMTimeRange,
                        validationDelegate: (any AVVideoCompositionValidationHandling)?) async throws -> Bool {
        var tracks: [AVAssetTrack] = [], duration: CMTime?
        if let asset { (tracks, duration) = try await asset.load(.tracks, .duration) }
        return VideoCompositionValidator(composition: self, asset: asset, tracks: tracks, duration: duration,
                                         delegate: validationDelegate).validate(timeRange)
    }

    /// The same, synchronously: loads the asset's tracks and duration if needed, waiting on the calling
    /// thread.
    ///
    /// - Parameters:
    ///   - asset: The asset to render, or nil to check the composition alone.
    ///   - timeRange: The part of the timeline whose instructions are checked.
    ///   - validationDelegate: Told of each problem found, and asked whether to go on; nil goes on.
    /// - Returns: True when no problem was found; false when any was, or when the asset fails to load.
    @available(*, deprecated, message: "Use isValid(for:timeRange:validationDelegate:) async instead")
    public func isValid(for asset: AVAsset?, timeRange: CMTimeRange, validationDelegate: (any AVVideoCompositionValidationHandling)?) -> Bool {
        var tracks: [AVAssetTrack] = [], duration: CMTime?
        if let asset {
            guard let loaded = try? AVPartialAsyncProperty<AVAsset>.tracks.blockingLoader(asset).get(),
                  let length = try? AVPartialAsyncProperty<AVAsset>.duration.blockingLoader(asset).get() else { return false }
            (tracks, duration) = (loaded, length)
        }
        return VideoCompositionValidator(composition: self, asset: asset, tracks: tracks, duration: duration,
                                         delegate: validationDelegate).validate(timeRange)
    }
}

/// One validation run: the checks of `isValid`, in Apple's order, each reported to the delegate.
struct VideoCompositionValidator {
    let composition: AVVideoComposition
    let asset: AVAsset?
    let tracks: [AVAssetTrack]
    let duration: CMTime?
    let delegate: (any AVVideoCompositionValidationHandling)?

    /// False when anything is wrong. Each problem asks the delegate whether to go on.
    func validate(_ timeRange: CMTimeRange) -> Bool {
        var valid = true
        /// Records a problem; false when the delegate stops the validation.
        func found(_ goOn: () -> Bool) -> Bool {
            valid = false
            return goOn()
        }
        let values = composition.values.withLock { $0 }
        let frame = values.frameDuration
        if !(frame.isNumeric && frame > .zero),
           !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingInvalidValueForKey: "frameDuration") ?? true }) {
            return false
        }
        let size = values.renderSize
        if !(size.width > 0 && size.height > 0 && size.width.isFinite && size.height.isFinite),
           !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingInvalidValueForKey: "renderSize") ?? true }) {
            return false
        }
        if !(values.renderScale > 0 && values.renderScale.isFinite),
           !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingInvalidValueForKey: "renderScale") ?? true }) {
            return false
        }

        let window = CMTimeRange(start: timeRange.start.isNumeric ? max(timeRange.start, .zero) : .zero,
                                 end: timeRange.isValid ? timeRange.end : .positiveInfinity)
        let videoIDs = Set(tracks.filter { $0.mediaType == .video }.map(\.trackID))
        var covered = window.start
        for instruction in values.instructions {
            let range = instruction.timeRange
            let wellFormed = range.isValid && range.start.isNumeric && range.duration.isNumeric && range.duration > .zero
            if wellFormed && (range.end <= window.start || range.start >= window.end) { continue }
            guard wellFormed, range.start >= covered || covered == window.start && range.start < window.start else {
                if !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingInvalidTimeRangeIn: instruction) ?? true }) {
                    return false
                }
                continue
            }
            if range.start > covered,
               !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingEmptyTimeRange:
                                                        CMTimeRange(start: covered, end: range.start)) ?? true }) {
                return false
            }
            covered = range.end
            if let asset, let layered = instruction as? AVVideoCompositionInstruction {
                for layer in layered.layerInstructions where !videoIDs.contains(layer.trackID) {
                    if !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingInvalidTrackIDIn: instruction,
                                                           layerInstruction: layer, asset: asset) ?? true }) {
                        return false
                    }
                }
            }
        }
        // With an asset, its whole length (within the window) needs instructions.
        if let duration, duration.isNumeric {
            let end = min(duration, window.end)
            if covered < end,
               !found({ delegate?.videoComposition(composition, shouldContinueValidatingAfterFindingEmptyTimeRange:
                                                        CMTimeRange(start: covered, end: end)) ?? true }) {
                return false
            }
        }
        return valid
    }
}
