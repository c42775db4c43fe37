internal import MediaEngine
import Foundation

/// The values of an asset's properties as one header parse gives them, typed; with the tracks it
/// made. `timing` is nil when only the packet scan can tell (see `AVURLAssetPreferPreciseDurationAndTimingKey`).
struct AssetFacts: Sendable {
    struct Timing: Sendable {
        var duration: CMTime
        var providesPreciseDurationAndTiming: Bool
        var overallDurationHint: CMTime
    }

    struct Chapter: Sendable {
        let range: CMTimeRange
        let title: String?
        /// The chapter list's language, when the container records one (MP4's chapter track does).
        let locale: Locale?
    }

    var tracks: [AVAssetTrack]
    var trackGroups: [AVAssetTrackGroup] = []
    var metadata: [AVMetadataItem]
    var commonMetadata: [AVMetadataItem]
    var availableMetadataFormats: [AVMetadataFormat]
    var creationDate: AVMetadataItem?
    var lyrics: String?
    var isPlayable: Bool
    var isExportable: Bool
    var isReadable: Bool
    var isComposable: Bool
    var preferredRate: Float = 1
    var preferredVolume: Float = 1
    var preferredTransform = CGAffineTransform.identity
    var hasProtectedContent: Bool
    var canContainFragments: Bool
    var containsFragments: Bool
    var availableChapterLocales: [Locale]
    var chapters: [Chapter]
    var timing: Timing?
    /// The container's streams, for reading the packet scan's statistics.
    var streams: [StreamInfo]
    /// An HTTP Live Streaming playlist (read as one movie; not exportable).
    var isStreamingPlaylist = false
    /// The media selection groups, audible, legible and visual (see `MediaSelectionRules.groups`).
    var mediaSelectionGroups: [AVMediaSelectionGroup] = []
    /// An HLS master playlist's variants, in its order; empty for anything else.
    var variants: [AVAssetVariant] = []

    /// The characteristics that have a media selection group, in the groups' order.
    var availableMediaCharacteristicsWithMediaSelectionOptions: [AVMediaCharacteristic] {
        mediaSelectionGroups.map(\.characteristic)
    }

    /// The group of `characteristic`: `.audible`, `.legible` or `.visual`; nil for any other, or when the
    /// asset has no such group.
    func mediaSelectionGroup(for characteristic: AVMediaCharacteristic) -> AVMediaSelectionGroup? {
        mediaSelectionGroups.first { $0.characteristic == characteristic }
    }


