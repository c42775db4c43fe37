import Foundation

/// The audio fixtures' facts (facts.json's `audio` entry), as `make-fixtures.py --only audio` made
/// Fixtures/audio/ from them: the signals, the files each signal was encoded into, the damaged files and
/// ffmpeg's resampling references.
public struct AudioFixtureFacts: Decodable, Sendable {
    /// A test signal made with ffmpeg's aevalsrc: channel c is `amplitudes[c] * sin(2π frequencies[c] t)`,
    /// at `sampleRate` for `duration` seconds (exactly `frames` frames), in ffmpeg's channel `layout`
    /// ("stereo", "mono", "5.1": FL FR FC LFE BL BR).
    public struct Signal: Decodable, Sendable {
        public let name: String
        public let sampleRate: Int
        public let duration: Double
        public let layout: String
        public let amplitudes: [Double]
        public let frequencies: [Double]

        public var channels: Int { amplitudes.count }
        /// The frames at `sampleRate`: `sampleRate * duration`.
        public var frames: Int { frames(at: Double(sampleRate)) }

        /// The frames the signal lasts when made at `rate` (Opus's 48000 Hz copy of the 44.1 kHz sine).
        public func frames(at rate: Double) -> Int { Int((rate * duration).rounded()) }

        /// The signal's value on `channel` at `frame`, made at `rate` (the signal's own rate by
        /// default): what a lossless file holds before quantisation.
        public func value(channel: Int, frame: Int, rate: Double? = nil) -> Double {
            guard amplitudes.indices.contains(channel), frequencies.indices.contains(channel) else { return 0 }
            let t = Double(frame) / (rate ?? Double(sampleRate))
            return amplitudes[channel] * sin(2 * Double.pi * frequencies[channel] * t)
        }
    }

    /// A picture track beside the sound (sine-movie.mp4).
    public struct Video: Decodable, Sendable {
        public let codec: String
        public let width: Int
        public let height: Int
        public let fps: Int
    }

    /// One file: `signal` encoded with `codec` (ffprobe's name) into `container` (ffmpeg's muxer name).
    public struct File: Decodable, Sendable {
        public let name: String
        public let signal: String
        public let codec: String
        public let container: String
        /// The encoder's bit rate in bits per second, for lossy codecs.
        public let bitRate: Int?
        /// The rate the signal was made at, where not the signal's own (Opus: 48000).
        public let sampleRate: Int?
        /// The sample format given to the encoder (ffmpeg's name: "s16" for 16-bit FLAC).
        public let sampleFmt: String?
        public let video: Video?

        public var path: String { Fixtures.audioPath(name) }
        public var url: URL { URL(fileURLWithPath: path) }
    }

    /// A file that is damaged: the first `keepFraction` of `source`'s bytes, or a line of `text`;
    /// `bad` is "truncated" or "notAudio".
    public struct Damaged: Decodable, Sendable {
        public let name: String
        public let source: String?
        public let keepFraction: Double?
        public let text: String?
        public let bad: String

        public var path: String { Fixtures.audioPath(name) }
        public var url: URL { URL(fileURLWithPath: path) }
    }

    /// FFmpeg's own resampling of `source` to raw little-endian Float32, `channels` channels at
    /// `sampleRate`: `command` "aresample" is `-af aresample=RATE`, "options" is `-ar RATE -ac CHANNELS`
    /// (whose stereo-to-mono downmix is FFmpeg's: (L + R) / √2).
    public struct Reference: Decodable, Sendable {
        public let name: String
        public let source: String
        public let command: String
        public let sampleRate: Int
        public let channels: Int

        public var path: String { Fixtures.audioPath(name) }

