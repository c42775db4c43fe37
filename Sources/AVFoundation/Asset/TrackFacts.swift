internal import MediaEngine
import Foundation

/// The values of a track's properties as the container's header gives them, typed. A value that is
/// nil is one only the packet scan can tell (`ScannedTrackFacts`).
struct TrackFacts: Sendable {
    var formatDescriptions: [CMFormatDescription]
    var isPlayable: Bool
    var isDecodable: Bool
    var isEnabled: Bool
    var isSelfContained = true
    var mediaCharacteristics: [AVMediaCharacteristic]
    var naturalTimeScale: CMTimeScale
    var languageCode: String?
    var extendedLanguageTag: String?
    var naturalSize: CGSize
    var preferredTransform: CGAffineTransform
    var preferredVolume: Float
    var minFrameDuration: CMTime
    var requiresFrameReordering: Bool
    var hasAudioSampleDependencies = false
    var metadata: [AVMetadataItem]
    var commonMetadata: [AVMetadataItem]
    var availableMetadataFormats: [AVMetadataFormat]
    var timeRange: CMTimeRange?
    var segments: [AVAssetTrackSegment]?
    var nominalFrameRate: Float?
    var totalSampleDataLength: Int64?
    var estimatedDataRate: Float?
    /// The alternate group the container's track header states (MP4 and QuickTime; 0: none); nil
    /// where the container has none (then media selection groups tracks by media type).
    var alternateGroup: Int?
    /// An HLS rendition's name (`EXT-X-MEDIA`'s `NAME`, which FFmpeg keeps as the stream's comment);
    /// nil for anything else.
    var renditionName: String?
}

/// The track values that come from one pass over the file's packets.
struct ScannedTrackFacts: Sendable {
    var timeRange: CMTimeRange
    var segments: [AVAssetTrackSegment]
    var nominalFrameRate: Float
    var totalSampleDataLength: Int64
    var estimatedDataRate: Float

    /// The facts of `stats`, counted in `stream`'s time base (no stream: nothing counted).
    init(_ stats: PacketStatistics, stream: StreamInfo?) {
        timeRange = stream.map { TrackFacts.scannedTimeRange(stats, stream: $0) } ?? CMTimeRange(start: .zero, duration: .zero)
        segments = [AVAssetTrackSegment(timeMapping: CMTimeMapping(source: timeRange, target: timeRange))]
        let seconds = timeRange.duration.seconds
        let positive = seconds > 0 && seconds.isFinite
        nominalFrameRate = positive ? Float(Double(stats.packetCount) / seconds) : 0
        totalSampleDataLength = stats.totalBytes
        estimatedDataRate = positive ? Float(Double(stats.totalBytes) * 8 / seconds) : 0
    }
}

extension TrackFacts {
    /// Everything the header tells of `stream`. Pure computation over plain values.
    init(_ stream: StreamInfo, mediaType: AVMediaType, info: ContainerInfo, precise: Bool, space: AVMetadataKeySpace) {
        formatDescriptions = [FormatDescriptions.make(for: stream, mediaType: mediaType)]
        isDecodable = stream.hasDecoder
        isPlayable = [AVMediaType.audio, .video, .subtitle, .closedCaption].contains(mediaType) && stream.hasDecoder
        isEnabled = info.isQuickTimeFamily ? stream.disposition.contains(.default) : true
        mediaCharacteristics = TrackFacts.characteristics(mediaType, stream)
        naturalTimeScale = stream.timeBase.denominator > 0 ? stream.timeBase.denominator : 0
        languageCode = stream.language
        extendedLanguageTag = stream.language.flatMap { MetadataValues.locale(forISO639: $0)?.identifier }
        naturalSize = TrackFacts.naturalSize(stream)
        preferredTransform = TrackFacts.preferredTransform(stream)
        preferredVolume = mediaType == .audio ? 1 : 0
        requiresFrameReordering = stream.videoDelay > 0
        minFrameDuration = TrackFacts.minFrameDuration(stream, mediaType: mediaType)
        metadata = MetadataMapping.items(stream.metadata, space: space, skippingEncoder: true)
        commonMetadata = MetadataMapping.commonItems(metadata)
        availableMetadataFormats = MetadataMapping.formats(metadata)
        timeRange = TrackFacts.timeRange(stream, info: info, precise: precise)
        if let timeRange {
            segments = [AVAssetTrackSegment(timeMapping: CMTimeMapping(source: timeRange, target: timeRange))]
        }
        nominalFrameRate = TrackFacts.nominalFrameRate(stream, seconds: timeRange?.duration.seconds)
        totalSampleDataLength = stream.totalSampleBytes
        alternateGroup = stream.alternateGroup
        if info.format == .hls { renditionName = stream.metadata.value(for: "comment").flatMap { $0.isEmpty ? nil : $0 } }
        if let bitRate = stream.bitRate {
            estimatedDataRate = Float(bitRate)
        } else if let total = stream.totalSampleBytes, let seconds = timeRange?.duration.seconds, seconds > 0, seconds.isFinite {
            estimatedDataRate = Float(Double(total) * 8 / seconds)
        }
    }


