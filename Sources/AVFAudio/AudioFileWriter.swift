import Foundation
internal import MediaEngine

/// The writing side of an ``AVAudioFile``: one audio track encoded from interleaved float (FFmpeg's
/// encoder, fed by libswresample) into the container the file's type asks, on the calling thread.
final class AudioFileWriter {
    /// What a settings dictionary and a URL ask to write, checked: the container, the encoding and
    /// the format the file holds.
    struct Plan {
        let container: OutputContainer
        let encoding: WriterTrackSettings.AudioEncoding
        /// The on-disk format, as `fileFormat` reports it.
        let fileFormat: AVAudioFormat
    }

    let path: String
    let rate: Int32
    let channels: Int32
    private let writer: SampleWriter
    private let track: Int
    /// Frames written so far.
    private(set) var position: Int64 = 0
    private var finished = false

    /// Creates (or replaces) the file at `path` and writes its header.
    init(path: String, plan: Plan) throws {
        self.path = path
        (rate, channels) = (plan.encoding.sampleRate, plan.encoding.channels)
        // An existing file is replaced, as Apple's does: the engine opens it truncated (never removes
        // what is at the path first, which for a directory would delete its contents).
        writer = try SampleWriter(path: path, container: plan.container)
        track = try writer.addTrack(.audio(plan.encoding), language: nil, displayMatrix: nil)
        try writer.start(fastStart: false, fragmentSeconds: nil)
    }

    /// Encodes `samples` (interleaved float of the file's channels) after what was written.
    func write(_ samples: [Float]) throws {
        guard !finished else { throw AudioError.make(AudioError.fileNotFound, "\(path) is closed", failedCall: "ExtAudioFileWrite") }
        let frames = samples.count / Int(channels)
        guard frames > 0 else { return }
        try writer.append(sound: samples, rate: rate, channels: channels, pts: MediaTimestamp(value: position, timeBase: Rational(1, rate)),
                          track: track)
        position += Int64(frames)
    }

    /// Drains the encoder and writes the trailer; later calls do nothing.
    func finish() throws {
        guard !finished else { return }
        finished = true
        try writer.finish()
    }

