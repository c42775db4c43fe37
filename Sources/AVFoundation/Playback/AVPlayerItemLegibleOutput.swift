import Foundation
internal import Locking

/// Delivers the text of the item's presented subtitle track to a push delegate as the item plays:
/// each time the set of cues showing changes, the strings showing then (empty arrays when the last
/// cue ends), `advanceIntervalForDelegateInvocation` seconds ahead of the item's time where asked.
///
/// The subtitle track presented is the item's enabled legible track (its media selection: see
/// ``AVPlayerItem/select(_:in:)``); when the selection changes, the new track's cues are read. Text
/// tracks are read whole when the item loads, through a reader of their own on the engine's threads
/// (SubRip, WebVTT, ASS and SSA, MP4 text; at most 100,000 cues or 16 MiB of text or native samples,
/// the rest left out): a remote asset is read through once for it. Bitmap subtitles (PGS, VobSub, DVB) have no
/// text: ask for their subtypes with ``init(mediaSubtypesForNativeRepresentation:)`` to get their
/// samples instead. Cues follow the player's time while it plays; a seek flushes the sequence
/// (``AVPlayerItemOutputPushDelegate/outputSequenceWasFlushed(_:)``) and delivers what shows where it
/// lands. The strings carry no styling attributes. The delegate is called on its queue.
open class AVPlayerItemLegibleOutput: AVPlayerItemOutput, @unchecked Sendable {
    // @unchecked Sendable: the mutable state sits behind `state`; the delegate is called on its queue.

