import Foundation

extension AVAudioPCMBuffer {
    /// Stereo pairs into two planes, sixteen samples at a time (an hour of 48 kHz stereo is 173
    /// million samples: a lane at a time took a tenth of a second).
    private static func split(_ source: UnsafePointer<Float>, frames: Int, into left: UnsafeMutablePointer<Float>,
                              _ right: UnsafeMutablePointer<Float>) {
        let raw = UnsafeRawPointer(source)
        let blocks = frames / 8
        for b in 0..<blocks {
            let pairs = raw.loadUnaligned(fromByteOffset: b * 64, as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(left + b * 8).storeBytes(of: pairs.evenHalf, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(right + b * 8).storeBytes(of: pairs.oddHalf, as: SIMD8<Float>.self)
        }
        for f in (blocks * 8)..<frames {
            left[f] = source[2 * f]
            right[f] = source[2 * f + 1]
        }
    }

    /// Writes `samples` (interleaved 32-bit float, the buffer's channel count a frame, nominally -1...1)
    /// into the buffer from frame `start`, in the buffer's common format (integers rounded and
    /// clipped), and sets ``frameLength`` to the end of what was written. Frames past the capacity are
    /// left out. One pass over the samples, on the calling thread. Returns the frames written.
    @discardableResult
    func store(interleaved samples: UnsafeBufferPointer<Float>, at start: Int) -> Int {
        let channels = Int(format.channelCount)
        guard channels > 0, start >= 0, start <= Int(frameCapacity), let source = samples.baseAddress else { return 0 }
        let frames = min(samples.count / channels, Int(frameCapacity) - start)
        guard frames > 0 else { return 0 }
        let step = stride
        switch format.commonFormat {
        case .pcmFormatFloat32:
            guard let data = floatChannelData else { return 0 }
            if format.isInterleaved {
                (data[0] + start * channels).update(from: source, count: frames * channels)
            } else if channels == 2 {
                Self.split(source, frames: frames, into: data[0] + start, data[1] + start)
            } else {
                for c in 0..<channels {
                    let to = data[c] + start
                    var from = source + c
                    for f in 0..<frames {
                        to[f] = from.pointee
                        from += channels
                    }
                }
            }
        case .pcmFormatInt16:
            guard let data = int16ChannelData else { return 0 }
            copy(source, frames: frames, channels: channels, step: step, into: data, at: start) { Int16(pcm: $0, scale: 32_768) }
        case .pcmFormatInt32:
            guard let data = int32ChannelData else { return 0 }
            copy(source, frames: frames, channels: channels, step: step, into: data, at: start) { Int32(pcm: $0, scale: 2_147_483_648) }
        case .pcmFormatFloat64:
            guard let data = float64ChannelData else { return 0 }
            copy(source, frames: frames, channels: channels, step: step, into: data, at: start) { Double($0) }
        case .otherFormat:
            return 0
        }
        frameLength = AVAudioFrameCount(start + frames)
        return frames
    }

    /// Frames `range` of the buffer as interleaved 32-bit float (integers scaled to -1...1); empty for
    /// a range outside ``frameLength`` or a format that is not a common one. One pass, on the calling
    /// thread.
    func interleavedFloats(_ range: Range<Int>) -> [Float] {
        let channels = Int(format.channelCount)
        guard channels > 0, range.lowerBound >= 0, range.upperBound <= Int(frameLength), !range.isEmpty else { return [] }
        let frames = range.count
        let step = stride
        return [Float](unsafeUninitializedCapacity: frames * channels) { out, count in
            count = 0
            guard let to = out.baseAddress else { return }
            func gather<Sample>(_ data: UnsafePointer<UnsafeMutablePointer<Sample>>, _ convert: (Sample) -> Float) {
                for c in 0..<channels {
                    let from = format.isInterleaved ? data[0] + c : data[c]
                    for f in 0..<frames { to[f * channels + c] = convert(from[(range.lowerBound + f) * step]) }
                }
                count = frames * channels
            }
            switch format.commonFormat {
            case .pcmFormatFloat32: if let d = floatChannelData { gather(d) { $0 } }
            case .pcmFormatInt16: if let d = int16ChannelData { gather(d) { Float($0) / 32_768 } }
            case .pcmFormatInt32: if let d = int32ChannelData { gather(d) { Float(Double($0) / 2_147_483_648) } }
            case .pcmFormatFloat64: if let d = float64ChannelData { gather(d) { Float($0) } }
            case .otherFormat: break
            }
        }
    }

    /// Copies interleaved float frames into channel pointers of another sample type.
    private func copy<Sample>(_ source: UnsafePointer<Float>, frames: Int, channels: Int, step: Int,
                              into data: UnsafePointer<UnsafeMutablePointer<Sample>>, at start: Int, _ convert: (Float) -> Sample) {
        for c in 0..<channels {
            let to = format.isInterleaved ? data[0] + c : data[c]
            for f in 0..<frames { to[(start + f) * step] = convert(source[f * channels + c]) }
        }
    }
}

private extension FixedWidthInteger where Self: SignedInteger {
    /// `value * scale` rounded and clipped to the type; NaN is 0.
    init(pcm value: Float, scale: Double) {
        let scaled = (Double(value) * scale).rounded()
        if scaled.isNaN {
            self = 0
        } else {
            self = Self(Swift.max(Double(Self.min), Swift.min(Double(Self.max), scaled)))
        }
    }
}
