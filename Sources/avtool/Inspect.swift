import ArgumentParser
import AVFoundation
import Foundation

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print duration, tracks, tags and chapters of media files, through the AVFoundation API.",
        discussion: """
            Files load concurrently (at most 32 at once) and are reported in the order given. A file that \
            cannot be read gets one line on standard error naming it and the reason; the exit status is then 1.
            With --json the output is one JSON array with an object per readable file.
            """)

    @Argument(help: "Media files to inspect.")
    var files: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// How many files load at the same time.
    static let window = 32

    func run() async throws {
        var results = [Result<InspectReport, any Error>?](repeating: nil, count: files.count)
        await withTaskGroup(of: (Int, Result<InspectReport, any Error>).self) { group in
            var next = 0
            func start(_ i: Int) {
                let file = files[i]
                group.addTask {
                    do { return (i, .success(try await InspectReport.load(file: file))) } catch { return (i, .failure(error)) }
                }
            }
            while next < min(Inspect.window, files.count) { start(next); next += 1 }
            for await (i, result) in group {
                results[i] = result
                if next < files.count { start(next); next += 1 }
            }
        }

        var reports: [InspectReport] = []
        var failed = false
        for (file, result) in zip(files, results) {
            switch result {
            case .success(let report)?: reports.append(report)
            case .failure(let error)?:
                failed = true
                FileHandle.standardError.write(Data("avtool: \(Inspect.message(error, file: file))\n".utf8))
            case nil: break
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(reports), as: UTF8.self))
        } else {
            print(reports.map(\.text).joined(separator: "\n\n"))
        }
        if failed { throw ExitCode(1) }
    }

    /// One line naming the file: AVFoundation's message already does ("<file>: cannot open: ...").
    static func message(_ error: any Error, file: String) -> String {
        let text = error.localizedDescription
        return text.contains(file) ? text : "\(file): \(text)"
    }
}
