import ArgumentParser

@main
struct AVTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avtool",
        abstract: "Inspect media files with Avocet, AVFoundation for Linux.",
        subcommands: [Inspect.self])
}
