internal import MediaEngine
import Foundation

/// What one header parse of an asset gives: the open demuxer, its facts, the tracks, the metadata
/// items, the chapters, and the value of every header-level property keyed like the properties.
final class AssetHeader: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the demuxer serialises its own operations.
    let demuxer: Demuxer
    let info: ContainerInfo
    let tracks: [AVAssetTrack]
    let metadata: [AVMetadataItem]
    let commonMetadata: [AVMetadataItem]
    let chapters: [Chapter]
    /// Values of header-level keys; a key absent here needs more work (the packet scan).
    let values: [String: Any]

    struct Chapter {
        let range: CMTimeRange
        let title: String?
        /// The chapter list's language, when the container records one (MP4's chapter track does).
        let locale: Locale?
    }

    init(demuxer: Demuxer, asset: AVAsset, precise: Bool) {
        self.demuxer = demuxer
        let info = demuxer.info
        self.info = info
        let space = MetadataMapping.keySpace(for: info)

        // Tracks: every stream but cover art and attachments. IDs are the container's, or the stream's
        // position (from 1) where the container has none or repeats them.
        var tracks: [AVAssetTrack] = []
        var usedIDs = Set<CMPersistentTrackID>()
        let containerIDs = info.streams.map(\.id)
        for stream in info.streams {
            guard let type = FormatDescriptions.mediaType(of: stream, in: info) else { continue }
            var id = stream.id
            if id <= 0 || containerIDs.filter({ $0 == id }).count > 1 || usedIDs.contains(id) { id = CMPersistentTrackID(stream.index + 1) }
            usedIDs.insert(id)
            let values = TrackFacts.values(stream, mediaType: type, info: info, precise: precise, space: space)
            tracks.append(AVAssetTrack(asset: asset, demuxer: demuxer, trackID: id, mediaType: type, stream: stream, values: values))
        }
        self.tracks = tracks

        // Metadata: the container's tags in its key space, then cover art.
        var items = MetadataMapping.items(info.metadata, space: space, skippingEncoder: info.formatName.hasPrefix("matroska"))
        // Ogg keeps its Vorbis comments on the stream; they describe the whole file.
        if info.formatName == "ogg", let first = info.streams.first {
            items += MetadataMapping.items(first.metadata, space: space)
        }
        for stream in info.streams where stream.disposition.contains(.attachedPicture) {
            if let picture = stream.attachedPicture { items.append(MetadataMapping.artwork(picture, space: space)) }
        }
        metadata = items
        var common = MetadataMapping.commonItems(items)
        // The movie header's creation time stands for the creation date when no tag gives one.
        if !common.contains(where: { $0.commonKey == .commonKeyCreationDate }), let created = info.metadata.value(for: "creation_time") {
            common.append(MetadataMapping.item(key: AVMetadataKey.commonKeyCreationDate.rawValue, space: .common,
                                               common: .commonKeyCreationDate, text: created))
        }
        commonMetadata = common

        let chapterLocale = info.isQuickTimeFamily
            ? MetadataValues.locale(forISO639: info.streams.first { $0.kind == .data }?.language) : nil
        chapters = info.chapters.map { c in
            let start = TrackFacts.time(c.start.value, c.start.timeBase)
            let end = TrackFacts.time(c.end.value, c.end.timeBase)
            return Chapter(range: CMTimeRange(start: start, end: end), title: c.title, locale: chapterLocale)
        }

        var v: [String: Any] = [:]
        v["tracks"] = tracks
        v["metadata"] = items
        v["commonMetadata"] = common
        v["availableMetadataFormats"] = MetadataMapping.formats(items)
        v["creationDate"] = common.first { $0.commonKey == .commonKeyCreationDate } as Any
        let lyricsTag = (info.metadata + info.streams.flatMap(\.metadata)).first { $0.key.lowercased().hasPrefix("lyrics") }
        v["lyrics"] = lyricsTag?.value as Any
        let mediaTracks = tracks.filter { [.audio, .video].contains($0.mediaType) }
        let playable = tracks.contains { ($0.properties.loadedValue("playable") as? Bool) == true && [.audio, .video].contains($0.mediaType) }
        v["playable"] = playable
        v["readable"] = !mediaTracks.isEmpty
        v["exportable"] = !mediaTracks.isEmpty
        v["composable"] = !mediaTracks.isEmpty
        v["preferredRate"] = Float(1)
        v["preferredVolume"] = Float(1)
        v["preferredTransform"] = CGAffineTransform.identity
        v["hasProtectedContent"] = info.streams.contains { $0.isEncrypted }
        v["canContainFragments"] = info.mp4Boxes?.canContainFragments ?? false
        v["containsFragments"] = info.mp4Boxes?.containsFragments ?? false
        v["trackGroups"] = [AVAssetTrackGroup]()
        var locales: [Locale] = []
        for chapter in chapters { if let l = chapter.locale, !locales.contains(l) { locales.append(l) } }
        v["availableChapterLocales"] = locales
        if !(precise && info.durationIsEstimate) {
            let duration = AssetHeader.duration(info: info, tracks: tracks)
            v["duration"] = duration
            v["providesPreciseDurationAndTiming"] = !info.durationIsEstimate
            v["overallDurationHint"] = (info.mp4Boxes?.canContainFragments ?? false) ? duration : CMTime.invalid
        }
        values = v
    }

    /// The container's duration, in the timescale of a track that ends exactly there when one does.
    static func duration(info: ContainerInfo, tracks: [AVAssetTrack]) -> CMTime {
        guard let us = info.duration else { return .indefinite }
        let container = CMTime(value: us, timescale: 1_000_000)
        for track in tracks {
            guard let range = track.properties.loadedValue("timeRange") as? CMTimeRange, range.duration.isNumeric else { continue }
            if abs((range.duration.seconds - container.seconds)) < 0.000_001 { return range.duration }
        }
        return container
    }

    /// Duration and timing from the packet scan: the longest stream, exactly.
    func scannedDuration(_ stats: [PacketStatistics]) -> CMTime {
        var best = CMTime.zero
        for (i, s) in stats.enumerated() where i < info.streams.count {
            guard !info.streams[i].disposition.contains(.attachedPicture) else { continue }
            let range = TrackFacts.scannedTimeRange(s, stream: info.streams[i])
            if range.duration > best { best = range.duration }
        }
        return best
    }
}
