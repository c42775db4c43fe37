internal import MediaEngine
import Foundation

/// The values of a track's properties, computed once from the container's header.
enum TrackFacts {
    /// A stream time as a `CMTime`, exactly when the time base allows it.
    static func time(_ value: Int64, _ timeBase: Rational) -> CMTime {
        guard timeBase.denominator > 0 else { return .invalid }
        if timeBase.numerator == 1 { return CMTime(value: value, timescale: timeBase.denominator) }
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(timeBase.numerator))
        if !overflow { return CMTime(value: product, timescale: timeBase.denominator) }
        return CMTime(seconds: Double(value) * Double(timeBase.numerator) / Double(timeBase.denominator), preferredTimescale: timeBase.denominator)
    }

    /// Matroska stores per-track durations as "HH:MM:SS.nnnnnnnnn" tags.
    static func taggedDuration(_ stream: StreamInfo) -> CMTime? {
        guard let text = stream.metadata.value(for: "DURATION") else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Int64(parts[0]), let m = Int64(parts[1]) else { return nil }
        let secParts = parts[2].split(separator: ".")
        guard let s = Int64(secParts[0]) else { return nil }
        var nanos: Int64 = 0
        if secParts.count > 1 {
            let digits = String(secParts[1].prefix(9)).padding(toLength: 9, withPad: "0", startingAt: 0)
            nanos = Int64(digits) ?? 0
        }
        return CMTime(value: ((h * 60 + m) * 60 + s) * 1_000_000_000 + nanos, timescale: 1_000_000_000)
    }

    /// The track's time range from the header: its start and duration, or the container's duration
    /// when the stream has none. Nil when only a packet scan can tell (the header estimates).
    static func timeRange(_ stream: StreamInfo, info: ContainerInfo, precise: Bool) -> CMTimeRange? {
        if precise && info.durationIsEstimate { return nil }
        let start = stream.startTime.map { time($0, stream.timeBase) } ?? .zero
        if let d = stream.duration { return CMTimeRange(start: start, duration: time(d, stream.timeBase)) }
        if let d = taggedDuration(stream) { return CMTimeRange(start: start, duration: d) }
        if let us = info.duration { return CMTimeRange(start: start, duration: CMTime(value: us, timescale: 1_000_000)) }
        return CMTimeRange(start: start, duration: .invalid)
    }

    /// Display size: encoded size with the pixel aspect ratio applied to the width, as a track header's.
    static func naturalSize(_ stream: StreamInfo) -> CGSize {
        guard let w = stream.width, let h = stream.height else { return .zero }
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

    static func characteristics(_ mediaType: AVMediaType, _ stream: StreamInfo) -> [AVMediaCharacteristic] {
        var result: [AVMediaCharacteristic] = []
        switch mediaType {
        case .video: result = [.visual, .frameBased]
        case .audio: result = [.audible]
        case .subtitle, .closedCaption, .text: result = [.legible]
        default: break
        }
        let d = stream.disposition
        if d.contains(.forced) { result.append(.containsOnlyForcedSubtitles) }
        if d.contains(.hearingImpaired) { result += [.transcribesSpokenDialogForAccessibility, .describesMusicAndSoundForAccessibility] }
        if d.contains(.visualImpaired) { result.append(.describesVideoForAccessibility) }
        if d.contains(.dub) { result.append(.dubbedTranslation) }
        if d.contains(.original) { result.append(.isOriginalContent) }
        return result
    }

    /// Every value the header gives, keyed like the properties; keys needing a packet scan are absent.
    /// Optional values are stored wrapped (`as Any`), so a nil value is present, not absent.
    static func values(_ stream: StreamInfo, mediaType: AVMediaType, info: ContainerInfo, precise: Bool,
                       space: AVMetadataKeySpace) -> [String: Any] {
        var v: [String: Any] = [:]
        let playable = [AVMediaType.audio, .video, .subtitle, .closedCaption].contains(mediaType) && stream.hasDecoder
        v["formatDescriptions"] = [FormatDescriptions.make(for: stream, mediaType: mediaType)]
        v["playable"] = playable
        v["decodable"] = stream.hasDecoder
        v["enabled"] = info.isQuickTimeFamily ? stream.disposition.contains(.default) : true
        v["selfContained"] = true
        v["mediaCharacteristics"] = characteristics(mediaType, stream)
        v["naturalTimeScale"] = stream.timeBase.numerator == 1 ? stream.timeBase.denominator : 0
        v["languageCode"] = stream.language as Any
        v["extendedLanguageTag"] = stream.language.flatMap { MetadataValues.locale(forISO639: $0)?.identifier } as Any
        v["naturalSize"] = naturalSize(stream)
        v["preferredTransform"] = preferredTransform(stream)
        v["preferredVolume"] = Float(mediaType == .audio ? 1 : 0)
        v["requiresFrameReordering"] = stream.videoDelay > 0
        v["hasAudioSampleDependencies"] = false
        v["minFrameDuration"] = minFrameDuration(stream, mediaType: mediaType)
        let metadata = MetadataMapping.items(stream.metadata, space: space, skippingEncoder: true)
        v["metadata"] = metadata
        v["commonMetadata"] = MetadataMapping.commonItems(metadata)
        v["availableMetadataFormats"] = MetadataMapping.formats(metadata)
        if let range = timeRange(stream, info: info, precise: precise) {
            v["timeRange"] = range
            v["segments"] = [AVAssetTrackSegment(timeMapping: CMTimeMapping(source: range, target: range))]
            if let rate = nominalFrameRate(stream, seconds: range.duration.seconds) { v["nominalFrameRate"] = rate }
        }
        if let total = stream.totalSampleBytes { v["totalSampleDataLength"] = total }
        if let bitRate = stream.bitRate {
            v["estimatedDataRate"] = Float(bitRate)
        } else if let total = stream.totalSampleBytes, let seconds = (v["timeRange"] as? CMTimeRange)?.duration.seconds, seconds > 0 {
            v["estimatedDataRate"] = Float(Double(total * 8) / seconds)
        }
        return v
    }

    /// Frames per second: sample count over duration where both are known, else the stream's rate.
    static func nominalFrameRate(_ stream: StreamInfo, seconds: Double) -> Float? {
        if let frames = stream.frameCount, seconds > 0, seconds.isFinite { return Float(Double(frames) / seconds) }
        if stream.kind == .video, let rate = stream.averageFrameRate?.value ?? stream.realFrameRate?.value { return Float(rate) }
        if stream.kind == .audio, let rate = stream.sampleRate, let size = stream.frameSize, size > 0 { return Float(Double(rate) / Double(size)) }
        return nil
    }

    /// The shortest frame: one frame at the stream's base rate for video, one packet for audio.
    static func minFrameDuration(_ stream: StreamInfo, mediaType: AVMediaType) -> CMTime {
        if mediaType == .video, let rate = stream.realFrameRate ?? stream.averageFrameRate, rate.numerator > 0 {
            return CMTime(value: Int64(rate.denominator), timescale: rate.numerator)
        }
        if mediaType == .audio, let size = stream.frameSize, size > 0, let rate = stream.sampleRate, rate > 0 {
            return CMTime(value: Int64(size), timescale: Int32(rate))
        }
        return .invalid
    }

    /// A value computed from the packet scan, for keys the header could not give.
    static func scanned(_ key: String, stats: PacketStatistics, stream: StreamInfo) -> Any {
        let range = scannedTimeRange(stats, stream: stream)
        switch key {
        case "totalSampleDataLength":
            return stats.totalBytes
        case "estimatedDataRate":
            let seconds = range.duration.seconds
            return seconds > 0 ? Float(Double(stats.totalBytes * 8) / seconds) : Float(0)
        case "timeRange":
            return range
        case "segments":
            return [AVAssetTrackSegment(timeMapping: CMTimeMapping(source: range, target: range))]
        case "nominalFrameRate":
            let seconds = range.duration.seconds
            return seconds > 0 ? Float(Double(stats.packetCount) / seconds) : Float(0)
        default:
            preconditionFailure("no scanned value for \(key)")
        }
    }

    static func scannedTimeRange(_ stats: PacketStatistics, stream: StreamInfo) -> CMTimeRange {
        guard let first = stats.firstPresentationTime, let end = stats.endPresentationTime else {
            return CMTimeRange(start: .zero, duration: .zero)
        }
        return CMTimeRange(start: time(first, stream.timeBase), duration: time(end - first, stream.timeBase))
    }
}
