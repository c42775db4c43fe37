// avocet-stress: resource checks that need a process of their own (a file-descriptor limit, a
// memory figure no other test disturbs). Run by Tests/AVFoundationTests/Resources/ResourceTests.swift.
//
//   avocet-stress fds COUNT FILE...     keeps COUNT loaded assets alive, then loads more keys
//   avocet-stress leaks COUNT FILE...   opens truncated/broken files COUNT times, half of them cancelled
//   avocet-stress silent COUNT FILE     COUNT assets whose delegates never answer, then FILE's load
//   avocet-stress audioclock PID SOCKET FILE   the player's time against a PulseAudio server's sink
//   avocet-stress diskfull KIB OUTPUT   an asset writer whose file may not grow past KIB (a full disk)
//   avocet-stress heartbeat COUNT FILE...   COUNT assets load at once beside a task ticking every 5 ms
//
// Prints `key value` lines the test reads; exits 1 on a failure it can name.
import AVFoundation
import Dispatch
import FixtureSupport
import Foundation
internal import MediaEngine
import Locking
import Synchronization

func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// The descriptors open once the engine has finished its jobs: a job that just resumed its caller may
/// not have dropped (and closed) its source yet, which on a loaded machine is up to one a thread.
func settledDescriptors() async -> Int {
    _ = await poll(timeout: 10) { IOExecutor.shared.runningJobs + IOExecutor.shared.queuedJobs == 0 }
    return openDescriptors()
}

/// Resident memory in KiB, from /proc/self/statm (pages).
func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("avocet-stress: \(message)\n".utf8))
    exit(1)
}

/// Loads `count` assets in waves and keeps every one alive; then loads a key each did not load yet
/// (a packet-scan key, which opens the file again) on every hundredth, and a new asset.
func descriptors(count: Int, files: [URL]) async {
    var assets: [AVURLAsset] = []
    assets.reserveCapacity(count)
    var next = 0
    while next < count {
        let wave = (next..<min(next + 64, count)).map { AVURLAsset(url: files[$0 % files.count]) }
        await withTaskGroup(of: Void.self) { group in
            for asset in wave {
                group.addTask {
                    do { _ = try await asset.load(.duration, .tracks, .commonMetadata) } catch { fail("load \(asset.url.lastPathComponent): \(error)") }
                }
            }
        }
        assets += wave
        next += wave.count
    }
    print("loaded \(assets.count)")
    print("descriptors \(await settledDescriptors())")
    var later = 0
    for asset in stride(from: 0, to: assets.count, by: 100).map({ assets[$0] }) {
        do {
            for track in try await asset.load(.tracks) { _ = try await track.load(.totalSampleDataLength) }
            later += 1
        } catch {
            fail("later key of \(asset.url.lastPathComponent): \(error)")
        }
    }
    print("laterKeys \(later)")
    do {
        _ = try await AVURLAsset(url: files[0]).load(.duration)
    } catch {
        fail("a new asset: \(error)")
    }
    print("descriptorsAfter \(await settledDescriptors())")
}

/// Opens files that fail (truncated, not media) or are cancelled part-way, `count` times in all.
func leaks(count: Int, files: [URL]) async {
    func round(_ range: Range<Int>) async {
        await withTaskGroup(of: Void.self) { group in
            for i in range {
                group.addTask {
                    let asset = AVURLAsset(url: files[i % files.count])
                    if i % 2 == 0 {
                        _ = try? await asset.load(.duration, .tracks)
                    } else {
                        let task = Task { try await asset.load(.duration, .tracks) }
                        // Cancel at different stages: before the job starts, mid-parse, or after.
                        if i % 4 == 1 { await Task.yield() }
                        task.cancel()
                        _ = try? await task.value
                    }
                }
            }
        }
    }
    let warmup = max(count / 10, 1)
    var done = 0
    while done < warmup { await round(done..<min(done + 100, warmup)); done = min(done + 100, warmup) }
    let before = residentKiB()
    while done < count { await round(done..<min(done + 100, count)); done = min(done + 100, count) }
    let after = residentKiB()
    print("opens \(count)")
    print("rssBeforeKiB \(before)")
    print("rssAfterKiB \(after)")
    print("descriptors \(await settledDescriptors())")
}

