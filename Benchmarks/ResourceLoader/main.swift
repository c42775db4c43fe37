// Inspecting and then reading every packet of one file, by path or through a resource loader delegate
// that serves the file from disk, as an app serving media from its own storage would:
//
//     swift build -c release --product avocet-rl-bench
//     .build/release/avocet-rl-bench MODE FILE [--repeat N] [--chunk KiB] [--from-memory]
//
// MODE is
//   file      AVURLAsset(url: fileURL): Avocet reads the file itself (pread)
//   network   AVURLAsset(url: bench://...) with a delegate that reads each requested range from disk
//             (pread on its own serial DispatchQueue, never Swift's cooperative pool) and answers in
//             --chunk KiB respond(with:) calls (default 256), isEntireLengthAvailableOnDemand = false:
//             the asset reads ahead in large requests into a bounded cache
//   ondemand  the same delegate with isEntireLengthAvailableOnDemand = true: the asset asks for one
//             block at a time, when it needs it
// Each of N repetitions (default 3) uses a new asset (and, in the delegate modes, a new delegate):
// `load(.duration)` (timed alone: the time to the first loaded property), then `load(.tracks)`, then
// `load(.totalSampleDataLength)` of every track. That last load runs the asset's packet scan, which
// reads every packet, only where the header does not tell: Matroska, fragmented MP4, MPEG-TS. An MP4
// or MOV with a full sample index answers from the index and reads no packets (see `bytesRead`).
// Prints `key value` lines: mode, bytes, firstPropertyMs and totalMs (medians; total is inspect + full
// read), totalMsEach, throughputMBps (file bytes / median total, MB = 10^6 bytes), bytesRequested and
// requests (medians per repetition of what the delegate was asked; an open-ended request counts as the
// rest of the file), firstPropertyBytesRequested (asked before the first property loaded), bytesRead
// (what the process read with read/pread during a repetition: rchar in /proc/self/io, so it shows
// whether every packet was read), peakRSSKiB (VmHWM from /proc/self/status right after the timed
// runs; endRSSKiB is VmRSS then), durationValue/durationTimescale and sampleDataBytes (the sum over
// tracks). The delegate modes then load the same file by path, once, after reading VmHWM so as not to
// count it, and print `matchesFile true|false`: whether duration and sample data bytes equal those of
// the file path.
// --from-memory (for profiling only) makes the delegate answer from a copy of the file read into
// memory up front, to tell the library's costs from the disk reads.
// Any load that throws ends the process with status 1; a wrong answer (matchesFile false), status 3.
// Benchmarks/resource_loader.py runs the three modes side by side and compares throughput.
import AVFoundation
import CoreMedia
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("avocet-rl-bench: \(message)\n".utf8))
    exit(status)
}

enum Mode: String { case file, network, ondemand }

var positional: [String] = []
var repetitions = 3
var chunk = 256 << 10
var fromMemory = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--repeat":
        guard let n = arguments.next().flatMap({ Int($0) }), n > 0 else { fail("--repeat needs a positive count", status: 2) }
        repetitions = n
    case "--from-memory": fromMemory = true
    case "--chunk":
        guard let n = arguments.next().flatMap({ Int($0) }), n > 0 else { fail("--chunk needs a positive KiB count", status: 2) }
        chunk = n << 10
    default: positional.append(argument)
    }
}
guard positional.count == 2, let mode = Mode(rawValue: positional[0]) else {
    fail("usage: avocet-rl-bench file|network|ondemand FILE [--repeat N] [--chunk KiB] [--from-memory]", status: 2)
}
let path = URL(fileURLWithPath: positional[1]).standardizedFileURL.path
let fileURL = URL(fileURLWithPath: path)
guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let fileSize = (attributes[.size] as? NSNumber)?.int64Value else { fail("cannot stat \(path)", status: 2) }

/// Serves `path` under a custom scheme, reading each requested range from disk with `pread` on its own
/// serial queue (never Swift's cooperative pool), and counts what it was asked.
final class DiskServingDelegate: NSObject, AVAssetResourceLoaderDelegate, Sendable {
    struct Counts: Sendable {
        var requests = 0
        var bytesRequested: Int64 = 0
    }

