import Foundation

extension AVPartialAsyncProperty where Root: AVURLAsset {
    /// The variants of an HTTP Live Streaming master playlist, in the playlist's order, from the header
    /// parse (FFmpeg reads each variant's first segment while it opens the playlist); empty for any
    /// other asset, a media playlist included.
    public static var variants: AVAsyncProperty<Root, [AVAssetVariant]> { fact("variants", \.variants) }
}

extension AVURLAsset {
    /// The variants of a master playlist, loaded while the calling thread waits; empty when loading
    /// fails or the asset is not a master playlist.
    @available(*, deprecated, message: "Use load(.variants) instead")
    public var variants: [AVAssetVariant] {
        (try? AVPartialAsyncProperty<AVURLAsset>.variants.blockingLoader(self).get()) ?? []
    }
}
