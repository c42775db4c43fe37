import Foundation
internal import MediaEngine

/// The audio stream AVFAudio's classes read or play in a container: its default audio stream, else
/// its first, checked for a decoder, a usable rate and channel count; and the format it is stored in.
struct AudioStreamChoice {
    let stream: StreamInfo
    let rate: Int32
    let channels: Int32

    /// Picks the stream of `info`, the container `name` names.
    ///
    /// - Throws: 'typ?' without audio, 'fmt?' for audio this FFmpeg cannot decode or without a rate or
    ///   channels, in `domain` (AVFAudio's for files, `NSOSStatusErrorDomain` for the player), with
    ///   `failedCall` as Apple's "failed call".
    init(_ info: ContainerInfo, name: String, failedCall: String, domain: String) throws {
        let audio = info.streams.filter { $0.kind == .audio }
        guard let chosen = audio.first(where: { $0.disposition.contains(.default) }) ?? audio.first else {
            throw AudioError.make(AudioError.unsupportedFileType, "\(name) has no audio", failedCall: failedCall, domain: domain)
        }
        guard chosen.hasDecoder else {
            throw AudioError.make(AudioError.unsupportedDataFormat, "\(name): this FFmpeg cannot decode \(chosen.codecName) audio",
                                  failedCall: failedCall, domain: domain)
        }
        guard let rate = chosen.sampleRate, rate > 0, rate <= 1_536_000, let channels = chosen.channels, (1...64).contains(channels) else {
            throw AudioError.make(AudioError.unsupportedDataFormat, "\(name): the audio has no usable sample rate or channel count",
                                  failedCall: failedCall, domain: domain)
        }
        (stream, self.rate, self.channels) = (chosen, Int32(rate), Int32(channels))
    }

    /// The format the stream is stored in (linear PCM with its depth and byte order, or the codec's
    /// format ID), at its rate and channels, with FFmpeg's channel order's layout beyond two channels
    /// and the codec's setup bytes as the magic cookie; nil where no format can describe it.
    func storedFormat() -> AVAudioFormat? {
        var description = AudioStreamBasicDescription(stream: stream, formatID: AudioStreamBasicDescription.formatID(of: stream.codec) ?? 0)
        description.mSampleRate = Double(rate)
        description.mChannelsPerFrame = UInt32(channels)
        let layout = AVAudioFile.processingLayout(channels: UInt32(channels))
        let format = withUnsafePointer(to: &description) { AVAudioFormat(streamDescription: $0, channelLayout: layout) }
        format?.magicCookie = stream.extradata
        return format
    }
}
