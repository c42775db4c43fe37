import ArgumentParser
import Foundation
import MediaEngine

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print container, duration, tracks, tags and chapters of media files.",
        discussion: """
            Files are opened concurrently and reported in the order given. A file that cannot be read gets \
            one line on standard error naming it and the reason; the exit status is then 1.
            With --json the output is one JSON array with an object per readable file.
            """)

    @Argument(help: "Media files to inspect.")
    var files: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// The header's facts; where the header only estimates the duration (VBR MP3 without a Xing
    /// header), one packet scan replaces the estimate with the exact value.
    static func containerInfo(path: String) async throws -> ContainerInfo {
        let demuxer = try await Demuxer.open(path: path)
        var info = demuxer.info
        guard info.durationIsEstimate else { return info }
        let stats = try await demuxer.scanPackets()
        var end = 0.0
        for (i, s) in stats.enumerated() where i < info.streams.count {
            guard let first = s.firstPresentationTime, let last = s.endPresentationTime,
                  let tb = info.streams[i].timeBase.value else { continue }
            info.streams[i].duration = last - first
            end = max(end, Double(last - first) * tb)
        }
        info.duration = Int64(end * 1_000_000)
        info.durationIsEstimate = false
        return info
    }

    func run() async throws {
        var results = [Result<ContainerInfo, MediaEngineError>?](repeating: nil, count: files.count)
        await withTaskGroup(of: (Int, Result<ContainerInfo, MediaEngineError>).self) { group in
            for (i, file) in files.enumerated() {
                group.addTask {
                    do {
                        return (i, .success(try await Inspect.containerInfo(path: file)))
                    } catch let error as MediaEngineError {
                        return (i, .failure(error))
                    } catch {
                        return (i, .failure(MediaEngineError(.failed, source: file, operation: "open", reason: "\(error)")))
                    }
                }
            }
            for await (i, result) in group { results[i] = result }
        }

        var reports: [InspectReport] = []
        var failed = false
        for (file, result) in zip(files, results) {
            switch result {
            case .success(let info)?: reports.append(InspectReport(file: file, info: info))
            case .failure(let error)?:
                failed = true
                FileHandle.standardError.write(Data("avtool: \(error.description)\n".utf8))
            case nil: break
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(reports)
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(reports.map(\.text).joined(separator: "\n\n"))
        }
        if failed { throw ExitCode(1) }
    }
}
