import AVFoundation
import Foundation
import Locking

/// A 4-byte header of settings, then a file: export it through `AVAssetExportSession` with one of five
/// presets, then open what was written. Traps on an export that fails without an AVError that names a
/// cause, is cancelled although nothing cancelled it, ends in a status that is not final, or completes
/// with a file that does not open as media.
///
/// Header: [0] bits 0-2 the preset (passthrough, low quality, 640x480, Apple M4A, medium quality; 5-7
/// wrap), bit 3 QuickTime (else MPEG-4; M4A for the sound preset), bit 4 the time range from [1] and
/// [2], bit 5 cancel once the export has begun, bit 6 through `export(to:as:)` (else `export()`);
/// [1] the range's start, [2] its duration, in tenths of a second (0: to the end); [3] unused.
///
/// An export still running after `budget` seconds is cancelled and must then end cancelled: a file
/// can claim hours (a track's time scale of 1), which an export encodes to the end, and a long job is
/// no failure here (the hang check stays: cancelling must end it).
enum ExportTarget {
    static let budget: UInt64 = 8
    static let presets = [AVAssetExportPresetPassthrough, AVAssetExportPresetLowQuality, AVAssetExportPreset640x480,
                          AVAssetExportPresetAppleM4A, AVAssetExportPresetMediumQuality]

    static func run(_ bytes: Data) {
        var header = ByteReader(bytes)
        let flags = header.byte()
        let preset = presets[Int(flags & 7) % presets.count]
        let start = CMTime(value: CMTimeValue(header.byte()), timescale: 10)
        let length = header.byte()
        _ = header.byte()
        let url = Scratch.write(header.rest())
        let output = Scratch.file.deletingLastPathComponent().appendingPathComponent(preset == AVAssetExportPresetAppleM4A ? "out.m4a" : "out.mov")
        try? FileManager.default.removeItem(at: output)
        defer { try? FileManager.default.removeItem(at: output) }

        guard let session = AVAssetExportSession(asset: AVURLAsset(url: url), presetName: preset) else { return }
        let fileType: AVFileType = preset == AVAssetExportPresetAppleM4A ? .m4a : flags & 8 != 0 ? .mov : .mp4
        if flags & 16 != 0 {
            session.timeRange = CMTimeRange(start: start, duration: length == 0 ? .positiveInfinity : CMTime(value: CMTimeValue(length), timescale: 10))
        }
        let cancels = flags & 32 != 0
        let modern = flags & 64 != 0
        if !modern {
            session.outputURL = output
            session.outputFileType = fileType
        }
        let overran = Locked(false)
        let thrown = runBlocking { () -> String? in
            let watchdog = Task {
                try await Task.sleep(nanoseconds: budget * 1_000_000_000)
                overran.withLock { $0 = true }
                session.cancelExport()
            }
            defer { watchdog.cancel() }
            if cancels {
                Task {
                    while session.currentStatus == .unknown || session.currentStatus == .waiting { try? await Task.sleep(nanoseconds: 1_000_000) }
                    session.cancelExport()
                }
            }
            guard modern else {
                await session.export()
                return nil
            }
            do {
                try await session.export(to: output, as: fileType)
                return nil
            } catch {
                requireNamedFailure(error, cancelled: cancels || overran.withLock { $0 }, "export(to:as:)")
                return String(describing: error)
            }
        }
        let cancelled = cancels || overran.withLock { $0 }
        switch session.currentStatus {
        case .completed:
            guard thrown == nil else { fatalError("the export completed but export(to:as:) threw \(thrown ?? "")") }
            // What was written opens as media.
            let written = AVURLAsset(url: output)
            let opened = runBlocking { () -> String? in
                do {
                    _ = try await written.load(.tracks, .duration)
                    return nil
                } catch {
                    return String(reflecting: error)
                }
            }
            if let opened { fatalError("the export completed with \(preset), but its file does not open: \(opened)") }
            if ProcessInfo.processInfo.environment["AVOCET_FUZZ_VERBOSE"] != nil {
                let seconds = runBlocking { (try? await written.load(.duration))?.seconds ?? .nan }
                print("export: completed with \(preset) as \(fileType.rawValue), \(seconds) s written")
            }
        case .failed:
            guard let error = session.currentError else { fatalError("the export failed without an error") }
            requireNamedFailure(error, cancelled: cancelled, "the export")
            if ProcessInfo.processInfo.environment["AVOCET_FUZZ_VERBOSE"] != nil { print("export: failed with \(preset): \(error)") }
        case .cancelled:
            if !cancelled { fatalError("the export was cancelled although nothing cancelled it") }
        default:
            fatalError("the export ended with the status \(session.currentStatus.rawValue)")
        }
    }
}
