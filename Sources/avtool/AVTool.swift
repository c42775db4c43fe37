import ArgumentParser

@main
struct AVTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avtool",
        abstract: "Inspect media files with Avocet, AVFoundation for Linux.",
        version: "avtool \(AVTool.version) (Avocet)",
        subcommands: [Inspect.self])

    /// avtool's version, which `avtool --version` prints.
    static let version = "0.3.0"
}
