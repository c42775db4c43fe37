import ArgumentParser
import AVFoundation
import Foundation

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a movie (or a part of it) again with an export preset, through AVAssetExportSession.",
        discussion: """
            Presets: \(ExportRunner.presetNames) (or Apple's full names, AVAssetExportPreset1280x720 and so \
            on). passthrough copies the media as it is; the others encode with libx264 or libx265 and AAC, \
            shrinking the picture to fit the preset's size. The output's type follows its extension: .mp4, \
            .mov, .m4v, .m4a, .mkv or .webm (passthrough only). A progress bar shows on a terminal; a failure is \
            one line on standard error, exit status 1, and no file is left.
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(help: "The export preset.")
    var preset: String

    @Option(help: "Start at this many seconds.")
    var from: Double?

    @Option(help: "End at this many seconds.")
    var to: Double?

    @Option(name: .shortAndLong, help: "The file to write (it must not exist).")
    var output: String

    func validate() throws {
        guard ExportRunner.preset(named: preset) != nil else { throw ValidationError("--preset must be one of \(ExportRunner.presetNames)") }
        guard ExportRunner.fileType(for: output) != nil else { throw ValidationError("-o must name a .mp4, .mov, .m4v, .m4a, .mkv or .webm file") }
        if let from { guard from.isFinite, from >= 0 else { throw ValidationError("--from must be a number of seconds, 0 or more") } }
        if let to { guard to.isFinite, to > (from ?? 0) else { throw ValidationError("--to must be a number of seconds after --from") } }
    }

    func run() async throws {
        guard let name = ExportRunner.preset(named: preset) else { throw ExitCode(2) }
        let asset = AVURLAsset(url: MediaLocation.url(file))
        if let failure = await ExportRunner.run(asset, preset: name, range: ExportRunner.range(from: from, to: to), to: output, label: "export") {
            AVTool.complain(failure)
            throw ExitCode(1)
        }
        print(await ExportRunner.describe(output))
    }
}
