// avocet-probe: loads everything the public API offers about each file given as an argument (see
// AssetProbe for the four passes), and prints one line per file, as soon as the file is done:
//
//     ok <path>                  every load gave a value
//     error <code> <path>        at least one load threw an AVError; <code> is the first one's raw value
//     cancelled <path>           a load threw CancellationError although nothing cancelled it
//     foreign <what> <path>      a load threw something else (or a legacy status was not settled)
//
// A crash (a trap, a signal) or a hang is the failure MutationTests looks for; it runs this in a child
// process on mutated fixtures.
import AssetProbe
import Foundation

/// Each file in turn; pass 4 blocks the main thread, as an app calling the synchronous getters does.
@MainActor func run(_ paths: [String]) async {
    let probe: any Probing = Probe()
    for path in paths {
        let url = URL(fileURLWithPath: path)
        let tally = await probe.probeAsynchronously(url)
        probe.probeSynchronously(url)
        FileHandle.standardOutput.write(Data((tally.line(for: path) + "\n").utf8))
    }
}

let paths = Array(CommandLine.arguments.dropFirst())
if paths.isEmpty {
    FileHandle.standardError.write(Data("usage: avocet-probe FILE...\n".utf8))
    exit(2)
}
await run(paths)
