// avocet-soak: Avocet under a server's load for a set time: asset loads, thumbnail requests and exports
// all at once, from local files, a flaky loopback HTTP server and resource loader delegates with
// random faults, with random cancellation. Run by scripts/soak.sh.
//
//     avocet-soak [--loads N] [--thumbnails N] [--exports N] [--seconds S] [--seed N] [--sources files,http,delegates] [--trim yes]
//
// Runs for the time given and until the counts are done at least (so the counts are minimums), sampling resident memory, the
// heap in use (malloc's own count, to tell a leak from fragmentation), open descriptors and threads every second.
// `--sources` limits where loads and thumbnails read from (all three by default), to tell which path holds memory;
// `--trim yes` has malloc give its free memory back before each sample (glibc's malloc_trim), so resident memory
// shows what is in use plus what fragmentation pins. Prints the outcomes, the samples and a verdict; exits 1 when something that
// must never happen did: a failure other than an AVError (or AVError.unknown), a cancellation nobody asked for, an
// operation running over 60 s (a hang), an export that says it completed without a file or left one
// when it did not, descriptors or threads left behind once the work is done, or memory that keeps
// growing. A crash ends the process, which the script reports.
import AssetProbe
import AVFoundation
import CHeapStats
import Dispatch
import FixtureSupport
import Foundation
import Locking

// MARK: - Options

struct Options {
    var loads = 10_000
    var thumbnails = 1_000
    var exports = 100
    var seconds = 600.0
    var seed: UInt64 = 1
    var sources: Set<Sources.Kind> = Set(Sources.Kind.allCases)
    var trim = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let text = rest.popFirst() else { usage() }
            func number<T: LosslessStringConvertible>(_: T.Type) -> T {
                guard let value = T(text) else { usage() }
                return value
            }
            switch flag {
            case "--loads": loads = number(Int.self)
            case "--thumbnails": thumbnails = number(Int.self)
            case "--exports": exports = number(Int.self)
            case "--seconds": seconds = number(Double.self)
            case "--seed": seed = number(UInt64.self)
            case "--trim": trim = ["yes", "true", "1"].contains(text)
            case "--sources":
                let kinds = text.split(separator: ",").map { Sources.Kind(rawValue: String($0)) }
                guard !kinds.isEmpty, kinds.allSatisfy({ $0 != nil }) else { usage() }
                sources = Set(kinds.compactMap { $0 })
            default: usage()
            }
        }
    }
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: avocet-soak [--loads N] [--thumbnails N] [--exports N] [--seconds S] [--seed N] [--sources files,http,delegates] [--trim yes]\n".utf8))
    exit(2)
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

// MARK: - What the process holds

struct Sample {
    var seconds: Double
    var residentMiB: Double
    /// What malloc has handed out and not had back (glibc's `mallinfo2`: arenas and mmapped blocks).
    var heapMiB: Double
    var descriptors: Int
    var threads: Int

    static func now(since start: ContinuousClock.Instant, trim: Bool = false) -> Sample {
        if trim { avocet_heap_trim() }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? -1
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let elapsed = ContinuousClock.now - start
        return Sample(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                      residentMiB: Double(field("VmRSS")) / 1024, heapMiB: Double(avocet_heap_in_use()) / 1_048_576,
                      descriptors: descriptors, threads: field("Threads"))
    }
}

// MARK: - Bookkeeping

/// Outcomes by kind, operations in flight (for the hang watchdog), and violations.
final class Ledger: Sendable {
    private struct State {
        var outcomes: [String: Int] = [:]
        var running: [Int: (what: String, since: ContinuousClock.Instant)] = [:]
        var next = 0
        var violations: [String] = []
    }
    private let state = Locked(State())

    func begin(_ what: String) -> Int {
        state.withLock { s in
            defer { s.next += 1 }
            s.running[s.next] = (what, .now)
            return s.next
        }
    }

    func end(_ id: Int, _ outcome: String) {
        state.withLock { s in
            s.running[id] = nil
            s.outcomes[outcome, default: 0] += 1
        }
    }

    func violate(_ message: String) {
        state.withLock { $0.violations.append(message) }
        FileHandle.standardError.write(Data("avocet-soak: VIOLATION: \(message)\n".utf8))
    }