/// A delegate that accepts every request and never answers; counts requests and cancellations.
final class SilentDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: state behind a lock.
    let queue = DispatchQueue(label: "silent")
    let counts = Locked<(requests: [AVAssetResourceLoadingRequest], cancelled: Int)>(([], 0))

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        counts.withLock { $0.requests.append(loadingRequest) }
        return true
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
        counts.withLock { $0.cancelled += 1 }
    }
}

func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

/// Whole milliseconds of `duration`.
func milliseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
}

func milliseconds(since start: ContinuousClock.Instant) -> Int {
    milliseconds(ContinuousClock.now - start)
}

/// `count` assets whose delegates never answer start loading; then a local file loads. Prints how many
/// engine jobs the silent ones hold, how long the local load took, and how cancellation ended them.
func silent(count: Int, file: URL) async {
    let delegate = SilentDelegate()
    let assets = (0..<count).map { i -> AVURLAsset in
        let asset = AVURLAsset(url: URL(string: "silent://asset/\(i).mp4")!)
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        return asset
    }
    let loads = assets.map { asset in Task { try await asset.load(.duration, .tracks) } }
    // Printed, and checked by the test, whether or not they all came.
    _ = await poll(timeout: 20) { delegate.counts.withLock { $0.requests.count } >= count }
    print("requests \(delegate.counts.withLock { $0.requests.count })")
    print("runningJobs \(IOExecutor.shared.runningJobs)")
    print("queuedJobs \(IOExecutor.shared.queuedJobs)")
    let start = ContinuousClock.now
    do {
        let duration = try await AVURLAsset(url: file).load(.duration)
        print("localDuration \(duration.seconds)")
    } catch {
        fail("the local load failed: \(error)")
    }
    print("localLoadMs \(milliseconds(since: start))")
    print("threads \(threadCount())")
    // Half end by cancelLoading(), half by cancelling their tasks.
    let cancelStart = ContinuousClock.now
    for (i, asset) in assets.enumerated() {
        if i % 2 == 0 { asset.cancelLoading() } else { loads[i].cancel() }
    }
    var ended = 0
    for load in loads {
        do { _ = try await load.value } catch { ended += 1 }
    }
    print("endedLoads \(ended)")
    print("cancelMs \(milliseconds(since: cancelStart))")
    _ = await poll(timeout: 10) { delegate.counts.withLock { $0.cancelled } >= count }
    let requests = delegate.counts.withLock { $0.requests }
    print("didCancel \(delegate.counts.withLock { $0.cancelled })")
    print("allCancelled \(requests.allSatisfy { $0.isCancelled && !$0.isFinished })")
}

