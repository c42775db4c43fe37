internal import MediaEngine
import Dispatch
import Foundation
import Synchronization

/// Writes an asset (a file or a composition) to a new file with a preset: stream copy
/// (``AVAssetExportPresetPassthrough``), or decoding and encoding with Debian's FFmpeg (libx264, libx265
/// and FFmpeg's AAC) at the preset's size, through the video composition and audio mix when set.
///
/// Runs on one of the engine's threads for the whole export, reading and writing as it goes (memory
/// stays bounded: a few pictures and packets per track, never the file); never on Swift's cooperative
/// pool. ``progress`` rises to 1; ``cancelExport()`` stops the work at the next packet or picture and
/// removes the partial file. A session exports once. Failures (no output URL or file type, a file
/// already at the URL, a directory that cannot be written, a preset or file type the asset does not
/// suit, a source that fails part-way) end with ``Status-swift.enum/failed`` and an ``AVError`` in
/// ``error``, and leave no file behind.
///
/// Avocet's additions, clearly not Apple's: Matroska output (``AVFileType/mkv``) for passthrough.
open class AVAssetExportSession: NSObject, @unchecked Sendable {
    // @unchecked Sendable: settings and run state sit behind locks.
    /// The preset the session exports with.
    public let presetName: String
    /// The asset the session exports.
    public let asset: AVAsset
    let preset: ExportPreset

    private struct Settings {
        var outputURL: URL?
        var outputFileType: AVFileType?
        var shouldOptimizeForNetworkUse = false
        var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
        var metadata: [AVMetadataItem]?
        var metadataItemFilter: AVMetadataItemFilter?
        var videoComposition: AVVideoComposition?
        var audioMix: AVAudioMix?
        var fileLengthLimit: Int64 = 0
    }

    private struct Run {
        var status = Status.unknown
        var error: (any Error)?
        var progress: Float = 0
        var work: Task<Void, Never>?
        var cancelRequested = false
    }

    private let settings = LockedState(Settings())
    private let run = LockedState(Run())

    /// A session for `asset` with the preset named `presetName`. Does no I/O: whether the asset suits
    /// the preset shows when exporting (or through
    /// ``compatibility(ofExportPreset:with:outputFileType:)``).
    ///
    /// - Parameters:
    ///   - asset: A file's asset or a composition.
    ///   - presetName: One of ``allExportPresets()``, such as ``AVAssetExportPresetPassthrough``; nil
    ///     for a name Avocet does not know (and for ``AVAssetExportPresetHEVCHighestQualityWithAlpha``).
    public init?(asset: AVAsset, presetName: String) {
        guard let preset = ExportPreset.named(presetName) else { return nil }
        self.asset = asset
        self.presetName = presetName
        self.preset = preset
        super.init()
    }

    private func setting<T>(_ read: (Settings) -> T) -> T { read(settings.value) }
    private func set(_ change: (inout Settings) -> Void) { settings.change(change) }
    private func state<T>(_ read: (Run) -> T) -> T { read(run.value) }
    @discardableResult
    private func update<T>(_ change: (inout Run) -> T) -> T { run.change(change) }

    // MARK: - Settings

    /// Where the file goes: a file URL with no file at it yet.
    open var outputURL: URL? {
        get { setting { $0.outputURL } }
        set { set { $0.outputURL = newValue } }
    }

    /// The output's type: one of ``supportedFileTypes``.
    open var outputFileType: AVFileType? {
        get { setting { $0.outputFileType } }
        set { set { $0.outputFileType = newValue } }
    }

    /// Puts MP4's and QuickTime's index (moov) before the media, so that playback over a network can
    /// start before the whole file arrives; costs one more pass over the written file at the end.
    open var shouldOptimizeForNetworkUse: Bool {
        get { setting { $0.shouldOptimizeForNetworkUse } }
        set { set { $0.shouldOptimizeForNetworkUse = newValue } }
    }

    /// The part of the asset to export; by default all of it (zero to positive infinity).
    open var timeRange: CMTimeRange {
        get { setting { $0.timeRange } }
        set { set { $0.timeRange = newValue } }
    }

    /// The metadata to write; nil (the default) writes the asset's own.
    open var metadata: [AVMetadataItem]? {
        get { setting { $0.metadata } }
        set { set { $0.metadata = newValue } }
    }

    /// Filters the metadata written (see ``AVMetadataItemFilter/forSharing()``).
    open var metadataItemFilter: AVMetadataItemFilter? {
        get { setting { $0.metadataItemFilter } }
        set { set { $0.metadataItemFilter = newValue } }
    }

    /// Renders the video through this composition (copied when set). Needs a preset that encodes.
    open var videoComposition: AVVideoComposition? {
        get { setting { $0.videoComposition } }
        set { set { $0.videoComposition = newValue.flatMap { $0.copy() as? AVVideoComposition } } }
    }