        /// The reference's samples, interleaved when `channels` > 1.
        public func samples() throws -> [Float] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return data.withUnsafeBytes { raw in
                (0..<(raw.count / 4)).map { i in
                    Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                }
            }
        }
    }

    /// The folder under Fixtures/ that holds the files ("audio").
    public let directory: String
    /// The name of ffprobe's and ffmpeg's view of the files in that folder (`AudioExpectation`).
    public let expected: String
    public let signals: [Signal]
    public let files: [File]
    public let damaged: [Damaged]
    public let references: [Reference]

    /// The signal `file` was made from, or nil when facts.json names none by that name.
    public func signal(of file: File) -> Signal? { signals.first { $0.name == file.signal } }
}

/// What ffprobe and ffmpeg say of one audio fixture's first sound track (Fixtures/audio/expected.json,
/// written by make-fixtures.py): compare Avocet's values with FFmpeg's for the same file.
public struct AudioExpectation: Decodable, Sendable {
    public let name: String
    /// ffprobe's codec name ("pcm_s16le", "aac", "opus").
    public let codec: String
    public let sampleRate: Int
    public let channels: Int
    /// ffprobe's layout name ("stereo", "5.1"); nil where the file names none (16-bit stereo WAV, AIFF).
    public let channelLayout: String?
    /// The decoder's sample format in FFmpeg's names ("s16", "s32" for 24-bit, "flt", "fltp").
    public let sampleFmt: String
    /// The bits of each stored sample (24 for pcm_s24le); 0 for lossy codecs.
    public let bitsPerSample: Int
    /// The packets ffprobe's demuxer reads (`-count_packets`).
    public let packets: Int
    /// The frames `ffmpeg -i FILE -f f32le -` writes: FFmpeg's decoded length, which for AAC in MP4 keeps
    /// the last packet's padding (45056 for 1 s) and for Vorbis drops the first block (43972).
    public let decodedFrames: Int
    /// ffprobe's stream duration in seconds, where it gives one (not for Matroska).
    public let duration: Double?
}

extension Fixtures {
    private struct FactsWithAudio: Decodable {
        let audio: AudioFixtureFacts
    }

    private struct ExpectedFile: Decodable {
        let files: [AudioExpectation]
    }

    /// facts.json's `audio` entry.
    public static let audio: AudioFixtureFacts = {
        let url = directory.appendingPathComponent("facts.json")
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(FactsWithAudio.self, from: Data(contentsOf: url)).audio
        } catch {
            fatalError("cannot read the audio entry of \(url.path): \(error)")
        }
    }()

    /// Fixtures/audio/expected.json: ffprobe's and ffmpeg's view of every audio fixture that holds sound.
    public static let audioExpectations: [AudioExpectation] = {
        let url = directory.appendingPathComponent(audio.directory).appendingPathComponent(audio.expected)
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(ExpectedFile.self, from: Data(contentsOf: url)).files
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    /// The path of Fixtures/audio/`name`.
    public static func audioPath(_ name: String) -> String {
        directory.appendingPathComponent(audio.directory).appendingPathComponent(name).path
    }

    /// The audio file `name`'s facts.
    public static func audioFile(_ name: String) -> AudioFixtureFacts.File {
        guard let f = audio.files.first(where: { $0.name == name }) else { fatalError("no audio file \(name) in facts.json") }
        return f
    }

    /// The signal the audio file `name` was made from.
    public static func audioSignal(of name: String) -> AudioFixtureFacts.Signal {
        guard let s = audio.signal(of: audioFile(name)) else { fatalError("no signal for \(name) in facts.json") }
        return s
    }

    /// What ffprobe and ffmpeg say of the audio file `name` (expected.json).
    public static func audioExpectation(_ name: String) -> AudioExpectation {
        guard let e = audioExpectations.first(where: { $0.name == name }) else { fatalError("no \(name) in audio/expected.json") }
        return e
    }

    /// The resampling reference `name` (facts.json's audio references).
    public static func audioReference(_ name: String) -> AudioFixtureFacts.Reference {
        guard let r = audio.references.first(where: { $0.name == name }) else { fatalError("no audio reference \(name) in facts.json") }
        return r
    }
}