/// The player on a PulseAudio server's null sink (a device that keeps time), in a process of its own
/// (PulseAudio's client library in a process stops Foundation's `Process` from reaping children, which
/// the test process needs). First how far the player's time strays from the sound heard; then, with
/// the server stopped (SIGSTOP: its sink takes nothing), whether the time holds, and moves on after
/// SIGCONT.
func audioClock(serverPID: Int32, socket: String, file: URL) async {
    let device = ("avocetpulse", #"pcm.avocetpulse { type pulse server "unix:\#(socket)" }"#)
    func started() async -> AVPlayer {
        let item = AVPlayerItem(url: file)
        let player = AVPlayer(playerItem: item)
        player.audioDevice = device
        _ = await poll(timeout: 20) { item.status != .unknown }
        guard item.status == .readyToPlay else { fail("\(file.lastPathComponent): \(String(describing: item.error))") }
        player.play()
        return player
    }
    let player = await started()
    // Sampled every 20 ms while it plays (2 s of media): the player's time and the sound heard, read
    // together. The time follows the sound when it is within 80 ms of it, or stands still ahead of it
    // (the player never goes back: where the device reports a sound behind the time, as a PulseAudio
    // stream that raised its latency after an underrun does on a busy machine, the time waits for the
    // sound to catch up). It strays when it runs on ahead of the sound or lags behind it.
    var gaps: [Double] = [], reports = 0, strayed = 0, counted = 0
    var last: Double?
    let deadline = ContinuousClock.now + TestTiming.seconds(10)
    while player.rate != 0 && ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(20))
        guard let heard = player.audioHeardTime?.seconds else { continue }
        let now = player.currentTime().seconds
        defer { last = now }
        reports += 1
        guard now > 0.3 && now < 1.7 else { continue }
        counted += 1
        gaps.append(abs(now - heard))
        let waits = now > heard && now == last
        if abs(now - heard) >= 0.08 && !waits { strayed += 1 }
    }
    gaps.sort()
    print("heardReports \(reports)")
    print("followSamples \(counted)")
    print("followStrayedPercent \(counted == 0 ? 100 : strayed * 100 / counted)")
    print("followMedianMs \(Int(((gaps.isEmpty ? 9 : gaps[gaps.count / 2]) * 1000).rounded()))")
    print("followWorstMs \(Int(((gaps.last ?? 9) * 1000).rounded()))")
    print("followEndedAt \(Int((player.currentTime().seconds * 1000).rounded()))")

    let held = await started()
    _ = await poll(timeout: 5) { held.currentTime().seconds >= 0.5 }
    kill(serverPID, SIGSTOP)
    // The device stops taking samples; once what it was last heard playing is past, the time stands
    // still (two looks 30 ms apart find the same time), however late a busy machine's ticks come.
    _ = await poll(timeout: 5) {
        let first = held.currentTime()
        try? await Task.sleep(for: .milliseconds(30))
        return held.currentTime() == first
    }
    let before = held.currentTime().seconds
    // A negative check: it stays still for 600 ms. A slow machine can only make it look stiller.
    try? await Task.sleep(for: .milliseconds(600))
    print("holdMovedMs \(Int(((held.currentTime().seconds - before) * 1000).rounded()))")
    print("holdStatusPlaying \(held.timeControlStatus == .playing ? 1 : 0)")
    kill(serverPID, SIGCONT)
    _ = await poll(timeout: 5) { held.currentTime().seconds >= before + 0.3 }
    print("resumedMovedMs \(Int(((held.currentTime().seconds - before) * 1000).rounded()))")
}

/// An asset writer writing pictures into `output` while the process may not write files larger than
/// `kib` KiB (RLIMIT_FSIZE, with SIGXFSZ ignored, so writes fail with EFBIG as on a full disk). Prints
/// the writer's status and error code, and whether a file was left behind.
func diskFull(kib: Int, output: URL) async {
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: rlim_t(kib * 1024), rlim_max: rlim_t(kib * 1024))
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("cannot limit file sizes") }
    do {
        let writer = try AVAssetWriter(outputURL: output, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 640,
                                                                           AVVideoHeightKey: 480,
                                                                           AVVideoCompressionPropertiesKey: [AVVideoQualityKey: 1.0]])
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        guard writer.startWriting() else { fail("startWriting failed: \(String(describing: writer.error))") }
        writer.startSession(atSourceTime: .zero)
        var appended = 0
        for n in 0..<600 where writer.status == .writing {
            _ = await poll(timeout: 30) { input.isReadyForMoreMediaData || writer.status != .writing }
            guard writer.status == .writing, let pool = adaptor.pixelBufferPool else { break }
            var made: CVPixelBuffer?
            CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
            guard let buffer = made else { break }
            // Noise does not compress: the file grows fast.
            CVPixelBufferLockBaseAddress(buffer, [])
            if let base = CVPixelBufferGetBaseAddress(buffer) {
                var seed = UInt32(truncatingIfNeeded: n &* 2_654_435_761)
                let bytes = base.assumingMemoryBound(to: UInt32.self)
                for i in 0..<(CVPixelBufferGetDataSize(buffer) / 4) {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    bytes[i] = seed
                }
            }
            CVPixelBufferUnlockBaseAddress(buffer, [])
            if adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(n), timescale: 30)) { appended += 1 }
        }
        await writer.finishWriting()
        print("appended \(appended)")
        print("status \(writer.status.rawValue)")
        print("code \((writer.error as? AVError)?.code.rawValue ?? 0)")
        print("leftBehind \(FileManager.default.fileExists(atPath: output.path) ? 1 : 0)")
    } catch {
        fail("\(error)")
    }
}

