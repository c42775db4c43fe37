import Foundation
internal import Locking

/// Delivers the text of the item's presented subtitle track to a push delegate as the item plays:
/// each time the set of cues showing changes, the strings showing then (empty arrays when the last
/// cue ends), `advanceIntervalForDelegateInvocation` seconds ahead of the item's time where asked.
///
/// The subtitle track presented is the item's enabled legible track (its media selection: see
/// ``AVPlayerItem/select(_:in:)``); when the selection changes, the new track's cues are read. Text
/// tracks are read whole when the item loads, through a reader of their own on the engine's threads
/// (SubRip, WebVTT, ASS and SSA, MP4 text; at most 100,000 cues or 16 MiB of text, the rest left
/// out): a remote asset is read through once for it. Bitmap subtitles (PGS, VobSub, DVB) have no
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
        let track = item?.tracks.first { $0.isEnabled && [.subtitle, .closedCaption, .text].contains($0.assetTrack?.mediaType) }?.assetTrack
        let starts = state.change { s -> Bool in
            guard s.track != track?.trackID || track == nil else { return false }
            s.reading?.cancel()
            (s.cues, s.showing, s.track, s.reading) = ([], [], track?.trackID, nil)
            return track != nil
        }
        guard starts, let track, let asset = track.asset else { return }
        let id = track.trackID
        let task = Task { [weak self, nativeSubtypes] in
            let cues = await AVPlayerItemLegibleOutput.readCues(of: track, in: asset, native: nativeSubtypes)
            self?.state.change { s in
                if s.track == id { s.cues = cues }
            }
        }
        state.change { $0.reading = task }
    }

    override func itemTimeAdvanced(to time: CMTime) {
        deliver(at: time, flushing: false)
    }

    override func itemTimeJumped(to time: CMTime) {
        deliver(at: time, flushing: true)
    }

    /// Delivers the cues showing at `time` (plus the advance interval) when they differ from those
    /// delivered last, after telling of a flush.
    private func deliver(at time: CMTime, flushing: Bool) {
        let due = state.change { s -> (delegate: any AVPlayerItemLegibleOutputPushDelegate, queue: DispatchQueue, cues: [Cue]?, at: CMTime)? in
            guard let delegate = s.delegate, let queue = s.queue, time.isNumeric else { return nil }
            let look = time + CMTime(seconds: s.advance, preferredTimescale: 90_000)
            let showing = s.cues.indices.filter { s.cues[$0].start <= look && look < s.cues[$0].end }
            guard flushing || showing != s.showing else { return nil }
            let changed = showing != s.showing || flushing
            s.showing = showing
            let cues = changed ? showing.map { s.cues[$0] } : nil
            let at = cues?.map(\.start).max() ?? time
            return (delegate, queue, cues, at)
        }
        guard let due else { return }
        let output = self
        let at = due.at
        let box = UncheckedBox((due.delegate, due.cues))
        due.queue.async {
            let (delegate, cues) = box.value
            if flushing { delegate.outputSequenceWasFlushed(output) }
            guard let cues else { return }
            let strings = cues.compactMap { $0.text.map { NSAttributedString(string: $0) } }
            let natives: [Any] = cues.compactMap(\.sample)
            delegate.legibleOutput(output, didOutputAttributedStrings: strings, nativeSampleBuffers: natives, forItemTime: at)
        }
    }

    /// The cues of `track`, read whole through a reader of their own (waiting without holding a thread);
    /// empty when the track cannot be read. The samples of `native` subtypes are kept as they are.
    private static func readCues(of track: AVAssetTrack, in asset: AVAsset, native: Set<FourCharCode>) async -> [Cue] {
        guard let reader = try? AVAssetReader(asset: asset) else { return [] }
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        guard reader.canAdd(output) else { return [] }
        reader.add(output)
        guard reader.startReading() else { return [] }
        defer { reader.cancelReading() }
        var cues: [Cue] = []
        var bytes = 0
        do {
            for try await sample in output.sampleBuffers {
                let start = sample.presentationTimeStamp
                guard start.isNumeric else { continue }
                let end = sample.duration.isNumeric && sample.duration > .zero ? start + sample.duration : start + CMTime(value: 2, timescale: 1)
                let subtype = sample.formatDescription?.mediaSubType.rawValue ?? 0
                if native.contains(subtype) {
                    cues.append(Cue(start: start, end: end, text: nil, sample: sample))
                } else if let text = SubtitleText.text(of: sample) {
                    bytes += text.utf8.count
                    cues.append(Cue(start: start, end: end, text: text, sample: nil))
                }
                if cues.count >= maximumCues || bytes >= maximumTextBytes { break }
            }
        } catch {
            return cues
        }
        return cues.sorted { $0.start < $1.start }
    }
}
