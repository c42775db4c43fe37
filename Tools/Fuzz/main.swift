// avocet-fuzz: libFuzzer targets over Avocet's public API, one process per target, chosen by the
// environment variable AVOCET_FUZZ_TARGET:
//
//     open        the input is a file's bytes: open it and load every property (AssetProbe's four passes)
//     thumbnail   a 16-byte header of settings and times, then a file's bytes: generate images
//     loader      a fixture picked by the first byte, then a program of delegate behaviours: load an
//                 asset through a resource loader delegate that follows the program
//     reader      an 8-byte header of reader settings, then a file's bytes: read every track's samples
//                 through AVAssetReader (stored, pictures, sound, an audio mix; random access, cancellation)
//     audio       a 4-byte header of formats and sizes, then a file's bytes: read it through AVAudioFile in
//                 a processing format, again from a position, and convert it through AVAudioConverter
//     player      a 4-byte header of rate, picture format and seeks, then a file's bytes: play it through
//                 AVPlayer for at most two seconds, taking pictures from an AVPlayerItemVideoOutput
//     export      a 4-byte header of preset, file type, time range and cancellation, then a file's bytes:
//                 export it through AVAssetExportSession and open what was written
//
// Built with `-sanitize=fuzzer` and AVOCET_FUZZ (scripts/fuzz.sh), libFuzzer runs and calls
// LLVMFuzzerTestOneInput below. Built normally (the test suite), the top-level code replays inputs: `avocet-fuzz TARGET FILE...` runs each file once and
// prints "ok FILE"; a crash or a hang is the failure, as under libFuzzer.
//
// Each target turns what must never happen (a load throwing something other than an AVError, a
// cancellation nobody asked for, a wrong image size, a load that outlives its cancellation) into a
// trap, so libFuzzer keeps the input.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Data(bytes: $0, count: count) } ?? Data()
    guard let name = ProcessInfo.processInfo.environment["AVOCET_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
        fatalError("AVOCET_FUZZ_TARGET must name a target: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    target.run(bytes)
    return 0
}

#if AVOCET_FUZZ
// Under libFuzzer (scripts/fuzz.sh defines AVOCET_FUZZ): whichever `main` the linker kept, libFuzzer's
// or this one, libFuzzer's driver runs.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
#else
let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: avocet-fuzz open|thumbnail|loader|reader|audio|player|export FILE...\n".utf8))
    exit(2)
}
for path in arguments.dropFirst() {
    guard let bytes = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("avocet-fuzz: cannot read \(path)\n".utf8))
        exit(1)
    }
    target.run(bytes)
    FileHandle.standardOutput.write(Data("ok \(path)\n".utf8))
}
#endif