    let queue = DispatchQueue(label: "avocet-rl-bench.delegate")
    private let descriptor: Int32
    private let name: String
    private let contentType: String
    private let size: Int64
    private let onDemand: Bool
    /// Bytes per `respond(with:)`: the asset can use each piece as soon as it arrives.
    private let chunk: Int
    /// The whole file, read once, when profiling the library without the disk reads (--from-memory).
    private let memory: Data?
    private let counts = Mutex(Counts())

    init(path: String, size: Int64, onDemand: Bool, chunk: Int, fromMemory: Bool) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { fail("cannot open \(path): \(String(cString: strerror(errno)))") }
        descriptor = fd
        name = URL(fileURLWithPath: path).lastPathComponent.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "media"
        contentType = path.hasSuffix(".mkv") ? "org.matroska.mkv" : AVFileType.mp4.rawValue
        self.size = size
        self.onDemand = onDemand
        self.chunk = chunk
        memory = fromMemory ? FileManager.default.contents(atPath: path) : nil
        super.init()
    }

    deinit { close(descriptor) }

    var seen: Counts { counts.withLock { $0 } }

    func asset() -> AVURLAsset {
        let asset = AVURLAsset(url: URL(string: "bench://local/\(name)")!)
        asset.resourceLoader.setDelegate(self, queue: queue)
        return asset
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentType = contentType
            info.contentLength = size
            info.isByteRangeAccessSupported = true
            info.isEntireLengthAvailableOnDemand = onDemand
        }
        guard let request = loadingRequest.dataRequest else {
            loadingRequest.finishLoading()
            return true
        }
        let start = min(max(0, request.requestedOffset), size)
        let stop = request.requestsAllDataToEndOfResource
            ? size : min(size, start.addingReportingOverflow(Int64(request.requestedLength)).partialValue)
        counts.withLock {
            $0.requests += 1
            $0.bytesRequested += request.requestsAllDataToEndOfResource
                ? size - start : Int64(request.requestedLength)
        }
        var position = start
        while position < stop, !loadingRequest.isCancelled {
            let count = Int(min(Int64(chunk), stop - position))
            if let memory {
                request.respond(with: memory.subdata(in: Int(position)..<Int(position) + count))
                position += Int64(count)
                continue
            }
            // A fresh buffer for each piece, handed over to the Data (no zero-filling, no extra copy):
            // the asset may keep what it is given.
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            var got: Int
            repeat { got = pread(descriptor, buffer, count, off_t(position)) } while got < 0 && errno == EINTR
            if got <= 0 {
                let error = errno
                buffer.deallocate()
                if got == 0 { break }   // the file is shorter than it was: finish with what there is
                loadingRequest.finishLoading(with: NSError(domain: NSPOSIXErrorDomain, code: Int(error)))
                return true
            }
            request.respond(with: Data(bytesNoCopy: buffer, count: got, deallocator: .custom { pointer, _ in pointer.deallocate() }))
            position += Int64(got)
        }
        loadingRequest.finishLoading()
        return true
    }
}

/// What one repetition measured.
struct Run {
    var firstProperty: Duration
    var total: Duration
    var duration: CMTime
    var sampleBytes: Int64
    var requests = 0
    var bytesRequested: Int64 = 0
    var firstPropertyBytesRequested: Int64 = 0
    /// Bytes this process read with read/pread during the repetition (rchar in /proc/self/io).
    var bytesRead: Int64 = 0
}

/// Bytes read so far by this process's read-family system calls (page-cache hits included).
func readCharacters() -> Int64 {
    guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return -1 }
    for line in io.split(separator: "\n") where line.hasPrefix("rchar:") {
        return Int64(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) ?? -1
    }
    return -1
}

