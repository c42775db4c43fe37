import ArgumentParser
import Foundation

@main
struct AVTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avtool",
        abstract: "Inspect, picture, export, splice and play media files with Avocet, AVFoundation for Linux.",
        version: "avtool \(AVTool.version) (Avocet)",
        subcommands: [Inspect.self, Thumbnail.self, Thumbnails.self, Frames.self, Audio.self, Subtitles.self, Segment.self, Export.self, Splice.self, Play.self])

    /// avtool's version, which `avtool --version` prints.
    static let version = "0.6.0"

    /// Runs the command; every error is one line on standard error ("avtool: ..."), help and the
    /// version go to standard output.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                Swift.print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let line = message(for: error)
            if !line.isEmpty { complain(line) }
            Foundation.exit(code.rawValue)
        }
    }

    /// Opens `path` for writing from its start, made when missing and emptied when not (`open(2)` with
    /// `O_CREAT | O_TRUNC`): unlike `FileManager.createFile`, which writes a new file and renames it over
    /// the path, it writes into what is there, so `-o /dev/null` stays the device. Nil when it cannot.
    static func openForWriting(_ path: String) -> FileHandle? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// One line on standard error, prefixed "avtool: ": how every command reports a failure.
    static func complain(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data("avtool: \(line)\n".utf8))
    }

    /// One line naming the file: AVFoundation's message already does ("<file>: cannot open: ...").
    static func message(_ error: any Error, file: String) -> String {
        let text = error.localizedDescription
        return text.contains(file) ? text : "\(file): \(text)"
    }
}
