import Foundation
internal import MediaEngine

/// What an ``AVAudioPlayer`` plays: a local file or bytes in memory, the audio stream chosen in it and
/// the facts its header gives (rate, channels, duration, format). Made by reading the header on the
/// calling thread; immutable after.
struct AudioPlayerMedia: Sendable {
    enum Origin: Sendable {
        case file(String)
        case data(Data)
    }

    let origin: Origin
    /// The stream played: the container's default audio stream, else its first.
    let streamIndex: Int
    /// The stream's own rate and channel count.
    let rate: Int32
    let channels: Int32
    /// Seconds, from the stream's stated duration, else the container's (0 when neither says).
    let duration: Double
    /// Whether the header states the duration (not FFmpeg's estimate from the bit rate): sound that
    /// ends well before it then means a damaged file.
    let durationIsExact: Bool
    /// The stream's format as the file stores it (compressed formats as their format ID).
    let format: AVAudioFormat

    /// Reads the header of `origin` on the calling thread and picks its audio stream.
    ///
    /// - Throws: `NSError` in `NSOSStatusErrorDomain`, as Apple's audio player throws: -43
    ///   (`kAudioFileFileNotFoundError`) for a missing file or a URL that is not a local file, -54 for
    ///   one that may not be read, 'typ?' (`kAudioFileUnsupportedFileTypeError`) for bytes that are not
    ///   media or media without audio, 'fmt?' (`kAudioFileUnsupportedDataFormatError`) for audio this
    ///   FFmpeg cannot decode, 'dta?' (`kAudioFileInvalidFileError`) for a damaged file.
    init(_ origin: Origin) throws {
        self.origin = origin
        let call = AudioPlayerMedia.failedCall(origin)
        let info: ContainerInfo
        do {
            info = try Demuxer(source: try AudioPlayerMedia.source(origin), options: DemuxerOptions(), cancellation: CancellationToken()).info
        } catch {
            throw AudioPlayerMedia.error(error, failedCall: call)
        }
        let choice = try AudioStreamChoice(info, name: AudioPlayerMedia.name(origin), failedCall: call, domain: NSOSStatusErrorDomain)
        let chosen = choice.stream
        streamIndex = chosen.index
        (rate, channels) = (choice.rate, choice.channels)
        let seconds = chosen.durationSeconds ?? info.durationSeconds ?? 0
        duration = seconds.isFinite && seconds > 0 ? seconds : 0
        durationIsExact = duration > 0 && !info.durationIsEstimate
        guard let stored = choice.storedFormat() else {
            throw AudioError.make(AudioError.unsupportedDataFormat, "\(AudioPlayerMedia.name(origin)): no format for \(channels) channels",
                                  failedCall: call, domain: NSOSStatusErrorDomain)
        }
        format = stored
    }

    /// A new byte source over the media, for a reader of its own. Opening a file checks that it is
    /// still there (blocking: one `open`); bytes in memory cost nothing.
    func openSource() throws -> any ByteSource {
        try AudioPlayerMedia.source(origin)
    }

    /// The name messages give the media.
    var name: String { AudioPlayerMedia.name(origin) }

    private static func source(_ origin: Origin) throws -> any ByteSource {
        switch origin {
        case .file(let path): return try FileByteSource(path: path)
        case .data(let data): return DataByteSource(data, name: "audio data")
        }
    }

    private static func name(_ origin: Origin) -> String {
        switch origin {
        case .file(let path): return path
        case .data: return "the audio data"
        }
    }

    /// The Audio File Services call Apple's player makes, for the error's "failed call".
    private static func failedCall(_ origin: Origin) -> String {
        switch origin {
        case .file: return "AudioFileOpenURL"
        case .data: return "AudioFileOpenWithCallbacks"
        }
    }

    /// An engine failure while opening, as the audio player's error: bytes that are not media are
    /// 'typ?' (Apple's player gives that for data it cannot recognise); the rest as `AudioError` maps
    /// them (-43 missing, 'dta?' damaged, 'fmt?' unsupported).
    static func error(_ error: any Error, failedCall: String) -> NSError {
        if let engine = error as? MediaEngineError, engine.code == .notMedia {
            return AudioError.make(AudioError.unsupportedFileType, engine.description, failedCall: failedCall, domain: NSOSStatusErrorDomain)
        }
        return AudioError.make(error, failedCall: failedCall, domain: NSOSStatusErrorDomain)
    }
}