    /// How text is styled for the strings (Apple's resolutions; Avocet's strings carry no styling).
    public struct TextStylingResolution: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        /// Makes a resolution from its raw value.
        ///
        /// - Parameter rawValue: "Default" or "SourceAndRulesOnly".
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The source's styling, the rules' and the user's.
        public static let `default` = TextStylingResolution(rawValue: "Default")
        /// The source's styling and the rules', not the user's.
        public static let sourceAndRulesOnly = TextStylingResolution(rawValue: "SourceAndRulesOnly")
    }

    /// One cue: when it shows, its text, and its stored sample where it is handed over natively.
    struct Cue {
        var start: CMTime
        var end: CMTime
        var text: String?
        var sample: CMSampleBuffer?
    }

    private struct State {
        weak var delegate: (any AVPlayerItemLegibleOutputPushDelegate)?
        var queue: DispatchQueue?
        var advance: TimeInterval = 0
        var styling = TextStylingResolution.default
        var cues: [Cue] = []
        /// The indexes of the cues last delivered as showing.
        var showing: [Int] = []
        var reading: Task<Void, Never>?
        /// Which track the cues are of, so that a selection that keeps it reads nothing again.
        var track: CMPersistentTrackID?
        /// Counts the track changes: a reading finished for an older one is dropped.
        var generation = 0
        /// The longest cue, which bounds the cues looked at for a time.
        var maxDuration = CMTime.zero
    }

    private let state = LockedState(State())
    private let nativeSubtypes: Set<FourCharCode>

    static let maximumCues = 100_000
    static let maximumTextBytes = 16 << 20

    /// An output that delivers every cue as an attributed string.
    public override init() {
        nativeSubtypes = []
        super.init()
    }

    /// An output that hands over the samples of `subtypes` (four-character codes such as `tx3g`) as
    /// they are stored, and the others as attributed strings.
    ///
    /// - Parameter subtypes: Media subtypes, as numbers, to deliver as `CMSampleBuffer`s.
    public init(mediaSubtypesForNativeRepresentation subtypes: [NSNumber]) {
        nativeSubtypes = Set(subtypes.map(\.uint32Value))
        super.init()
    }

    deinit {
        state.value.reading?.cancel()
    }

    /// Sets the delegate (held weakly) and the queue its method is called on.
    ///
    /// - Parameters:
    ///   - delegate: The delegate; nil for none.
    ///   - delegateQueue: The queue to call it on; a serial queue keeps the deliveries in order.
    open func setDelegate(_ delegate: (any AVPlayerItemLegibleOutputPushDelegate)?, queue delegateQueue: DispatchQueue?) {
        state.change { s in
            s.delegate = delegate
            s.queue = delegateQueue
        }
    }

    /// The delegate, if it is still alive.
    open var delegate: (any AVPlayerItemLegibleOutputPushDelegate)? { state.value.delegate }
    /// The queue the delegate is called on.
    open var delegateQueue: DispatchQueue? { state.value.queue }

    /// How many seconds ahead of the item's time cues are delivered; default 0.
    open var advanceIntervalForDelegateInvocation: TimeInterval {
        get { state.value.advance }
        set { state.change { $0.advance = newValue.isFinite ? max(0, newValue) : 0 } }
    }

    /// The styling resolution; `.default` or `.sourceAndRulesOnly` (another value is ignored, where
    /// Apple's raises an exception).
    open var textStylingResolution: TextStylingResolution {
        get { state.value.styling }
        set {
            guard newValue == .default || newValue == .sourceAndRulesOnly else { return }
            state.change { $0.styling = newValue }
        }
    }

    // MARK: - Following the item

    override func itemTracksChanged() {
        let track = item?.tracks.first { item in
            item.isEnabled && item.assetTrack.map { MediaSelectionRules.characteristic(of: $0.mediaType) == .legible } == true
        }?.assetTrack
        // A new track (or none): what showed goes (the delegate hears a flush), and the new track's
        // cues are read; the reading task is swapped in under the lock that numbers it.
        let change = state.change { s -> (generation: Int, cleared: Bool)? in
            guard s.track != track?.trackID else { return nil }
            s.reading?.cancel()
            let cleared = !s.showing.isEmpty
            (s.cues, s.showing, s.track, s.reading, s.maxDuration) = ([], [], track?.trackID, nil, .zero)
            s.generation += 1
            return (s.generation, cleared)
        }
        guard let change else { return }
        if change.cleared { deliver(flushing: true) }
        guard let track, let asset = track.asset else { return }
        let task = Task { [weak self, nativeSubtypes] in
            let cues = await AVPlayerItemLegibleOutput.readCues(of: track, in: asset, native: nativeSubtypes)
            guard let self else { return }
            let installed = self.state.change { s -> Bool in
                guard s.generation == change.generation else { return false }
                s.cues = cues
                s.maxDuration = cues.map { $0.end - $0.start }.max() ?? .zero
                return true
            }
            // What shows now, without waiting for the next tick (a paused item shows it too).
            if installed { self.deliver(flushing: false) }
        }
        state.change { s in
            if s.generation == change.generation { s.reading = task } else { task.cancel() }
        }
    }

    override func itemTimeAdvanced(to time: CMTime) {
        deliver(flushing: false)
    }

    /// Cues start and end at times of their own: the player ticks at its finest.
    override var wantsFineTicks: Bool { true }

    override func itemTimeJumped(to time: CMTime) {
        deliver(flushing: true)
    }

    /// Delivers the cues showing at the item's time now (plus the advance interval) when they differ
    /// from those delivered last, after telling of a flush. The time is read, and the delivery queued,
    /// under the output's lock, so deliveries reach the queue in the order of the times they are for
    /// (a tick and a seek landing at once cannot reorder them).
    private func deliver(flushing: Bool) {
        let output = self
        state.change { s in
            guard let delegate = s.delegate, let queue = s.queue, let (time, look) = output.itemTime(ahead: s.advance) else { return }
            let showing = AVPlayerItemLegibleOutput.showing(s.cues, at: look, longest: s.maxDuration)
            guard flushing || showing != s.showing else { return }
            let ended = s.showing.compactMap { s.cues.indices.contains($0) && !showing.contains($0) ? s.cues[$0].end : nil }
            s.showing = showing
            let cues = showing.map { s.cues[$0] }
            // When the strings start: the latest start among them; for none, when the last of those
            // that showed ended.
            let at = cues.map(\.start).max() ?? ended.max() ?? time
            let box = UncheckedBox((delegate, cues))
            queue.async {
                let (delegate, cues) = box.value
                if flushing { delegate.outputSequenceWasFlushed(output) }
                let strings = cues.compactMap { $0.text.map { NSAttributedString(string: $0) } }
                let natives: [Any] = cues.compactMap(\.sample)
                delegate.legibleOutput(output, didOutputAttributedStrings: strings, nativeSampleBuffers: natives, forItemTime: at)
            }
        }
    }

    /// The indexes of the cues showing at `time`: `cues` sorted by start, so only those starting within
    /// `longest` (the longest cue) before `time` are looked at.
    static func showing(_ cues: [Cue], at time: CMTime, longest: CMTime) -> [Int] {
        // The first cue starting after `time`.
        var low = 0, high = cues.count
        while low < high {
            let mid = low + (high - low) / 2
            if cues[mid].start <= time { low = mid + 1 } else { high = mid }
        }
        var found: [Int] = []
        var i = low - 1
        let earliest = time - longest
        while i >= 0, cues[i].start >= earliest {
            if time < cues[i].end { found.append(i) }
            i -= 1
        }
        return found.reversed()
    }

    /// The cues of `track`, read whole through a reader of their own (waiting without holding a thread);
    /// empty when the track cannot be read. The samples of `native` subtypes are kept as they are.
    private static func readCues(of track: AVAssetTrack, in asset: AVAsset, native: Set<FourCharCode>) async -> [Cue] {
        if let rendition = track as? HLSSubtitleTrack {
            return await rendition.cues().map { Cue(start: $0.start, end: $0.end, text: $0.text, sample: nil) }
        }
        var cues: [Cue] = []
        var bytes = 0
        await readStoredSamples(of: track, in: asset) { sample in
            guard let (start, end) = SubtitleText.range(of: sample) else { return true }
            let subtype = sample.formatDescription?.mediaSubType.rawValue ?? 0
            if native.contains(subtype) {
                bytes += max(0, CMSampleBufferGetTotalSampleSize(sample))
                cues.append(Cue(start: start, end: end, text: nil, sample: sample))
            } else if let text = SubtitleText.text(of: sample) {
                bytes += text.utf8.count
                cues.append(Cue(start: start, end: end, text: text, sample: nil))
            }
            return cues.count < maximumCues && bytes < maximumTextBytes
        }
        return cues.sorted { $0.start < $1.start }
    }
}
