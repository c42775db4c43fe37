// In-process asset loading throughput: how many `load(.duration, .tracks, .commonMetadata)` a second,
// each on a new AVURLAsset, cycling through the given files. Run it pinned to one core:
//
//     swift build -c release --product avocet-bench
//     taskset -c 0 .build/release/avocet-bench --seconds 3 --concurrency 8 Fixtures/*.mp4 ...
//
// Prints one line, `loads N in T s: R loads/s (F files, concurrency C, K tracks, E failures)`, after
// `--warmup S` (default 0.3) of the same work. A load that throws counts as a failure, not a load; the
// first error of each failing file goes to stderr and the exit status is 1 when any load failed.
// Benchmarks/inspect_vs_ffprobe.py and Benchmarks/header_parse.py run it beside FFmpeg on the same files.
import AVFoundation
import Foundation

var seconds = 3.0
var warmup = 0.3
var concurrency = 8
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--warmup": warmup = Double(arguments.next() ?? "") ?? warmup
    case "--concurrency": concurrency = Int(arguments.next() ?? "") ?? concurrency
    default: files.append(argument)
    }
}
guard !files.isEmpty, concurrency > 0 else {
    FileHandle.standardError.write(Data("usage: avocet-bench [--seconds S] [--warmup S] [--concurrency N] FILE...\n".utf8))
    exit(2)
}
let urls = files.map { URL(fileURLWithPath: $0) }

struct Counts {
    var loads = 0, tracks = 0, failures = 0
    /// The first error seen for each failing file, by index into `urls`.
    var firstErrors: [Int: String] = [:]

    mutating func add(_ other: Counts) {
        loads += other.loads
        tracks += other.tracks
        failures += other.failures
        firstErrors.merge(other.firstErrors) { first, _ in first }
    }
}

/// Loads assets from `concurrency` tasks until `seconds` pass; returns what was loaded and what failed.
func run(seconds: Double, concurrency: Int) async -> (counts: Counts, elapsed: Double) {
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    let counts = await withTaskGroup(of: Counts.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var counts = Counts()
                var i = worker
                while ContinuousClock.now < deadline {
                    let file = i % urls.count
                    let asset = AVURLAsset(url: urls[file])   // a new asset each time: nothing is reused
                    do {
                        let (_, loaded, _) = try await asset.load(.duration, .tracks, .commonMetadata)
                        counts.loads += 1
                        counts.tracks += loaded.count
                    } catch {
                        counts.failures += 1
                        if counts.firstErrors[file] == nil { counts.firstErrors[file] = error.localizedDescription }
                    }
                    i += concurrency
                }
                return counts
            }
        }
        return await group.reduce(into: Counts()) { $0.add($1) }
    }
    let elapsed = ContinuousClock.now - start
    return (counts, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

if warmup > 0 { _ = await run(seconds: warmup, concurrency: concurrency) }   // page cache, lazy statics
let result = await run(seconds: seconds, concurrency: concurrency)
let counts = result.counts
let rate = Double(counts.loads) / result.elapsed
print(String(format: "loads %d in %.3f s: %.0f loads/s (%d files, concurrency %d, %d tracks, %d failures)",
             counts.loads, result.elapsed, rate, urls.count, concurrency, counts.tracks, counts.failures))
for (file, error) in counts.firstErrors.sorted(by: { $0.key < $1.key }) {
    FileHandle.standardError.write(Data("failed: \(files[file]): \(error)\n".utf8))
}
if counts.failures > 0 { exit(1) }