    /// The plan for writing `settings` to `url`: the file type from ``AVAudioFileTypeKey`` or else the
    /// URL's extension, the encoding from ``AVFormatIDKey`` (linear PCM when absent), the rate and
    /// channel count (both required), ``AVEncoderBitRateKey`` for the compressed formats, and the linear
    /// PCM keys (bit depth, float; the byte order is the file type's: little-endian WAV, big-endian
    /// AIFF, either in CAF).
    static func plan(url: URL, settings: [String: Any]) throws -> Plan {
        func fail(_ status: OSStatus, _ reason: String) -> NSError { AudioError.make(status, reason, failedCall: "ExtAudioFileCreateWithURL") }
        guard let container = container(url: url, settings: settings) else {
            throw fail(AudioError.unsupportedFileType, "Avocet writes WAV, AIFF, CAF, M4A, FLAC and Ogg Opus audio files (by the URL's "
                       + "extension or AVAudioFileTypeKey); \(url.lastPathComponent) is none of them")
        }
        guard let rate = settings[AVSampleRateKey].flatMap(SettingsValue.number), rate >= 1000, rate <= 768_000, rate == rate.rounded(),
              let channelCount = settings[AVNumberOfChannelsKey].flatMap(SettingsValue.number), channelCount >= 1, channelCount <= 64,
              channelCount == channelCount.rounded() else {
            throw fail(AudioError.parameter, "the settings need AVSampleRateKey (1000 to 768000 Hz) and AVNumberOfChannelsKey (1 to 64)")
        }
        let channels = Int32(channelCount)
        let formatID = settings[AVFormatIDKey].flatMap(SettingsValue.number).flatMap { UInt32(exactly: $0) } ?? kAudioFormatLinearPCM
        let codec: WriterTrackSettings.AudioEncoding.Codec
        var description = AudioStreamBasicDescription()
        switch formatID {
        case kAudioFormatLinearPCM:
            let isFloat = settings[AVLinearPCMIsFloatKey].flatMap(SettingsValue.flag) ?? false
            let bits = settings[AVLinearPCMBitDepthKey].flatMap(SettingsValue.number).flatMap { Int(exactly: $0) } ?? (isFloat ? 32 : 16)
            let asked = settings[AVLinearPCMIsBigEndianKey].flatMap(SettingsValue.flag) ?? false
            let bigEndian = container == .aiff ? true : container == .caf ? asked : false
            guard isFloat ? [32, 64].contains(bits) : [16, 24, 32].contains(bits), [.wav, .aiff, .caf].contains(container) else {
                throw fail(AudioError.unsupportedDataFormat, "linear PCM of \(bits) bits\(isFloat ? " float" : "") cannot be written to "
                           + "\(url.lastPathComponent) (16, 24 or 32-bit integers or 32 or 64-bit floats, in WAV, AIFF or CAF)")
            }
            codec = .linearPCM(bits: bits, isFloat: isFloat, isBigEndian: bigEndian)
            description = .linearPCM(sampleRate: rate, channels: UInt32(channels), bits: UInt32(bits), isFloat: isFloat,
                                     isBigEndian: bigEndian, isNonInterleaved: false) ?? description
        case kAudioFormatMPEG4AAC, kAudioFormatAppleLossless, kAudioFormatFLAC, kAudioFormatOpus:
            let allowed: [AudioFormatID: (WriterTrackSettings.AudioEncoding.Codec, [OutputContainer])] = [
                kAudioFormatMPEG4AAC: (.aac, [.m4a, .caf]), kAudioFormatAppleLossless: (.alac, [.m4a, .caf]),
                kAudioFormatFLAC: (.flac, [.flac, .caf]), kAudioFormatOpus: (.opus, [.ogg, .caf]),
            ]
            guard let (chosen, containers) = allowed[formatID], containers.contains(container) else {
                throw fail(AudioError.unsupportedDataFormat, "\(formatID.fourCharString) audio cannot be written to \(url.lastPathComponent)")
            }
            if chosen == .opus, ![8000.0, 12000, 16000, 24000, 48000].contains(rate) {
                throw fail(AudioError.unsupportedDataFormat, "Opus is written at 8, 12, 16, 24 or 48 kHz, not \(rate) Hz")
            }
            codec = chosen
            description.mSampleRate = rate
            description.mFormatID = formatID
            description.mChannelsPerFrame = UInt32(channels)
            description.mFramesPerPacket = AVAudioFormat.framesPerPacket(formatID)
        default:
            throw fail(AudioError.unsupportedDataFormat, "Avocet does not write \(formatID.fourCharString) audio")
        }
        var layout: AVAudioChannelLayout?
        if let data = settings[AVChannelLayoutKey] as? Data {
            guard let made = AVAudioChannelLayout(data: data), made.channelCount == UInt32(channels) else {
                throw fail(AudioError.parameter, "the channel layout does not have \(channels) channels")
            }
            layout = made
        } else if channels > 2 {
            layout = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | UInt32(channels))
        }
        guard let fileFormat = withUnsafePointer(to: &description, { AVAudioFormat(streamDescription: $0, channelLayout: layout) }) else {
            throw fail(AudioError.unsupportedDataFormat, "the settings describe no audio format")
        }
        let bitRate = settings[AVEncoderBitRateKey].flatMap(SettingsValue.number).flatMap { Int(exactly: $0.rounded()) }
        var encoding = WriterTrackSettings.AudioEncoding(codec: codec, sampleRate: Int32(rate), channels: channels,
                                                         bitRate: bitRate.flatMap { (1000...2_000_000).contains($0) ? $0 : nil })
        if case .linearPCM = codec { encoding.bitRate = nil }
        return Plan(container: container, encoding: encoding, fileFormat: fileFormat)
    }

    /// The container ``AVAudioFileTypeKey`` names, or else the one the URL's extension does.
    private static func container(url: URL, settings: [String: Any]) -> OutputContainer? {
        if let type = settings[AVAudioFileTypeKey].flatMap(SettingsValue.number).flatMap({ UInt32(exactly: $0) }) {
            switch type {
            case kAudioFileWAVEType, kAudioFileRF64Type, kAudioFileWave64Type: return .wav
            case kAudioFileAIFFType, kAudioFileAIFCType: return .aiff
            case kAudioFileCAFType: return .caf
            case kAudioFileM4AType, kAudioFileMPEG4Type: return .m4a
            case kAudioFileFLACType: return .flac
            default: return nil
            }
        }
        switch url.pathExtension.lowercased() {
        case "wav", "wave": return .wav
        case "aif", "aiff", "aifc": return .aiff
        case "caf": return .caf
        case "m4a", "mp4": return .m4a
        case "flac": return .flac
        case "opus", "ogg", "oga": return .ogg
        default: return nil
        }
    }
}