    /// Matroska stores per-track durations as "HH:MM:SS.nnnnnnnnn" tags. Nil for anything else: a part
    /// that is not all digits, minutes or seconds of 60 and more, or a total past what a CMTime in
    /// nanoseconds holds.
    static func taggedDuration(_ stream: StreamInfo) -> CMTime? {
        guard let text = stream.metadata.value(for: "DURATION") else { return nil }
        return parseDuration(text)
    }

    static func parseDuration(_ text: String) -> CMTime? {
        func digits(_ part: Substring, maxCount: Int) -> Int64? {
            guard !part.isEmpty, part.count <= maxCount, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(part)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = digits(parts[0], maxCount: 9), let m = digits(parts[1], maxCount: 2), m < 60 else { return nil }
        let secondParts = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let s = digits(secondParts[0], maxCount: 2), s < 60 else { return nil }
        var nanos: Int64 = 0
        if secondParts.count == 2 {
            let fraction = secondParts[1]
            guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let padded = String(fraction.prefix(9)).padding(toLength: 9, withPad: "0", startingAt: 0)
            guard let value = Int64(padded) else { return nil }
            nanos = value
        }
        // Hours have at most nine digits, so only the step to nanoseconds can overflow: no duration then.
        let (totalSeconds, o1) = (h * 3600).addingReportingOverflow(m * 60 + s)
        let (scaled, o2) = totalSeconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, o3) = scaled.addingReportingOverflow(nanos)
        guard !o1, !o2, !o3 else { return nil }
        return CMTime(value: total, timescale: 1_000_000_000)
    }

    /// The track's time range from the header: its start and duration, or the container's duration
    /// when the stream has none. Nil when only a packet scan can tell (the header estimates).
    static func timeRange(_ stream: StreamInfo, info: ContainerInfo, precise: Bool) -> CMTimeRange? {
        if precise && info.durationIsEstimate { return nil }
        let start = stream.startTime.map { CMTime(ticks: $0, timeBase: stream.timeBase) } ?? .zero
        if let d = stream.duration {
            let duration = CMTime(ticks: d, timeBase: stream.timeBase)
            // MP4's track header states where the track's presentation ends on the movie's timeline
            // (its edit list's total, empty edits included), as Apple reads it. FFmpeg's figure counts
            // decode times, which with B-frames in a variable-rate movie end before the last picture
            // does: where the two ends differ by more than a tick of the movie's time scale, the
            // header's is the track's. (A track whose edit list starts with an empty edit starts late,
            // and its header's total counts the empty time too.) FFmpeg's figure is bounded by the
            // samples the file holds; a header claiming more than twice that and a second is not
            // believed: a 17 KB file whose headers claimed 24 days made an export encode for as long.
            if let stated = stream.trackHeaderDuration, stated.value > 0 {
                let header = CMTime(ticks: stated.value, timeBase: stated.timeBase)
                let end = start + duration
                if header.isNumeric, end.isNumeric, header > start, abs(header.seconds - end.seconds) > stated.timeBase.value ?? 0,
                   header.seconds <= 2 * max(0, end.seconds) + 1 {
                    return CMTimeRange(start: start, end: header)
                }
            }
            return CMTimeRange(start: start, duration: duration)
        }
        if let d = taggedDuration(stream) { return CMTimeRange(start: start, duration: d) }
        if let us = info.duration { return CMTimeRange(start: start, duration: CMTime(value: us, timescale: 1_000_000)) }
        return CMTimeRange(start: start, duration: .invalid)
    }

    /// Display size before the preferred transform: MP4's track header size where it states one (as
    /// Apple's is), else the encoded size with the container's pixel aspect ratio applied to the width
    /// (Matroska's display size).
    static func naturalSize(_ stream: StreamInfo) -> CGSize {
        if let header = stream.trackHeaderSize, header.width > 0, header.height > 0, header.width.isFinite, header.height.isFinite {
            return CGSize(width: CGFloat(header.width), height: CGFloat(header.height))
        }
        guard let w = stream.width, let h = stream.height, w > 0, h > 0 else { return .zero }
        var width = CGFloat(w)
        if let sar = stream.sampleAspectRatio, sar.numerator > 0, sar.denominator > 0 {
            width = width * CGFloat(sar.numerator) / CGFloat(sar.denominator)
        }
        return CGSize(width: width, height: CGFloat(h))
    }

