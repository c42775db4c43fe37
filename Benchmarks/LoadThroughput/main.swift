// In-process asset loading throughput: how many `load(.duration, .tracks, .commonMetadata)` a second,
// each on a new AVURLAsset, cycling through the given files. Run it pinned to one core:
//
//     swift build -c release --product avocet-bench
//     taskset -c 0 .build/release/avocet-bench --seconds 3 --concurrency 8 Fixtures/*.mp4 ...
//
// Benchmarks/inspect_vs_ffprobe.py runs it beside ffprobe on the same files.
import AVFoundation
import Foundation

var seconds = 3.0
var concurrency = 8
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--concurrency": concurrency = Int(arguments.next() ?? "") ?? concurrency
    default: files.append(argument)
    }
}
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("usage: avocet-bench [--seconds S] [--concurrency N] FILE...\n".utf8))
    exit(2)
}
let urls = files.map { URL(fileURLWithPath: $0) }

/// Loads assets from `concurrency` tasks until `seconds` pass; returns loads and tracks seen.
func run(seconds: Double, concurrency: Int) async throws -> (loads: Int, tracks: Int, elapsed: Double) {
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    let counts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var loads = 0, tracks = 0, i = worker
                while ContinuousClock.now < deadline {
                    let asset = AVURLAsset(url: urls[i % urls.count])
                    let (_, loaded, _) = try await asset.load(.duration, .tracks, .commonMetadata)
                    loads += 1
                    tracks += loaded.count
                    i += concurrency
                }
                return (loads, tracks)
            }
        }
        return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }
    let elapsed = ContinuousClock.now - start
    return (counts.0, counts.1, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

_ = try await run(seconds: 0.3, concurrency: concurrency)   // warm-up: page cache, lazy statics
let result = try await run(seconds: seconds, concurrency: concurrency)
let rate = Double(result.loads) / result.elapsed
print(String(format: "loads %d in %.2f s: %.0f loads/s (%d files, concurrency %d, %d tracks)",
             result.loads, result.elapsed, rate, urls.count, concurrency, result.tracks))
