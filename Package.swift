// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Avocet",
    products: [
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .library(name: "CoreMedia", targets: ["CoreMedia"]),
        .library(name: "CoreVideo", targets: ["CoreVideo"]),
        .library(name: "AVFAudio", targets: ["AVFAudio"]),
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .executable(name: "avtool", targets: ["avtool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // FFmpeg's C headers, found with pkg-config. Only MediaEngine imports this (and CAvocetLog's C
        // file includes it, for the log callback).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // ALSA's libasound, the audio device the player plays to. Only MediaEngine imports this.
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // SDL2, for avtool's video window only (the libraries never link it). No pkg-config: its flags
        // carry -D_REENTRANT, which SwiftPM refuses with a warning; the headers sit in /usr/include/SDL2.
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        .target(name: "VideoWindow", dependencies: ["CSDL2"]),
        // FFmpeg's log callback, in C (it takes a va_list); only MediaEngine uses it.
        .target(name: "CAvocetLog", dependencies: ["CFFmpeg"]),
        // The package's lock (Synchronization.Mutex that ThreadSanitizer can follow); every module uses it.
        .target(name: "Locking"),
        .target(name: "MediaEngine", dependencies: ["CFFmpeg", "CAvocetLog", "CALSA", "Locking"]),
        // Pixel buffers and their pool, and CoreFoundation's type names; CoreMedia re-exports it.
        .target(name: "CoreVideo"),
        .target(name: "CoreMedia", dependencies: ["CoreVideo", "Locking"]),
        // Apple's UTType over a fixed table of types; Foundation only. AVFoundation does not re-export it
        // (Apple's does not either): code that names UTType imports UniformTypeIdentifiers.
        .target(name: "UniformTypeIdentifiers"),
        // Apple's audio module (formats, buffers, audio files, the converter and the audio player, over
        // MediaEngine); AVFoundation re-exports it.
        .target(name: "AVFAudio", dependencies: ["CoreMedia", "MediaEngine", "Locking"]),
        .target(name: "AVFoundation", dependencies: ["AVFAudio", "CoreMedia", "MediaEngine", "Locking", "UniformTypeIdentifiers"]),
        .executableTarget(
            name: "avtool",
            dependencies: [
                "AVFoundation", "VideoWindow", "Locking", "UniformTypeIdentifiers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks (not tests): in-process loading throughput; see Benchmarks/inspect_vs_ffprobe.py.
        .executableTarget(name: "avocet-bench", dependencies: ["AVFoundation"], path: "Benchmarks/LoadThroughput"),
        .executableTarget(name: "avocet-rl-bench", dependencies: ["AVFoundation"], path: "Benchmarks/ResourceLoader"),
        .executableTarget(name: "avocet-play-bench", dependencies: ["AVFoundation"], path: "Benchmarks/Playback"),
        .executableTarget(name: "avocet-read-bench", dependencies: ["AVFoundation"], path: "Benchmarks/Reading"),
        .executableTarget(name: "avocet-write-bench", dependencies: ["AVFoundation", "UniformTypeIdentifiers"], path: "Benchmarks/Writing"),
        .executableTarget(name: "avocet-audio-bench", dependencies: ["AVFoundation"], path: "Benchmarks/Audio"),
        // Drives the public API for the test tools: loads everything about a file (avocet-probe,
        // avocet-fuzz), a resource loader delegate that follows a program of faults (avocet-fuzz, avocet-soak).
        .target(name: "AssetProbe", dependencies: ["AVFoundation", "Locking"], path: "Tools/AssetProbe"),
        .executableTarget(name: "avocet-probe", dependencies: ["AssetProbe"], path: "Tools/Probe"),
        // libFuzzer targets (scripts/fuzz.sh builds them with -sanitize=fuzzer); built normally, a replayer.
        .executableTarget(name: "avocet-fuzz", dependencies: ["AVFoundation", "AssetProbe", "Locking"], path: "Tools/Fuzz"),
        // Resource checks run in a process of their own by AVFoundationTests (descriptor limit, memory).
        .executableTarget(name: "avocet-stress", dependencies: ["AVFoundation", "MediaEngine", "FixtureSupport", "Locking"], path: "Tools/Stress"),
        // The soak (scripts/soak.sh): loads, thumbnails and exports at once under faults, for a set time.
        .executableTarget(name: "avocet-soak", dependencies: ["AVFoundation", "AssetProbe", "FixtureSupport", "Locking", "CHeapStats"], path: "Tools/Soak"),
        // glibc's count of the heap in use, for the soak.
        .target(name: "CHeapStats", path: "Tools/CHeapStats"),
        // Reads Fixtures/facts.json for every test target: the facts the fixture script put in.
        .target(name: "FixtureSupport", dependencies: ["MediaEngine", "Locking"], path: "Tests/FixtureSupport"),
        .testTarget(name: "CoreMediaTests", dependencies: ["CoreMedia"]),
        .testTarget(name: "CoreVideoTests", dependencies: ["CoreVideo"]),
        .testTarget(name: "UniformTypeIdentifiersTests", dependencies: ["UniformTypeIdentifiers"]),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "FixtureSupport", "Locking"]),
        .testTarget(name: "AVFoundationTests", dependencies: ["AVFoundation", "MediaEngine", "FixtureSupport", "avocet-stress", "Locking", "UniformTypeIdentifiers"]),
        // The fast, pure tests (no files, processes, servers or waits: values in memory); `scripts/test.sh --fast` runs them.
        .testTarget(name: "MediaEngineUnitTests", dependencies: ["MediaEngine", "FixtureSupport"]),
        .testTarget(name: "AVFoundationUnitTests", dependencies: ["AVFoundation", "UniformTypeIdentifiers", "FixtureSupport"]),
        .testTarget(name: "avtoolTests", dependencies: ["avtool", "FixtureSupport"]),
        .testTarget(name: "MutationTests", dependencies: ["FixtureSupport", "avocet-probe", "avocet-fuzz", "Locking"]),
    ],
    swiftLanguageModes: [.v6]
)