    /// The display matrix as Apple's transform, translated so the rotated picture starts at the origin
    /// (a 90-degree rotation of a 320x180 picture is (0, 1, -1, 0, 180, 0), as in iPhone movies).
    static func preferredTransform(_ stream: StreamInfo) -> CGAffineTransform {
        guard let m = stream.displayMatrix, m.count == 9 else { return .identity }
        let unit = CGFloat(65536)
        var t = CGAffineTransform(a: CGFloat(m[0]) / unit, b: CGFloat(m[1]) / unit, c: CGFloat(m[3]) / unit,
                                  d: CGFloat(m[4]) / unit, tx: 0, ty: 0)
        let size = naturalSize(stream)
        let box = CGRect(origin: .zero, size: size).applying(t)
        t.tx = box.minX == 0 ? 0 : -box.minX
        t.ty = box.minY == 0 ? 0 : -box.minY
        return t
    }

    /// What every track of `mediaType` has.
    static func characteristics(of mediaType: AVMediaType) -> [AVMediaCharacteristic] {
        switch mediaType {
        case .video: return [.visual, .frameBased]
        case .audio: return [.audible]
        case .subtitle, .closedCaption, .text: return [.legible]
        default: return []
        }
    }

    static func characteristics(_ mediaType: AVMediaType, _ stream: StreamInfo) -> [AVMediaCharacteristic] {
        var result = characteristics(of: mediaType)
        let d = stream.disposition
        if d.contains(.forced) { result.append(.containsOnlyForcedSubtitles) }
        if d.contains(.hearingImpaired) { result += [.transcribesSpokenDialogForAccessibility, .describesMusicAndSoundForAccessibility] }
        if d.contains(.visualImpaired) { result.append(.describesVideoForAccessibility) }
        if d.contains(.dub) { result.append(.dubbedTranslation) }
        if d.contains(.original) { result.append(.isOriginalContent) }
        return result
    }

    /// Frames per second as the container states it. For video with a sample index (MP4), the average
    /// rate: sample count over the media's own duration, which edit lists do not skew. Without one
    /// (fragments, Matroska, AVI), the base rate where it agrees with the average within 10% (a
    /// fragmented MP4's average is an estimate: 24.7 for 25), else the average (variable-rate video,
    /// whose base rate can be the time base). Audio: packets per second. Sample count over the
    /// track's duration where the container states no rate. Nil: only a scan can tell.
    static func nominalFrameRate(_ stream: StreamInfo, seconds: Double?) -> Float? {
        if stream.kind == .video {
            let average = stream.averageFrameRate?.value.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
            let base = stream.realFrameRate?.value.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
            if stream.frameCount != nil, let average { return Float(average) }
            if let base, let average, abs(base - average) <= 0.1 * average { return Float(base) }
            if let rate = average ?? base { return Float(rate) }
        }
        if stream.kind == .audio, let rate = stream.sampleRate, let size = stream.frameSize, rate > 0, size > 0 {
            return Float(Double(rate) / Double(size))
        }
        if let frames = stream.frameCount, let seconds, seconds > 0, seconds.isFinite { return Float(Double(frames) / seconds) }
        return nil
    }

    /// The shortest frame: one frame at the stream's base rate for video, one packet for audio.
    static func minFrameDuration(_ stream: StreamInfo, mediaType: AVMediaType) -> CMTime {
        if mediaType == .video, let rate = stream.realFrameRate ?? stream.averageFrameRate, rate.numerator > 0, rate.denominator > 0 {
            return CMTime(value: Int64(rate.denominator), timescale: rate.numerator)
        }
        if mediaType == .audio, let size = stream.frameSize, size > 0, let rate = stream.sampleRate, rate > 0 {
            return CMTime(value: Int64(size), timescale: Int32(clamping: rate))
        }
        return .invalid
    }

    static func scannedTimeRange(_ stats: PacketStatistics, stream: StreamInfo) -> CMTimeRange {
        guard let first = stats.firstPresentationTime, let end = stats.endPresentationTime else {
            return CMTimeRange(start: .zero, duration: .zero)
        }
        return CMTimeRange(start: CMTime(ticks: first, timeBase: stream.timeBase), duration: CMTime(ticks: end.subtractingSaturating(first), timeBase: stream.timeBase))
    }
}
