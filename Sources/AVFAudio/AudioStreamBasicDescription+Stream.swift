import Foundation
package import MediaEngine

package extension AudioStreamBasicDescription {
    /// The format ID Apple gives a codec's audio (`kAudioFormatMPEG4AAC`, `kAudioFormatFLAC`, ...);
    /// nil for codecs that are not audio. Vorbis, which Apple lacks, is 'vorb'.
    static func formatID(of codec: Codec) -> AudioFormatID? {
        switch codec {
        case .aac: return kAudioFormatMPEG4AAC
        case .mp3: return kAudioFormatMPEGLayer3
        case .mp2: return kAudioFormatMPEGLayer2
        case .mp1: return kAudioFormatMPEGLayer1
        case .flac: return kAudioFormatFLAC
        case .opus: return kAudioFormatOpus
        case .vorbis: return FourCharCode(fourCharString: "vorb")
        case .alac: return kAudioFormatAppleLossless
        case .ac3: return kAudioFormatAC3
        case .eac3: return kAudioFormatEnhancedAC3
        case .amrNB: return kAudioFormatAMR
        case .amrWB: return FourCharCode(fourCharString: "sawb")
        case .pcm: return kAudioFormatLinearPCM
        case .muLaw: return kAudioFormatULaw
        case .aLaw: return kAudioFormatALaw
        default: return nil
        }
    }

    /// The stream description Apple fills in for a demuxed audio stream whose format is `formatID`
    /// (a track's format description, an audio file's `fileFormat`): compressed formats leave byte
    /// counts at zero; linear PCM fills every field.
    init(stream: StreamInfo, formatID: AudioFormatID) {
        let channels = UInt32(clamping: stream.channels ?? 0)
        let frameSize = stream.frameSize.map { UInt32(clamping: $0) }
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = Double(stream.sampleRate ?? 0)
        asbd.mFormatID = formatID
        asbd.mChannelsPerFrame = channels
        switch stream.codec {
        case .aac:
            switch stream.aacProfile {
            case .highEfficiency?: asbd.mFormatID = kAudioFormatMPEG4AAC_HE; asbd.mFormatFlags = kMPEG4Object_AAC_SBR
            case .highEfficiencyV2?: asbd.mFormatID = kAudioFormatMPEG4AAC_HE_V2; asbd.mFormatFlags = 29
            case .main?: asbd.mFormatFlags = kMPEG4Object_AAC_Main
            case .longTermPrediction?: asbd.mFormatFlags = kMPEG4Object_AAC_LTP
            default: asbd.mFormatFlags = kMPEG4Object_AAC_LC
            }
            asbd.mFramesPerPacket = frameSize ?? 1024
        case .mp3, .mp2, .mp1:
            asbd.mFramesPerPacket = frameSize ?? 1152
        case .opus:
            asbd.mFramesPerPacket = frameSize ?? 960
        case .flac, .alac:
            asbd.mFramesPerPacket = frameSize ?? 0
            switch stream.bitsPerSample ?? 0 {
            case 16: asbd.mFormatFlags = kAppleLosslessFormatFlag_16BitSourceData
            case 20: asbd.mFormatFlags = kAppleLosslessFormatFlag_20BitSourceData
            case 24: asbd.mFormatFlags = kAppleLosslessFormatFlag_24BitSourceData
            case 32: asbd.mFormatFlags = kAppleLosslessFormatFlag_32BitSourceData
            default: break
            }
        case .ac3, .eac3:
            asbd.mFramesPerPacket = 1536
        case .pcm(let layout):
            guard let bits = stream.bitsPerSample, bits > 0 else { break }
            var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
            if layout.isFloat { flags |= kAudioFormatFlagIsFloat } else if layout.isSigned { flags |= kAudioFormatFlagIsSignedInteger }
            if layout.isBigEndian { flags |= kAudioFormatFlagIsBigEndian }
            asbd.mFormatFlags = flags
            asbd.mBitsPerChannel = UInt32(clamping: bits)
            asbd.mBytesPerFrame = UInt32(clamping: bits / 8).multipliedReportingOverflow(by: channels).partialValue
            asbd.mFramesPerPacket = 1
            asbd.mBytesPerPacket = asbd.mBytesPerFrame
        default:
            asbd.mFramesPerPacket = frameSize ?? 0
        }
        self = asbd
    }
}
