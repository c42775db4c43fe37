import Foundation

extension AVAssetVariant {
    /// What a variant's sound is.
    open class AudioAttributes: NSObject, @unchecked Sendable {
        // @unchecked Sendable: immutable after init.

        /// The audio formats (`kAudioFormatMPEG4AAC` and the others) of the variant's sound.
        public let formatIDs: [AudioFormatID]
        let channelCount: Int?
        /// Whether this is the variant the asset shows, whose renditions are the asset's tracks.
        let isShown: Bool

        init(formatIDs: [AudioFormatID], channelCount: Int?, isShown: Bool) {
            self.formatIDs = formatIDs
            self.channelCount = channelCount
            self.isShown = isShown
            super.init()
        }

        /// What the sound of one audio rendition is in this variant: in the variant the asset shows
        /// (whose renditions are the asset's tracks), the option's own channel count; in the others,
        /// the variant's where FFmpeg read it (nil otherwise).
        ///
        /// - Parameter mediaSelectionOption: An option of the asset's audible group.
        /// - Returns: The attributes; nil for an option that is not audible.
        open func renditionSpecificAttributes(for mediaSelectionOption: AVMediaSelectionOption) -> RenditionSpecificAttributes? {
            guard mediaSelectionOption.hasMediaCharacteristic(.audible) else { return nil }
            return RenditionSpecificAttributes(channelCount: isShown ? mediaSelectionOption.channelCount ?? channelCount : channelCount)
        }

        /// What one audio rendition's sound is.
        open class RenditionSpecificAttributes: NSObject, @unchecked Sendable {
            // @unchecked Sendable: immutable after init.

            /// The number of channels, where known.
            public let channelCount: Int?

            init(channelCount: Int?) {
                self.channelCount = channelCount
                super.init()
            }
        }
    }
}