    /// Builds the facts, tracks and metadata items from what the demuxer read. Pure computation: the
    /// tracks keep `source` (to scan) and `asset` (weakly), not the open container.
    init(_ info: ContainerInfo, asset: AVAsset, source: AssetSource, precise: Bool) {
        let space = MetadataMapping.keySpace(for: info)
        streams = info.streams
        isStreamingPlaylist = info.format == .hls

        // Tracks: every stream but cover art and attachments. IDs are the container's, or the stream's
        // position (from 1) where the container has none or repeats them.
        var tracks: [AVAssetTrack] = []
        var usedIDs = Set<CMPersistentTrackID>()
        var idCounts: [Int32: Int] = [:]
        for stream in info.streams { idCounts[stream.id, default: 0] += 1 }
        for stream in info.streams {
            guard let type = FormatDescriptions.mediaType(of: stream, in: info) else { continue }
            var id = stream.id
            if id <= 0 || idCounts[id, default: 0] > 1 || usedIDs.contains(id) { id = CMPersistentTrackID(clamping: stream.index + 1) }
            usedIDs.insert(id)
            let facts = TrackFacts(stream, mediaType: type, info: info, precise: precise, space: space)
            tracks.append(AVAssetTrack(asset: asset, source: source, trackID: id, mediaType: type, stream: stream, facts: facts))
        }
        // An HLS master playlist's subtitle renditions, which FFmpeg does not read: tracks of their own.
        if let nested = source.options.nestedSources, let url = (asset as? AVURLAsset)?.url {
            var next = (usedIDs.max() ?? 0).addingReportingOverflow(1).partialValue
            let duration = info.duration.map { CMTime(value: $0, timescale: 1_000_000) } ?? .invalid
            for rendition in info.subtitleRenditions {
                guard let uri = rendition.uri, let playlist = URL(string: uri, relativeTo: url)?.absoluteURL, next > 0 else { continue }
                tracks.append(HLSSubtitleTrack(asset: asset, trackID: next, rendition: rendition, playlistURL: playlist, nested: nested,
                                               originMicroseconds: info.timelineOrigin, duration: duration))
                next = next.addingReportingOverflow(1).partialValue
            }
        }
        self.tracks = tracks
        // Alternate groups (MP4 and QuickTime track headers): the track groups, and the media selection
        // groups with the containers' default flags.
        var alternates: [Int: [CMPersistentTrackID]] = [:]
        for track in tracks { if let group = track.facts.alternateGroup, group != 0 { alternates[group, default: []].append(track.trackID) } }
        trackGroups = alternates.keys.sorted().compactMap { alternates[$0].map { AVAssetTrackGroup(trackIDs: $0) } }
        mediaSelectionGroups = MediaSelectionRules.groups(of: tracks) {
            $0.file?.stream.disposition.contains(.default) ?? ($0 as? HLSSubtitleTrack)?.rendition.isDefault ?? false
        }
        variants = info.variants.map(AssetFacts.variant)

        // Metadata: the container's tags in its key space, then cover art.
        var items = MetadataMapping.items(info.metadata, space: space, skippingEncoder: info.format == .matroska)
        // Ogg keeps its Vorbis comments on the stream; they describe the whole file.
        if info.format == .ogg, let first = info.streams.first {
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
        availableMetadataFormats = MetadataMapping.formats(items)
        creationDate = common.first { $0.commonKey == .commonKeyCreationDate }
        lyrics = (info.metadata + info.streams.flatMap(\.metadata)).first { $0.key.lowercased().hasPrefix("lyrics") }?.value

        let chapterLocale = info.isQuickTimeFamily
            ? MetadataValues.locale(forISO639: info.streams.first { $0.kind == .data }?.language) : nil
        chapters = info.chapters.map { c in
            let start = CMTime(ticks: c.start.value, timeBase: c.start.timeBase)
            let end = CMTime(ticks: c.end.value, timeBase: c.end.timeBase)
            return Chapter(range: CMTimeRange(start: start, end: end), title: c.title, locale: chapterLocale)
        }
        var locales: [Locale] = []
        for chapter in chapters { if let l = chapter.locale, !locales.contains(l) { locales.append(l) } }
        availableChapterLocales = locales

        let mediaTracks = tracks.filter { [.audio, .video].contains($0.mediaType) }
        isPlayable = mediaTracks.contains { $0.facts.isPlayable }
        isReadable = !mediaTracks.isEmpty
        isExportable = !mediaTracks.isEmpty
        isComposable = !mediaTracks.isEmpty
        hasProtectedContent = info.streams.contains { $0.isEncrypted }
        canContainFragments = info.mp4Boxes?.canContainFragments ?? false
        containsFragments = info.mp4Boxes?.containsFragments ?? false
        if !(precise && info.durationIsEstimate) {
            let duration = AssetFacts.duration(info: info, tracks: tracks)
            timing = Timing(duration: duration, providesPreciseDurationAndTiming: !info.durationIsEstimate,
                            overallDurationHint: canContainFragments ? duration : .invalid)
        }
    }

    /// A master playlist's variant as Apple's type describes it: from the playlist's attributes (bit
    /// rates, resolution, frame rate, codecs, video range); where the playlist leaves one out, the
    /// codecs FFmpeg found in the variant's first segment, and for the variant the asset shows (the
    /// only one FFmpeg analyses) its picture size, rate, range and channel count.
    static func variant(_ variant: ContainerInfo.Variant) -> AVAssetVariant {
        let playlist = variant.playlist
        let allVideo = variant.streams.filter { $0.kind == .video && !$0.disposition.contains(.attachedPicture) }
        let allAudio = variant.streams.filter { $0.kind == .audio }
        let video = variant.isShown ? allVideo : []
        let audio = variant.isShown ? allAudio : []
        let codecs = playlist?.codecs ?? []
        var videoCodecs = codecs.compactMap(HLSCodecs.videoCodecType)
        var audioFormats = codecs.compactMap(HLSCodecs.audioFormatID)
        if codecs.isEmpty {
            videoCodecs = allVideo.map { FormatDescriptions.subType(of: $0).rawValue }
            audioFormats = allAudio.map { FormatDescriptions.subType(of: $0).rawValue }
        }
        var videoAttributes: AVAssetVariant.VideoAttributes?
        if !videoCodecs.isEmpty || playlist?.width != nil {
            let stream = video.first
            let size = playlist.flatMap { p in p.width.flatMap { w in p.height.map { CGSize(width: w, height: $0) } } }
                ?? stream.map(TrackFacts.naturalSize) ?? .zero
            let range: AVVideoRange
            if let stated = playlist?.videoRange {
                range = AVVideoRange(rawValue: stated)
            } else {
                range = switch stream?.dynamicRange {
                case .pq?: .pq
                case .hlg?: .hlg
                default: .sdr
                }
            }
            let rate = playlist?.frameRate ?? stream.flatMap { TrackFacts.nominalFrameRate($0, seconds: nil) }.map(Double.init)
            videoAttributes = AVAssetVariant.VideoAttributes(videoRange: range, codecTypes: videoCodecs, presentationSize: size, nominalFrameRate: rate)
        }
        let audioAttributes = audioFormats.isEmpty ? nil : AVAssetVariant.AudioAttributes(formatIDs: audioFormats, channelCount: audio.first?.channels,
                                                                                                isShown: variant.isShown)
        return AVAssetVariant(peakBitRate: (playlist?.bandwidth ?? variant.bitRate).map(Double.init),
                              averageBitRate: playlist?.averageBandwidth.map(Double.init),
                              videoAttributes: videoAttributes, audioAttributes: audioAttributes)
    }

    /// The container's duration, in the timescale of a track that ends exactly there when one does;
    /// indefinite when the file does not say (a live recording).
    static func duration(info: ContainerInfo, tracks: [AVAssetTrack]) -> CMTime {
        guard let us = info.duration else { return .indefinite }
        let container = CMTime(value: us, timescale: 1_000_000)
        for track in tracks {
            guard let range = track.facts.timeRange, range.duration.isNumeric else { continue }
            if abs(range.duration.seconds - container.seconds) < 0.000_001 { return range.duration }
        }
        return container
    }

    /// Duration and timing from the packet scan, exactly: from the earliest stream's start to the
    /// latest one's end (a stream that starts late and ends last counts whole).
    func scannedTiming(_ stats: [PacketStatistics]) -> Timing {
        var first: CMTime?, last: CMTime?
        for (i, s) in stats.enumerated() where i < streams.count {
            guard !streams[i].disposition.contains(.attachedPicture) else { continue }
            let range = TrackFacts.scannedTimeRange(s, stream: streams[i])
            guard range.start.isNumeric, range.end.isNumeric, range.duration > .zero else { continue }
            first = min(first ?? range.start, range.start)
            last = max(last ?? range.end, range.end)
        }
        var best = CMTime.zero
        if let first, let last, last > first { best = last - first }
        return Timing(duration: best, providesPreciseDurationAndTiming: true, overallDurationHint: canContainFragments ? best : .invalid)
    }
}
