internal import MediaEngine
import Foundation
internal import Locking
import Synchronization

/// The presentation state of an asset being played: its status, timing and the tracks presented.
///
/// An item starts loading when a player takes it: the keys in ``automaticallyLoadedAssetKeys`` (and the
/// tracks and duration the item needs) load on the engine's threads; then ``status`` becomes
/// ``Status-swift.enum/readyToPlay`` (and ``AVAsynchronousKeyValueLoading/status(of:)`` of each key on
/// the asset is loaded), or ``Status-swift.enum/failed`` with the ``error``. Observe ``status`` with
/// `observe(\.status, options:changeHandler:)`; changes are reported on the thread that loaded them.
open class AVPlayerItem: NSObject, NSCopying, _AVKeyValueObserving, KeyValueObservable, @unchecked Sendable {
    // @unchecked Sendable: the state sits behind a lock.
    /// Whether an item can be played.
    public enum Status: Int, Sendable {
        /// `unknown`: not yet loaded; `readyToPlay`: its keys are loaded and, for a file, its first second
        /// of media read; `failed`: see ``AVPlayerItem/error``.
        case unknown = 0, readyToPlay = 1, failed = 2
    }

    struct State {
        var status = Status.unknown
        var error: (any Error)?
        var duration = CMTime.indefinite
        var presentationSize = CGSize.zero
        var tracks: [AVPlayerItemTrack] = []
        var frameDuration = CMTime(value: 1, timescale: 30)
        var loading: Task<Void, Never>?
        /// The item's time while no player runs it.
        var time = CMTime.zero
        var forwardPlaybackEndTime = CMTime.invalid
        var reversePlaybackEndTime = CMTime.invalid
        var preferredForwardBufferDuration: TimeInterval = 0
        var videoComposition: AVVideoComposition?
        var audioMix: AVAudioMix?
        var audioTimePitchAlgorithm = AVAudioTimePitchAlgorithm.timeDomain
        var outputs: [AVPlayerItemOutput] = []
        /// How far the media is read ahead (nil: no file to read, as for a composition: all of it counts
        /// as loaded).
        var buffer: PlaybackBuffer?
        /// The buffer's flags as last reported to observers.
        var reportedBuffer = BufferFlags()

        /// Where the item ends for a player: the forward end time when set, else the duration; for media
        /// that states no duration (a browser recording), where reading ahead found the media to end.
        var endTime: CMTime {
            if forwardPlaybackEndTime.isNumeric { return forwardPlaybackEndTime }
            if !duration.isNumeric, let read = buffer?.range, read.ended { return read.end }
            return duration
        }
        /// A reader of the video's container kept for its keyframe index (tolerant seeks look there).
        var keyframeReader: UncheckedBox<VideoFrameReader>?
        /// The asset's media selection groups, once loaded, and the option chosen in each.
        var selectionGroups: [AVMediaSelectionGroup] = []
        var selection = AVMediaSelection.Choices()
    }

    /// What observers hear of the buffer.
    struct BufferFlags: Equatable {
        var loaded: [CMTimeRange] = []
        var likelyToKeepUp = false
        var full = false
        var empty = true
    }

    /// The asset the item plays.
    public let asset: AVAsset
    /// The legacy keys of the asset properties loaded before the item is ready.
    public let automaticallyLoadedAssetKeys: [String]
    let state = LockedState(State())
    let keyValueObservers = KeyValueObservers()
    /// The player running the item, if any.
    private let owner = Locked<WeakBox<AVPlayer>?>(nil)

    /// An item for the asset at `URL`. Does no I/O until a player takes it.
    ///
    /// - Parameter URL: A URL as ``AVURLAsset/init(url:options:)`` takes it.
    public convenience init(url URL: URL) {
        self.init(asset: AVURLAsset(url: URL), automaticallyLoadedAssetKeys: nil)
    }

    /// An item for `asset`, loading only what playback needs.
    ///
    /// - Parameter asset: A file's asset or a composition.
    public convenience init(asset: AVAsset) {
        self.init(asset: asset, automaticallyLoadedAssetKeys: nil)
    }

