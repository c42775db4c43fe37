// AssetProbe: loads everything the public API offers about a file, the way avocet-probe (for
// MutationTests) and avocet-fuzz's `open` target need it. Each file is opened four times:
//   1. AVURLAsset, every asset, track and metadata-item property through load(_:), and the chapters;
//   2. AVURLAsset, the legacy API: loadValuesAsynchronously(forKeys:) with every key, statusOfValue on
//      each, then the deprecated synchronous getters (on tracks and metadata items too);
//   3. as 1 with AVURLAssetPreferPreciseDurationAndTimingKey (a packet scan for some files);
//   4. as 3, but the deprecated synchronous getters first, on a fresh asset (the blocking parse and scan).
import AVFoundation
import Foundation
import Locking

/// What happened to one file: the first AVError, and whatever should never happen.
public struct Tally: Sendable {
    public var firstAVErrorCode: Int?
    /// A load threw CancellationError although nothing cancelled it.
    public var cancelled = false
    /// A load threw something other than an AVError (or AVError.unknown, which says Avocet lost the
    /// cause), or a legacy status was not settled.
    public var foreign: String?

    public init() {}

    mutating func record(_ error: any Error, during what: String) {
        if let error = error as? AVError {
            if firstAVErrorCode == nil { firstAVErrorCode = error.code.rawValue }
            if error.code == .unknown { recordForeign("AVError.unknown@\(what)") }
        } else if error is CancellationError {
            cancelled = true
        } else {
            recordForeign("\(String(reflecting: type(of: error)))@\(what)")
        }
    }

    /// A legacy status's error: an NSError in AVError's domain is an AVError.
    mutating func record(_ error: NSError?, during what: String) {
        guard let error else {
            recordForeign("no-error@\(what)")
            return
        }
        if error.domain == AVError.errorDomain {
            if firstAVErrorCode == nil { firstAVErrorCode = error.code }
            if error.code == AVError.Code.unknown.rawValue { recordForeign("AVError.unknown@\(what)") }
        } else {
            recordForeign("NSError(\(error.domain),\(error.code))@\(what)")
        }
    }

    mutating func recordForeign(_ what: String) {
        if foreign == nil { foreign = what.replacingOccurrences(of: " ", with: "_") }
    }

    mutating func merge(_ other: Tally) {
        if firstAVErrorCode == nil { firstAVErrorCode = other.firstAVErrorCode }
        cancelled = cancelled || other.cancelled
        if foreign == nil { foreign = other.foreign }
    }

    /// The probe's report line: `ok`, `error CODE`, `cancelled` or `foreign WHAT`, then the path.
    public func line(for path: String) -> String {
        if let foreign { return "foreign \(foreign) \(path)" }
        if cancelled { return "cancelled \(path)" }
        if let firstAVErrorCode { return "error \(firstAVErrorCode) \(path)" }
        return "ok \(path)"
    }
}

/// The legacy keys: every one each class loads through the string API, as AVFoundation lists them.
let assetKeys = AVAsset.keys.map(\.description)
let trackKeys = AVAssetTrack.keys.map(\.description)
let itemKeys = AVMetadataItem.loadableKeys.sorted()

let preferredLanguages = ["en", "fr", "de"]

// MARK: - The async API

/// Loads one property; a failure is recorded and gives nil.
func get<Root: AVAsynchronousKeyValueLoading, Value>(_ root: Root, _ property: AVAsyncProperty<Root, Value>,
                                                       _ tally: inout Tally) async -> Value? {
    do {
        return try await root.load(property)
    } catch {
        tally.record(error, during: property.description)
        return nil
    }
}

/// Touches what a format description computes from its contents.
func touch(_ descriptions: [CMFormatDescription]) {
    for description in descriptions {
        _ = description.description
        _ = description.mediaType
        _ = description.mediaSubType
        _ = description.presentationDimensions()
        _ = CMAudioFormatDescriptionGetStreamBasicDescription(description)
    }
}

/// Every value of every item, through load(_:), plus the plain properties.
func loadItems(_ items: [AVMetadataItem], _ tally: inout Tally) async {
    for item in items {
        _ = (item.identifier, item.key, item.keySpace, item.commonKey, item.locale, item.extendedLanguageTag)
        _ = (item.time, item.duration, item.startDate, item.dataType, item.description)
        _ = await get(item, .value, &tally)
        _ = await get(item, .stringValue, &tally)
        _ = await get(item, .numberValue, &tally)
        _ = await get(item, .dateValue, &tally)
        _ = await get(item, .dataValue, &tally)
        _ = await get(item, .extraAttributes, &tally)
    }
}