    /// Mixes the audio with these volumes (copied when set). Needs a preset that encodes.
    open var audioMix: AVAudioMix? {
        get { setting { $0.audioMix } }
        set { set { $0.audioMix = newValue.flatMap { $0.copy() as? AVAudioMix } } }
    }

    /// The export stops once the file is this many bytes (it may pass it by the last packets written);
    /// 0, the default, sets no limit.
    open var fileLengthLimit: Int64 {
        get { setting { $0.fileLengthLimit } }
        set { set { $0.fileLengthLimit = newValue } }
    }

    /// The file types this preset writes for this asset; uses the asset's tracks when they are loaded,
    /// else assumes it has video.
    open var supportedFileTypes: [AVFileType] {
        if case .loaded(let facts) = asset.factsStatus() { return preset.fileTypes(for: facts.tracks) }
        return preset.fileTypes(for: nil)
    }

    /// The file types this preset writes for this asset, loading its tracks if needed (on the engine's
    /// threads); assumes the asset has video when loading fails. For a stream copy, only the types
    /// that hold every track's codec (FFmpeg's tables; nothing is read beyond the header).
    open var compatibleFileTypes: [AVFileType] {
        get async {
            let facts = try? await asset.facts()
            return preset.fileTypes(for: facts?.tracks)
        }
    }

    // MARK: - Status

    /// Where the export stands.
    @available(*, deprecated, message: "Use states(updateInterval:) instead")
    open var status: Status { state { $0.status } }

    /// Why the export failed (an ``AVError``); nil unless ``status`` is ``Status-swift.enum/failed`` or
    /// ``Status-swift.enum/cancelled`` (then ``AVError/Code-swift.enum/operationCancelled``).
    @available(*, deprecated, message: "Use export(to:as:) instead, which throws")
    open var error: (any Error)? { state { $0.error } }

    /// How much is written, from 0 to 1 (the share of the output's duration).
    open var progress: Float { state { $0.progress } }

    /// The status and error without the deprecation (for Avocet's own code, tools and tests).
    package var currentStatus: Status { state { $0.status } }
    package var currentError: (any Error)? { state { $0.error } }

    // MARK: - Exporting

    /// Exports, returning when done; then ``status`` is ``Status-swift.enum/completed``,
    /// ``Status-swift.enum/failed`` (see ``error``) or ``Status-swift.enum/cancelled``. Does not throw,
    /// as Apple's. A second call returns at once. Cancelling the calling task cancels the export.
    open func export() async {
        let started = update { run -> Bool in
            guard run.status == .unknown else { return false }
            run.status = .waiting
            return true
        }
        guard started else { return }
        let work = Task { await perform() }
        let cancelled = update { run -> Bool in
            run.work = work
            return run.cancelRequested
        }
        if cancelled { work.cancel() }
        await withTaskCancellationHandler { await work.value } onCancel: { work.cancel() }
    }