/// Inspects `asset` and reads every packet; any error ends the process.
func inspectAndScan(_ asset: AVURLAsset, _ label: String, afterFirstProperty: () -> Void = {}) async -> Run {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        let duration = try await asset.load(.duration)
        let first = clock.now - start
        afterFirstProperty()
        let tracks = try await asset.load(.tracks)
        var sampleBytes: Int64 = 0
        for track in tracks {
            sampleBytes += try await track.load(.totalSampleDataLength)
        }
        return Run(firstProperty: first, total: clock.now - start, duration: duration, sampleBytes: sampleBytes)
    } catch {
        fail("\(label) load of \(asset.url) failed: \(error)")
    }
}

var runs: [Run] = []
for _ in 0..<repetitions {
    let readBefore = readCharacters()
    if mode == .file {
        var run = await inspectAndScan(AVURLAsset(url: fileURL), "file")
        run.bytesRead = readCharacters() - readBefore
        runs.append(run)
        continue
    }
    let delegate = DiskServingDelegate(path: path, size: fileSize, onDemand: mode == .ondemand, chunk: chunk,
                                       fromMemory: fromMemory)
    var atFirst = DiskServingDelegate.Counts()
    var run = await inspectAndScan(delegate.asset(), mode.rawValue) { atFirst = delegate.seen }
    let seen = delegate.seen
    withExtendedLifetime(delegate) {}   // the resource loader holds its delegate weakly: keep it to here
    run.requests = seen.requests
    run.bytesRequested = seen.bytesRequested
    run.firstPropertyBytesRequested = atFirst.bytesRequested
    run.bytesRead = readCharacters() - readBefore
    runs.append(run)
}

/// A `Vm...:` figure of this process from /proc/self/status, in KiB: VmHWM is the peak resident set.
func statusKiB(_ key: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
    return -1
}

let peak = statusKiB("VmHWM")
let resident = statusKiB("VmRSS")

func median<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }
func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
}

let total = median(runs.map(\.total))
let reference = runs[0]
if runs.contains(where: { $0.duration != reference.duration || $0.sampleBytes != reference.sampleBytes }) {
    fail("repetitions disagree: " + runs.map { "\($0.duration.value)/\($0.duration.timescale) \($0.sampleBytes)" }.joined(separator: ", "), status: 3)
}
let lines: [(String, String)] = [
    ("mode", mode.rawValue),
    ("file", path),
    ("bytes", "\(fileSize)"),
    ("repetitions", "\(repetitions)"),
    ("firstPropertyMs", String(format: "%.2f", milliseconds(median(runs.map(\.firstProperty))))),
    ("totalMs", String(format: "%.2f", milliseconds(total))),
    ("totalMsEach", runs.map { String(format: "%.2f", milliseconds($0.total)) }.joined(separator: ",")),
    ("throughputMBps", String(format: "%.1f", Double(fileSize) / 1e6 / (milliseconds(total) / 1e3))),
    ("bytesRequested", "\(median(runs.map(\.bytesRequested)))"),
    ("requests", "\(median(runs.map(\.requests)))"),
    ("firstPropertyBytesRequested", "\(median(runs.map(\.firstPropertyBytesRequested)))"),
    ("bytesRead", "\(median(runs.map(\.bytesRead)))"),
    ("peakRSSKiB", "\(peak)"),
    ("endRSSKiB", "\(resident)"),
    ("durationValue", "\(reference.duration.value)"),
    ("durationTimescale", "\(reference.duration.timescale)"),
    ("sampleDataBytes", "\(reference.sampleBytes)"),
]
for (key, value) in lines { print("\(key) \(value)") }

if mode != .file {
    let byPath = await inspectAndScan(AVURLAsset(url: fileURL), "file (check)")
    let matches = byPath.duration == reference.duration && byPath.sampleBytes == reference.sampleBytes
    print("matchesFile \(matches)")
    if !matches {
        fail("\(mode.rawValue) disagrees with the file path: duration \(reference.duration.value)/\(reference.duration.timescale) "
             + "vs \(byPath.duration.value)/\(byPath.duration.timescale), sample data bytes \(reference.sampleBytes) vs \(byPath.sampleBytes)",
             status: 3)
    }
}