/// Loads `count` assets of `files` at once (tracks, duration, common metadata) while a task on the
/// cooperative pool ticks every 5 ms, and prints the tracks loaded and the longest gap between two
/// ticks: in a process of its own, the gap measures what the loads do to the pool, not what other
/// tests' work on it does. A thread of its own ticks beside it (`referenceGapMs`): its longest gap is
/// what the machine's load did to any thread of the process. `loadsMs`: how long the loads took.
func heartbeat(count: Int, files: [URL]) async {
    let assets = (0..<count).map { AVURLAsset(url: files[$0 % files.count]) }
    let stop = Atomic<Bool>(false)
    let referenceWorst = Atomic<Int>(0)
    let referenceDone = DispatchSemaphore(value: 0)
    Thread {
        var last = ContinuousClock.now
        while !stop.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 0.005)
            let now = ContinuousClock.now
            let ms = milliseconds(now - last)
            if ms > referenceWorst.load(ordering: .relaxed) { referenceWorst.store(ms, ordering: .relaxed) }
            last = now
        }
        referenceDone.signal()
    }.start()
    let ticking = Task { () -> Duration in
        var worst = Duration.zero
        var last = ContinuousClock.now
        while !stop.load(ordering: .relaxed) {
            try? await Task.sleep(for: .milliseconds(5))
            let now = ContinuousClock.now
            worst = max(worst, now - last)
            last = now
        }
        return worst
    }
    let loadsStarted = ContinuousClock.now
    let loaded = await withTaskGroup(of: Int.self) { group in
        for asset in assets {
            group.addTask {
                do {
                    return try await asset.load(.tracks, .duration, .commonMetadata).0.count
                } catch {
                    fail("load \(asset.url.lastPathComponent): \(error)")
                }
            }
        }
        return await group.reduce(0, +)
    }
    let loads = milliseconds(since: loadsStarted)
    stop.store(true, ordering: .relaxed)
    let worst = await ticking.value
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            referenceDone.wait()
            done.resume()
        }
    }
    print("tracks \(loaded)")
    print("worstGapMs \(milliseconds(worst))")
    print("referenceGapMs \(referenceWorst.load(ordering: .relaxed))")
    print("loadsMs \(loads)")
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3, let count = Int(arguments[arguments.startIndex + 1]) else {
    fail("usage: avocet-stress fds|leaks COUNT FILE...")
}
let files = arguments.dropFirst(2).map { URL(fileURLWithPath: $0) }
switch arguments[arguments.startIndex] {
case "fds": await descriptors(count: count, files: files)
case "leaks": await leaks(count: count, files: files)
case "silent": await silent(count: count, file: files[0])
// avocet-stress audioclock SERVERPID SOCKET FILE
case "audioclock": await audioClock(serverPID: Int32(clamping: count), socket: files[0].path, file: files[1])
case "diskfull": await diskFull(kib: count, output: files[0])
case "heartbeat": await heartbeat(count: count, files: files)
default: fail("unknown mode \(arguments[arguments.startIndex])")
}