    /// Exports, calling `handler` when done (see ``export()``).
    ///
    /// - Parameter handler: Runs once on a background queue when the export has ended; check ``status``
    ///   and ``error``.
    @available(*, deprecated, message: "Use export(to:as:) instead")
    open func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        Task { await export(); DispatchQueue.global().async(execute: handler) }
    }

    /// Exports to `url` as `fileType`, returning when the file is written. Sets ``outputURL`` and
    /// ``outputFileType``.
    ///
    /// - Parameters:
    ///   - url: A file URL with no file at it yet, in a directory that can be written.
    ///   - fileType: One of ``supportedFileTypes``.
    /// - Throws: `CancellationError` when the export was cancelled (by ``cancelExport()`` or the calling
    ///   task); otherwise the ``AVError`` that ended it, such as
    ///   ``AVError/Code-swift.enum/fileAlreadyExists``, ``AVError/Code-swift.enum/exportFailed`` or
    ///   ``AVError/Code-swift.enum/operationNotSupportedForPreset``.
    open func export(to url: URL, as fileType: AVFileType) async throws {
        set { $0.outputURL = url; $0.outputFileType = fileType }
        await export()
        switch currentStatus {
        case .completed: return
        case .cancelled: throw CancellationError()
        default: throw currentError ?? AVError(.exportFailed)
        }
    }

    /// Stops an export in progress (its file is removed; ``status`` becomes
    /// ``Status-swift.enum/cancelled``), or one not started yet, which then ends at once.
    open func cancelExport() {
        let work = update { run -> Task<Void, Never>? in
            run.cancelRequested = true
            return run.work
        }
        work?.cancel()
    }

    /// The export's states, as the export moves through them. Polls the session every 20 ms while
    /// iterated; ends when the export does.
    ///
    /// - Parameter updateInterval: Seconds between repeated states while exporting, so that the
    ///   progress can be read; with the default infinity, a state is yielded only when it changes.
    /// - Returns: ``State/pending``, ``State/waiting``, then ``State/exporting(progress:)`` with a
    ///   `Progress` whose fraction completed follows ``progress``.
    open func states(updateInterval: TimeInterval = .infinity) -> AsyncStream<State> {
        let progressObject = Progress(totalUnitCount: 1000)
        return AsyncStream { continuation in
            let poller = Task {
                var last: Status?
                var lastYield = Date.distantPast
                while !Task.isCancelled {
                    let (status, fraction) = state { ($0.status, $0.progress) }
                    progressObject.completedUnitCount = Int64(fraction * 1000)
                    let due = updateInterval.isFinite && Date().timeIntervalSince(lastYield) >= updateInterval
                    if status != last || due {
                        switch status {
                        case .unknown: continuation.yield(.pending)
                        case .waiting: continuation.yield(.waiting)
                        case .exporting: continuation.yield(.exporting(progress: progressObject))
                        case .completed, .failed, .cancelled:
                            continuation.finish()
                            return
                        }
                        last = status
                        lastYield = Date()
                    }
                    try? await Task.sleep(nanoseconds: 20_000_000)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in poller.cancel() }
        }
    }

    private func perform() async {
        let (settings, path): (Settings, String)
        do {
            settings = setting { $0 }
            path = try checkOutput(settings)
        } catch {
            return finish(.failed, error)
        }
        do {
            let facts = try await asset.facts()
            // The duration as `load(.duration)` gives it: from the packet scan where the header only
            // estimates and the asset asked for precision. A file whose header states none (a browser's
            // or a live recording) is scanned, once, to learn where it ends: the whole file is exported.
            var duration = try await asset.load(.duration)
            if !duration.isNumeric && !facts.isStreamingPlaylist && !(asset is AVComposition) {
                duration = facts.scannedTiming(try await asset.source.packetStatistics()).duration
            }
            let pictures = PictureSource(asset: asset)
            let tracks = try await pictures.tracks()
            let sources = SegmentSources(for: asset)
            await sources.prepare(tracks)
            // Items whose value a handler gives are loaded first (a handler that fails leaves its item out).
            for item in settings.metadata ?? [] where item.valueLoad != nil { try? await item.loadValue() }
            guard let fileType = settings.outputFileType, preset.fileTypes(for: facts.tracks).contains(fileType) else {
                throw ExportPlanner.unsupported("The \(presetName) preset cannot write \(settings.outputFileType?.rawValue ?? "no file type") for this asset.")
            }
            let request = ExportRequest(asset: asset, preset: preset, fileType: fileType, timeRange: settings.timeRange,
                                        videoComposition: settings.videoComposition, audioMix: settings.audioMix, metadata: settings.metadata,
                                        metadataItemFilter: settings.metadataItemFilter, fastStart: settings.shouldOptimizeForNetworkUse,
                                        fileLengthLimit: settings.fileLengthLimit)
            let (plan, cleanup) = try ExportPlanner.plan(request, facts: facts, duration: duration, pictures: pictures, sources: sources)
            try Task.checkCancellation()
            update { $0.status = .exporting }
            try await IOExecutor.shared.run { [weak self] token in
                // Readers are put back (and closed with the picture source) on this engine thread.
                defer { cleanup() }
                try AVError.converting {
                    try Exporter.run(plan, to: path, cancellation: token) { fraction in
                        self?.update { run in run.progress = max(run.progress, Float(fraction)) }
                    }
                }
            }
            finish(.completed, nil)
        } catch {
            LeftoverOutput.remove(atPath: path)
            if Task.isCancelled || error is CancellationError || (error as? AVError)?.code == .operationCancelled {
                finish(.cancelled, AVError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "The export was cancelled."]))
            } else {
                finish(.failed, AVError.converting(error))
            }
        }
    }

    /// The output path, after the checks that need no asset: a file URL and type are set, nothing is
    /// at the URL, and its directory can be written.
    private func checkOutput(_ settings: Settings) throws -> String {
        guard let url = settings.outputURL, url.isFileURL else {
            throw AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "The export session has no file URL to write to."])
        }
        guard settings.outputFileType != nil else {
            throw AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "The export session has no output file type."])
        }
        let path = url.path
        if FileManager.default.fileExists(atPath: path) {
            throw AVError(.fileAlreadyExists, userInfo: [NSLocalizedDescriptionKey: "A file already exists at \(path).", NSFilePathErrorKey: path])
        }
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: directory) else {
            throw AVError(.exportFailed, userInfo: [
                NSLocalizedDescriptionKey: "The directory \(directory) does not exist or cannot be written.",
                NSUnderlyingErrorKey: NSError(domain: NSCocoaErrorDomain, code: NSFileWriteNoPermissionError),
            ])
        }
        return path
    }

    private func finish(_ status: Status, _ error: (any Error)?) {
        update { run in
            run.status = status
            run.error = error
            if status == .completed { run.progress = 1 }
        }
    }

    // MARK: - Presets

    /// Every preset name Avocet knows.
    ///
    /// - Returns: The names ``init(asset:presetName:)`` accepts.
    open class func allExportPresets() -> [String] { ExportPreset.all.map(\.name) }

    /// The presets that suit `asset`, loading its tracks if needed (waiting on the calling thread).
    ///
    /// - Parameter asset: The asset to export.
    /// - Returns: The names of the presets that suit its tracks; empty when loading fails.
    @available(*, deprecated, message: "Use compatibility(ofExportPreset:with:outputFileType:) instead")
    open class func exportPresets(compatibleWith asset: AVAsset) -> [String] {
        guard let facts = try? asset.blockingFacts().get() else { return [] }
        return ExportPreset.all.filter { suits($0, facts) }.map(\.name)
    }

    /// Whether the preset suits `asset` (and writes `outputFileType`, when given). Loads the asset's
    /// tracks if needed, on the engine's threads.
    ///
    /// - Parameters:
    ///   - presetName: A preset name, such as ``AVAssetExportPresetHighestQuality``.
    ///   - asset: The asset to export.
    ///   - outputFileType: The file type to write, or nil to ask about the preset only.
    /// - Returns: True when the preset is known and the asset has the media it needs (audio for
    ///   ``AVAssetExportPresetAppleM4A``, audio or video otherwise) and, when given, the preset writes
    ///   `outputFileType` for it. False when loading the asset fails.
    open class func compatibility(ofExportPreset presetName: String, with asset: AVAsset, outputFileType: AVFileType?) async -> Bool {
        guard let preset = ExportPreset.named(presetName), let facts = try? await asset.facts(), suits(preset, facts) else { return false }
        guard let outputFileType else { return true }
        return preset.fileTypes(for: facts.tracks).contains(outputFileType)
    }

    private static func suits(_ preset: ExportPreset, _ facts: AssetFacts) -> Bool {
        let hasVideo = facts.tracks.contains { $0.mediaType == .video }
        let hasAudio = facts.tracks.contains { $0.mediaType == .audio }
        switch preset.kind {
        case .passthrough: return hasVideo || hasAudio
        case .audioOnly: return hasAudio
        case .video: return hasVideo || hasAudio
        }
    }

    /// An estimate of the file's length: for stream copy, the share of the tracks' media bytes in the
    /// time range; for encoding, the preset's audio rate and about a tenth of a bit per pixel for video.
    /// Loads the asset's header and duration if needed, and throws their loading error; 0 when the
    /// duration is not a positive number.
    open var estimatedOutputFileLengthInBytes: Int64 {
        get async throws {
            let facts = try await asset.facts()
            let seconds = try await estimatedMaximumDuration.seconds
            let whole = try await asset.load(.duration).seconds
            guard seconds.isFinite, seconds > 0, whole.isFinite, whole > 0 else { return 0 }
            func bytes(_ value: Double) -> Int64 { value.isFinite ? max(0, Int64(saturating: value)) : 0 }
            switch preset.kind {
            case .passthrough:
                let media = facts.tracks.map { track in
                    track.facts.totalSampleDataLength.map(Double.init) ?? Double(track.facts.estimatedDataRate ?? 0) / 8 * whole
                }.reduce(0, +)
                return bytes(media * seconds / whole)
            case .audioOnly:
                return bytes(Double(preset.audioBitRate) / 8 * seconds)
            case .video(_, let box, _):
                let video = facts.tracks.first { $0.mediaType == .video }
                let size = video?.facts.naturalSize ?? .zero
                let fitted = PictureSource.fit(width: max(1, Double(size.width)), height: max(1, Double(size.height)),
                                               into: box.map { CGSize(width: $0.width, height: $0.height) } ?? .zero)
                let rate = Double(video?.facts.nominalFrameRate ?? 30)
                let videoBits = video == nil ? 0 : Double(fitted.width * fitted.height) * rate * 0.1
                return bytes((videoBits + Double(preset.audioBitRate)) / 8 * seconds)
            }
        }
    }

    /// How long the output will be: ``timeRange`` within the asset. Loads the asset's duration if
    /// needed, and throws its loading error.
    open var estimatedMaximumDuration: CMTime {
        get async throws {
            let duration = try await asset.load(.duration)
            let range = timeRange
            guard range.isValid, range.start.isNumeric else { return duration }
            let end = range.duration.isNumeric ? min(range.end, duration) : duration
            return max(.zero, end - max(.zero, range.start))
        }
    }
}