    /// An item for `asset` that loads the properties with these legacy keys before it is ready.
    ///
    /// - Parameters:
    ///   - asset: A file's asset or a composition.
    ///   - automaticallyLoadedAssetKeys: Legacy keys of asset properties ("playable",
    ///     "hasProtectedContent", ...); unknown keys are ignored, and nil loads only what playback needs.
    ///     A failure to load one fails the item.
    public init(asset: AVAsset, automaticallyLoadedAssetKeys: [String]?) {
        self.asset = asset
        self.automaticallyLoadedAssetKeys = automaticallyLoadedAssetKeys ?? []
        super.init()
    }

    deinit {
        state.value.buffer?.stop()
        // The seek reader is closed on an engine thread, not on whatever thread lets the item go.
        if let reader = state.value.keyframeReader { IOExecutor.shared.submit { withExtendedLifetime(reader) {} } }
    }

    /// An item for `asset` that loads these properties before it is ready.
    ///
    /// - Parameters:
    ///   - asset: A file's asset or a composition.
    ///   - automaticallyLoadedAssetKeys: Asset properties, such as `.isPlayable` and `.metadata`; a
    ///     failure to load one fails the item.
    public convenience init(asset: AVAsset, automaticallyLoadedAssetKeys: [AVPartialAsyncProperty<AVAsset>] = []) {
        self.init(asset: asset, automaticallyLoadedAssetKeys: automaticallyLoadedAssetKeys.map(\.description))
    }

    /// A new item for the same asset and keys, not yet loaded.
    open func copy(with zone: NSZone? = nil) -> Any {
        AVPlayerItem(asset: asset, automaticallyLoadedAssetKeys: automaticallyLoadedAssetKeys)
    }

    static func observedName(of keyPath: AnyKeyPath) -> String? {
        let names: [AnyKeyPath: String] = [
            \AVPlayerItem.status: "status", \AVPlayerItem.duration: "duration", \AVPlayerItem.presentationSize: "presentationSize",
            \AVPlayerItem.isPlaybackLikelyToKeepUp: "isPlaybackLikelyToKeepUp", \AVPlayerItem.isPlaybackBufferEmpty: "isPlaybackBufferEmpty",
            \AVPlayerItem.isPlaybackBufferFull: "isPlaybackBufferFull", \AVPlayerItem.loadedTimeRanges: "loadedTimeRanges",
            \AVPlayerItem.seekableTimeRanges: "seekableTimeRanges", \AVPlayerItem.tracks: "tracks",
        ]
        return names[keyPath] ?? (keyPath == \AVPlayerItem.error ? "error" : nil)
    }

    var snapshot: State { state.value }

    func change(_ body: (inout State) -> Void) {
        state.change(body)
    }

    // MARK: - Status

    /// Whether the item is loading, ready or failed; observable.
    open var status: Status { snapshot.status }
    /// Why the item failed (an ``AVError``); nil unless ``status`` is ``Status-swift.enum/failed``.
    open var error: (any Error)? { snapshot.error }
    /// The asset's duration once the item is ready; `.indefinite` before.
    open var duration: CMTime { snapshot.duration }
    /// The size the video shows at (the first enabled video track's natural size, turned by its
    /// preferred transform); `.zero` before the item is ready or without video.
    open var presentationSize: CGSize { snapshot.presentationSize }
    /// The item's tracks, once it is ready; empty before.
    open var tracks: [AVPlayerItemTrack] { snapshot.tracks }
    /// From zero to the duration once ready: a file's every time can be sought.
    open var seekableTimeRanges: [NSValue] {
        let s = snapshot
        return s.status == .readyToPlay && s.duration.isNumeric ? [NSValue(timeRange: CMTimeRange(start: .zero, duration: s.duration))] : []
    }
    /// What has been read ahead of the item's time and plays without waiting: one range, from where
    /// reading last started (the start, or a seek) to how far it got. An item whose media is not one
    /// file's (a composition) counts as loaded throughout.
    open var loadedTimeRanges: [NSValue] { bufferFlags(at: currentTime()).loaded.map { NSValue(timeRange: $0) } }
    /// Whether enough is read ahead (a second, or the rest of the item) for playing not to stall.
    open var isPlaybackLikelyToKeepUp: Bool { bufferFlags(at: currentTime()).likelyToKeepUp }
    /// Whether the read-ahead reached its target (``preferredForwardBufferDuration``, or 10 seconds) or
    /// the end.
    open var isPlaybackBufferFull: Bool { bufferFlags(at: currentTime()).full }
    /// Whether nothing is read at the item's time (playing there would wait).
    open var isPlaybackBufferEmpty: Bool { bufferFlags(at: currentTime()).empty }