    var outcomes: [String: Int] { state.withLock { $0.outcomes } }
    var violations: [String] { state.withLock { $0.violations } }
    /// Operations running for longer than `limit`.
    func overdue(_ limit: Duration) -> [String] {
        state.withLock { s in s.running.values.filter { ContinuousClock.now - $0.since > limit }.map(\.what) }
    }

    /// Files a failure: an AVError by its code (never `.unknown`), a CancellationError only when this operation cancelled.
    func record(_ id: Int, _ kind: String, _ error: any Error, cancelled: Bool) {
        if let error = error as? AVError {
            end(id, "\(kind) AVError \(error.code)")
            // Every failure the soak provokes has a cause Apple's codes name; .unknown says Avocet lost it.
            if error.code == .unknown { violate("\(kind): AVError.unknown, \(error.localizedDescription)") }
        } else if error is CancellationError, cancelled {
            end(id, "\(kind) cancelled")
        } else {
            end(id, "\(kind) foreign")
            violate("\(kind): failed with \(String(reflecting: error))\(cancelled ? " (cancelled)" : "")")
        }
    }
}

/// A random number generator shared by the workers (seeded: a run can be repeated, up to timing).
final class Dice: Sendable {
    private let generator: Locked<SplitMix64>
    init(seed: UInt64) { generator = Locked(SplitMix64(seed: seed)) }
    func below(_ bound: Int) -> Int { generator.withLock { Int($0.next() % UInt64(max(1, bound))) } }
    func chance(_ percent: Int) -> Bool { below(100) < percent }
    func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

// MARK: - Sources

struct Sources {
    enum Kind: String, CaseIterable, Hashable { case files, http, delegates }

    let kinds: [Kind]
    let server: LoopbackHTTPServer
    let media: [URL]
    let video: [URL]
    let files: [URL: Data]

    init(_ kinds: Set<Kind>) throws {
        self.kinds = Kind.allCases.filter(kinds.contains)
        let names = ["av.mp4", "frames-h264.mp4", "moov-at-end.mp4", "vp9.webm", "frames-live.webm", "multi.mkv",
                     "tagged.m4a", "tagged.flac", "tagged.mp3", "voice.opus", "no-duration.avi", "fragmented.mp4",
                     "rotated.mov", "truncated.mp4", "not-media.mp4"]
        media = names.map { URL(fileURLWithPath: Fixtures.path($0)) }
        video = ["av.mp4", "frames-h264.mp4", "vp9.webm", "multi.mkv", "rotated.mov", "fragmented.mp4"].map { URL(fileURLWithPath: Fixtures.path($0)) }
        var routes: [String: LoopbackHTTPServer.Route] = [:]
        var files: [URL: Data] = [:]
        for url in media {
            // Mostly good; sometimes 503, a cut connection, a trickle or a hang.
            routes["/flaky/" + url.lastPathComponent] = .flaky([
                .file(url), .file(url), .file(url), .file(url), .file(url), .file(url),
                .status(503), .closeMidBody(url, afterBytes: 5000), .slow(url, bytesPerChunk: 8192, delay: 0.005), .hang,
            ])
            files[url] = try Data(contentsOf: url)
        }
        server = try LoopbackHTTPServer(routes: routes)
        self.files = files
    }

    func http(_ file: URL) -> URL { server.url("/flaky/" + file.lastPathComponent) }

