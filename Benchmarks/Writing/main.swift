// Writing a movie from pixel buffers through the public AVAssetWriter API, for Benchmarks/writing.py.
//
//     swift build -c release --product avocet-write-bench
//     .build/release/avocet-write-bench MODE WIDTH HEIGHT FPS BITRATE OUTPUT [COUNT] < FRAMES
//
// FRAMES (standard input) is raw 32BGRA pictures of WIDTH x HEIGHT, one after another, as
// `ffmpeg -f rawvideo -pix_fmt bgra -s WxH -i -` reads them. Each is read straight into a pixel buffer
// from the adaptor's pool and appended at frame n / FPS, from requestMediaDataWhenReady's block.
// With COUNT, standard input is not read: COUNT pictures are drawn instead (moving bars with noise,
// for the memory runs, whose inputs would be too large to keep).
// H.264 (libx264 through AVVideoCodecType.h264) at BITRATE bits a second, a keyframe every 2 s.
//
// MODE
//   file      one MP4 file at OUTPUT
//   segments  fragmented MP4 segments of 6 s, handed to the writer's delegate (AVAssetWriter(contentType:),
//             .mpeg4AppleHLS) and written to OUTPUT (a directory) as the delegate receives them
//
// Prints one JSON line: frames, bytes (of the output), seconds (from making the writer to the end of
// finishWriting), and for segments the segment count and the largest segment's bytes.
// Exits 1 when the writer does not complete.
import AVFoundation
import Foundation
import UniformTypeIdentifiers

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("avocet-write-bench: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 7 || arguments.count == 8, let width = Int(arguments[2]), let height = Int(arguments[3]), let fps = Int32(arguments[4]),
      let bitRate = Int(arguments[5]), width > 0, height > 0, fps > 0 else {
    fail("usage: avocet-write-bench file|segments WIDTH HEIGHT FPS BITRATE OUTPUT [COUNT] < FRAMES")
}
let drawn = arguments.count == 8 ? Int64(arguments[7]) : nil
let mode = arguments[1]
let output = URL(fileURLWithPath: arguments[6])

/// Receives segments and writes each to a file of its own; counts them.
final class SegmentSaver: NSObject, AVAssetWriterDelegate, @unchecked Sendable {
    // @unchecked Sendable: the writer calls back on one thread at a time.
    let directory: URL
    var count = 0
    var bytes = 0
    var largest = 0

    init(directory: URL) { self.directory = directory }

    func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                     segmentReport: AVAssetSegmentReport?) {
        let name = segmentType == .initialization ? "init.mp4" : "segment\(count).m4s"
        if segmentType == .separable { count += 1; largest = max(largest, segmentData.count) }
        bytes += segmentData.count
        do { try segmentData.write(to: directory.appendingPathComponent(name)) } catch { fail("cannot write \(name): \(error)") }
    }
}

let started = ContinuousClock.now
let writer: AVAssetWriter
var saver: SegmentSaver?
switch mode {
case "file":
    try? FileManager.default.removeItem(at: output)
    do { writer = try AVAssetWriter(outputURL: output, fileType: .mp4) } catch { fail("\(error)") }
case "segments":
    try? FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    writer = AVAssetWriter(contentType: UTType(AVFileType.mp4.rawValue) ?? .mpeg4Movie)
    let delegate = SegmentSaver(directory: output)
    saver = delegate
    writer.delegate = delegate
    writer.outputFileTypeProfile = .mpeg4AppleHLS
    writer.preferredOutputSegmentInterval = CMTime(seconds: 6, preferredTimescale: 1)
    writer.initialSegmentStartTime = .zero
default:
    fail("unknown mode \(mode)")
}
let settings: [String: Any] = [
    AVVideoCodecKey: AVVideoCodecType.h264,
    AVVideoWidthKey: width,
    AVVideoHeightKey: height,
    AVVideoCompressionPropertiesKey: [
        AVVideoAverageBitRateKey: bitRate,
        AVVideoMaxKeyFrameIntervalKey: Int(fps) * 2,
        AVVideoExpectedSourceFrameRateKey: Int(fps),
    ] as [String: Any],
]
let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings)
input.expectsMediaDataInRealTime = false
let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
    kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
    kCVPixelBufferWidthKey as String: width,
    kCVPixelBufferHeightKey as String: height,
])
guard writer.canAdd(input) else { fail("cannot add the input") }
writer.add(input)
guard writer.startWriting() else { fail("startWriting: \(String(describing: writer.error))") }
writer.startSession(atSourceTime: .zero)

