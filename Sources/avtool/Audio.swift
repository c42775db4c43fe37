import ArgumentParser
import AVFoundation
import Foundation
import Locking

struct Audio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a file's sound to raw samples or WAV, through AVAudioFile and AVAudioConverter.",
        discussion: """
            The sound of any audio or movie file FFmpeg reads (the first audio track) is decoded with \
            AVAudioFile, a second at a time, and converted with AVAudioConverter to --rate Hz and \
            --channels channels (default: the file's own). --format f32 writes interleaved 32-bit float, \
            s16 interleaved 16-bit integers (both little-endian, no header), wav a 16-bit WAV file. Raw \
            samples go to -o FILE or standard output (-o - or no -o); wav needs -o FILE. A progress line \
            shows on a terminal; --json prints a summary (frames in and out, rates, channels, seconds) as \
            one JSON object on standard output (standard error when samples go there).
            """)

    @Argument(help: "A local audio or movie file.")
    var file: String

    @Option(help: "The output's sample rate in Hz (default: the file's).")
    var rate: Double?

    @Option(help: "The output's channel count, 1 or 2 (default: the file's).")
    var channels: Int?

    @Option(help: "f32, s16 or wav.")
    var format = "f32"

    @Option(name: .shortAndLong, help: "The output file (- or nothing: standard output; wav needs a file).")
    var output: String?

    @Flag(help: "Print a JSON summary.")
    var json = false

    func validate() throws {
        guard ["f32", "s16", "wav"].contains(format) else { throw ValidationError("--format must be f32, s16 or wav") }
        if let rate { guard rate >= 1000, rate <= 768_000 else { throw ValidationError("--rate must be 1000 to 768000 Hz") } }
        if let channels { guard (1...2).contains(channels) else { throw ValidationError("--channels must be 1 or 2") } }
        if format == "wav" { guard let output, output != "-" else { throw ValidationError("--format wav needs -o FILE") } }
    }

    func run() async throws {
        let job = Job(command: self)
        // The decoding and converting block their thread: they run on one of their own, never on the
        // cooperative pool.
        let result = await withHandOffContinuation { (done: CheckedContinuation<Result<Job.Summary, AudioFailure>, Never>) in
            Thread {
                done.resume(returning: Result { try job.run() }.mapError { $0 as? AudioFailure ?? AudioFailure(message: "\($0)") })
            }.start()
        }
        switch result {
        case .success(let summary):
            if json {
                let text = summary.json(file: file)
                if job.writesToStandardOutput { try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8)) } else { print(text) }
            } else if !job.writesToStandardOutput {
                print("\(output ?? "-"): \(summary.framesOut) frames at \(Int(summary.rate)) Hz, \(summary.channels) channels")
            }
        case .failure(let failure):
            AVTool.complain(failure.message)
            throw ExitCode(1)
        }
    }

    /// What went wrong, in one line for standard error.
    struct AudioFailure: Error {
        let message: String
    }

    /// One conversion: the file read a second at a time, converted, written. Runs on the thread it is
    /// called on.
    final class Job: Sendable {
        let file: String
        let rate: Double?
        let channels: Int?
        let format: String
        let output: String?
        var writesToStandardOutput: Bool { format != "wav" && (output == nil || output == "-") }

        init(command: Audio) {
            (file, rate, channels, format, output) = (command.file, command.rate, command.channels, command.format, command.output)
        }

        struct Summary {
            var framesIn: Int64 = 0
            var framesOut: Int64 = 0
            var sourceRate: Double
            var rate: Double
            var channels: Int
            var seconds: Double = 0

            func json(file: String) -> String {
                let object: [String: Any] = ["file": file, "framesIn": framesIn, "framesOut": framesOut, "sourceRate": sourceRate, "rate": rate,
                                             "channels": channels, "seconds": seconds]
                guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
                return String(decoding: data, as: UTF8.self)
            }
        }

        func run() throws -> Summary {
            let started = Date()
            let input: AVAudioFile
            do {
                input = try AVAudioFile(forReading: URL(fileURLWithPath: file))
            } catch {
                throw AudioFailure(message: error.localizedDescription)
            }
            let source = input.processingFormat
            let outRate = rate ?? source.sampleRate
            let outChannels = AVAudioChannelCount(channels ?? Int(min(2, source.channelCount)))
            let common: AVAudioCommonFormat = format == "s16" ? .pcmFormatInt16 : .pcmFormatFloat32
            // Raw output is interleaved; a WAV file takes the standard (deinterleaved) format.
            guard let target = AVAudioFormat(commonFormat: common, sampleRate: outRate, channels: outChannels, interleaved: format != "wav"),
                  let converter = AVAudioConverter(from: source, to: target) else {
                throw AudioFailure(message: "\(file): cannot convert \(source) to \(outChannels) channels at \(outRate) Hz")
            }
            // More than two channels are mixed down rather than dropped.
            converter.downmix = true
            let sink = try Sink(format: format, output: output, target: target)
            let chunk = AVAudioFrameCount(max(1, source.sampleRate.rounded()))
            let outChunk = AVAudioFrameCount((Double(chunk) * outRate / max(1, source.sampleRate)).rounded(.up) + 64)
            guard let inBuffer = AVAudioPCMBuffer(pcmFormat: source, frameCapacity: chunk),
                  let outBuffer = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: outChunk) else {
                throw AudioFailure(message: "\(file): cannot make buffers for a second of sound")
            }
            let length = input.length
            var summary = Summary(sourceRate: source.sampleRate, rate: outRate, channels: Int(outChannels))
            let failure = Locked<AudioFailure?>(nil)
            var ended = false
            while true {
                var error: NSError?
                let status = converter.convert(to: outBuffer, error: &error) { _, inputStatus in
                    if ended {
                        inputStatus.pointee = .endOfStream
                        return nil
                    }
                    do {
                        try input.read(into: inBuffer)
                    } catch {
                        failure.withLock { $0 = AudioFailure(message: "\(self.file): \(error.localizedDescription)") }
                        ended = true
                        inputStatus.pointee = .endOfStream
                        return nil
                    }
                    guard inBuffer.frameLength > 0 else {
                        ended = true
                        inputStatus.pointee = .endOfStream
                        return nil
                    }
                    summary.framesIn += Int64(inBuffer.frameLength)
                    inputStatus.pointee = .haveData
                    return inBuffer
                }
                if status == .error {
                    throw AudioFailure(message: "\(file): cannot convert the sound: \(error?.localizedDescription ?? "unknown error")")
                }
                if outBuffer.frameLength > 0 {
                    try sink.write(outBuffer)
                    summary.framesOut += Int64(outBuffer.frameLength)
                }
                if let failed = failure.withLock({ $0 }) { throw failed }
                if ImageOutput.showsProgress, length > 0 {
                    let done = min(100, Double(summary.framesIn) / Double(length) * 100)
                    try? FileHandle.standardError.write(contentsOf: Data(String(format: "\raudio: %3.0f%%", done).utf8))
                }
                if status == .endOfStream || (status == .inputRanDry && ended) { break }
            }
            if ImageOutput.showsProgress { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
            try sink.close()
            summary.seconds = Date().timeIntervalSince(started)
            return summary
        }
    }

    /// Where `avtool audio` puts the samples: raw bytes to a file or standard output, or a WAV file.
    final class Sink {
        private let handle: FileHandle?
        private let wav: AVAudioFile?

        init(format: String, output: String?, target: AVAudioFormat) throws {
            if format == "wav", let output {
                let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: target.sampleRate,
                                               AVNumberOfChannelsKey: target.channelCount, AVLinearPCMBitDepthKey: 16]
                do {
                    wav = try AVAudioFile(forWriting: URL(fileURLWithPath: output), settings: settings)
                } catch {
                    throw AudioFailure(message: "\(output): cannot write the file: \(error.localizedDescription)")
                }
                handle = nil
            } else if let output, output != "-" {
                guard let opened = AVTool.openForWriting(output) else {
                    throw AudioFailure(message: "\(output): cannot write the file")
                }
                (handle, wav) = (opened, nil)
            } else {
                (handle, wav) = (FileHandle.standardOutput, nil)
            }
        }

        /// Writes the buffer's frames: its one interleaved buffer's bytes, or through the WAV file.
        func write(_ buffer: AVAudioPCMBuffer) throws {
            if let wav {
                do { try wav.write(from: buffer) } catch { throw AudioFailure(message: "cannot write the WAV file: \(error.localizedDescription)") }
                return
            }
            let list = buffer.audioBufferList.pointee
            guard let data = list.mBuffers.mData, let handle else { return }
            do {
                try handle.write(contentsOf: Data(bytes: data, count: Int(list.mBuffers.mDataByteSize)))
            } catch {
                throw AudioFailure(message: "cannot write the samples: \(error.localizedDescription)")
            }
        }

        func close() throws {
            wav?.close()
            if let handle, handle !== FileHandle.standardOutput { try handle.close() }
        }
    }
}
