import ArgumentParser
import AVFoundation
import Foundation
import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a movie or a song through AVPlayer: its sound, its time, and with --video its pictures.",
        discussion: """
            Sound goes to ALSA's default device (or AVOCET_AUDIO_DEVICE); where there is none the time \
            still runs and the player says so. On a terminal a status line shows the time, the duration, \
            the rate and whether it plays or waits for media, and keys control it: space pauses and \
            plays, the left and right arrows seek 5 s, + and - change the rate, q quits. With --video the \
            pictures show in a window (SDL2; where there is no display it says so and plays on), which \
            takes the same keys. Ends at the item's end.
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(help: "Start at this many seconds.")
    var from: Double?

    @Flag(help: "Show the pictures in a window.")
    var video = false

    @Flag(help: "Start paused (space plays).")
    var paused = false

    func validate() throws {
        if let from { guard from.isFinite, from >= 0 else { throw ValidationError("--from must be a number of seconds, 0 or more") } }
    }

    /// What a key asks for.
    enum Command: Sendable { case toggle, seek(Double), faster, slower, quit }

    func run() async throws {
        let item = AVPlayerItem(url: MediaLocation.url(file))
        let player = AVPlayer(playerItem: item)
        while item.status == .unknown { try await Task.sleep(nanoseconds: 10_000_000) }
        guard item.status == .readyToPlay else {
            AVTool.complain(AVTool.message(item.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        if let from { _ = await player.seek(to: CMTime(seconds: from, preferredTimescale: 90_000)) }
        let ended = Atomic<Bool>(false)
        let observer = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil) { _ in
            ended.store(true, ordering: .relaxed)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let keys = isatty(STDIN_FILENO) == 1 ? KeyReader() : nil
        defer { keys?.restore() }
        let windowKeys = Locked<[Command]>([])
        var display: VideoDisplay?
        if video {
            let track = try await item.asset.loadTracks(withMediaType: .video).first
            let transform = try await track?.load(.preferredTransform) ?? .identity
            let matrix = try await track?.load(.formatDescriptions).first?.extensions[.yCbCrMatrix]?.propertyListRepresentation as? String
            display = VideoDisplay(item: item, title: "avtool play \(file)", degrees: VideoDisplay.degrees(transform), yCbCrMatrix: matrix,
                                   command: { key in windowKeys.withLock { $0.append(key) } },
                                   ready: { width, height in
                                       try? FileHandle.standardOutput.write(contentsOf: Data("showing the video in a \(width)x\(height) window\n".utf8))
                                   })
        }
        let showsStatus = isatty(STDERR_FILENO) == 1
        if !paused { player.play() }
        var quit = false
        while !ended.load(ordering: .relaxed) && !quit {
            let commands = (keys?.take() ?? []) + windowKeys.withLock { list in defer { list = [] }; return list }
            for command in commands {
                switch command {
                case .toggle: player.rate == 0 ? player.play() : player.pause()
                case .seek(let by): _ = await player.seek(to: CMTime(seconds: max(0, player.currentTime().seconds + by), preferredTimescale: 90_000))
                case .faster: player.defaultRate = min(4, player.defaultRate * 2); if player.rate != 0 { player.rate = player.defaultRate }
                case .slower: player.defaultRate = max(0.25, player.defaultRate / 2); if player.rate != 0 { player.rate = player.defaultRate }
                case .quit: quit = true
                }
            }
            if showsStatus { try? FileHandle.standardError.write(contentsOf: Data(("\r" + Self.status(player, item)).utf8)) }
            try await Task.sleep(nanoseconds: display == nil ? 100_000_000 : 20_000_000)
        }
        player.pause()
        await display?.stop()
        if showsStatus { try? FileHandle.standardError.write(contentsOf: Data(("\r" + Self.status(player, item) + "\n").utf8)) }
        print("\(file): \(quit ? "stopped" : "played to the end") at \(String(format: "%.3f", player.currentTime().seconds)) s")
    }

    static func status(_ player: AVPlayer, _ item: AVPlayerItem) -> String {
        let state: String
        switch player.timeControlStatus {
        case .playing: state = "playing"
        case .paused: state = "paused "
        case .waitingToPlayAtSpecifiedRate: state = "waiting"
        @unknown default: state = "?"
        }
        return String(format: "%8.2f / %.2f s  rate %.2g  %@", player.currentTime().seconds, item.duration.seconds,
                      Double(player.defaultRate), state)
    }
}

/// Reads keys from a terminal put in raw mode (no echo, a key at a time) on a thread of its own, and
/// restores the terminal.
final class KeyReader: @unchecked Sendable {
    // @unchecked Sendable: the pending commands sit behind a lock; the saved settings never change.
    private let pending = Locked<[Play.Command]>([])
    private var saved = termios()

    init() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        let thread = Thread { [weak self] in self?.read() }
        thread.start()
    }

    func restore() {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    func take() -> [Play.Command] {
        pending.withLock { list in defer { list = [] }; return list }
    }

    private func read() {
        var escape = 0
        var byte: UInt8 = 0
        while Glibc.read(STDIN_FILENO, &byte, 1) == 1 {
            var command: Play.Command?
            switch (escape, byte) {
            case (0, 0x1b): escape = 1
            case (1, UInt8(ascii: "[")): escape = 2
            case (2, UInt8(ascii: "C")): (command, escape) = (.seek(5), 0)
            case (2, UInt8(ascii: "D")): (command, escape) = (.seek(-5), 0)
            case (_, UInt8(ascii: " ")): (command, escape) = (.toggle, 0)
            case (_, UInt8(ascii: "+")), (_, UInt8(ascii: "=")): (command, escape) = (.faster, 0)
            case (_, UInt8(ascii: "-")): (command, escape) = (.slower, 0)
            case (_, UInt8(ascii: "q")): (command, escape) = (.quit, 0)
            default: escape = 0
            }
            if let command { pending.withLock { $0.append(command) } }
            if case .quit = command { return }
        }
    }
}