func loadTrack(_ track: AVAssetTrack, _ tally: inout Tally) async {
    _ = (track.trackID, track.mediaType, track.description)
    if let descriptions = await get(track, .formatDescriptions, &tally) { touch(descriptions) }
    _ = await get(track, .isPlayable, &tally)
    _ = await get(track, .isDecodable, &tally)
    _ = await get(track, .isEnabled, &tally)
    _ = await get(track, .isSelfContained, &tally)
    _ = await get(track, .totalSampleDataLength, &tally)
    _ = await get(track, .mediaCharacteristics, &tally)
    let timeRange = await get(track, .timeRange, &tally)
    _ = await get(track, .naturalTimeScale, &tally)
    _ = await get(track, .estimatedDataRate, &tally)
    _ = await get(track, .languageCode, &tally)
    _ = await get(track, .extendedLanguageTag, &tally)
    _ = await get(track, .naturalSize, &tally)
    _ = await get(track, .preferredTransform, &tally)
    _ = await get(track, .preferredVolume, &tally)
    _ = await get(track, .nominalFrameRate, &tally)
    _ = await get(track, .minFrameDuration, &tally)
    _ = await get(track, .requiresFrameReordering, &tally)
    _ = await get(track, .hasAudioSampleDependencies, &tally)
    _ = await get(track, .segments, &tally)
    let metadata = await get(track, .metadata, &tally) ?? []
    let common = await get(track, .commonMetadata, &tally) ?? []
    let formats = await get(track, .availableMetadataFormats, &tally) ?? []
    await loadItems(metadata + common, &tally)
    do {
        for format in formats { _ = try await track.loadMetadata(for: format) }
        _ = try await track.loadSegment(forTrackTime: timeRange?.start ?? .zero)
    } catch {
        tally.record(error, during: "track-extras")
    }
}

/// Pass 1 (and 3 with `precise`): everything through the async API.
func probeAsync(_ url: URL, precise: Bool) async -> Tally {
    var tally = Tally()
    let asset = AVURLAsset(url: url, options: precise ? [AVURLAssetPreferPreciseDurationAndTimingKey: true] : nil)
    _ = await get(asset, .duration, &tally)
    _ = await get(asset, .providesPreciseDurationAndTiming, &tally)
    let tracks = await get(asset, .tracks, &tally) ?? []
    _ = await get(asset, .trackGroups, &tally)
    let metadata = await get(asset, .metadata, &tally) ?? []
    let common = await get(asset, .commonMetadata, &tally) ?? []
    let formats = await get(asset, .availableMetadataFormats, &tally) ?? []
    let creationDate = await get(asset, .creationDate, &tally) ?? nil
    _ = await get(asset, .lyrics, &tally)
    _ = await get(asset, .isPlayable, &tally)
    _ = await get(asset, .isExportable, &tally)
    _ = await get(asset, .isReadable, &tally)
    _ = await get(asset, .isComposable, &tally)
    _ = await get(asset, .preferredRate, &tally)
    _ = await get(asset, .preferredVolume, &tally)
    _ = await get(asset, .preferredTransform, &tally)
    _ = await get(asset, .hasProtectedContent, &tally)
    _ = await get(asset, .canContainFragments, &tally)
    _ = await get(asset, .containsFragments, &tally)
    _ = await get(asset, .overallDurationHint, &tally)
    let locales = await get(asset, .availableChapterLocales, &tally) ?? []
    await loadItems(metadata + common + (creationDate.map { [$0] } ?? []), &tally)
    for track in tracks { await loadTrack(track, &tally) }
    do {
        var groups = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: preferredLanguages)
        for locale in locales + [Locale(identifier: "en")] {
            groups += try await asset.loadChapterMetadataGroups(withTitleLocale: locale, containingItemsWithCommonKeys: [.commonKeyTitle])
        }
        for group in groups {
            _ = group.timeRange
            await loadItems(group.items, &tally)
        }
        for format in formats { _ = try await asset.loadMetadata(for: format) }
        _ = try await asset.loadTracks(withMediaType: .video)
        _ = try await asset.loadTracks(withMediaCharacteristic: .audible)
        _ = try await asset.loadTrack(withTrackID: 1)
    } catch {
        tally.record(error, during: "asset-extras")
    }
    return tally
}

// MARK: - The legacy API

