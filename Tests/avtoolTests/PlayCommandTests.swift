@testable import avtool
import FixtureSupport
import Foundation
import Testing

/// `avtool play`, run as a user would: to the end, from a time, stopped by keys on a terminal, and a
/// file that cannot be read.
@Suite("avtool play", .serialized)
struct PlayCommandTests {
    @Test func playsToTheEnd() async throws {
        let started = ContinuousClock.now
        let result = try await AVToolProcess.run(["play", Fixtures.path("av.mp4"), "--from", "1.5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(Fixtures.path("av.mp4")): played to the end at 2.000 s\n")
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        // At least half a second of item time on the host clock; the upper bound only catches a hang (a
        // loaded two-core machine starts a process slowly).
        #expect(seconds > 0.4 && .seconds(seconds) < TestTiming.bound(20, hang: 120), "half a second of item time on the host clock: \(seconds)")
        #expect(result.stderr.split(separator: "\n").count <= 1, "at most the no-device line: \(result.stderr)")
    }

    @Test func aFileThatCannotBeReadGetsOneLine() async throws {
        let result = try await AVToolProcess.run(["play", "/nonexistent/clip.mp4"])
        #expect(result.status == 1 && result.stderr.hasPrefix("avtool: ") && result.stderr.contains("clip.mp4"))
    }

    /// On a terminal (`script` gives it one) space plays and pauses and q quits; the status line shows it.
    /// Each key goes in only once the status line shows the state before it (the keys reach `script`
    /// through a FIFO), so a slow start on a loaded machine cannot lose one.
    @Test func keysOnATerminal() async throws {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        guard FileManager.default.isExecutableFile(atPath: script.path) else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let avtool = ChildProcess.builtProduct("avtool").path
        let (keys, out) = (directory.appendingPathComponent("keys").path, directory.appendingPathComponent("out").path)
        let line = """
            mkfifo '\(keys)'
            script -qec "'\(avtool)' play '\(Fixtures.path("av.mp4"))' --paused" /dev/null < '\(keys)' > '\(out)' 2>&1 & pid=$!
            exec 3> '\(keys)'
            shows() { for i in $(seq 1200); do grep -q "$1" '\(out)' && return 0; kill -0 $pid 2>/dev/null || return 1; sleep 0.05; done; return 1; }
            shows paused || { echo "never paused"; exit 3; }
            printf ' ' >&3
            shows playing || { echo "never playing"; exit 4; }
            printf q >&3
            wait $pid
            """
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", line])
        let printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(result.status == 0, "\(result.stdout) \(result.stderr) \(printed)")
        #expect(printed.contains("paused") && printed.contains("playing") && printed.contains("stopped at"), "\(printed)")
        #expect(printed.contains("/ 2.00 s"))
    }

    /// `--video` under Xvfb: the window shows the picture at the time asked for, the same as FFmpeg's own
    /// decode of it; an X screenshot (xwd) is compared pixel for pixel. A signal closes the window and
    /// ends the command (SDL turns it into a quit).
    @Test func videoInAWindow() async throws {
        let tools = ["/usr/bin/xvfb-run", "/usr/bin/xwd", "/usr/bin/ffmpeg"]
        let missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        #expect(missing.isEmpty, "scripts/test.sh installs xvfb, x11-apps and ffmpeg: \(missing)")
        guard missing.isEmpty else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (shot, out, reference) = (directory.appendingPathComponent("shot.xwd").path, directory.appendingPathComponent("out").path,
                                      directory.appendingPathComponent("reference.rgb").path)
        let avtool = ChildProcess.builtProduct("avtool").path
        let movie = Fixtures.path("av.mp4")
        let script = """
            '\(avtool)' play '\(movie)' --video --from 1 --paused > '\(out)' 2>&1 & pid=$!
            for i in $(seq 200); do grep -q showing '\(out)' && break; sleep 0.05; done
            sleep 0.2; xwd -root -silent > '\(shot)'; kill $pid; wait $pid
            """
        let run = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/xvfb-run"),
                                             ["-a", "-s", "-screen 0 640x480x24", "/bin/bash", "-c", script])
        let printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(run.status == 0, "\(run.stderr) \(printed)")
        #expect(printed.contains("showing the video in a 320x240 window") && printed.contains("stopped at 1.000 s"), "\(printed)")

        let decode = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                                                ["-v", "error", "-ss", "1", "-i", movie, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-y", reference])
        #expect(decode.status == 0, "\(decode.stderr)")
        let screen = try XWDImage(Data(contentsOf: URL(fileURLWithPath: shot)))
        let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: reference)))
        #expect(expected.count == 320 * 240 * 3)
        var difference = 0
        for y in 0..<240 {
            for x in 0..<320 {
                let (r, g, b) = screen.rgb(x: x, y: y)
                let i = (y * 320 + x) * 3
                guard i + 2 < expected.count else { continue }
                difference += abs(Int(r) - Int(expected[i])) + abs(Int(g) - Int(expected[i + 1])) + abs(Int(b) - Int(expected[i + 2]))
            }
        }
        let mean = Double(difference) / Double(320 * 240 * 3)
        #expect(mean < 2, "the window's picture against FFmpeg's decode at 1 s: mean difference \(mean)")
    }
}

extension PlayCommandTests {
    /// With no display, `--video` says so in one line and the sound and time play on to the end.
    @Test func videoWithoutADisplayPlaysOn() async throws {
        let avtool = ChildProcess.builtProduct("avtool").path
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                ["-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "SDL_VIDEODRIVER", avtool, "play",
                                                 Fixtures.path("av.mp4"), "--video", "--from", "1.5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(Fixtures.path("av.mp4")): played to the end at 2.000 s\n")
        #expect(result.stderr.contains("avtool: no window for --video (no display"), "\(result.stderr)")
    }
}

/// An X window dump (`xwd`) of a TrueColor screen: its header (big-endian), then the pixels, packed at
/// `bitsPerPixel` in the byte order the header gives, `bytesPerLine` apart.
struct XWDImage {
    let width: Int, height: Int
    private let bytes: [UInt8]
    private let pixelsStart: Int, bytesPerLine: Int, bytesPerPixel: Int, leastFirst: Bool

    struct Malformed: Error {}

    init(_ data: Data) throws {
        let all = [UInt8](data)
        func field(_ n: Int) -> Int {
            guard all.count >= (n + 1) * 4 else { return 0 }
            return all[(n * 4)..<(n * 4 + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        bytes = all
        let headerSize = field(0), colors = field(19)
        (width, height) = (field(4), field(5))
        leastFirst = field(7) == 0
        bytesPerPixel = field(11) / 8
        bytesPerLine = field(12)
        pixelsStart = headerSize + colors * 12
        guard field(1) == 7, bytesPerPixel >= 3, pixelsStart + height * bytesPerLine <= all.count else { throw Malformed() }
    }

    func rgb(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let p = pixelsStart + y * bytesPerLine + x * bytesPerPixel
        guard x < width, y < height, p + 2 < bytes.count else { return (0, 0, 0) }
        // A 0xRRGGBB value, least significant byte first (or last).
        return leastFirst ? (bytes[p + 2], bytes[p + 1], bytes[p]) : (bytes[p + bytesPerPixel - 3], bytes[p + bytesPerPixel - 2], bytes[p + bytesPerPixel - 1])
    }
}
