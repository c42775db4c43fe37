import Foundation
internal import Locking

/// An audio file, read or written in buffers of PCM: any audio FFmpeg reads (WAV, AIFF, CAF, MP3,
/// AAC and ALAC in M4A, FLAC, Ogg Vorbis and Opus, the sound of a movie, Matroska and WebM), decoded
/// to its ``processingFormat``; or a new WAV, AIFF, CAF, M4A (AAC, ALAC), FLAC or Ogg Opus file
/// encoded from buffers.
///
/// Reading and writing run on the calling thread: a read decodes what it hands out, a write encodes
/// what it takes (as Apple's do); the calls block for that CPU work and the file's I/O, so call them
/// from a thread or task that may wait, not in bulk from a latency-sensitive one. One party uses a
/// file at a time (a lock makes concurrent calls take turns).
///
/// Errors are `NSError`s in Apple's AVFAudio domain (`com.apple.coreaudio.avfaudio`) with Core Audio's
/// codes: -43 for a missing or closed file, -54 without permission, 'dta?' (1685348671) for bytes that
/// are not a readable audio file or are damaged, 'typ?' (1954115647) for a file type that cannot be
/// written or a file without audio, 'fmt?' (1718449215) for a data format that cannot be, -50 for a
/// buffer of another format or a count beyond its capacity (where Apple raises an exception). A
/// damaged or truncated file reads what is readable, then throws.
open class AVAudioFile: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the formats and URL are set once, in init; the reader or writer sits behind
    // the lock.
    private enum Mode {
        case reading(AudioFileReader)
        case writing(AudioFileWriter)
        case closed
    }

    private let fileURL: URL
    private let onDisk: AVAudioFormat
    private let processing: AVAudioFormat
    private let mode: Locked<Mode>
    /// A seek that failed, thrown by the next read (the position's setter cannot throw).
    private let pendingError = Locked<NSError?>(nil)

    // MARK: - Reading

    /// Opens a file for reading, its ``processingFormat`` the standard format (deinterleaved 32-bit
    /// float) at the file's rate and channel count.
    ///
    /// Parses the header on the calling thread (and reads the first packets where the header leaves
    /// facts out: Ogg, FLAC, MP3 without a header).
    ///
    /// - Parameter fileURL: A local file.
    /// - Throws: -43 for a missing file, 'dta?' for one that is not audio, 'typ?' for one without an
    ///   audio track, 'fmt?' for audio this FFmpeg cannot decode.
    public init(forReading fileURL: URL) throws {
        (self.fileURL, onDisk, processing, mode) = try AVAudioFile.openForReading(fileURL, .pcmFormatFloat32, interleaved: false)
        super.init()
    }

    /// Opens a file for reading, its buffers in `format`, interleaved or not, at the file's rate and
    /// channel count.
    ///
    /// - Parameters:
    ///   - fileURL: A local file.
    ///   - format: The buffers' sample format; ``AVAudioCommonFormat/otherFormat`` is refused (-50).
    ///   - interleaved: Whether the buffers' channels alternate in one buffer.
    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        (self.fileURL, onDisk, processing, mode) = try AVAudioFile.openForReading(fileURL, format, interleaved: interleaved)
        super.init()
    }

    // MARK: - Writing

    /// Creates a file for writing (replacing one that exists), in the format `settings` describe, its
    /// buffers in the standard format (deinterleaved 32-bit float) at the settings' rate and channels.
    ///
    /// The file type is ``AVAudioFileTypeKey``'s (`kAudioFileWAVEType`, `kAudioFileAIFFType`,
    /// `kAudioFileCAFType`, `kAudioFileM4AType`, `kAudioFileFLACType`), else the URL's extension's (wav,
    /// aif/aiff, caf, m4a, flac, opus/ogg). The settings need ``AVSampleRateKey`` and
    /// ``AVNumberOfChannelsKey``; ``AVFormatIDKey`` is linear PCM when absent (16, 24 or 32-bit integer, or
    /// 32 or 64-bit float, in WAV, AIFF or CAF: WAV is always little-endian, AIFF big-endian),
    /// `kAudioFormatMPEG4AAC` or `kAudioFormatAppleLossless` (M4A, CAF), `kAudioFormatFLAC` (FLAC, CAF) or
    /// `kAudioFormatOpus` (Ogg at 8, 12, 16, 24 or 48 kHz); ``AVEncoderBitRateKey`` sets a compressed
    /// format's bit rate. Writes the header on the calling thread.
    ///
    /// - Parameters:
    ///   - fileURL: A local file.
    ///   - settings: The file's format.
    /// - Throws: 'typ?' for a file type Avocet does not write, 'fmt?' for a format the type cannot hold
    ///   or this FFmpeg cannot encode, -50 without a rate or channel count, -54 without permission.
    public init(forWriting fileURL: URL, settings: [String: Any]) throws {
        (self.fileURL, onDisk, processing, mode) = try AVAudioFile.openForWriting(fileURL, settings, .pcmFormatFloat32, interleaved: false)
        super.init()
    }

    /// Creates a file for writing as ``init(forWriting:settings:)`` does, its buffers in `format`,
    /// interleaved or not.
    ///
    /// - Parameters:
    ///   - fileURL: A local file.
    ///   - settings: The file's format.
    ///   - format: The buffers' sample format; ``AVAudioCommonFormat/otherFormat`` is refused (-50).
    ///   - interleaved: Whether the buffers' channels alternate in one buffer.
    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        (self.fileURL, onDisk, processing, mode) = try AVAudioFile.openForWriting(fileURL, settings, format, interleaved: interleaved)
        super.init()
    }

    /// Finishes a file being written (encoder drained, header completed), as Apple's does when a file
    /// object goes away without ``close()``.
    deinit {
        mode.withLock { mode in
            if case .writing(let writer) = mode { try? writer.finish() }
            mode = .closed
        }
    }

    // MARK: - Properties

    /// The file's location.
    open var url: URL { fileURL }

    /// The format of the audio in the file: linear PCM with its depth and byte order, or the codec's
    /// format ID (`kAudioFormatMPEG4AAC`, `kAudioFormatFLAC`, ... and 'vorb' for Vorbis) with its rate,
    /// channels and frames a packet.
    open var fileFormat: AVAudioFormat { onDisk }

    /// The format of the buffers read and written: PCM at the file's rate and channel count (more than
    /// two channels carry a layout; a file's are in FFmpeg's default order for the count, which for 5.1
    /// and 7.1 is `kAudioChannelLayoutTag_MPEG_5_1_A` and `kAudioChannelLayoutTag_WAVE_7_1`).
    open var processingFormat: AVAudioFormat { processing }

    /// The frames in the file (being written: the frames written so far).
    ///
    /// Exact, as the decoder gives them: from the header where it states them (WAV, AIFF, CAF, FLAC, an
    /// MP4 track), else from a scan of the packets' times (MP3, Ogg, ADTS: reads the whole file once, a
    /// fraction of decoding it), else by decoding the file once (Matroska, whose millisecond times are
    /// too coarse). The first call pays that cost on the calling thread; later calls are free. A file
    /// that fails to scan reports 0.
    open var length: AVAudioFramePosition {
        mode.withLock { mode in
            switch mode {
            case .reading(let reader): return (try? reader.length()) ?? 0
            case .writing(let writer): return writer.position
            case .closed: return 0
            }
        }
    }

    /// The frame the next read starts at (from the file's first frame; a file written: the frames
    /// written so far). Setting it seeks, exactly to the frame, at the cost of decoding from the
    /// packet before (a few packets more for MP3 and Opus); a seek that fails makes the next read
    /// throw. Writing, setting it does nothing: Avocet writes sequentially.
    open var framePosition: AVAudioFramePosition {
        get {
            mode.withLock { mode in
                switch mode {
                case .reading(let reader): return reader.position
                case .writing(let writer): return writer.position
                case .closed: return 0
                }
            }
        }
        set {
            mode.withLock { mode in
                guard case .reading(let reader) = mode else { return }
                do {
                    try reader.seek(to: newValue)
                } catch {
                    pendingError.withLock { $0 = AudioError.make(error, failedCall: "ExtAudioFileSeek") }
                }
            }
        }
    }

    /// Whether the file is open: false after ``close()``.
    open var isOpen: Bool {
        mode.withLock { mode in
            if case .closed = mode { return false }
            return true
        }
    }

    // MARK: - Reading and writing

    /// Reads frames from ``framePosition`` until `buffer` is full (its `frameCapacity`) or the file ends;
    /// `buffer.frameLength` says how many were read (0 at the end) and ``framePosition`` moves past them.
    ///
    /// Decodes on the calling thread.
    ///
    /// - Parameter buffer: A buffer in ``processingFormat``.
    /// - Throws: -50 for a buffer of another format; the file's error where it is damaged (what was
    ///   readable before is read first); -43 after ``close()``.
    open func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads up to `frames` frames from ``framePosition`` into `buffer`, as ``read(into:)`` does.
    ///
    /// - Parameters:
    ///   - buffer: A buffer in ``processingFormat``.
    ///   - frames: At most the buffer's `frameCapacity` (-50 beyond it, where Apple raises an exception).
    open func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        try mode.withLock { mode in
            try checkBuffer(buffer, against: mode, reading: true)
            guard case .reading(let reader) = mode else { return }
            guard frames <= buffer.frameCapacity else {
                throw AudioError.make(AudioError.parameter, "\(frames) frames do not fit a buffer of \(buffer.frameCapacity)",
                                      failedCall: "false condition")
            }
            if let error = pendingError.withLock({ e -> NSError? in defer { e = nil }; return e }) { throw error }
            do {
                try reader.read(Int(frames), into: buffer)
            } catch {
                throw AudioError.make(error, failedCall: "ExtAudioFileRead")
            }
        }
    }

    /// Writes `buffer`'s `frameLength` frames after those written before; ``framePosition`` and ``length``
    /// move past them.
    ///
    /// Encodes on the calling thread (a compressed format's encoder holds up to one packet of frames
    /// until more come or the file closes).
    ///
    /// - Parameter buffer: A buffer in ``processingFormat``.
    /// - Throws: -50 for a buffer of another format; the encoder's or the disk's error (a full disk);
    ///   -43 after ``close()``.
    open func write(from buffer: AVAudioPCMBuffer) throws {
        try mode.withLock { mode in
            try checkBuffer(buffer, against: mode, reading: false)
            guard case .writing(let writer) = mode else { return }
            do {
                try writer.write(buffer.interleavedFloats(0..<Int(buffer.frameLength)))
            } catch {
                throw AudioError.make(error, failedCall: "ExtAudioFileWrite")
            }
        }
    }

    /// Closes the file: a file being written is finished (the encoder drained, the header completed);
    /// reads and writes then throw -43. Closing again does nothing. An error finishing the file is
    /// lost here (as Apple's `close()` does not throw): a file that matters is checked by reading it.
    open func close() {
        mode.withLock { mode in
            if case .writing(let writer) = mode { try? writer.finish() }
            mode = .closed
        }
    }

    // MARK: - Opening

    /// Throws unless the file is open for the operation (-43 closed, 'op??' in the other mode) and
    /// `buffer` is in the processing format (-50).
    private func checkBuffer(_ buffer: AVAudioPCMBuffer, against mode: Mode, reading: Bool) throws {
        let call = reading ? "ExtAudioFileRead" : "ExtAudioFileWrite"
        switch (mode, reading) {
        case (.reading, true), (.writing, false): break
        case (.closed, _): throw AudioError.make(AudioError.fileNotFound, "the file is closed", failedCall: call)
        default:
            throw AudioError.make(AudioError.operationNotSupported, "the file was opened for \(reading ? "writing" : "reading")", failedCall: call)
        }
        guard buffer.format.isEqual(processing) else {
            throw AudioError.make(AudioError.parameter, "the buffer's format \(buffer.format) is not the file's processing format \(processing)",
                                  failedCall: "false condition")
        }
    }

    private static func openForReading(_ url: URL, _ common: AVAudioCommonFormat,
                                       interleaved: Bool) throws -> (URL, AVAudioFormat, AVAudioFormat, Locked<Mode>) {
        let reader: AudioFileReader
        do {
            reader = try AudioFileReader(path: url.path)
        } catch {
            throw AudioError.make(error, failedCall: "ExtAudioFileOpenURL")
        }
        guard let onDisk = reader.storedFormat, let processing = processingFormat(common, rate: Double(reader.rate), channels: UInt32(reader.channels),
                                                                                 interleaved: interleaved, layout: processingLayout(channels: UInt32(reader.channels))) else {
            throw AudioError.make(AudioError.parameter, "no \(common) processing format for \(reader.channels) channels at \(reader.rate) Hz",
                                  failedCall: "false condition")
        }
        return (url, onDisk, processing, Locked(.reading(reader)))
    }

    private static func openForWriting(_ url: URL, _ settings: [String: Any], _ common: AVAudioCommonFormat,
                                       interleaved: Bool) throws -> (URL, AVAudioFormat, AVAudioFormat, Locked<Mode>) {
        let plan = try AudioFileWriter.plan(url: url, settings: settings)
        let channels = UInt32(plan.encoding.channels)
        guard let processing = processingFormat(common, rate: Double(plan.encoding.sampleRate), channels: channels, interleaved: interleaved,
                                                layout: plan.fileFormat.channelLayout ?? processingLayout(channels: channels)) else {
            throw AudioError.make(AudioError.parameter, "no \(common) processing format for \(channels) channels", failedCall: "false condition")
        }
        let writer: AudioFileWriter
        do {
            writer = try AudioFileWriter(path: url.path, plan: plan)
        } catch {
            throw AudioError.make(error, failedCall: "ExtAudioFileCreateWithURL")
        }
        return (url, plan.fileFormat, processing, Locked(.writing(writer)))
    }

    /// PCM in `common` (not `.otherFormat`), with `layout` beyond two channels.
    private static func processingFormat(_ common: AVAudioCommonFormat, rate: Double, channels: UInt32, interleaved: Bool,
                                         layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        guard common != .otherFormat else { return nil }
        if channels <= 2 { return AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: interleaved) }
        guard let layout, layout.channelCount == channels else { return nil }
        return AVAudioFormat(commonFormat: common, sampleRate: rate, interleaved: interleaved, channelLayout: layout)
    }

    /// The layout of FFmpeg's default order for `channels` (what the decoder's sound is mixed to):
    /// Apple's tag of the same order where one exists, else channels in order; nil for one or two.
    static func processingLayout(channels: UInt32) -> AVAudioChannelLayout? {
        switch channels {
        case 0...2: return nil
        case 3: return AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_3_0_A)
        case 4: return AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_4_0_A)
        case 5: return AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_0_A)
        case 6: return AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)
        case 8: return AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_WAVE_7_1)
        default: return AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | channels)
        }
    }
}
