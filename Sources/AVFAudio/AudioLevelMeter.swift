import Foundation

/// An audio player's level meters: the levels of each block of samples played, kept with the host
/// time it is heard at, and the average and peak power of each channel over the last tenth of a
/// second as of the last `update`. Plain values; its owner keeps it behind a lock.
struct AudioLevelMeter {
    /// One block played: when it starts being heard (host seconds), how long it lasts, and per channel
    /// the sum of its squared samples and its largest magnitude.
    struct Block {
        var host: Double
        var seconds: Double
        var frames: Int
        var squares: [Double]
        var peaks: [Float]
    }

    /// The seconds of sound the levels are measured over.
    static let window = 0.1
    /// The lowest level reported: silence, as Apple's meters give it.
    static let floor: Float = -160

    private var blocks: [Block] = []
    private(set) var average: [Float]
    private(set) var peak: [Float]

    init(channels: Int) {
        average = Array(repeating: AudioLevelMeter.floor, count: channels)
        peak = Array(repeating: AudioLevelMeter.floor, count: channels)
    }

    /// The levels of `frames` interleaved frames of `channels` samples, heard from `host` for `seconds`.
    /// A pass over the samples.
    static func measure(_ samples: UnsafeBufferPointer<Float>, channels: Int, host: Double, seconds: Double) -> Block {
        var squares = [Double](repeating: 0, count: channels)
        var peaks = [Float](repeating: 0, count: channels)
        let frames = channels > 0 ? samples.count / channels : 0
        for frame in 0..<frames {
            for c in 0..<channels {
                let v = samples[frame * channels + c]
                squares[c] += Double(v) * Double(v)
                peaks[c] = max(peaks[c], abs(v))
            }
        }
        return Block(host: host, seconds: seconds, frames: frames, squares: squares, peaks: peaks)
    }

    /// Keeps `block`, and lets go of blocks heard more than a second before it.
    mutating func record(_ block: Block) {
        blocks.append(block)
        let horizon = block.host - 1
        if let keep = blocks.firstIndex(where: { $0.host + $0.seconds >= horizon }), keep > 0 { blocks.removeFirst(keep) }
    }

    /// Forgets the blocks not yet heard at `now` (playback paused, moved or stopped before them).
    mutating func dropUnheard(at now: Double) {
        blocks.removeAll { $0.host > now }
    }

    /// Works out the levels heard over the `window` up to `now`: the average power (the mean square,
    /// in dB) and the peak of each channel, in dBFS from -160 to 0; -160 where nothing was heard.
    mutating func update(at now: Double) {
        let heard = blocks.filter { $0.host <= now && $0.host + $0.seconds > now - AudioLevelMeter.window }
        for c in average.indices {
            let frames = heard.reduce(0) { $0 + $1.frames }
            let squares = heard.reduce(0.0) { $0 + ($1.squares.indices.contains(c) ? $1.squares[c] : 0) }
            let top = heard.reduce(Float(0)) { max($0, $1.peaks.indices.contains(c) ? $1.peaks[c] : 0) }
            average[c] = frames > 0 ? AudioLevelMeter.decibels(power: squares / Double(frames)) : AudioLevelMeter.floor
            peak[c] = AudioLevelMeter.decibels(power: Double(top) * Double(top))
        }
    }

    /// `power` (a squared amplitude) in dB, within -160 to 0.
    static func decibels(power: Double) -> Float {
        guard power > 0, power.isFinite else { return floor }
        return Float(min(0, max(Double(floor), 10 * log10(power))))
    }
}
