import Foundation

extension AVAssetVariant {
    /// What a variant's sound is.
    open class AudioAttributes: NSObject, @unchecked Sendable {
        // @unchecked Sendable: immutable after init.

        /// The audio formats (`kAudioFormatMPEG4AAC` and the others) of the variant's sound.
        public let formatIDs: [AudioFormatID]
        let channelCount: Int?

        init(formatIDs: [AudioFormatID], channelCount: Int?) {
            self.formatIDs = formatIDs
            self.channelCount = channelCount
            super.init()
        }

        /// What the sound of one audio rendition is in this variant. Avocet reads no `EXT-X-MEDIA`
        /// renditions as options yet: an option of the asset's audible group gets the variant's own
        /// channel count.
        ///
        /// - Parameter mediaSelectionOption: An option of the asset's audible group.
        /// - Returns: The attributes; nil for an option that is not audible.
        open func renditionSpecificAttributes(for mediaSelectionOption: AVMediaSelectionOption) -> RenditionSpecificAttributes? {
            guard mediaSelectionOption.hasMediaCharacteristic(.audible) else { return nil }
            return RenditionSpecificAttributes(channelCount: channelCount)
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