    /// How far reading runs ahead of the item's time, in seconds.
    var forwardBufferSeconds: Double {
        let preferred = snapshot.preferredForwardBufferDuration
        return preferred > 0 && preferred.isFinite ? max(PlaybackBuffer.enough, preferred) : 10
    }

    /// The buffer's flags with the item's time at `time`. Cheap: reads state only.
    func bufferFlags(at time: CMTime) -> BufferFlags {
        let s = snapshot
        guard s.status == .readyToPlay else { return BufferFlags() }
        let end = s.endTime
        guard let range = s.buffer?.range else {
            let all = s.duration.isNumeric ? [CMTimeRange(start: .zero, duration: s.duration)] : []
            return BufferFlags(loaded: all, likelyToKeepUp: true, full: true, empty: false)
        }
        let loadedEnd = range.ended && s.duration.isNumeric ? max(s.duration, range.end) : range.end
        let remaining = end.isNumeric ? max(0, (end - time).seconds) : .infinity
        let ahead = range.covers(time) ? range.ahead(of: time) : 0
        return BufferFlags(loaded: loadedEnd > range.start ? [CMTimeRange(start: range.start, end: loadedEnd)] : [],
                           likelyToKeepUp: ahead >= min(PlaybackBuffer.enough, remaining),
                           full: range.ended || ahead >= forwardBufferSeconds,
                           empty: !range.covers(time))
    }

    /// The reader `keyframeIndex(_:)` keeps for `file`, when it is open already (nil otherwise). Never
    /// blocks.
    func openKeyframeIndex(_ file: AVAssetTrack.FileTrack) -> VideoFrameReader? {
        guard let kept = snapshot.keyframeReader, kept.value.decodedStreamIndex == file.stream.index else { return nil }
        return kept.value
    }

    /// A reader of `file`'s container whose index tolerant seeks consult, opened the first time and
    /// kept while the item lives (it holds the file open). Blocking: call on an engine thread.
    func keyframeIndex(_ file: AVAssetTrack.FileTrack) -> VideoFrameReader? {
        if let kept = openKeyframeIndex(file) { return kept }
        guard let made = try? file.source.openFrameReader(streamIndex: file.stream.index, cancellation: CancellationToken()) else { return nil }
        change { $0.keyframeReader = UncheckedBox(made) }
        return made
    }

    /// Tells observers what changed in the buffer's flags since they last heard, and the player.
    func bufferDidChange() {
        let flags = bufferFlags(at: currentTime())
        let before = state.change { s -> BufferFlags in defer { s.reportedBuffer = flags }; return s.reportedBuffer }
        if before.loaded != flags.loaded {
            reportSet("loadedTimeRanges", from: before.loaded.map { NSValue(timeRange: $0) }, to: flags.loaded.map { NSValue(timeRange: $0) })
        }
        report("isPlaybackLikelyToKeepUp", from: before.likelyToKeepUp, to: flags.likelyToKeepUp)
        report("isPlaybackBufferFull", from: before.full, to: flags.full)
        report("isPlaybackBufferEmpty", from: before.empty, to: flags.empty)
        player?.bufferDidChange(self)
    }

    /// Reading the media failed while playing: the item fails, observers and the player hear of it,
    /// and `.AVPlayerItemFailedToPlayToEndTime` carries the error.
    func playbackFailed(_ error: any Error) {
        let before = state.change { s -> Status in
            defer { if s.status == .readyToPlay { (s.status, s.error) = (.failed, error) } }
            return s.status
        }
        guard before == .readyToPlay else { return }
        reportSet("error", from: Optional<any Error>.none as Any, to: error as Any)
        report("status", from: before, to: Status.failed)
        NotificationCenter.default.post(name: AVPlayerItem.failedToPlayToEndTimeNotification, object: self,
                                        userInfo: [AVPlayerItemFailedToPlayToEndTimeErrorKey: error])
        player?.itemDidFail(self)
    }

    /// Seconds of media to read ahead of the item's time; 0 (the default) reads 10 seconds ahead.
    open var preferredForwardBufferDuration: TimeInterval {
        get { snapshot.preferredForwardBufferDuration }
        set { change { $0.preferredForwardBufferDuration = newValue } }
    }

    /// Where forward playback ends; `.invalid` (the default) plays to the end.
    open var forwardPlaybackEndTime: CMTime {
        get { snapshot.forwardPlaybackEndTime }
        set { change { $0.forwardPlaybackEndTime = newValue } }
    }

