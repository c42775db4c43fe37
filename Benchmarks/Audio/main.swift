// Reading and converting sound through the public AVAudioFile and AVAudioConverter API, for Benchmarks/audio.py.
//
//     swift build -c release --product avocet-audio-bench
//     .build/release/avocet-audio-bench transcode [--discard] FILE
//     .build/release/avocet-audio-bench read FILE
//
// MODE
//   transcode  AVAudioFile(forReading:) read in 1-second AVAudioPCMBuffers of its processing format,
//              converted by AVAudioConverter (from the processing format to 16 kHz mono deinterleaved
//              Float32) with the input-block form, convert(to:error:withInputFrom:), into 1-second
//              output buffers, the channels mixed (downmix = true, as `ffmpeg -ac 1` mixes them); the
//              samples go to standard output as raw little-endian Float32 (as
//              `ffmpeg -f f32le -` writes them), or are only counted with --discard.
//   read       AVAudioFile(forReading:) read in 1-second buffers of its processing format (the standard
//              format: deinterleaved Float32), every sample summed.
//
// Everything runs on the main thread (the converter calls its input block on the calling thread). Prints
// one JSON line, to standard error when the samples go to standard output: frames (output frames, or the
// file's frames for read), buffers, seconds (from opening the file to the last buffer), sum (read only).
// Exits 1 on any error.
import AVFoundation
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("avocet-audio-bench: \(message)\n".utf8))
    exit(1)
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func report(_ line: [String: Any], toStandardError: Bool) {
    guard let json = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { fail("cannot write the report") }
    let text = Data((String(decoding: json, as: UTF8.self) + "\n").utf8)
    if toStandardError { FileHandle.standardError.write(text) } else { FileHandle.standardOutput.write(text) }
}

/// Writes `count` bytes from `bytes` to standard output, all of them.
func writeOut(_ bytes: UnsafeRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let n = write(1, bytes + done, count - done)
        if n < 0 {
            if errno == EINTR { continue }
            fail("cannot write to standard output (errno \(errno))")
        }
        done += n
    }
}

/// Reads `file` into `buffer`; false at the end of the file. A read that throws at the end (Apple leaves
/// unsaid whether reading past the end throws or gives 0 frames) is the end too.
func readNext(_ file: AVAudioFile, into buffer: AVAudioPCMBuffer) throws -> Bool {
    do {
        try file.read(into: buffer)
    } catch {
        if file.framePosition >= file.length { return false }
        throw error
    }
    return buffer.frameLength > 0
}

/// The converter's source: the file read one 1-second buffer at a time. A class so that the input block
/// (which newer SDKs mark @Sendable) can keep its state; used on one thread only.
final class Feed: @unchecked Sendable {
    let file: AVAudioFile
    let buffer: AVAudioPCMBuffer
    var ended = false
    var failure: (any Error)?
    var buffers = 0

    init(file: AVAudioFile, buffer: AVAudioPCMBuffer) {
        self.file = file
        self.buffer = buffer
    }

    /// The input block's answer: the next buffer, or nil with `.endOfStream` at the end or on an error.
    func next(_ status: UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer? {
        if !ended {
            do {
                if try readNext(file, into: buffer) {
                    buffers += 1
                    status.pointee = .haveData
                    return buffer
                }
            } catch {
                failure = error
            }
            ended = true
        }
        status.pointee = .endOfStream
        return nil
    }
}

func transcode(_ url: URL, discard: Bool) {
    let started = ContinuousClock.now
    let file: AVAudioFile
    do { file = try AVAudioFile(forReading: url) } catch { fail("\(url.path): \(error)") }
    let inputFormat = file.processingFormat
    guard let outputFormat = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false) else {
        fail("no 16 kHz mono Float32 format")
    }
    guard let converter = AVAudioConverter(from: inputFormat, to: outputFormat) else {
        fail("no converter from \(inputFormat) to \(outputFormat)")
    }
    // Mix the channels into one, as `ffmpeg -ac 1` does (without it the converter keeps the first channel).
    converter.downmix = true
    let second = AVAudioFrameCount(inputFormat.sampleRate.rounded(.up))
    guard let input = AVAudioPCMBuffer(pcmFormat: inputFormat, frameCapacity: second),
          let output = AVAudioPCMBuffer(pcmFormat: outputFormat, frameCapacity: 16_000) else {
        fail("cannot make the 1-second buffers")
    }
    let feed = Feed(file: file, buffer: input)
    var frames = 0
    var outputs = 0
    while true {
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, inputStatus in feed.next(inputStatus) }
        if let failure = feed.failure { fail("reading \(url.path): \(failure)") }
        if status == .error { fail("converting: \(error.map { "\($0)" } ?? "no error given")") }
        let count = Int(output.frameLength)
        if count > 0 {
            frames += count
            outputs += 1
            if !discard {
                guard let samples = output.floatChannelData?[0] else { fail("the output buffer has no Float32 data") }
                writeOut(samples, count * MemoryLayout<Float>.size)
            }
        }
        // .endOfStream: nothing more; .inputRanDry cannot come from this feed (it never says noDataNow).
        if status == .endOfStream || status == .inputRanDry || (count == 0 && feed.ended) { break }
    }
    report(["mode": "transcode", "frames": frames, "buffers": outputs, "inputBuffers": feed.buffers,
            "seconds": seconds(since: started)], toStandardError: !discard)
}

/// The sum of `count` samples `stride` apart, in sixteen lanes of Float32 (a block of a second stays well
/// within Float32's precision), added up in Float64.
func total(_ samples: UnsafeMutablePointer<Float>, count: Int, stride: Int) -> Double {
    guard stride == 1 else { return (0..<count).reduce(0.0) { $0 + Double(samples[$1 * stride]) } }
    let raw = UnsafeRawPointer(samples)
    let lanes = count / 16
    var partial = SIMD16<Float>()
    for i in 0..<lanes { partial += raw.loadUnaligned(fromByteOffset: i * 64, as: SIMD16<Float>.self) }
    var sum = Double(partial.sum())
    for i in (lanes * 16)..<count { sum += Double(samples[i]) }
    return sum
}

func read(_ url: URL) {
    let started = ContinuousClock.now
    let file: AVAudioFile
    do { file = try AVAudioFile(forReading: url) } catch { fail("\(url.path): \(error)") }
    let format = file.processingFormat
    let second = AVAudioFrameCount(format.sampleRate.rounded(.up))
    guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: second) else { fail("cannot make a 1-second buffer") }
    guard let channels = buffer.floatChannelData else { fail("the processing format \(format) is not Float32") }
    let channelCount = Int(format.channelCount)
    let stride = buffer.stride
    var frames = 0
    var buffers = 0
    var sum = 0.0
    while true {
        do {
            guard try readNext(file, into: buffer) else { break }
        } catch {
            fail("reading \(url.path): \(error)")
        }
        let count = Int(buffer.frameLength)
        for channel in 0..<channelCount { sum += total(channels[channel], count: count, stride: stride) }
        frames += count
        buffers += 1
    }
    report(["mode": "read", "frames": frames, "buffers": buffers, "sum": sum, "seconds": seconds(since: started)], toStandardError: false)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("transcode", 2): transcode(URL(fileURLWithPath: arguments[1]), discard: false)
case ("transcode", 3) where arguments[1] == "--discard": transcode(URL(fileURLWithPath: arguments[2]), discard: true)
case ("read", 2): read(URL(fileURLWithPath: arguments[1]))
default: fail("usage: avocet-audio-bench transcode [--discard] FILE | read FILE")
}
