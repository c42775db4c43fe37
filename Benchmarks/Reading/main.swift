// Reading a file's samples through the public AVAssetReader API, for Benchmarks/reading.py.
//
//     swift build -c release --product avocet-read-bench
//     .build/release/avocet-read-bench MODE FILE
//
// MODE
//   bgra    the first video track decoded to 32BGRA pixel buffers
//   nv12    the first video track decoded to 420v (4:2:0 bi-planar, video range)
//   stored  the first video and the first audio track as stored (outputSettings nil), each in its own
//           output, drained alternately (one buffer from each in turn) as a remuxer would
//   stored-nocopy  the same with alwaysCopiesSampleData false: each buffer of a packet of 4 KiB or more
//           refers to the packet read (smaller ones are still copied)
//   pcm16k  the first audio track as 16 kHz mono 32-bit float linear PCM
//
// Every buffer is taken with copyNextSampleBuffer() on the main thread (a command-line tool may block),
// counted and dropped. Prints one JSON line: buffers, frames (pictures, or audio frames for pcm16k),
// samples (CMSampleBufferGetNumSamples summed), bytes (pixel buffer data sizes, or the data buffers'
// lengths), seconds (from making the asset to the last buffer) and readSeconds (from startReading()).
// Exits 1 when the reader does not complete.
import AVFoundation
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("avocet-read-bench: \(message)\n".utf8))
    exit(1)
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// What was read from one output.
struct Counts {
    var buffers = 0
    var frames = 0
    var samples = 0
    var bytes = 0

    mutating func add(_ buffer: CMSampleBuffer) {
        buffers += 1
        samples += CMSampleBufferGetNumSamples(buffer)
        if let image = CMSampleBufferGetImageBuffer(buffer) {
            frames += 1
            bytes += CVPixelBufferGetDataSize(image)
        } else if let data = CMSampleBufferGetDataBuffer(buffer) {
            bytes += CMBlockBufferGetDataLength(data)
        }
    }

    static func + (a: Counts, b: Counts) -> Counts {
        Counts(buffers: a.buffers + b.buffers, frames: a.frames + b.frames, samples: a.samples + b.samples, bytes: a.bytes + b.bytes)
    }
}

/// Takes every buffer of `outputs`, one from each in turn, on the calling thread.
func drain(_ outputs: [AVAssetReaderOutput]) -> [Counts] {
    var counts = Array(repeating: Counts(), count: outputs.count)
    var open = Array(outputs.indices)
    while !open.isEmpty {
        open = open.filter { i in
            guard let buffer = outputs[i].copyNextSampleBuffer() else { return false }
            counts[i].add(buffer)
            return true
        }
    }
    return counts
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 else { fail("usage: avocet-read-bench bgra|nv12|stored|stored-nocopy|pcm16k FILE") }
let (mode, path) = (arguments[0], arguments[1])
guard FileManager.default.fileExists(atPath: path) else { fail("no file at \(path)") }

let started = ContinuousClock.now
let asset = AVURLAsset(url: URL(fileURLWithPath: path))
let wanted: [(AVMediaType, [String: Any]?)]
switch mode {
case "bgra": wanted = [(.video, [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])]
case "nv12": wanted = [(.video, [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])]
case "stored", "stored-nocopy": wanted = [(.video, nil), (.audio, nil)]
case "pcm16k": wanted = [(.audio, [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 16_000, AVNumberOfChannelsKey: 1,
                                   AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])]
default: fail("unknown mode \(mode)")
}

let reader: AVAssetReader
do { reader = try AVAssetReader(asset: asset) } catch { fail("\(path): \(error)") }
var outputs: [AVAssetReaderOutput] = []
for (type, settings) in wanted {
    let track: AVAssetTrack
    do {
        guard let first = try await asset.loadTracks(withMediaType: type).first else { fail("\(path) has no \(type.rawValue) track") }
        track = first
    } catch { fail("\(path): \(error)") }
    let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
    if mode == "stored-nocopy" { output.alwaysCopiesSampleData = false }
    guard reader.canAdd(output) else { fail("cannot add a \(type.rawValue) output: \(String(describing: reader.error))") }
    reader.add(output)
    outputs.append(output)
}
let reading = ContinuousClock.now
guard reader.startReading() else { fail("startReading() failed: \(String(describing: reader.error))") }
let perOutput = drain(outputs)
let readSeconds = seconds(since: reading)
let total = seconds(since: started)
guard reader.status == .completed else { fail("the reader ended \(String(describing: reader.status)): \(String(describing: reader.error))") }

let all = perOutput.reduce(Counts(), +)
var line: [String: Any] = ["mode": mode, "buffers": all.buffers, "frames": mode == "pcm16k" ? all.samples : all.frames,
                           "samples": all.samples, "bytes": all.bytes, "seconds": total, "readSeconds": readSeconds]
if mode.hasPrefix("stored") {
    line["videoBuffers"] = perOutput[0].buffers
    line["audioBuffers"] = perOutput[1].buffers
}
let json = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
