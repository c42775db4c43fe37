import Foundation
internal import MediaEngine

/// What ``AVAudioConverter`` needs to know of a format: the shape of its linear PCM, its speakers, the
/// codec of its packets. Computed from the stream description and layout, on the calling thread.
extension AVAudioFormat {
    /// The format's linear PCM as the engine's converter takes it; nil for compressed audio, sample
    /// types it lacks (unsigned 16-bit or wider, unpacked samples, floats other than 32 and 64
    /// bits), rates that are not positive, and channel counts of 0 or beyond 64.
    var sampleShape: SampleConverter.Shape? {
        let d = streamDescription.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, d.mFramesPerPacket <= 1, d.mChannelsPerFrame >= 1,
              d.mSampleRate.isFinite, d.mSampleRate >= 1, d.mSampleRate <= Double(Int32.max) else { return nil }
        let channels = Int(d.mChannelsPerFrame)
        let interleaved = d.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0
        let sampleBytes = interleaved ? Int(d.mBytesPerFrame) / channels : Int(d.mBytesPerFrame)
        guard sampleBytes * 8 == Int(d.mBitsPerChannel), !interleaved || Int(d.mBytesPerFrame) % channels == 0 else { return nil }
        let sample: SampleConverter.SampleType
        if d.mFormatFlags & kAudioFormatFlagIsFloat != 0 {
            switch d.mBitsPerChannel {
            case 32: sample = .float32
            case 64: sample = .float64
            default: return nil
            }
        } else if d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0 {
            switch d.mBitsPerChannel {
            case 8: sample = .signed8
            case 16: sample = .int16
            case 24: sample = .int24
            case 32: sample = .int32
            default: return nil
            }
        } else {
            guard d.mBitsPerChannel == 8 else { return nil }
            sample = .unsigned8
        }
        let shape = SampleConverter.Shape(sample: sample, isBigEndian: d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0, isInterleaved: interleaved,
                                          rate: Int(d.mSampleRate.rounded()), channels: channels, speakers: speakers)
        return SampleConverter.supports(shape) ? shape : nil
    }

    /// Each channel's speaker as a bit of FFmpeg's channel mask (see `SampleConverter.Shape`), from
    /// the layout; nil without a layout, or for one whose channels are not all named speakers.
    var speakers: [Int]? {
        guard let layout = channelLayout else { return nil }
        let found = Self.speakers(of: layout)
        return found?.count == Int(channelCount) ? found : nil
    }

    /// The speakers of `layout`: the standard arrangements Core Audio names, a bitmap (whose bits are
    /// FFmpeg's), or descriptions whose labels are Core Audio's first 18 (label n is FFmpeg's bit
    /// n - 1) or mono.
    static func speakers(of layout: AVAudioChannelLayout) -> [Int]? {
        let l = layout.layout
        switch l.pointee.mChannelLayoutTag {
        case kAudioChannelLayoutTag_UseChannelBitmap:
            let mask = l.pointee.mChannelBitmap.rawValue
            return (0..<32).filter { mask & 1 << UInt32($0) != 0 }
        case kAudioChannelLayoutTag_UseChannelDescriptions:
            let count = Int(l.pointee.mNumberChannelDescriptions)
            guard count >= 1, count <= SampleConverter.maximumChannels else { return nil }
            let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions) ?? 12
            let first = (UnsafeRawPointer(l) + offset).assumingMemoryBound(to: AudioChannelDescription.self)
            var result: [Int] = []
            for i in 0..<count {
                let label = first[i].mChannelLabel
                switch label {
                case 1...18: result.append(Int(label) - 1)
                case 42: result.append(2)  // kAudioChannelLabel_Mono: FFmpeg's mono is the centre.
                default: return nil
                }
            }
            return result
        case kAudioChannelLayoutTag_Mono: return [2]
        case kAudioChannelLayoutTag_Stereo, kAudioChannelLayoutTag_StereoHeadphones: return [0, 1]
        case kAudioChannelLayoutTag_Quadraphonic: return [0, 1, 4, 5]
        case kAudioChannelLayoutTag_MPEG_3_0_A: return [0, 1, 2]
        case kAudioChannelLayoutTag_MPEG_4_0_A: return [0, 1, 2, 8]
        case kAudioChannelLayoutTag_MPEG_5_0_A: return [0, 1, 2, 4, 5]
        case kAudioChannelLayoutTag_MPEG_5_1_A: return [0, 1, 2, 3, 4, 5]
        case kAudioChannelLayoutTag_MPEG_6_1_A: return [0, 1, 2, 3, 4, 5, 8]
        case kAudioChannelLayoutTag_MPEG_7_1_A: return [0, 1, 2, 3, 4, 5, 6, 7]
        // L R C LFE Ls Rs Rls Rrs: Core Audio's surrounds here are at the sides, the rear ones behind.
        case kAudioChannelLayoutTag_MPEG_7_1_C: return [0, 1, 2, 3, 9, 10, 4, 5]
        case kAudioChannelLayoutTag_WAVE_7_1: return [0, 1, 2, 3, 4, 5, 9, 10]
        default: return nil
        }
    }

    /// The codec FFmpeg decodes the format's packets with; nil for linear PCM and formats it lacks.
    var decodedCodec: Codec? {
        switch streamDescription.pointee.mFormatID {
        case kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2: return .aac
        case kAudioFormatMPEGLayer3: return .mp3
        case kAudioFormatMPEGLayer2: return .mp2
        case kAudioFormatMPEGLayer1: return .mp1
        case kAudioFormatFLAC: return .flac
        case kAudioFormatAppleLossless: return .alac
        case kAudioFormatOpus: return .opus
        case kAudioFormatAC3: return .ac3
        case kAudioFormatEnhancedAC3: return .eac3
        case kAudioFormatAMR: return .amrNB
        case kAudioFormatULaw: return .muLaw
        case kAudioFormatALaw: return .aLaw
        case FourCharCode(fourCharString: "vorb"): return .vorbis
        case FourCharCode(fourCharString: "sawb"): return .amrWB
        default: return nil
        }
    }

    /// The codec FFmpeg encodes the format with: AAC (low complexity), FLAC, Apple Lossless, Opus;
    /// nil for others.
    var encodedCodec: WriterTrackSettings.AudioEncoding.Codec? {
        switch streamDescription.pointee.mFormatID {
        case kAudioFormatMPEG4AAC: return .aac
        case kAudioFormatFLAC: return .flac
        case kAudioFormatAppleLossless: return .alac
        case kAudioFormatOpus: return .opus
        default: return nil
        }
    }
}
