import Foundation

/// Plays interleaved float sound faster or slower without changing its pitch: WSOLA (waveform
/// similarity overlap-add). Windows of the input (32 ms, Hann, half overlapping) are laid down every
/// 16 ms of output while the input is read `rate` times as fast; each window is taken where, within
/// ±10 ms of its nominal place, its start best matches how the previous window's input went on, so
/// the periods line up and nothing clicks. `rate` frames of input make one of output (0.5: twice as
/// long; 2: half as long), exactly over a whole stream.
///
/// Plain Swift on the calling thread, one caller at a time: for each 16 ms of output about 100 000
/// multiply-adds (a coarse search on every fourth sample of a mono mix, then a fine one around the
/// best) and a window's worth of overlap-adding.
package final class TimeStretcher {
    package let channels: Int
    package let rate: Double
    /// Window length, synthesis hop (half the window) and search radius, in frames.
    private let window: Int
    private let hop: Int
    private let radius: Int
    private let weights: [Float]
    /// Input not yet used up (interleaved), its mono mix, and the stream frame of its first frame.
    private var input: [Float] = []
    private var mono: [Float] = []
    private var inputBase = 0
    /// Input frames given in all, and whether the input has ended.
    private var received = 0
    private var ended = false
    /// Where the next window belongs, nominally (stream frames of input).
    private var nominal = 0.0
    /// Where the previous window's input goes on (stream frames); nil before the first window.
    private var natural: Int?
    /// The overlap-add buffer: `window` frames from the next output frame on.
    private var accumulated: [Float]
    /// Output frames handed out, and output ready but not yet handed out.
    private var emitted = 0
    private var ready: [Float] = []

    /// A stretcher of `channels` channels (1 to 64) at `rate` (clamped to 0.25 ... 4) for sound at
    /// `sampleRate` frames a second (the window and search scale with it).
    package init(channels: Int, rate: Double, sampleRate: Int = 48_000) {
        self.channels = max(1, min(64, channels))
        self.rate = rate.isFinite ? min(4, max(0.25, rate)) : 1
        let scale = Double(max(8_000, min(384_000, sampleRate))) / 48_000
        let hop = Int((768 * scale).rounded())
        let window = 2 * hop
        (self.hop, self.window) = (hop, window)
        radius = Int((512 * scale).rounded())
        // Periodic Hann: windows a hop apart sum to exactly 1.
        weights = (0..<window).map { n in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(window))) }
        accumulated = [Float](repeating: 0, count: window * max(1, min(64, channels)))
    }

    /// Takes `samples` (whole interleaved frames) and returns the output they complete (possibly none).
    package func process(_ samples: UnsafeBufferPointer<Float>) -> [Float] {
        let frames = samples.count / channels
        if frames > 0, !ended {
            input.append(contentsOf: samples[0..<(frames * channels)])
            mono.reserveCapacity(mono.count + frames)
            for f in 0..<frames {
                var sum: Float = 0
                for c in 0..<channels { sum += samples[f * channels + c] }
                mono.append(sum)
            }
            received += frames
        }
        run()
        return take()
    }

    /// Ends the input and returns the rest of the output: in all, `rate` times fewer frames than the
    /// input had (rounded).
    package func finish() -> [Float] {
        ended = true
        run()
        let target = Int((Double(received) / rate).rounded())
        var out = take()
        if emitted > target {
            // The last window went past the end: its extra hop is cut.
            out.removeLast(min(emitted - target, out.count / channels) * channels)
        } else {
            // What the last windows laid down, then silence if the windows fell short.
            var left = target - emitted
            let fromBuffer = min(left, window)
            out.append(contentsOf: accumulated[0..<(fromBuffer * channels)])
            left -= fromBuffer
            if left > 0 { out.append(contentsOf: repeatElement(0, count: left * channels)) }
        }
        emitted = target
        return out
    }

    /// Output ready, handed over.
    private func take() -> [Float] {
        let out = ready
        ready = []
        emitted += out.count / channels
        return out
    }

    /// Lays down every window the input now allows.
    private func run() {
        while true {
            let target = Int(nominal.rounded())
            // A window needs its input and, for the search, the radius past it (less at the end).
            let needed = natural.map { max(target + radius + window, $0 + hop) } ?? target + window
            let available = inputBase + input.count / channels
            if !ended && available < needed { return }
            // Past the end of the input: done once the output has caught up.
            if ended && Double(emitted + ready.count / channels) >= Double(received) / rate { return }
            let start = natural.map { choose(near: target, matching: $0) } ?? 0
            if natural == nil {
                // As though a window a hop earlier had been laid: the first hop plays unfaded.
                for n in 0..<hop {
                    for c in 0..<channels { accumulated[n * channels + c] = sample(start + n, c) * (1 - weights[n]) }
                }
            }
            for n in 0..<window {
                let w = weights[n]
                for c in 0..<channels { accumulated[n * channels + c] += sample(start + n, c) * w }
            }
            ready.append(contentsOf: accumulated[0..<(hop * channels)])
            accumulated.removeFirst(hop * channels)
            accumulated.append(contentsOf: repeatElement(0, count: hop * channels))
            natural = start + hop
            nominal += Double(hop) * rate
            trim()
        }
    }

    /// The input sample of `frame` (a stream frame) on `channel`; 0 outside what is held.
    private func sample(_ frame: Int, _ channel: Int) -> Float {
        let i = frame - inputBase
        guard i >= 0, i < input.count / channels else { return 0 }
        return input[i * channels + channel]
    }

    /// The start within `radius` of `target` whose mono mix best matches (normalised cross-correlation
    /// over a hop) the input from `continuation` on.
    private func choose(near target: Int, matching continuation: Int) -> Int {
        let held = mono.count
        let lowest = max(inputBase, target - radius)
        let highest = max(lowest, min(target + radius, inputBase + held - hop))
        guard highest > lowest, continuation >= inputBase, continuation + hop <= inputBase + held else { return max(lowest, min(target, highest)) }
        return mono.withUnsafeBufferPointer { m -> Int in
            let reference = continuation - inputBase
            func score(_ candidate: Int, step: Int) -> Float {
                let offset = candidate - inputBase
                var dot: Float = 0
                var energy: Float = 1e-9
                var n = 0
                while n < hop {
                    let x = m[offset + n]
                    dot += x * m[reference + n]
                    energy += x * x
                    n += step
                }
                return dot / energy.squareRoot()
            }
            var best = lowest
            var bestScore = -Float.infinity
            var candidate = lowest
            while candidate <= highest {
                let s = score(candidate, step: 4)
                if s > bestScore { (best, bestScore) = (candidate, s) }
                candidate += 4
            }
            let coarse = best
            bestScore = -Float.infinity
            for fine in max(lowest, coarse - 3)...min(highest, coarse + 3) {
                let s = score(fine, step: 1)
                if s > bestScore { (best, bestScore) = (fine, s) }
            }
            return best
        }
    }

    /// Lets go of input no window can reach any more.
    private func trim() {
        let keepFrom = min(Int(nominal.rounded()) - radius, natural ?? 0)
        let drop = min(keepFrom - inputBase, input.count / channels)
        guard drop > 4_096 else { return }
        input.removeFirst(drop * channels)
        mono.removeFirst(drop)
        inputBase += drop
    }
}