/// Feeds the input from standard input on the writer's request queue.
final class Feeder: @unchecked Sendable {
    // @unchecked Sendable: used from the request queue only, after the main thread set it up.
    let input: AVAssetWriterInput
    let adaptor: AVAssetWriterInputPixelBufferAdaptor
    let writer: AVAssetWriter
    let (width, height, fps): (Int, Int, Int32)
    /// Pictures to draw instead of reading standard input.
    let drawn: Int64?
    var frames: Int64 = 0
    let done = DispatchSemaphore(value: 0)

    init(_ input: AVAssetWriterInput, _ adaptor: AVAssetWriterInputPixelBufferAdaptor, _ writer: AVAssetWriter, width: Int, height: Int,
         fps: Int32, drawn: Int64?) {
        (self.input, self.adaptor, self.writer) = (input, adaptor, writer)
        (self.width, self.height, self.fps, self.drawn) = (width, height, fps, drawn)
    }

    /// Noise for the drawn pictures (xorshift), so that they cost the encoder what camera pictures do.
    var noise: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Draws picture `frames`: vertical bars moving a pixel a frame over a grey ramp, with noise.
    func draw(_ base: UnsafeMutableRawPointer, stride: Int) {
        for y in 0..<height {
            let row = (base + y * stride).assumingMemoryBound(to: UInt32.self)
            let grey = UInt32(y * 191 / max(1, height - 1))
            for x in 0..<width {
                noise ^= noise << 13
                noise ^= noise >> 7
                noise ^= noise << 17
                let bar = UInt32(((x + Int(frames % Int64(width))) / 16) % 8) * 24
                let grain = UInt32(truncatingIfNeeded: noise) & 0x003F_3F3F
                row[x] = (0xFF00_0000 | bar << 16 | grey << 8 | (191 - bar)) &+ grain
            }
        }
    }

    /// Reads exactly `count` bytes from standard input into `base`; false at the end of the input.
    func readFully(_ base: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = read(STDIN_FILENO, base + done, count - done)
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    /// The next picture from standard input in a pool buffer, or nil at the end.
    func nextPicture() -> CVPixelBuffer? {
        guard let pool = adaptor.pixelBufferPool else { fail("the adaptor has no pool") }
        var made: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess, let buffer = made else { fail("no pixel buffer") }
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { fail("no base address") }
        let row = width * 4, stride = CVPixelBufferGetBytesPerRow(buffer)
        if let drawn {
            guard frames < drawn else { return nil }
            draw(base, stride: stride)
            return buffer
        }
        if stride == row { return readFully(base, row * height) ? buffer : nil }
        for y in 0..<height where !readFully(base + y * stride, row) { return nil }
        return buffer
    }

    func feed() {
        while input.isReadyForMoreMediaData {
            guard let picture = nextPicture() else {
                input.markAsFinished()
                done.signal()
                return
            }
            guard adaptor.append(picture, withPresentationTime: CMTime(value: frames, timescale: fps)) else {
                fail("append: \(String(describing: writer.error))")
            }
            frames += 1
        }
    }
}

let feeder = Feeder(input, adaptor, writer, width: width, height: height, fps: fps, drawn: drawn)
input.requestMediaDataWhenReady(on: DispatchQueue(label: "avocet-write-bench")) { feeder.feed() }
feeder.done.wait()
let frames = feeder.frames
let finished = DispatchSemaphore(value: 0)
writer.finishWriting { finished.signal() }
finished.wait()
guard writer.status == .completed else { fail("finishWriting: \(String(describing: writer.error))") }
let seconds = (ContinuousClock.now - started) / .seconds(1)

var result: [String: Any] = ["frames": frames, "seconds": seconds]
if let saver {
    result["bytes"] = saver.bytes
    result["segments"] = saver.count
    result["largestSegment"] = saver.largest
} else {
    result["bytes"] = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
}
guard let json = try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]) else { fail("json") }
print(String(decoding: json, as: UTF8.self))
