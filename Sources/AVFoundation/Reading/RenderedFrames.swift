internal import MediaEngine
import Foundation

/// Pictures rendered frame by frame at a fixed rate (an export through a video composition, a reader's
/// video composition output): each frame by the image pipeline (exact pictures, composed at the output
/// size), one reader kept from frame to frame. Used by one engine thread at a time.
final class RenderedFrames: Sendable {
    private let reader: PictureSource.KeptReader
    private let settings: ImageSettings
    private let tracks: [AVAssetTrack]
    private let start: CMTime
    private let rate: Rational

    /// The most frames a second rendered (an export writes, a reader hands out).
    static let maximumFrameRate = 1000.0

    /// Frames a second as a fraction: the composition's frame duration (at most 1000 a second), else
    /// the track's rate (29.97 and its kin as n*1000/1001; below one a second, one), else 30.
    static func frameRate(_ frameDuration: CMTime?, _ nominal: Float?) throws -> Rational {
        if let d = frameDuration, d.isNumeric, d.value > 0, d.timescale > 0, d.value <= Int64(Int32.max) {
            guard Double(d.timescale) / Double(d.value) <= maximumFrameRate else {
                throw AVError(.invalidVideoComposition, userInfo: [
                    NSLocalizedDescriptionKey: "The video composition's frame duration (\(d.seconds) s) is shorter than Avocet renders (a thousandth of a second).",
                ])
            }
            return Rational(d.timescale, Int32(d.value))
        }
        // A still picture held for minutes has a rate near zero: write it at one frame a second.
        guard let rate = nominal.map(Double.init), rate.isFinite, rate < maximumFrameRate else { return Rational(30, 1) }
        if rate < 1 { return Rational(1, 1) }
        if abs(rate - rate.rounded()) < 0.01 { return Rational(Int32(rate.rounded()), 1) }
        let ntsc = (rate * 1.001).rounded()
        if abs(rate - ntsc * 1000 / 1001) < 0.01 { return Rational(Int32(ntsc) * 1000, 1001) }
        return Rational(Int32((rate * 1000).rounded()), 1000)
    }

    init(pictures: PictureSource, settings: ImageSettings, tracks: [AVAssetTrack], start: CMTime, rate: Rational) {
        reader = PictureSource.KeptReader(pictures)
        (self.settings, self.tracks, self.start, self.rate) = (settings, tracks, start, rate)
    }

    /// Frame `index` as RGBA at the output size; black where nothing plays.
    func render(_ index: Int, _ token: CancellationToken) throws -> Data {
        let (width, height) = settings.outputSize ?? (0, 0)
        let time = start + CMTime(value: Int64(index) * Int64(rate.denominator), timescale: rate.numerator)
        do {
            let (image, _) = try reader.generate(at: time, settings: settings, tracks: tracks, cancellation: token)
            if let data = image.dataProvider?.data, data.count == width * height * 4 { return data }
        } catch let error as AVError where error.code == .noImageAtTime {
            // Nothing plays: black, as Apple's exports show empty time.
        }
        return LayerCompositor.render([], background: (0, 0, 0, 255), width: width, height: height)
    }

    /// Puts the reader back with the picture source (called on the export's engine thread).
    func close() {
        reader.release()
    }
}
