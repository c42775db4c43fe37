// avocet-stress: resource checks that need a process of their own (a file-descriptor limit, a
// memory figure no other test disturbs). Run by Tests/AVFoundationTests/ResourceTests.swift.
//
//   avocet-stress fds COUNT FILE...     keeps COUNT loaded assets alive, then loads more keys
//   avocet-stress leaks COUNT FILE...   opens truncated/broken files COUNT times, half of them cancelled
//
// Prints `key value` lines the test reads; exits 1 on a failure it can name.
import AVFoundation
import Foundation

func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
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
    print("descriptors \(openDescriptors())")
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
    print("descriptorsAfter \(openDescriptors())")
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
    print("descriptors \(openDescriptors())")
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3, let count = Int(arguments[arguments.startIndex + 1]) else {
    fail("usage: avocet-stress fds|leaks COUNT FILE...")
}
let files = arguments.dropFirst(2).map { URL(fileURLWithPath: $0) }
switch arguments[arguments.startIndex] {
case "fds": await descriptors(count: count, files: files)
case "leaks": await leaks(count: count, files: files)
default: fail("unknown mode \(arguments[arguments.startIndex])")
}
