import ArgumentParser
import AVFoundation
import Foundation

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print duration, tracks, tags and chapters of media files, through the AVFoundation API.",
        discussion: """
            Files load concurrently (at most 32 at once) and are reported in the order given. A file that \
            cannot be read gets one line on standard error naming it and the reason; the exit status is then 1.
            With --json the output is one JSON array with an object per readable file; a number Avocet \
            cannot know (an indefinite duration, say) is null.
            """)

    @Argument(help: "Media files (paths, or http and https URLs) to inspect.")
    var files: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// How many files load at the same time.
    static let window = 32

    /// A child task's answer, boxed. Swift 6.3's optimised builds on Linux hand back garbage from a task
    /// group whose children return a large tuple holding a `Result<_, any Error>` (a reproduction with no
    /// Avocet code crashes 20 runs in 20 under -O, none under -Onone; see swiftlang/swift#81771 for the
    /// task-local allocator bug behind it). A class reference avoids the affected path.
    final class Outcome: Sendable {
        let index: Int
        let result: Result<InspectReport, any Error>
        init(_ index: Int, _ result: Result<InspectReport, any Error>) {
            self.index = index
            self.result = result
        }
    }

    func run() async throws {
        let files = self.files
        let results = await withTaskGroup(of: Outcome.self, returning: [Result<InspectReport, any Error>?].self) { group in
            var collected = [Result<InspectReport, any Error>?](repeating: nil, count: files.count)
            var next = 0
            while next < min(Inspect.window, files.count) {
                Inspect.addLoad(of: files[next], index: next, to: &group)
                next += 1
            }
            while let outcome = await group.next() {
                collected[outcome.index] = outcome.result
                if next < files.count {
                    Inspect.addLoad(of: files[next], index: next, to: &group)
                    next += 1
                }
            }
            return collected
        }

        // Each report is rendered on its own: a file that fails to load, or whose report fails to
        // encode, gets its line on standard error and costs the others nothing.
        var outputs: [String] = []
        var failed = false
        for (file, result) in zip(files, results) {
            switch result {
            case .success(let report)?:
                guard json else { outputs.append(report.text); continue }
                do { outputs.append(try report.json()) } catch {
                    failed = true
                    AVTool.complain("\(file): cannot encode its report: \(error)")
                }
            case .failure(let error)?:
                failed = true
                AVTool.complain(AVTool.message(error, file: file))
            case nil: break
            }
        }
        if json {
            print(InspectReport.jsonArray(outputs))
        } else if !outputs.isEmpty {
            print(outputs.joined(separator: "\n\n"))
        }
        if failed { throw ExitCode(1) }
    }

    private static func addLoad(of file: String, index: Int, to group: inout TaskGroup<Outcome>) {
        group.addTask {
            do { return Outcome(index, .success(try await InspectReport.load(file: file))) } catch { return Outcome(index, .failure(error)) }
        }
    }

}