    /// An asset of `file`: from the file, over the flaky server, or through a delegate with a random program.
    func asset(_ file: URL, dice: Dice) -> (asset: AVURLAsset, delegate: ProgramDelegate?, keepsRequests: Bool, kind: Kind) {
        switch kinds[dice.below(kinds.count)] {
        case .files:
            return (AVURLAsset(url: file), nil, false, .files)
        case .http:
            // A hanging request ends in the read timeout, not the default 30 s.
            return (AVURLAsset(url: http(file), options: [AvocetURLAssetHTTPReadTimeoutKey: 2.0, AvocetURLAssetHTTPConnectTimeoutKey: 2.0]), nil, false, .http)
        case .delegates:
            // Mostly served; a fault now and then (ops 1 to 11, see ProgramDelegate).
            let program = (0..<8).map { _ in dice.chance(75) ? UInt8(dice.below(16)) << 4 : UInt8(dice.below(16)) | UInt8(dice.below(4)) << 4 }
            let delegate = ProgramDelegate(file: files[file] ?? Data(), info: UInt8(dice.below(2) == 0 ? 4 : dice.below(32)), program: program)
            let asset = AVURLAsset(url: URL(string: "soak://media/" + file.lastPathComponent)!)
            asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
            return (asset, delegate, delegate.mayKeepRequests, .delegates)
        }
    }
}

// MARK: - The work

/// Runs `body`, cancelling it (task cancellation, or `alternative` when given) after a random delay
/// when the dice say so, and always after `deadline` ms when the source may never answer.
func withRandomCancellation<T: Sendable>(dice: Dice, percent: Int, mustEndBy deadline: Int?, alternative: (@Sendable () -> Void)? = nil,
                                         _ body: @escaping @Sendable () async throws -> T) async -> (Result<T, any Error>, cancelled: Bool) {
    let cancelled = Locked(false)
    let task = Task { try await body() }
    let delay: Int? = dice.chance(percent) ? dice.below(200) : deadline
    if let delay {
        let canceller = Task {
            try await Task.sleep(for: .milliseconds(delay))
            cancelled.withLock { $0 = true }
            if let alternative { alternative() } else { task.cancel() }
        }
        let result = await task.result
        canceller.cancel()
        return (result, cancelled.withLock { $0 })
    }
    return (await task.result, false)
}

func load(_ sources: Sources, _ dice: Dice, _ ledger: Ledger) async {
    let file = dice.pick(sources.media)
    let (asset, delegate, keeps, kind) = sources.asset(file, dice: dice)
    let id = ledger.begin("load \(asset.url)")
    var cancelLoading: (@Sendable () -> Void)?
    if dice.chance(50) { cancelLoading = { @Sendable in asset.cancelLoading() } }
    let (result, cancelled) = await withRandomCancellation(dice: dice, percent: 20, mustEndBy: keeps ? 300 : nil,
                                                           alternative: cancelLoading) { () async throws -> Int in
        let (_, tracks) = try await asset.load(.duration, .tracks)
        for track in tracks { _ = try await track.load(.formatDescriptions, .naturalSize, .timeRange) }
        _ = try await asset.load(.commonMetadata)
        return tracks.count
    }
    switch result {
    case .success: ledger.end(id, "load ok from \(kind.rawValue)")
    case .failure(let error): ledger.record(id, "load", error, cancelled: cancelled)
    }
    if delegate?.offQueue == true { ledger.violate("a delegate was called off its queue") }
}

func thumbnail(_ sources: Sources, _ dice: Dice, _ ledger: Ledger) async {
    let file = dice.pick(sources.video)
    // The delegate is held here until the end: the resource loader holds it weakly, as Apple's does.
    let (asset, delegate, keeps, kind) = sources.asset(file, dice: dice)
    let generator = AVAssetImageGenerator(asset: asset)
    generator.maximumSize = CGSize(width: 160, height: 160)
    generator.appliesPreferredTrackTransform = true
    if dice.chance(50) {
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
    }
    let time = CMTime(value: CMTimeValue(dice.below(3000)), timescale: 1000)
    let id = ledger.begin("thumbnail \(asset.url) at \(time.seconds)")
    let (result, cancelled) = await withRandomCancellation(dice: dice, percent: 20, mustEndBy: keeps ? 300 : nil) {
        try await generator.image(at: time)
    }
    switch result {
    case .success(let (image, _)):
        if image.width > 160 || image.height > 160 || image.width < 1 { ledger.violate("a thumbnail of \(image.width)x\(image.height) for a 160x160 limit") }
        ledger.end(id, "thumbnail ok from \(kind.rawValue)")
    case .failure(let error): ledger.record(id, "thumbnail", error, cancelled: cancelled)
    }
    if delegate?.offQueue == true { ledger.violate("a delegate was called off its queue") }
}

func export(_ sources: Sources, _ dice: Dice, _ ledger: Ledger, into folder: URL, number: Int) async {
    let file = dice.pick(["av.mp4", "frames-h264.mp4", "rotated.mov"].map { URL(fileURLWithPath: Fixtures.path($0)) })
    let asset = AVURLAsset(url: file)
    let preset = dice.pick([AVAssetExportPresetPassthrough, AVAssetExportPresetLowQuality, AVAssetExportPreset640x480])
    let output = folder.appendingPathComponent("export-\(number).mp4")
    let id = ledger.begin("export \(file.lastPathComponent) \(preset)")
    guard let session = AVAssetExportSession(asset: asset, presetName: preset) else {
        ledger.violate("no export session for \(preset)")
        return ledger.end(id, "export none")
    }
    session.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1))
    var cancelExport: (@Sendable () -> Void)?
    if dice.chance(50) { cancelExport = { @Sendable in session.cancelExport() } }
    let (result, cancelled) = await withRandomCancellation(dice: dice, percent: 25, mustEndBy: nil,
                                                           alternative: cancelExport) { () async throws -> Void in
        try await session.export(to: output, as: .mp4)
    }
    let exists = FileManager.default.fileExists(atPath: output.path)
    switch result {
    case .success:
        let size = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        if size == 0 { ledger.violate("an export that completed left no file: \(output.path)") }
        ledger.end(id, "export ok")
    case .failure(let error):
        if exists { ledger.violate("an export that did not complete left its file: \(output.path)") }
        ledger.record(id, "export", error, cancelled: cancelled)
    }
    try? FileManager.default.removeItem(at: output)
}

