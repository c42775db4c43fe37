import ArgumentParser
import AVFoundation
import Foundation

struct Splice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join movies (or parts of them) end to end into one file, through AVMutableComposition and AVAssetExportSession.",
        discussion: """
            Usage: avtool splice IN1 [--from S] [--to S] IN2 [--from S] [--to S] ... -o OUT [--preset NAME]. \
            --from and --to apply to the input before them. By default the media is copied as it is \
            (passthrough) when every input has the same encoding, and encoded with the highest-quality \
            preset when not; --preset chooses. Cuts are exact either way in .mp4, .mov and .m4v files (a \
            copy keeps each piece from its keyframe and writes an edit list); in .mkv a copied piece \
            starts at its first keyframe.
            """)

    @Argument(parsing: .captureForPassthrough, help: "Inputs, each optionally followed by --from S and --to S; then -o OUT.")
    var arguments: [String] = []

    /// One input and the part of it wanted.
    struct Input {
        var file: String
        var from: Double?
        var to: Double?
    }

    /// The inputs, the output and the preset, from the arguments.
    static func parse(_ arguments: [String]) throws -> (inputs: [Input], output: String, preset: String?) {
        var inputs: [Input] = []
        var output: String?
        var preset: String?
        var i = 0
        func value(_ flag: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw ValidationError("\(flag) needs a value") }
            return arguments[i]
        }
        func seconds(_ flag: String) throws -> Double {
            let text = try value(flag)
            guard let number = Double(text), number.isFinite, number >= 0 else { throw ValidationError("\(flag) must be a number of seconds, 0 or more, not \(text)") }
            return number
        }
        while i < arguments.count {
            let argument = arguments[i]
            switch argument {
            case "-o", "--output": output = try value(argument)
            case "--preset": preset = try value(argument)
            case "--from", "--to":
                guard !inputs.isEmpty else { throw ValidationError("\(argument) must follow an input") }
                let number = try seconds(argument)
                if argument == "--from" { inputs[inputs.count - 1].from = number } else { inputs[inputs.count - 1].to = number }
            default:
                guard !argument.hasPrefix("-") else { throw ValidationError("unknown option \(argument)") }
                inputs.append(Input(file: argument))
            }
            i += 1
        }
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard let output else { throw ValidationError("give the output file with -o OUT") }
        guard ExportRunner.fileType(for: output) != nil else { throw ValidationError("-o must name a .mp4, .mov, .m4v, .m4a, .mkv or .webm file") }
        for input in inputs {
            if let from = input.from, let to = input.to, to <= from { throw ValidationError("--to must come after --from (\(input.file))") }
        }
        if let preset, ExportRunner.preset(named: preset) == nil { throw ValidationError("--preset must be one of \(ExportRunner.presetNames)") }
        return (inputs, output, preset)
    }

    func validate() throws {
        _ = try Splice.parse(arguments)
    }

    func run() async throws {
        let (inputs, output, presetName) = try Splice.parse(arguments)
        let composition = AVMutableComposition()
        var at = CMTime.zero
        for input in inputs {
            let asset = AVURLAsset(url: MediaLocation.url(input.file))
            do {
                let duration = try await asset.load(.duration)
                let range = ExportRunner.range(from: input.from, to: input.to)
                let end = range.duration.isNumeric ? min(range.end, duration) : duration
                guard range.start < end else {
                    AVTool.complain("\(input.file): nothing between --from and --to (the file lasts \(String(format: "%.3f", duration.seconds)) s)")
                    throw ExitCode(1)
                }
                try await composition.insertTimeRange(CMTimeRange(start: range.start, end: end), of: asset, at: at)
                at = at + (end - range.start)
            } catch let exit as ExitCode {
                throw exit
            } catch {
                AVTool.complain(AVTool.message(error, file: input.file))
                throw ExitCode(1)
            }
        }
        let whole = CMTimeRange(start: .zero, duration: .positiveInfinity)
        if let presetName, let preset = ExportRunner.preset(named: presetName) {
            if let failure = await ExportRunner.run(composition, preset: preset, range: whole, to: output, label: "splice") {
                AVTool.complain(failure)
                throw ExitCode(1)
            }
        } else if let failure = await ExportRunner.run(composition, preset: AVAssetExportPresetPassthrough, range: whole, to: output, label: "splice") {
            // Copying failed (the inputs' encodings differ): encode instead.
            guard failure.contains("stream copy") || failure.contains("passthrough") else {
                AVTool.complain(failure)
                throw ExitCode(1)
            }
            try? FileHandle.standardError.write(contentsOf: Data("avtool: the inputs cannot be copied into one track; encoding with the highest-quality preset\n".utf8))
            if let again = await ExportRunner.run(composition, preset: AVAssetExportPresetHighestQuality, range: whole, to: output, label: "splice") {
                AVTool.complain(again)
                throw ExitCode(1)
            }
        }
        print(await ExportRunner.describe(output))
    }
}