/// loadValuesAsynchronously with `keys`, then statusOfValue on each: every key must be settled.
@available(*, deprecated)
func legacyLoad(_ object: some AVAsynchronousKeyValueLoading, keys: [String], _ tally: inout Tally) async {
    await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
        object.loadValuesAsynchronously(forKeys: keys) { continuation.resume() }
    }
    for key in keys {
        var error: NSError?
        switch object.statusOfValue(forKey: key, error: &error) {
        case .loaded: break
        case .failed: tally.record(error, during: key)
        case .unknown, .loading, .cancelled:
            tally.recordForeign("unsettled-status@\(key)")
        }
    }
}

/// Every deprecated synchronous getter of an item.
@available(*, deprecated)
func touchItemsSynchronously(_ items: [AVMetadataItem]) {
    for item in items {
        _ = (item.value, item.stringValue, item.numberValue, item.dateValue, item.dataValue, item.extraAttributes)
    }
}

/// Every deprecated synchronous getter of a track.
@available(*, deprecated)
func touchTrackSynchronously(_ track: AVAssetTrack) {
    for case let description as CMFormatDescription in track.formatDescriptions { touch([description]) }
    _ = (track.isPlayable, track.isDecodable, track.isEnabled, track.isSelfContained, track.totalSampleDataLength)
    _ = (track.mediaCharacteristics, track.timeRange, track.naturalTimeScale, track.estimatedDataRate)
    _ = (track.languageCode, track.extendedLanguageTag, track.naturalSize, track.preferredTransform)
    _ = (track.preferredVolume, track.nominalFrameRate, track.minFrameDuration, track.requiresFrameReordering)
    _ = (track.hasAudioSampleDependencies, track.segments, track.availableMetadataFormats)
    _ = (track.hasMediaCharacteristic(.visual), track.segment(forTrackTime: .zero))
    touchItemsSynchronously(track.metadata + track.commonMetadata)
    for format in track.availableMetadataFormats { touchItemsSynchronously(track.metadata(forFormat: format)) }
}

/// Every deprecated synchronous getter of an asset and its tracks.
@available(*, deprecated)
func touchAssetSynchronously(_ asset: AVAsset) {
    _ = (asset.duration, asset.providesPreciseDurationAndTiming, asset.trackGroups, asset.lyrics)
    _ = (asset.isPlayable, asset.isExportable, asset.isReadable, asset.isComposable)
    _ = (asset.preferredRate, asset.preferredVolume, asset.preferredTransform, asset.hasProtectedContent)
    _ = (asset.canContainFragments, asset.containsFragments, asset.overallDurationHint)
    touchItemsSynchronously(asset.metadata + asset.commonMetadata + (asset.creationDate.map { [$0] } ?? []))
    for format in asset.availableMetadataFormats { touchItemsSynchronously(asset.metadata(forFormat: format)) }
    for locale in asset.availableChapterLocales + [Locale(identifier: "en")] {
        for group in asset.chapterMetadataGroups(withTitleLocale: locale, containingItemsWithCommonKeys: nil) {
            touchItemsSynchronously(group.items)
        }
    }
    _ = (asset.tracks(withMediaType: .audio), asset.track(withTrackID: 1), asset.tracks(withMediaCharacteristic: .visual))
    for track in asset.tracks { touchTrackSynchronously(track) }
}

/// Pass 2: the legacy API on a fresh asset, its tracks and its items, then the synchronous getters.
@available(*, deprecated)
func probeLegacy(_ url: URL) async -> Tally {
    var tally = Tally()
    let asset = AVURLAsset(url: url)
    await legacyLoad(asset, keys: assetKeys, &tally)
    let tracks = asset.tracks
    for item in asset.metadata + asset.commonMetadata { await legacyLoad(item, keys: itemKeys, &tally) }
    for track in tracks {
        await legacyLoad(track, keys: trackKeys, &tally)
        for item in track.metadata + track.commonMetadata { await legacyLoad(item, keys: itemKeys, &tally) }
    }
    touchAssetSynchronously(asset)
    return tally
}

/// The probe's entry points. The witnesses are deprecated, so the deprecated API they call raises no
/// warning; callers go through the protocol, which is not.
public protocol Probing: Sendable {
    /// Passes 1 to 3.
    func probeAsynchronously(_ url: URL) async -> Tally
    /// Pass 4: blocks the calling thread (keep it off Swift's cooperative pool).
    func probeSynchronously(_ url: URL)
}

public struct Probe: Probing {
    public init() {}

    @available(*, deprecated)
    public func probeAsynchronously(_ url: URL) async -> Tally {
        var tally = await probeAsync(url, precise: false)
        tally.merge(await probeLegacy(url))
        tally.merge(await probeAsync(url, precise: true))
        return tally
    }

    @available(*, deprecated)
    public func probeSynchronously(_ url: URL) {
        touchAssetSynchronously(AVURLAsset(url: url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true]))
    }
}
