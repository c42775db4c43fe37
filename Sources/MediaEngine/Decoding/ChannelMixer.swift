internal import CFFmpeg
import Foundation

/// Mixes interleaved 32-bit float sound from one channel count to another at the same rate with
/// FFmpeg's matrix (libswresample's rematrixing, in FFmpeg's default order for each count: 5.1's centre
/// and surrounds folded into left and right at its standard levels). What an audio player uses to
/// play a file of more than two channels on a stereo device. Owns its resampler (freed in deinit).
/// Runs on the calling thread, one caller at a time; costs a pass over the samples.
package final class ChannelMixer {
    private var resampler: OpaquePointer?
    package let inputChannels: Int32
    package let outputChannels: Int32

    /// A mixer from `inputChannels` to `outputChannels` (each 1 to 64) at `rate`.
    ///
    /// - Parameters:
    ///   - inputChannels: The channels of the sound given to `mix`, in FFmpeg's default order.
    ///   - outputChannels: The channels `mix` returns, in FFmpeg's default order (2: left, right).
    ///   - rate: The frames a second (the same on both sides).
    /// - Throws: `MediaEngineError` for counts or a rate out of range, or when libswresample refuses.
    package init(from inputChannels: Int32, to outputChannels: Int32, rate: Int32) throws {
        guard (1...64).contains(inputChannels), (1...64).contains(outputChannels), rate > 0 else {
            throw MediaEngineError(.invalidArgument, source: "audio", operation: "set up the channel mixer",
                                   reason: "\(inputChannels) to \(outputChannels) channels at \(rate) Hz is out of range")
        }
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, inputChannels)
        av_channel_layout_default(&outLayout, outputChannels)
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        let rc = swr_alloc_set_opts2(&resampler, &outLayout, AV_SAMPLE_FMT_FLT, rate, &inLayout, AV_SAMPLE_FMT_FLT, rate, 0, nil)
        guard rc >= 0, let swr = resampler else {
            throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the channel mixer", source: "audio")
        }
        _ = try FFmpeg.check(swr_init(swr), "set up the channel mixer", source: "audio")
    }

    deinit { swr_free(&resampler) }

    /// `samples` (whole frames of `inputChannels`; a partial last frame is left out) mixed to
    /// `outputChannels`.
    package func mix(_ samples: UnsafeBufferPointer<Float>) throws -> [Float] {
        let frames = samples.count / Int(inputChannels)
        guard frames > 0, let swr = resampler, let base = samples.baseAddress else { return [] }
        var output = [Float](repeating: 0, count: frames * Int(outputChannels))
        let made: Int32 = output.withUnsafeMutableBytes { raw in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var input: UnsafePointer<UInt8>? = UnsafeRawPointer(base).assumingMemoryBound(to: UInt8.self)
            return swr_convert(swr, &out, Int32(clamping: frames), &input, Int32(clamping: frames))
        }
        _ = try FFmpeg.check(made, "mix the channels", source: "audio")
        let count = min(output.count, Int(made) * Int(outputChannels))
        if count < output.count { output.removeSubrange(count...) }
        return output
    }
}
