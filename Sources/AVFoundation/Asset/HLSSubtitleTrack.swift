internal import MediaEngine
import Foundation

/// A subtitle rendition of an HLS master playlist (`EXT-X-MEDIA:TYPE=SUBTITLES` of the shown
/// variant's group) as a legible track of the asset: its name, language, default, forced and
/// accessibility characteristics from the playlist, so that it is an option of the asset's legible
/// media selection group. FFmpeg 5.1 does not read such renditions, so Avocet reads their WebVTT
/// itself.
///
/// The cues load once, when a legible output first presents the track: the rendition's media playlist
/// and every WebVTT segment it names, fetched through the asset's own HTTP sources (the same URL policy,
/// headers and timeouts), on the engine's threads (at most 20,000 segments, 16 MiB of WebVTT or
/// 100,000 cues; the rest is left out; a segment that cannot be fetched is skipped). A segment's `X-TIMESTAMP-MAP` ties its cue times to the media
/// segments' MPEG-TS clock; a segment without one counts its cue times from the stream's start. A cue
/// that several segments repeat (one spanning a segment boundary) is kept once. The cues of a live
/// playlist are those it lists when loaded. An asset reader does not read this track.
final class HLSSubtitleTrack: AVAssetTrack, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the cue load guards itself.

    /// One cue, on the asset's timeline.
    struct Cue: Sendable, Equatable {
        var start: CMTime
        var end: CMTime
        var text: String
    }

    let rendition: HLSMasterPlaylist.Rendition
    /// The rendition's media playlist.
    let playlistURL: URL
    private let nested: NestedSources
    /// Seconds of the MPEG-TS clock at the asset's time zero.
    private let originSeconds: Double
    private let cueLoad = SharedLoad<[Cue]>()

    static let maximumPlaylistBytes = 1 << 20
    static let maximumBytes = 16 << 20
    static let maximumCues = 100_000

    init(asset: AVAsset, trackID: CMPersistentTrackID, rendition: HLSMasterPlaylist.Rendition, playlistURL: URL,
         nested: NestedSources, originMicroseconds: Int64, duration: CMTime) {
        self.rendition = rendition
        self.playlistURL = playlistURL
        self.nested = nested
        originSeconds = Double(originMicroseconds) / 1_000_000
        let locale = MetadataValues.locale(forISO639: rendition.language)
        var characteristics = TrackFacts.characteristics(of: .subtitle)
        if rendition.forced { characteristics.append(.containsOnlyForcedSubtitles) }
        for text in rendition.characteristics {
            let characteristic = AVMediaCharacteristic(rawValue: text)
            if !characteristics.contains(characteristic) { characteristics.append(characteristic) }
        }
        let range = duration.isNumeric ? CMTimeRange(start: .zero, duration: duration) : nil
        let facts = TrackFacts(
            formatDescriptions: [CMFormatDescription(mediaType: .subtitle, mediaSubType: .webVTT, magicCookie: nil)],
            isPlayable: true, isDecodable: true, isEnabled: rendition.isDefault, mediaCharacteristics: characteristics,
            naturalTimeScale: 1000, languageCode: locale?.language.languageCode?.identifier(.alpha3) ?? rendition.language,
            extendedLanguageTag: rendition.language, naturalSize: .zero, preferredTransform: .identity, preferredVolume: 0,
            minFrameDuration: .invalid, requiresFrameReordering: false, metadata: [], commonMetadata: [], availableMetadataFormats: [],
            timeRange: range, segments: range.map { [AVAssetTrackSegment(timeMapping: CMTimeMapping(source: $0, target: $0))] },
            nominalFrameRate: 0, totalSampleDataLength: nil, estimatedDataRate: nil, alternateGroup: nil,
            renditionName: rendition.name)
        super.init(asset: asset, trackID: trackID, mediaType: .subtitle, facts: facts)
    }

    /// The rendition's cues on the asset's timeline, sorted by start; loaded once (see the type's
    /// description). Empty when the rendition cannot be read.
    func cues() async -> [Cue] {
        (try? await cueLoad.value { [self] token in try load(token) }) ?? []
    }

    private func load(_ token: CancellationToken) throws -> [Cue] {
        let playlist = try nested.bytes(of: playlistURL.absoluteString, limit: Self.maximumPlaylistBytes, cancellation: token)
        let segments = HLSMasterPlaylist.segments(in: String(decoding: playlist, as: UTF8.self)[...])
        var cues: [Cue] = []
        var seen = Set<String>()
        var total = 0
        for segment in segments {
            if token.isCancelled { throw CancellationError() }
            guard total < Self.maximumBytes, cues.count < Self.maximumCues,
                  let url = URL(string: segment.uri, relativeTo: playlistURL)?.absoluteURL else { break }
            // A segment that cannot be fetched (refused, missing) is left out; the others still show.
            let bytes: [UInt8]
            do {
                bytes = try nested.bytes(of: url.absoluteString, limit: Self.maximumBytes - total, cancellation: token)
            } catch {
                if token.isCancelled { throw error }
                continue
            }
            total += bytes.count
            let (map, found) = WebVTTFile.parse(String(decoding: bytes, as: UTF8.self))
            let shift = map.map { Double($0.mpegts) / 90_000 - $0.local - originSeconds } ?? 0
            for cue in found where cues.count < Self.maximumCues {
                let key = "\(cue.start)|\(cue.end)|\(cue.text)"
                guard seen.insert(key).inserted else { continue }
                cues.append(Cue(start: CMTime(seconds: cue.start + shift, preferredTimescale: 1000),
                                end: CMTime(seconds: cue.end + shift, preferredTimescale: 1000), text: cue.text))
            }
        }
        return cues.sorted { $0.start < $1.start }
    }
}
