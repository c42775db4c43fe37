import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// Compositions as apps build them: tracks and IDs, inserting whole assets and single tracks, edits,
/// compositions of compositions, copies, errors, and the same values through the synchronous getters,
/// `load(_:)` and the legacy key-value API. No decoding: a composition is its segment tables.
@Suite("Compositions")
struct CompositionTests {
    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }

    /// Each segment as "file source->target" or "empty target", in seconds.
    static func describe(_ track: AVCompositionTrack) -> [String] {
        func s(_ range: CMTimeRange) -> String { "\(range.start.seconds)-\(range.end.seconds)" }
        return track.segments.map { segment in
            guard !segment.isEmpty else { return "empty \(s(segment.timeMapping.target))" }
            return "\(segment.sourceURL?.lastPathComponent ?? "?")#\(segment.sourceTrackID) \(s(segment.timeMapping.source))->\(s(segment.timeMapping.target))"
        }
    }

    static func code(_ body: () throws -> Void) -> AVError.Code? {
        do { try body() } catch let error as AVError { return error.code } catch { return nil }
        return nil
    }

    /// Seed 002's splice sample, as written there: an empty video track, five seconds of one track, then
    /// five of another, and the composition's properties read synchronously without loading.
    @Test func seed002SpliceSample() async throws {
        let videoTrack1 = try #require(try await AVURLAsset(url: Self.url("frames-h264.mp4")).loadTracks(withMediaType: .video).first)
        let videoTrack2 = try #require(try await AVURLAsset(url: Self.url("frames-hevc.mov")).loadTracks(withMediaType: .video).first)
        let firstFiveSeconds = CMTimeRange(start: .zero, duration: CMTime(seconds: 5, preferredTimescale: 600))
        let fiveSeconds = CMTime(seconds: 5, preferredTimescale: 600)
        func myFunction(thatUses duration: CMTime, and tracks: [AVCompositionTrack]) -> (Double, Int) { (duration.seconds, tracks.count) }

        // Create a composition and add an empty track
        let composition = AVMutableComposition()
        guard let compositionTrack = composition
            .addMutableTrack(withMediaType: .video,
                             preferredTrackID: 1) else { return }

        // Append the first 5 seconds of track 1
        try compositionTrack
            .insertTimeRange(firstFiveSeconds,
                             of: videoTrack1, at: .zero)

        // Append the first 5 seconds of track 2
        try compositionTrack
            .insertTimeRange(firstFiveSeconds,
                             of: videoTrack2, at: fiveSeconds)
        let (seconds, count) = myFunction(thatUses: composition.duration,
                                          and: composition.tracks)
        #expect(seconds == 10 && count == 1)
        #expect(Self.describe(compositionTrack) == ["frames-h264.mp4#1 0.0-5.0->0.0-5.0", "frames-hevc.mov#1 0.0-5.0->5.0-10.0"])
        #expect(compositionTrack.trackID == 1)
    }

    @Test func trackIDs() {
        let composition = AVMutableComposition()
        let first = composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1)
        let second = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 1)
        let third = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)
        #expect(first?.trackID == 1 && second?.trackID == 2 && third?.trackID == 3, "a taken or invalid ID gives a new one")
        #expect(composition.unusedTrackID() == 4)
        if let third { composition.removeTrack(third) }
        #expect(composition.tracks.map(\.trackID) == [1, 2])
        let fourth = composition.addMutableTrack(withMediaType: .video, preferredTrackID: 3)
        #expect(fourth?.trackID == 4, "a removed track's ID is not given again")
        #expect(composition.track(withTrackID: 2)?.mediaType == .audio)
        #expect(composition.tracks(withMediaType: .video).map(\.trackID) == [1, 4])
        #expect(composition.tracks(withMediaCharacteristic: .audible).map(\.trackID) == [2])
        #expect(composition.duration == .zero && composition.naturalSize == .zero)
    }

    /// The composition's values through the synchronous getters, `load(_:)`, `status(of:)` and the
    /// legacy API agree, and are loaded from the start.
    @Test func valuesAreInMemoryEveryWay() async throws {
        let composition = AVMutableComposition()
        let source = AVURLAsset(url: Self.url("frames-h264.mp4"))
        try await composition.insertTimeRange(Self.r(1, 3), of: source, at: .zero)
        let track = try #require(composition.tracks.first)

        #expect(composition.duration == Self.t(2))
        if case .loaded(let duration) = composition.status(of: .duration) { #expect(duration == Self.t(2)) } else { Issue.record("not loaded") }
        let (duration, tracks) = try await composition.load(.duration, .tracks)
        #expect(duration == Self.t(2) && tracks.count == 1 && tracks.first === track)
        let playable = try await composition.load(.isPlayable)
        #expect(playable && composition.isPlayable)
        #expect(try await composition.load(.metadata).isEmpty)
        #expect(try await composition.loadTracks(withMediaType: .video).first === track)
        #expect(try await composition.loadTrack(withTrackID: track.trackID) === track)

        #expect(track.timeRange == Self.r(0, 2))
        #expect(try await track.load(.timeRange) == Self.r(0, 2))
        #expect(track.naturalSize == CGSize(width: 320, height: 240) && composition.naturalSize == CGSize(width: 320, height: 240))
        #expect(try await track.load(.naturalSize) == CGSize(width: 320, height: 240))
        let rate = try await track.load(.nominalFrameRate)
        #expect(track.nominalFrameRate == 25 && rate == 25)
        let sourceScale = try await source.loadTracks(withMediaType: .video).first?.load(.naturalTimeScale)
        #expect(track.naturalTimeScale == sourceScale)
        let descriptions = try await track.load(.formatDescriptions)
        #expect(descriptions.map(\.mediaSubType) == [.h264])
        #expect(track.formatDescriptions.count == 1)
        #expect(!track.isSelfContained && track.isEnabled && track.languageCode == nil)
        let segments = try await track.load(.segments)
        #expect(segments.count == 1 && segments.first is AVCompositionTrackSegment)
        #expect(track.segment(forTrackTime: Self.t(1))?.timeMapping.source == Self.r(1, 3))
        #expect(try await track.loadSegment(forTrackTime: Self.t(1.5))?.timeMapping.target == Self.r(0, 2))
        #expect(track.totalSampleDataLength > 0 && track.estimatedDataRate > 0)
    }

    @available(*, deprecated, message: "exercises the legacy API")
    static func insertSynchronously(_ range: CMTimeRange, of asset: AVAsset, into composition: AVMutableComposition) throws {
        try composition.insertTimeRange(range, of: asset, at: .zero)
    }

    @available(*, deprecated, message: "exercises the legacy key-value API")
    @Test func legacyKeyValueLoading() async throws {
        let composition = AVMutableComposition()
        try Self.insertSynchronously(Self.r(0, 1), of: AVURLAsset(url: Self.url("frames-h264.mp4")), into: composition)
        var error: NSError?
        #expect(composition.statusOfValue(forKey: "duration", error: &error) == .loaded)
        await withHandOffContinuation { (done: CheckedContinuation<Void, Never>) in
            composition.loadValuesAsynchronously(forKeys: ["duration", "tracks"]) { done.resume() }
        }
        #expect(composition.statusOfValue(forKey: "tracks", error: &error) == .loaded)
        let asAsset: AVAsset = composition
        #expect(asAsset.duration == Self.t(1) && asAsset.tracks.count == 1, "the AVAsset getters read the same values")
    }

    /// Inserting a whole asset adds a track per source track, reuses compatible tracks later, and gives
    /// tracks that get nothing empty time, so every track stays in step.
    @Test func insertingAssetsKeepsTracksInStep() async throws {
        let composition = AVMutableComposition()
        let both = AVURLAsset(url: Self.url("frames-short-video.mp4"))  // 1 s of video, 4 s of audio
        let videoOnly = AVURLAsset(url: Self.url("frames-h264.mp4"))
        try await composition.insertTimeRange(Self.r(0, 4), of: both, at: .zero)
        #expect(composition.tracks.map(\.mediaType) == [.video, .audio])
        try await composition.insertTimeRange(Self.r(0, 2), of: videoOnly, at: Self.t(4))
        #expect(composition.tracks.count == 2, "the video track is reused")
        let video = try #require(composition.tracks(withMediaType: .video).first)
        let audio = try #require(composition.tracks(withMediaType: .audio).first)
        #expect(Self.describe(video) == ["frames-short-video.mp4#1 0.0-4.0->0.0-4.0", "frames-h264.mp4#1 0.0-2.0->4.0-6.0"],
                "the source range is not clipped to the track's own shorter length")
        #expect(Self.describe(audio) == ["frames-short-video.mp4#2 0.0-4.0->0.0-4.0"], "empty time past the end adds nothing")
        #expect(composition.duration == Self.t(6))

        try await composition.insertTimeRange(Self.r(3, 4), of: videoOnly, at: .zero)
        #expect(Self.describe(audio) == ["empty 0.0-1.0", "frames-short-video.mp4#2 0.0-4.0->1.0-5.0"], "the audio is pushed out too")
        #expect(Self.describe(video).first == "frames-h264.mp4#1 3.0-4.0->0.0-1.0")
        #expect(composition.duration == Self.t(7))
    }

    @Test func compositionLevelEdits() async throws {
        let composition = AVMutableComposition()
        try await composition.insertTimeRange(Self.r(0, 4), of: AVURLAsset(url: Self.url("frames-short-video.mp4")), at: .zero)
        composition.removeTimeRange(Self.r(1, 2))
        #expect(composition.duration == Self.t(3))
        composition.scaleTimeRange(Self.r(0, 1), toDuration: Self.t(2))
        #expect(composition.duration == Self.t(4))
        let video = try #require(composition.tracks(withMediaType: .video).first)
        #expect(Self.describe(video) == ["frames-short-video.mp4#1 0.0-1.0->0.0-2.0", "frames-short-video.mp4#1 2.0-4.0->2.0-4.0"])
        // 25 frames a second over the first (slowed) second, 25 over the next two: 75 frames in 4 s.
        #expect(abs(video.nominalFrameRate - 18.75) < 0.001)
        composition.insertEmptyTimeRange(Self.r(0, 1))
        #expect(composition.tracks.allSatisfy { $0.segments.first?.isEmpty == true } && composition.duration == Self.t(5))
    }

    /// A composition's track inserted into another gives segments of the files underneath, their
    /// mappings composed (a scaled segment stays scaled), and empty time for a range past its end.
    @Test func compositionsOfCompositions() async throws {
        let inner = AVMutableComposition()
        let track = try #require(inner.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let source = try #require(try await AVURLAsset(url: Self.url("frames-h264.mp4")).loadTracks(withMediaType: .video).first)
        try track.insertTimeRange(Self.r(0, 2), of: source, at: .zero)
        track.scaleTimeRange(Self.r(0, 2), toDuration: Self.t(4))   // 0-2 s of the file over 0-4 s

        let outer = AVMutableComposition()
        let outerTrack = try #require(outer.addMutableTrack(withMediaType: .video, preferredTrackID: 5))
        try outerTrack.insertTimeRange(Self.r(1, 6), of: track, at: .zero)
        #expect(Self.describe(outerTrack) == ["frames-h264.mp4#1 0.5-2.0->0.0-3.0"])
        #expect(outerTrack.timeRange == Self.r(0, 3), "the range past the inner track's end is empty, at the end: dropped")
        try outerTrack.insertTimeRange(Self.r(0, 1), of: track, at: .zero)
        #expect(Self.describe(outerTrack) == ["frames-h264.mp4#1 0.0-0.5->0.0-1.0", "frames-h264.mp4#1 0.5-2.0->1.0-4.0"])
        #expect(outerTrack.segments.allSatisfy { $0.sourceURL?.lastPathComponent == "frames-h264.mp4" })

        // And a whole composition inserted into another, the async way.
        let third = AVMutableComposition()
        try await third.insertTimeRange(Self.r(0, 4), of: outer, at: .zero)
        #expect(third.tracks.first?.trackID == 5 && third.duration == Self.t(4))
        #expect(Self.describe(try #require(third.tracks.first)) == Self.describe(outerTrack))
    }

    @Test func insertionErrors() async throws {
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        let asset = AVURLAsset(url: Self.url("frames-short-video.mp4"))
        let source = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let audio = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let before = Self.t(-1)
        #expect(Self.code { try video.insertTimeRange(CMTimeRange(start: before, duration: Self.t(1)), of: source, at: .zero) }
                == .invalidCompositionTrackSegmentSourceStartTime)
        #expect(Self.code { try video.insertTimeRange(Self.r(1, 1), of: source, at: .zero) } == .invalidCompositionTrackSegmentSourceDuration)
        #expect(Self.code { try video.insertTimeRange(.invalid, of: source, at: .zero) } == .invalidCompositionTrackSegmentSourceStartTime)
        #expect(Self.code { try video.insertTimeRange(Self.r(0, 1), of: source, at: .invalid) } == .compositionTrackSegmentsNotContiguous)
        #expect(Self.code { try video.insertTimeRange(Self.r(0, 1), of: audio, at: .zero) } == .incompatibleAsset)
        #expect(Self.code {
            try video.insertTimeRanges([NSValue(timeRange: Self.r(0, 1)), NSValue(timeRange: Self.r(1, 1))], of: [source, source], at: .zero)
        } == .invalidCompositionTrackSegmentSourceDuration)
        #expect(video.segments.isEmpty, "a failed insert changes nothing")
        try video.insertTimeRanges([NSValue(timeRange: Self.r(0, 1)), NSValue(timeRange: Self.r(0.5, 1))], of: [source, source], at: .zero)
        #expect(Self.describe(video) == ["frames-short-video.mp4#1 0.0-1.0->0.0-1.0", "frames-short-video.mp4#1 0.5-1.0->1.0-1.5"])

        // A missing file: the asset's own error, and the composition is unchanged.
        let missing = AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        await #expect(throws: (any Error).self) { try await composition.insertTimeRange(Self.r(0, 1), of: missing, at: .zero) }
        #expect(composition.tracks.count == 1 && composition.duration == Self.t(1.5))
    }

    @Test func settingAndValidatingSegments() throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        let url = Self.url("frames-h264.mp4")
        func media(_ source: CMTimeRange, _ target: CMTimeRange) -> AVCompositionTrackSegment {
            AVCompositionTrackSegment(url: url, trackID: 1, sourceTimeRange: source, targetTimeRange: target)
        }
        let good = [media(Self.r(0, 1), Self.r(0, 1)), AVCompositionTrackSegment(timeRange: Self.r(1, 2)), media(Self.r(2, 3), Self.r(2, 4))]
        try track.validateSegments(good)
        track.segments = good
        #expect(Self.describe(track) == ["frames-h264.mp4#1 0.0-1.0->0.0-1.0", "empty 1.0-2.0", "frames-h264.mp4#1 2.0-3.0->2.0-4.0"])
        #expect(track.segment(forTrackTime: Self.t(1.5))?.isEmpty == true)
        #expect(composition.duration == Self.t(4))

        let cases: [([AVCompositionTrackSegment], AVError.Code)] = [
            ([media(Self.r(0, 1), Self.r(0, 1)), media(Self.r(0, 1), Self.r(2, 3))], .compositionTrackSegmentsNotContiguous),
            ([media(Self.r(0, 1), Self.r(0, 0))], .invalidCompositionTrackSegmentDuration),
            ([media(CMTimeRange(start: Self.t(-1), duration: Self.t(1)), Self.r(0, 1))], .invalidCompositionTrackSegmentSourceStartTime),
            ([media(Self.r(1, 1), Self.r(0, 1))], .invalidCompositionTrackSegmentSourceDuration),
        ]
        for (segments, expected) in cases {
            #expect(Self.code { try track.validateSegments(segments) } == expected)
            track.segments = segments
            #expect(track.segments.count == 3, "invalid segments are not set")
        }
    }

    /// `copy()` is an immutable snapshot; `mutableCopy()` an independent mutable composition.
    @Test func copies() async throws {
        let composition = AVMutableComposition()
        try await composition.insertTimeRange(Self.r(0, 2), of: AVURLAsset(url: Self.url("frames-rotated.mov")), at: .zero)
        let video = try #require(composition.tracks.first)
        #expect(video.preferredTransform == CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0),
                "a track the insert adds takes the source's preferred transform")
        let snapshot = try #require(composition.copy() as? AVComposition)
        #expect(!(snapshot is AVMutableComposition) && snapshot.tracks.allSatisfy { !($0 is AVMutableCompositionTrack) })
        let mutable = try #require(composition.mutableCopy() as? AVMutableComposition)
        composition.removeTimeRange(Self.r(0, 1))
        video.preferredTransform = .identity
        video.isEnabled = false
        #expect(composition.duration == Self.t(1) && snapshot.duration == Self.t(2) && mutable.duration == Self.t(2))
        #expect(snapshot.tracks.first?.preferredTransform.b == 1 && snapshot.tracks.first?.isEnabled == true)
        let (enabled, transform) = try await video.load(.isEnabled, .preferredTransform)
        #expect(!enabled && transform == .identity)
        #expect(snapshot.copy() as? AVComposition === snapshot)
        #expect(snapshot.tracks.first?.asset === snapshot)

        mutable.naturalSize = CGSize(width: 100, height: 50)
        #expect(mutable.naturalSize == CGSize(width: 100, height: 50))
        mutable.naturalSize = .zero
        #expect(mutable.naturalSize == CGSize(width: 320, height: 240))
        let track = try #require(mutable.tracks.first)
        track.naturalTimeScale = 90000
        track.languageCode = "eng"
        track.preferredVolume = 0.5
        #expect(track.naturalTimeScale == 90000 && track.languageCode == "eng" && track.preferredVolume == 0.5)
        track.naturalTimeScale = 0
        #expect(track.naturalTimeScale != 90000 && track.naturalTimeScale > 0)
        #expect(mutable.mutableTrack(compatibleWith: track) === track)
    }

    @Test func completionHandlerInsert() async throws {
        let composition = AVMutableComposition(urlAssetInitializationOptions: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        #expect(composition.urlAssetInitializationOptions[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool == true)
        let error: (any Error)? = await withHandOffContinuation { done in
            composition.insertTimeRange(Self.r(0, 1), of: AVURLAsset(url: Self.url("av.mp4")), at: .zero) { done.resume(returning: $0) }
        }
        #expect(error == nil && composition.tracks.count == 2 && composition.duration == Self.t(1))
    }
}
