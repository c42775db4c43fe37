import AssetProbe
import Foundation

/// The input is a file: open it and load every property, four ways (AssetProbe). Traps when a load
/// throws something other than an AVError (or AVError.unknown), or a CancellationError that nothing asked for.
enum OpenTarget {
    static func run(_ bytes: Data) {
        let url = Scratch.write(bytes)
        let probe: any Probing = Probe()
        let tally = runBlocking { await probe.probeAsynchronously(url) }
        probe.probeSynchronously(url)
        if let foreign = tally.foreign { fatalError("a load failed without an AVError: \(foreign)") }
        if tally.cancelled { fatalError("a load was cancelled although nothing cancelled it") }
    }
}