/// Runs operations, `width` at a time, until at least `count` are done and `deadline` has passed.
func run(_ count: Int, width: Int, until deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable (Int) async -> Void) async {
    let next = Locked(0)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<max(1, width) {
            group.addTask {
                while true {
                    let number = next.withLock { n -> Int? in
                        guard n < count || ContinuousClock.now < deadline else { return nil }
                        defer { n += 1 }
                        return n
                    }
                    guard let number else { return }
                    await operation(number)
                }
            }
        }
    }
}

// MARK: - Main

/// The soak; true when nothing that must never happen did. Everything it made is gone when it returns
/// (so that LeakSanitizer, at exit, sees only what Avocet kept).
func soak(_ options: Options) async -> Bool {
    let start = ContinuousClock.now
    let deadline = start + .seconds(options.seconds)
    let sources: Sources
    do { sources = try Sources(options.sources) } catch {
        say("avocet-soak: cannot start the loopback server: \(error)")
        return false
    }
    let dice = Dice(seed: options.seed)
    let ledger = Ledger()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-soak-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    // Warm-up: one of each kind of work first, so that what the process creates once and keeps (Dispatch's
    // and libcurl's descriptors, URLSession's pooled connections, the engine's threads) is in the baseline.
    await run(24, width: 4, until: start) { _ in await load(sources, dice, ledger) }
    await run(4, width: 2, until: start) { _ in await thumbnail(sources, dice, ledger) }
    await run(1, width: 1, until: start) { number in await export(sources, dice, ledger, into: folder, number: 10_000 + number) }
    try? await Task.sleep(for: .seconds(3))
    let before = Sample.now(since: start)
    say("soak: at least \(options.loads) loads, \(options.thumbnails) thumbnails, \(options.exports) exports, and at least \(Int(options.seconds)) s, seed \(options.seed), from \(sources.kinds.map(\.rawValue).joined(separator: ", "))")
    say("after warm-up: \(String(format: "%.1f", before.residentMiB)) MiB, \(before.descriptors) descriptors, \(before.threads) threads")

    let samples = Locked<[Sample]>([])
    let sampler = Task {
        while !Task.isCancelled {
            let sample = Sample.now(since: start, trim: options.trim)
            samples.withLock { $0.append(sample) }
            let overdue = ledger.overdue(.seconds(60))
            for what in overdue { ledger.violate("running for over 60 s (a hang): \(what)") }
            if !overdue.isEmpty {
                say("avocet-soak: stopping on a hang")
                exit(1)
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    await withTaskGroup(of: Void.self) { group in
        group.addTask { await run(options.loads, width: 12, until: deadline) { _ in await load(sources, dice, ledger) } }
        group.addTask { await run(options.thumbnails, width: 3, until: deadline) { _ in await thumbnail(sources, dice, ledger) } }
        group.addTask { await run(options.exports, width: 1, until: deadline) { number in await export(sources, dice, ledger, into: folder, number: number) } }
    }
    let worked = ContinuousClock.now - start
    sampler.cancel()

    // Settle: the engine's jobs end, delegates hear their cancellations, idle connections close.
    try? await Task.sleep(for: .seconds(5))
    let after = Sample.now(since: start)
    try? FileManager.default.removeItem(at: folder)

    // MARK: - Verdict

    let outcomes = ledger.outcomes
    for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { say("  \(outcome): \(count)") }
    let done = { (kind: String) in outcomes.filter { $0.key.hasPrefix(kind + " ") }.values.reduce(0, +) }
    say("done: \(done("load")) loads, \(done("thumbnail")) thumbnails, \(done("export")) exports in \(worked)")
    let series = samples.withLock { $0 }
    func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
    let quarter = max(1, series.count / 4)
    /// A value's median in the second quarter of the samples (the first is warm-up) and in the last.
    func secondAndLastQuarter(_ value: (Sample) -> Double) -> (Double, Double) {
        (median(series.dropFirst(quarter).prefix(quarter).map(value)), median(series.suffix(quarter).map(value)))
    }
    let (early, late) = secondAndLastQuarter(\.residentMiB)
    let (earlyHeap, lateHeap) = secondAndLastQuarter(\.heapMiB)
    let peakThreads = series.map(\.threads).max() ?? 0
    let peakDescriptors = series.map(\.descriptors).max() ?? 0
    say(String(format: "memory: median %.1f MiB in the second quarter, %.1f MiB in the last; peak %.1f MiB",
               early, late, series.map(\.residentMiB).max() ?? 0))
    say(String(format: "heap in use: median %.1f MiB in the second quarter, %.1f MiB in the last",
               earlyHeap, lateHeap))
    say("descriptors: \(before.descriptors) before, peak \(peakDescriptors), \(after.descriptors) after")
    say("threads: \(before.threads) before, peak \(peakThreads), \(after.threads) after")
    say("samples (s MiB heap-MiB fds threads): " + series.enumerated().filter { $0.offset % max(1, series.count / 20) == 0 }
        .map { String(format: "%.0f %.0f %.0f %d %d", $0.element.seconds, $0.element.residentMiB, $0.element.heapMiB,
                      $0.element.descriptors, $0.element.threads) }
        .joined(separator: ", "))

    // Every source serves some of each kind of work (a source whose every request fails is a broken soak).
    for kind in sources.kinds {
        for work in ["load", "thumbnail"] where outcomes["\(work) ok from \(kind.rawValue)", default: 0] == 0 {
            ledger.violate("no \(work) from \(kind.rawValue) succeeded")
        }
    }
    // Pooled HTTP connections (a socket at each end) may differ by a few.
    if after.descriptors > before.descriptors + 6 {
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).sorted()
            .map { "\($0) -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) ?? "?") }
        ledger.violate("descriptors left open: \(after.descriptors) after, \(before.descriptors) before: \(open.joined(separator: ", "))")
    }
    // The engine's and Dispatch's worker threads stay for reuse; more than the peak under load is a leak.
    if after.threads > max(before.threads + 16, peakThreads) {
        ledger.violate("threads left behind: \(after.threads) after, \(before.threads) before, peak \(peakThreads)")
    }
    // Flat: the last quarter within 15% (and 32 MiB) of the second (the first is warm-up).
    if series.count >= 8, late > early * 1.15 + 32 {
        ledger.violate(String(format: "memory grows: %.1f MiB in the last quarter against %.1f MiB in the second", late, early))
    }
    let violations = ledger.violations
    say(violations.isEmpty ? "verdict: ok" : "verdict: \(violations.count) violation(s)")
    return violations.isEmpty
}

exit(await soak(Options(Array(CommandLine.arguments.dropFirst()))) ? 0 : 1)
