import ArgumentParser
import AVFoundation
import Foundation

struct Subtitles: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Extract a text subtitle track as SubRip or WebVTT, through AVAssetReader.",
        discussion: """
            Reads the track's stored samples (SubRip, WebVTT, ASS/SSA, MP4 text) and writes one cue per \
            sample with its times: -o FILE.srt or FILE.vtt (the extension says which), or SubRip on \
            standard output (-o - or no -o; --format vtt for WebVTT). --track N takes the track \
            numbered N, as avtool inspect numbers them; without it, the first subtitle track. Bitmap \
            subtitles (PGS, VobSub, DVB) hold no text and are refused. --json prints a summary.
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(help: "The subtitle track's number, as avtool inspect shows it.")
    var track: Int32?

    @Option(help: "srt or vtt (default: from the output's extension, else srt).")
    var format: String?

    @Option(name: .shortAndLong, help: "The output file (- or nothing: standard output).")
    var output: String?

    @Flag(help: "Print a JSON summary.")
    var json = false

    private var chosenFormat: String {
        if let format { return format }
        if let output, output.lowercased().hasSuffix(".vtt") { return "vtt" }
        return "srt"
    }

    func validate() throws {
        guard ["srt", "vtt"].contains(chosenFormat) else { throw ValidationError("--format must be srt or vtt") }
    }

    func run() async throws {
        let asset = AVURLAsset(url: MediaLocation.url(file))
        let chosen: AVAssetTrack
        do {
            let tracks = try await asset.load(.tracks).filter { [.subtitle, .closedCaption, .text].contains($0.mediaType) }
            if let track {
                guard let found = tracks.first(where: { $0.trackID == track }) else {
                    AVTool.complain("\(file): no subtitle track numbered \(track)")
                    throw ExitCode(1)
                }
                chosen = found
            } else {
                guard let first = tracks.first else {
                    AVTool.complain("\(file): the asset has no subtitle track")
                    throw ExitCode(1)
                }
                chosen = first
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            AVTool.complain(AVTool.message(error, file: file))
            throw ExitCode(1)
        }
        let reader = try AVAssetReader(asset: asset)
        let samples = AVAssetReaderTrackOutput(track: chosen, outputSettings: nil)
        guard reader.canAdd(samples) else {
            AVTool.complain(AVTool.message(reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        reader.add(samples)
        guard reader.startReading() else {
            AVTool.complain(AVTool.message(reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        var cues: [SubtitleCue] = []
        var textless = 0
        for try await sample in samples.sampleBuffers {
            if let cue = SubtitleCue.cue(sample) { cues.append(cue) } else { textless += 1 }
        }
        guard reader.status == .completed else {
            AVTool.complain(AVTool.message(reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        if cues.isEmpty && textless > 0 {
            AVTool.complain("\(file): track \(chosen.trackID) holds no text (bitmap subtitles?)")
            throw ExitCode(1)
        }
        cues.sort { $0.start < $1.start }
        let text = chosenFormat == "vtt" ? SubtitleCue.vtt(cues) : SubtitleCue.srt(cues)
        if let output, output != "-" {
            guard let opened = AVTool.openForWriting(output), (try? opened.write(contentsOf: Data(text.utf8))) != nil else {
                AVTool.complain("\(output): cannot write the file")
                throw ExitCode(1)
            }
            if json {
                let object: [String: Any] = ["file": file, "track": Int(chosen.trackID), "cues": cues.count, "format": chosenFormat, "output": output]
                if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) { print(String(decoding: data, as: UTF8.self)) }
            } else {
                print("\(output): \(cues.count) cues from track \(chosen.trackID)")
            }
        } else {
            try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        }
    }
}
