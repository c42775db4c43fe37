internal import MediaEngine
import Foundation
import Synchronization

/// What an export session was asked for, as it stood when the export started.
struct ExportRequest: @unchecked Sendable {
    // @unchecked Sendable: the metadata items and filter are immutable; the compositions and mix are
    // copies the session made.
    var asset: AVAsset
    var preset: ExportPreset
    var fileType: AVFileType
    var timeRange: CMTimeRange
    var videoComposition: AVVideoComposition?
    var audioMix: AVAudioMix?
    var metadata: [AVMetadataItem]?
    var metadataItemFilter: AVMetadataItemFilter?
    var fastStart: Bool
    var fileLengthLimit: Int64
}

/// Turns a request into the engine's plan: which spans of which files each output track takes (through
/// a composition's segments), copied or encoded, and the tags. Pure decisions over loaded facts; the
/// pictures of an encoded video track are rendered later, on the export's thread, by an image pipeline
/// of its own (the one the image generator uses, so video compositions render the same way).
enum ExportPlanner {
    static func unsupported(_ reason: String) -> AVError {
        AVError(.operationNotSupportedForPreset, userInfo: [NSLocalizedDescriptionKey: reason])
    }

    /// The plan, and what to do on the export's thread once it is written (readers to put back).
    static func plan(_ request: ExportRequest, facts: AssetFacts, duration: CMTime, pictures: PictureSource,
                     sources: SegmentSources) throws -> (ExportPlan, cleanup: @Sendable () -> Void) {
        var cleanups: [@Sendable () -> Void] = []
        if facts.isStreamingPlaylist {
            throw unsupported("HTTP Live Streaming assets cannot be exported (as on Apple's platforms): export the media files themselves.")
        }
        guard duration.isNumeric, duration > .zero else {
            throw AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "The asset has no known duration to export."])
        }
        var range = request.timeRange
        if !range.isValid || !range.start.isNumeric { range = CMTimeRange(start: .zero, duration: .positiveInfinity) }
        let start = max(range.start, .zero)
        let end = range.duration.isNumeric ? min(range.end, duration) : duration
        guard start < end else { throw AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "The time range to export is empty."]) }
        let window = CMTimeRange(start: start, end: end)
        guard let container = OutputFiles.container(for: request.fileType) else {
            throw unsupported("Avocet cannot write \(request.fileType.rawValue) files.")
        }
        var plan = ExportPlan(container: container, duration: window.duration.seconds)
        plan.fastStart = request.fastStart
        plan.fileLengthLimit = max(0, request.fileLengthLimit)
        plan.metadata = OutputFiles.metadataTags(request.metadata ?? (facts.metadata + facts.commonMetadata), filter: request.metadataItemFilter,
                                                  container: container)
        plan.chapters = facts.chapters.compactMap { chapter in
            let part = chapter.range.intersection(window)
            guard !part.isEmpty, part.duration.isNumeric else { return nil }
            return ExportPlan.Chapter(start: (part.start - start).seconds, end: (part.end - start).seconds, title: chapter.title ?? "")
        }

        let videos = facts.tracks.filter { $0.mediaType == .video }
        let audios = facts.tracks.filter { $0.mediaType == .audio && $0.facts.isEnabled }
        switch request.preset.kind {
        case .passthrough:
            guard request.videoComposition == nil, request.audioMix == nil else {
                throw unsupported("The passthrough preset copies the media as it is: a video composition or an audio mix needs a preset that encodes.")
            }
            for track in videos + facts.tracks.filter({ $0.mediaType == .audio }) {
                let pieces = try MixTimeline.pieces(of: track, in: window, sources: sources)
                guard !pieces.isEmpty else { continue }
                guard pieces.allSatisfy({ abs(($0.sourceEnd - $0.sourceStart) - ($0.targetEnd - $0.targetStart)) < 1e-6 }) else {
                    throw unsupported("The passthrough preset cannot play a segment faster or slower: use a preset that encodes.")
                }
                let matrix = track.mediaType == .video ? OutputFiles.displayMatrix(track.facts.preferredTransform, scale: 1) : nil
                plan.copied.append(ExportPlan.CopiedTrack(pieces: pieces, displayMatrix: matrix, language: track.facts.languageCode))
            }
            guard !plan.copied.isEmpty else { throw unsupported("The asset has no audio or video to copy.") }
            if container == .m4a && !videos.isEmpty { throw unsupported("An M4A file holds audio only.") }
        case .audioOnly:
            guard !audios.isEmpty else { throw unsupported("The asset has no audio for the \(request.preset.name) preset.") }
            plan.audio = try audio(audios, in: window, request: request, sources: sources)
            guard plan.audio != nil else { throw unsupported("The asset has no audio in the time range to export.") }
        case .video(let codec, let box, let quality):
            if let video = try video(videos, codec: codec, box: box, quality: quality, in: window, request: request, pictures: pictures,
                                     sources: sources, cleanups: &cleanups) {
                plan.video = video
            }
            if !audios.isEmpty { plan.audio = try audio(audios, in: window, request: request, sources: sources) }
            guard plan.video != nil || plan.audio != nil else { throw unsupported("The asset has no audio or video to export.") }
        }
        // Progress counts to the end of the longest track encoded (each keeps its own length).
        let lengths = [plan.video.map { Double($0.frameCount) * Double($0.frameRate.denominator) / Double($0.frameRate.numerator) },
                       plan.audio?.duration].compactMap { $0 }
        if let longest = lengths.max(), longest > 0 { plan.duration = min(longest, window.duration.seconds) }
        let finished = cleanups
        return (plan, { for cleanup in finished { cleanup() } })
    }


    /// The encoded video track: the video composition's frames at its render size, or the first enabled
    /// video track's, shrunk to fit the preset's box (even sides, as 4:2:0 needs); frames at the
    /// composition's frame duration, else the track's nominal rate.
    static func video(_ videos: [AVAssetTrack], codec: EncodedCodec, box: (width: Int, height: Int)?, quality: Int,
                      in window: CMTimeRange, request: ExportRequest, pictures: PictureSource,
                      sources: SegmentSources, cleanups: inout [@Sendable () -> Void]) throws -> ExportPlan.EncodedVideo? {
        let track = videos.first { $0.facts.isEnabled } ?? videos.first
        let composition = request.videoComposition
        guard composition != nil || track != nil else { return nil }
        let natural = composition?.renderSize ?? track?.facts.naturalSize ?? .zero
        guard natural.width >= 1, natural.height >= 1, natural.width.isFinite, natural.height.isFinite else {
            throw AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "The video has no picture size."])
        }
        let limit = box.map { CGSize(width: $0.width, height: $0.height) } ?? .zero
        let fitted = PictureSource.fit(width: Double(natural.width), height: Double(natural.height), into: limit)
        let width = max(2, fitted.width & ~1), height = max(2, fitted.height & ~1)
        guard width <= maximumSide, height <= maximumSide else {
            throw AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "A \(width)x\(height) picture is larger than an export can encode."])
        }
        let rate = try RenderedFrames.frameRate(composition?.frameDuration, track?.facts.nominalFrameRate)
        func frameCount(_ seconds: Double) -> Int {
            let frames = seconds * Double(rate.numerator) / Double(rate.denominator)
            return max(1, Int(min((frames - 1e-6).rounded(.up), 1e9)))
        }

        let scale = natural.width > 0 ? CGFloat(width) / natural.width : 1
        // Without a video composition the track's pictures go straight from the decoder to the
        // encoder's format (no RGBA on the way); the preferred transform is kept as the display matrix.
        // The track keeps its own length, as on Apple's platforms: a video track that ends before the
        // sound is not padded with frames to the asset's end.
        if composition == nil, let track {
            let span = MixTimeline.span(of: track, in: window)
            let pieces = MixTimeline.clip(try MixTimeline.pieces(of: track, in: window, sources: sources), to: span)
            guard !pieces.isEmpty else { return nil }
            var plan = ExportPlan.EncodedVideo(codec: codec, width: width, height: height, frameRate: rate, frameCount: frameCount(span.upperBound),
                                               quality: quality, preset: ExportPreset.encoderSpeed, pictures: .decoded(pieces),
                                               displayMatrix: OutputFiles.displayMatrix(track.facts.preferredTransform, scale: scale))
            // A track that starts after the window does (a movie whose B-frames delay its first picture
            // without an edit list) starts there in the output too, at the first frame on or after it.
            plan.firstFrame = span.lowerBound > 0 ? min(frameCount(span.lowerBound), plan.frameCount - 1) : 0
            return plan
        }
        var settings = ImageSettings()
        settings.toleranceBefore = .zero
        settings.toleranceAfter = .zero
        settings.videoComposition = composition
        settings.outputSize = (width, height)
        let rendered = RenderedFrames(pictures: pictures, settings: settings, tracks: videos, start: window.start, rate: rate)
        cleanups.append(rendered.close)
        // A video composition's frames fill the window, as its instructions must cover it.
        return ExportPlan.EncodedVideo(codec: codec, width: width, height: height, frameRate: rate, frameCount: frameCount(window.duration.seconds),
                                       quality: quality, preset: ExportPreset.encoderSpeed, pictures: .rendered(rendered.render), displayMatrix: nil)
    }

    /// The largest picture side an export encodes (x264 and x265 take up to 16384).
    static let maximumSide = 16384

    /// The one mixed AAC track: every enabled audio track, at its audio mix volumes, stereo at 48 kHz
    /// when the first source is, else 44.1 kHz. It lasts until the longest of them ends within the
    /// window (nil when none plays there): sound is not padded with silence to the asset's end.
    static func audio(_ audios: [AVAssetTrack], in window: CMTimeRange, request: ExportRequest, sources: SegmentSources) throws -> ExportPlan.EncodedAudio? {
        guard let (mixed, duration) = try MixTimeline.clippedMixInputs(audios, in: window, audioMix: request.audioMix, sources: sources,
                                                                      fromFileStart: true) else { return nil }
        let firstRate = try mixed.first.flatMap { try MixTimeline.pieceTracks(of: $0.track, sources: sources).first?.file?.stream.sampleRate }
        return ExportPlan.EncodedAudio(inputs: mixed.map(\.input), sampleRate: firstRate == 48_000 ? 48_000 : 44_100, channels: 2,
                                       bitRate: request.preset.audioBitRate, duration: duration)
    }
}