    /// Where reverse playback would end; recorded (Avocet does not play in reverse).
    open var reversePlaybackEndTime: CMTime {
        get { snapshot.reversePlaybackEndTime }
        set { change { $0.reversePlaybackEndTime = newValue } }
    }

    /// Copied when set.
    open var videoComposition: AVVideoComposition? {
        get { snapshot.videoComposition }
        set { change { $0.videoComposition = newValue.flatMap { $0.copy() as? AVVideoComposition } } }
    }

    /// Copied when set.
    open var audioMix: AVAudioMix? {
        get { snapshot.audioMix }
        set { change { $0.audioMix = newValue.flatMap { $0.copy() as? AVAudioMix } } }
    }

    /// How the item's sound keeps its pitch when the player plays it at a rate other than 1:
    /// ``AVAudioTimePitchAlgorithm/timeDomain`` by default (Apple's default for playback in apps built
    /// for iOS 15 and macOS 12 on).
    ///
    /// From 0.5 to 2, ``AVAudioTimePitchAlgorithm/spectral``, ``AVAudioTimePitchAlgorithm/timeDomain``
    /// and ``AVAudioTimePitchAlgorithm/lowQualityZeroLatency`` keep the pitch (Avocet stretches the
    /// sound in the time domain, WSOLA, for all three, at any rate in that range; Apple's low-quality
    /// algorithm snaps the rate to a few steps), and ``AVAudioTimePitchAlgorithm/varispeed`` lets the
    /// pitch follow the rate. Below 0.5 and above 2 the sound is silent whatever is chosen: Avocet's
    /// own choice, AVAudioPlayer's range (Apple's algorithms reach from 1/32 to 32). A change takes effect while playing, after the
    /// fifth of a second of sound already sent to the device. Reading and setting cost a lock; any
    /// thread.
    ///
    /// Setting a value other than those four constants is ignored and the algorithm stays as it was
    /// (Apple's raises an `invalidArgumentException`).
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { snapshot.audioTimePitchAlgorithm }
        set {
            guard [.spectral, .timeDomain, .lowQualityZeroLatency, .varispeed].contains(newValue) else { return }
            change { $0.audioTimePitchAlgorithm = newValue }
        }
    }

    /// Where the item ends for a player (see `State.endTime`).
    var endTime: CMTime { snapshot.endTime }

    // MARK: - Outputs

    /// The outputs the item hands media to.
    open var outputs: [AVPlayerItemOutput] { snapshot.outputs }

    /// Adds `output` (a video output starts decoding ahead once the item is ready and asked). Adding
    /// an output twice does nothing.
    ///
    /// - Parameter output: An output such as an ``AVPlayerItemVideoOutput``.
    open func add(_ output: AVPlayerItemOutput) {
        guard !snapshot.outputs.contains(where: { $0 === output }) else { return }
        change { $0.outputs.append(output) }
        output.attach(to: self)
    }

    /// Removes `output`; it hands out no more media.
    ///
    /// - Parameter output: An output added with ``add(_:)``; another is ignored.
    open func remove(_ output: AVPlayerItemOutput) {
        change { $0.outputs.removeAll { $0 === output } }
        output.attach(to: nil)
    }

    // MARK: - Loading

    var player: AVPlayer? { owner.withLock { $0?.value } }

    /// Called by the player that takes the item: loading starts (once).
    func attach(to player: AVPlayer?) {
        owner.withLock { $0 = player.map { WeakBox($0) } }
        guard player != nil else { return }
        let start = state.change { s -> Bool in s.loading == nil && s.status == .unknown }
        guard start else { return }
        let task = Task.detached { [weak self] in
            guard let self else { return }
            await self.load()
        }
        change { $0.loading = task }
    }

    private func load() async {
        do {
            let keys = AVAsset.keys.filter { automaticallyLoadedAssetKeys.contains($0.description) }
            for key in keys { try await key.loadErased(from: asset) }
            let (tracks, duration, playable) = try await asset.load(.tracks, .duration, .isPlayable)
            guard playable else {
                throw AVError(.fileFormatNotRecognized, userInfo: [NSLocalizedDescriptionKey: "The asset has no track Avocet can play."])
            }
            let video = tracks.first { $0.mediaType == .video && $0.facts.isEnabled } ?? tracks.first { $0.mediaType == .video }
            var size = CGSize.zero
            var frame = CMTime(value: 1, timescale: 30)
            if let video {
                let box = CGRect(origin: .zero, size: video.facts.naturalSize).applying(video.facts.preferredTransform)
                size = CGSize(width: abs(box.width), height: abs(box.height))
                let rate = Double(video.facts.nominalFrameRate ?? 0)
                if rate > 0.5, rate < 1000 { frame = CMTime(value: Int64((90_000 / rate).rounded()), timescale: 90_000) }
            }
            let itemTracks = tracks.map(AVPlayerItemTrack.init)
            // The options the player chooses by itself, but where the app chose before the item loaded;
            // their tracks are the ones presented (from `finishLoading` on).
            let groups = try await asset.facts().mediaSelectionGroups
            let automatic = groups.map { player?.automaticOption(in: $0) ?? $0.defaultOption }
            change { s in
                var choices = AVMediaSelection.Choices()
                for (group, option) in zip(groups, automatic) {
                    let byHand = s.selection.byHand.contains(group.characteristic)
                    if !(byHand && choices.choose(s.selection.chosen[group.characteristic] ?? nil, in: group, byHand: true)) {
                        choices.choose(option, in: group, byHand: false)
                    }
                }
                (s.selectionGroups, s.selection) = (groups, choices)
            }
            let (shown, frameDuration) = (size, frame)
            // The sound of every language the item may switch to is read with the rest.
            let languages = Set(groups.filter { $0.characteristic == .audible }.flatMap { $0.options.map(\.trackID) })
            if let buffer = makeBuffer(tracks, alternates: tracks.filter { languages.contains($0.trackID) }) {
                // Ready once the first second (or all of a shorter item) is read.
                await buffer.waitFor(PlaybackBuffer.enough)
                if let failure = buffer.failure { throw failure }
            }
            // Reported from a dispatch queue, not the cooperative pool, where handlers might block.
            DispatchQueue.global().async {
                self.finishLoading(status: .readyToPlay, error: nil, duration: duration, size: shown, tracks: itemTracks, frameDuration: frameDuration)
            }
        } catch {
            let failure = AVError.converting(error)
            DispatchQueue.global().async {
                self.finishLoading(status: .failed, error: failure, duration: .indefinite, size: .zero, tracks: [], frameDuration: .invalid)
            }
        }
    }

    /// The read-ahead buffer over the enabled tracks of the asset's file and the `alternates` the item
    /// may switch to (none for a composition, whose tracks' media lies in other assets).
    private func makeBuffer(_ tracks: [AVAssetTrack], alternates: [AVAssetTrack]) -> PlaybackBuffer? {
        let played = tracks.filter { $0.facts.isEnabled && $0.file != nil }
        guard let source = played.first?.file?.source, played.allSatisfy({ $0.file?.source === source }) else { return nil }
        var streams = played.compactMap { $0.file?.stream.index }
        for track in alternates where track.file?.source === source {
            if let index = track.file?.stream.index, !streams.contains(index) { streams.append(index) }
        }
        let buffer = PlaybackBuffer(source: source, streams: streams, from: snapshot.time,
                                    forward: { [weak self] in self?.forwardBufferSeconds ?? 10 },
                                    onChange: { [weak self] in self?.bufferDidChange() },
                                    onFailure: { [weak self] in self?.playbackFailed($0) })
        change { $0.buffer = buffer }
        return buffer
    }

    private func finishLoading(status: Status, error: (any Error)?, duration: CMTime, size: CGSize, tracks: [AVPlayerItemTrack], frameDuration: CMTime) {
        let before = snapshot
        change { s in
            s.status = status
            s.error = error
            s.duration = duration
            s.presentationSize = size
            s.tracks = tracks
            // The selection as it stands now (the app may have chosen while the item was loading).
            AVPlayerItem.present(s.selection, of: s.selectionGroups, on: tracks)
            if frameDuration.isNumeric { s.frameDuration = frameDuration }
        }
        // The player and the outputs learn of it first, so that observers see them ready too.
        player?.itemDidLoad(self)
        for case let output as AVPlayerItemVideoOutput in snapshot.outputs { output.itemDidLoad() }
        for output in snapshot.outputs { output.itemTracksChanged() }
        report("duration", from: before.duration, to: duration)
        report("presentationSize", from: before.presentationSize, to: size)
        if status == .readyToPlay {
            bufferDidChange()
            reportSet("seekableTimeRanges", from: [NSValue](), to: seekableTimeRanges)
            reportSet("tracks", from: [AVPlayerItemTrack](), to: tracks)
        } else {
            reportSet("error", from: Optional<any Error>.none as Any, to: error as Any)
        }
        report("status", from: before.status, to: status)
        // Reading ahead may have failed while the item was becoming ready.
        if status == .readyToPlay, let failure = snapshot.buffer?.failure { playbackFailed(failure) }
    }

    /// Tells the item's observers, and those of its player observing `currentItem?.name`.
    private func report<Value: Equatable>(_ name: String, from old: Value, to new: Value) {
        guard old != new else { return }
        reportSet(name, from: old, to: new)
    }

    private func reportSet(_ name: String, from old: Any, to new: Any) {
        keyValueObservers.didSet(name, from: old, to: new)
        if let player, player.currentItem === self {
            player.keyValueObservers.didSet("currentItem." + name, from: old, to: new)
        }
    }

    // MARK: - Time

    /// The item's time: the player's while one runs it.
    ///
    /// - Returns: The time on the item's timeline; while no player runs the item, the time it was left
    ///   at (zero at first).
    open func currentTime() -> CMTime {
        player?.itemTime(of: self) ?? snapshot.time
    }

    /// Seeks to `time` with the default (unbounded) tolerances (see
    /// ``seek(to:toleranceBefore:toleranceAfter:completionHandler:)``).
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline.
    ///   - completionHandler: Gets whether the seek finished, on a background queue.
    open func seek(to time: CMTime, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity, completionHandler: completionHandler)
    }

    /// Seeks to `time` with the default tolerances, awaiting the landing without holding a thread.
    ///
    /// - Parameter time: A time on the item's timeline.
    /// - Returns: True once the seek has landed; false when a newer seek came first.
    open func seek(to time: CMTime) async -> Bool {
        await withHandOffContinuation { done in seek(to: time) { done.resume(returning: $0) } }
    }

    /// Seeks to `time` within the tolerances, through the player when one plays the item (see
    /// ``AVPlayer/seek(to:toleranceBefore:toleranceAfter:completionHandler:)``); else it only sets the
    /// item's time.
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline; without a player, a time that is not numeric leaves the
    ///     time unchanged, and one before zero sets zero.
    ///   - toleranceBefore: How far before `time` the landing may be.
    ///   - toleranceAfter: How far after `time` the landing may be.
    ///   - completionHandler: Gets whether the seek finished, on a background queue; true at once
    ///     without a player.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        if let player, player.currentItem === self {
            player.seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { completionHandler?($0) }
        } else {
            change { $0.time = time.isNumeric ? max(.zero, time) : $0.time }
            if let completionHandler { DispatchQueue.global().async { completionHandler(true) } }
        }
    }

    /// Seeks to `time` within the tolerances, awaiting the landing without holding a thread.
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline.
    ///   - toleranceBefore: How far before `time` the landing may be.
    ///   - toleranceAfter: How far after `time` the landing may be.
    /// - Returns: True once the seek has landed; false when a newer seek came first.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) async -> Bool {
        await withHandOffContinuation { done in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { done.resume(returning: $0) }
        }
    }

    /// Ends pending seeks of the player running the item: their handlers get false.
    open func cancelPendingSeeks() {
        player?.cancelPendingSeeks()
    }

    /// Moves `stepCount` frames on (back when negative), at the video's frame duration: an exact seek
    /// from the current time.
    ///
    /// - Parameter stepCount: Frames to move; negative moves back. A count whose distance overflows
    ///   does nothing.
    open func step(byCount stepCount: Int) {
        let frame = snapshot.frameDuration
        let (steps, overflow) = frame.value.multipliedReportingOverflow(by: Int64(stepCount))
        guard !overflow else { return }
        let target = currentTime() + CMTime(value: steps, timescale: frame.timescale)
        seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
    }

    /// True once the item is ready.
    open var canStepForward: Bool { status == .readyToPlay }
    /// True once the item is ready.
    open var canStepBackward: Bool { status == .readyToPlay }
    /// True once the item is ready.
    open var canPlayFastForward: Bool { status == .readyToPlay }
    /// True once the item is ready.
    open var canPlaySlowForward: Bool { status == .readyToPlay }
    /// False: Avocet does not play in reverse.
    open var canPlayReverse: Bool { false }
}
