internal import CFFmpeg
import Foundation

/// Writes a media file from samples: tracks encoded from pictures in pixel memory or from
/// interleaved float sound, and tracks whose packets are written unchanged; one `MediaWriter` (the
/// file, its header and interleaving) and an encoder per encoded track. The writing layer behind
/// `AVAssetWriter`.
///
/// Order: `addTrack` for every track, `start()` (the header), appends in any order across tracks,
/// `finish()` (drains every encoder, writes the trailer, closes the file). Blocking CPU work and file
/// I/O: call on an engine thread, one caller at a time.
package final class SampleWriter {
    private let writer: MediaWriter
    private var tracks: [Track] = []
    private var started = false
    package let path: String
    /// The file format written.
    var container: OutputContainer { writer.container }
    /// Segment output: where the bytes gather, how segments are cut, and who hears of them.
    private let segments: Segments?

    /// One segment as it is handed out: its bytes (an initialization segment, or one 'moof' and
    /// 'mdat'), and what each track put in it.
    package struct Segment {
        package var data: Data
        package var isInitialization: Bool
        package var tracks: [TrackReport]
    }

    /// What one track put in a segment (times in the track's time base).
    package struct TrackReport {
        package var track: Int
        package var earliestPresentationTime: MediaTimestamp?
        package var duration: MediaTimestamp?
        /// A video track's first sample: its time, where it lies in the segment's bytes, its size, and
        /// whether it is a keyframe.
        package var firstSample: (presentationTime: MediaTimestamp, offset: Int, length: Int, isSync: Bool)?
    }

    private final class Segments {
        var bytes = Data()
        let cmaf: Bool
        let onSegment: (Segment) -> Void
        /// Seconds between cuts (nil: only `flushSegment()` cuts), from `start` seconds.
        let interval: Double?
        var nextCut: Double?
        /// Per track: packets in the segment being written (size, pts, duration, key), in order.
        var packets: [Int: [(size: Int, pts: Int64, duration: Int64, key: Bool)]] = [:]
        /// Where the next forced keyframe falls, in seconds of output time.
        var nextForcedKey: Double?
        /// Packets of the other tracks waiting for the leading track to reach their time.
        var held: [Int: [OwnedPacket]] = [:]
        /// How far the leading track has been written, in seconds.
        var leadTime = -Double.infinity
        /// How far each track has had samples appended, in seconds of output time.
        var appendedUntil: [Int: Double] = [:]

        init(cmaf: Bool, interval: Double?, start: Double, onSegment: @escaping (Segment) -> Void) {
            (self.cmaf, self.interval, self.onSegment) = (cmaf, interval, onSegment)
            nextCut = interval.map { _ in start }
            nextForcedKey = interval.map { _ in start }
        }
    }

    private final class Track {
        let stream: Int32
        let encoder: StreamEncoder?
        let timeBase: AVRational
        let isVideo: Bool
        var finished = false
        let packet: UnsafeMutablePointer<AVPacket>?

        init(stream: Int32, encoder: StreamEncoder?, timeBase: AVRational, isVideo: Bool) {
            (self.stream, self.encoder, self.timeBase, self.isVideo) = (stream, encoder, timeBase, isVideo)
            packet = encoder == nil ? av_packet_alloc() : nil
        }

        deinit {
            var p = packet
            av_packet_free(&p)
        }
    }

    /// Creates the file at `path` (a local path only, never a URL) for `container`.
    package init(path: String, container: OutputContainer) throws {
        self.path = path
        writer = try MediaWriter(path: path, container: container)
        segments = nil
    }

    /// Writes fragmented MP4 segments in memory instead of a file, each handed to `onSegment` on the
    /// writing thread: the initialization segment when the header is written, then a media segment at
    /// the first keyframe at or after every `interval` seconds from `start` (pictures there are encoded
    /// as keyframes), at `flushSegment()`, and at the end.
    package init(segmentsWithInterval interval: Double?, start: Double, cmaf: Bool, onSegment: @escaping (Segment) -> Void) throws {
        path = "segments"
        let segments = Segments(cmaf: cmaf, interval: interval.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }, start: start, onSegment: onSegment)
        self.segments = segments
        writer = try MediaWriter(container: .mp4) { bytes in segments.bytes.append(contentsOf: bytes) }
    }

    /// Adds a track; returns its number for the appends. `language` is ISO 639-2; `displayMatrix` the
    /// QuickTime track matrix.
    package func addTrack(_ settings: WriterTrackSettings, language: String?, displayMatrix: [Int32]?) throws -> Int {
        let global = writer.wantsGlobalHeaders
        let track: Track
        switch settings {
        case .video(let video):
            let encoder = try FFmpegLog.capturing { try StreamEncoder.video(video, globalHeader: global, source: path) }
            guard let context = encoder.codecContext else { throw closed() }
            track = Track(stream: try writer.addStream(encoder: context), encoder: encoder, timeBase: encoder.timeBase, isVideo: true)
        case .audio(let audio):
            let encoder = try FFmpegLog.capturing { try StreamEncoder.audio(audio, globalHeader: global, source: path) }
            guard let context = encoder.codecContext else { throw closed() }
            track = Track(stream: try writer.addStream(encoder: context), encoder: encoder, timeBase: encoder.timeBase, isVideo: false)
        case .copy(let copied):
            let timeBase = AVRational(num: 1, den: max(1, copied.timeScale))
            let stream = try withParameters(of: copied) { try writer.addStream(copying: $0, timeBase: timeBase) }
            track = Track(stream: stream, encoder: nil, timeBase: timeBase, isVideo: copied.isVideo)
        }
        return add(track, language: language, displayMatrix: displayMatrix)
    }

    /// Adds a track whose packets are copied from a demuxed stream with `parameters`, their times
    /// counted in `timeBase` (an export's stream copy); returns its number for `write(_:track:)`.
    func addTrack(copying parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, language: String?,
                  displayMatrix: [Int32]?) throws -> Int {
        let stream = try writer.addStream(copying: parameters, timeBase: timeBase)
        let track = Track(stream: stream, encoder: nil, timeBase: timeBase, isVideo: parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO)
        return add(track, language: language, displayMatrix: displayMatrix)
    }

    private func add(_ track: Track, language: String?, displayMatrix: [Int32]?) -> Int {
        if let language, !language.isEmpty { writer.setStreamMetadata("language", language, stream: track.stream) }
        if let displayMatrix { writer.setDisplayMatrix(displayMatrix, stream: track.stream) }
        tracks.append(track)
        return tracks.count - 1
    }

    /// The file's stream that track `track` writes (its MP4 track ID less one).
    func stream(of track: Int) -> Int32? {
        tracks.indices.contains(track) ? tracks[track].stream : nil
    }

    private func withParameters<T>(of copied: WriterTrackSettings.CopiedStream, _ body: (UnsafePointer<AVCodecParameters>) throws -> T) throws -> T {
        var allocated = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&allocated) }
        guard let parameters = allocated else {
            throw MediaEngineError(.outOfMemory, source: path, operation: "add a stream", reason: "out of memory")
        }
        guard let name = copied.codec.ffmpegName, let descriptor = avcodec_descriptor_get_by_name(name) else {
            throw MediaEngineError(.unsupported, source: path, operation: "add a stream", reason: "the samples' codec has no FFmpeg name")
        }
        parameters.pointee.codec_id = descriptor.pointee.id
        parameters.pointee.codec_type = copied.isVideo ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        if copied.isVideo {
            parameters.pointee.width = Int32(clamping: copied.width)
            parameters.pointee.height = Int32(clamping: copied.height)
        } else {
            parameters.pointee.sample_rate = copied.sampleRate
            av_channel_layout_default(&parameters.pointee.ch_layout, max(1, copied.channels))
            parameters.pointee.frame_size = copied.frameSize
        }
        if let extra = copied.extradata, !extra.isEmpty, extra.count < 1 << 24,
           let memory = av_mallocz(extra.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) {
            extra.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(memory), byteCount: extra.count) }
            parameters.pointee.extradata = memory.assumingMemoryBound(to: UInt8.self)
            parameters.pointee.extradata_size = Int32(extra.count)
        }
        return try body(UnsafePointer(parameters))
    }

    /// Sets a file tag (title, artist, ...), before `start()`.
    package func setMetadata(_ key: String, _ value: String) {
        writer.setMetadata(key, value)
    }

    /// Sets the file's chapters (microseconds), before `start()`.
    func setChapters(_ chapters: [(start: Int64, end: Int64, title: String)]) throws {
        try writer.setChapters(chapters)
    }

    /// Writes the header. `fastStart` puts MP4's index first; `fragmentSeconds` writes fragments.
    package func start(fastStart: Bool, fragmentSeconds: Double?) throws {
        let fragment = fragmentSeconds.flatMap { $0 > 0 && $0.isFinite ? Int64(min($0, 86_400) * 1_000_000) : nil }
        try FFmpegLog.capturing { try writer.writeHeader(fastStart: fastStart, fragmentMicroseconds: fragment, cmaf: segments?.cmaf ?? false) }
        started = true
        if let segments {
            segments.onSegment(Segment(data: segments.bytes, isInitialization: true, tracks: []))
            segments.bytes = Data()
        }
    }

    /// The time base a track's times are counted in (its encoder's, or the copied stream's).
    package func timeBase(of track: Int) -> Rational? {
        guard tracks.indices.contains(track) else { return nil }
        return Rational(tracks[track].timeBase.num, tracks[track].timeBase.den)
    }

    /// Encodes a picture shown at `pts` (output time) on video track `track`.
    package func append(pixels: PixelMemory, pts: MediaTimestamp, track: Int) throws {
        let t = try active(track)
        guard let encoder = t.encoder, t.isVideo else { throw misuse("track \(track) does not encode pictures") }
        let ticks = rescale(pts, to: t.timeBase)
        noteAppended(track, until: pts.seconds)
        var force = false
        if let segments, let next = segments.nextForcedKey, let interval = segments.interval, pts.seconds >= next - 1e-9 {
            force = true
            var cut = next
            while cut <= pts.seconds + 1e-9 { cut += interval }
            segments.nextForcedKey = cut
        }
        try FFmpegLog.capturing { try encoder.encode(pixels: pixels, pts: ticks, forceKeyframe: force) { try emit($0, track) } }
    }

    /// Encodes interleaved float sound of `channels` channels at `rate` starting at `pts` (output time)
    /// on audio track `track`; sound of another rate or channel count than the track's is converted.
    package func append(sound samples: [Float], rate: Int32, channels: Int32, pts: MediaTimestamp, track: Int) throws {
        let t = try active(track)
        guard let encoder = t.encoder, !t.isVideo else { throw misuse("track \(track) does not encode sound") }
        guard rate > 0, channels > 0 else { throw misuse("sound of \(channels) channels at \(rate) Hz") }
        let ticks = rescale(pts, to: t.timeBase)
        noteAppended(track, until: pts.seconds + Double(samples.count / Int(channels)) / Double(rate))
        try FFmpegLog.capturing {
            try encoder.encode(interleaved: samples, rate: rate, channels: channels, pts: ticks) { try emit($0, track) }
        }
    }

    /// Encodes a decoded frame shown at `pts` (output time) on video track `track`, scaled straight to
    /// the encoder's size and format; nil encodes black.
    func append(frame: UnsafePointer<AVFrame>?, pts: MediaTimestamp, track: Int) throws {
        let t = try active(track)
        guard let encoder = t.encoder, t.isVideo else { throw misuse("track \(track) does not encode pictures") }
        noteAppended(track, until: pts.seconds)
        try FFmpegLog.capturing { try encoder.encode(frame: frame, pts: rescale(pts, to: t.timeBase)) { try emit($0, track) } }
    }

    /// Writes a demuxed packet, its times already in track `track`'s time base, on a copied track.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, track: Int) throws {
        let t = try active(track)
        guard t.encoder == nil else { throw misuse("track \(track) encodes; it takes no packets") }
        let time = packet.pointee.pts != avocet_nopts_value() ? packet.pointee.pts : packet.pointee.dts
        noteAppended(track, until: Double(time) * Double(t.timeBase.num) / Double(max(1, t.timeBase.den)))
        try FFmpegLog.capturing { try emit(packet, track) }
    }

    /// Writes one packet unchanged on copied track `track`, its times in output time.
    package func append(packet bytes: UnsafeRawBufferPointer, pts: MediaTimestamp?, dts: MediaTimestamp?, duration: MediaTimestamp?,
                        isKeyframe: Bool, track: Int) throws {
        let t = try active(track)
        guard t.encoder == nil, let packet = t.packet else { throw misuse("track \(track) encodes; it takes no packets") }
        if let time = pts ?? dts { noteAppended(track, until: time.seconds) }
        guard bytes.count > 0, bytes.count < Int(Int32.max) else { return }
        av_packet_unref(packet)
        try FFmpeg.check(av_new_packet(packet, Int32(bytes.count)), "write a sample", source: path)
        if let base = bytes.baseAddress, let data = packet.pointee.data { UnsafeMutableRawPointer(data).copyMemory(from: base, byteCount: bytes.count) }
        let nopts = avocet_nopts_value()
        packet.pointee.pts = pts.map { rescale($0, to: t.timeBase) } ?? nopts
        packet.pointee.dts = dts.map { rescale($0, to: t.timeBase) } ?? packet.pointee.pts
        packet.pointee.duration = duration.map { rescale($0, to: t.timeBase) } ?? 0
        packet.pointee.flags = isKeyframe ? AV_PKT_FLAG_KEY : 0
        try FFmpegLog.capturing { try emit(packet, track) }
    }

    /// Drains track `track`'s encoder: it takes nothing more.
    package func finish(track: Int) throws {
        let t = try active(track)
        if let encoder = t.encoder {
            try FFmpegLog.capturing {
                let write: (UnsafeMutablePointer<AVPacket>) throws -> Void = { try self.emit($0, track) }
                if t.isVideo { try encoder.drain(write) } else { try encoder.finishSound(write) }
            }
        }
        t.finished = true
        // The leading track has ended: nothing holds the others back any more.
        if let segments, track == (tracks.firstIndex { $0.isVideo } ?? 0) {
            segments.leadTime = .infinity
            try FFmpegLog.capturing { try release(upTo: .infinity, segments) }
        }
    }

    /// Drains every track not yet finished, writes the trailer and closes the file (segments: hands
    /// out the last one). Without `drainingEncoders` what the encoders still hold is dropped (an
    /// export stopped at its file length limit).
    package func finish(drainingEncoders: Bool = true) throws {
        if drainingEncoders {
            for (i, track) in tracks.enumerated() where !track.finished { try finish(track: i) }
        }
        if let segments { try FFmpegLog.capturing { try release(upTo: .infinity, segments) } }
        try FFmpegLog.capturing { try writer.finish() }
        if let segments, !segments.packets.isEmpty { cutSegment(segments) }
    }

    /// Where segments are cut from, in seconds of output time (the writer's initial segment start less
    /// its session start); before the first sample.
    package func setSegmentStart(_ seconds: Double) {
        guard let segments, segments.interval != nil, seconds.isFinite else { return }
        segments.nextCut = seconds
        segments.nextForcedKey = seconds
    }

    /// Ends the segment being written now and hands it out (segment output only; nothing when it is
    /// empty).
    package func flushSegment() throws {
        guard let segments, !segments.packets.isEmpty else { return }
        try FFmpegLog.capturing { try writer.flushFragment() }
        cutSegment(segments)
    }

    /// Writes an encoded or copied packet of `track`. Segment output interleaves by time: the other
    /// tracks' packets wait until the leading track (the first video track, else the first) has
    /// reached their time, so that each segment holds the same span of every track; a segment is cut
    /// at a keyframe of the leading track at or after the cut time, after the others' packets before it.
    private func emit(_ packet: UnsafeMutablePointer<AVPacket>, _ track: Int) throws {
        guard let segments else {
            let t = tracks[track]
            return try writer.write(packet, stream: t.stream, timeBase: t.timeBase)
        }
        let lead = tracks.firstIndex { $0.isVideo } ?? 0
        guard track == lead, !tracks[lead].finished || tracks.count == 1 else {
            guard let copy = av_packet_clone(packet) else {
                throw MediaEngineError(.outOfMemory, source: path, operation: "write a segment", reason: "out of memory")
            }
            segments.held[track, default: []].append(OwnedPacket(copy))
            av_packet_unref(packet)
            return try release(upTo: segments.leadTime, segments)
        }
        let p = packet.pointee
        let t = tracks[track]
        let seconds = Double(p.pts) * Double(t.timeBase.num) / Double(t.timeBase.den)
        if p.flags & AV_PKT_FLAG_KEY != 0, let cut = segments.nextCut, seconds >= cut - 1e-9, let interval = segments.interval {
            if segments.packets[lead]?.isEmpty == false {
                try release(upTo: cut, segments)
                try writer.flushFragment()
                cutSegment(segments)
            }
            var next = cut
            while next <= seconds + 1e-9 { next += interval }
            segments.nextCut = next
        }
        try write(packet, track, segments)
        let decode = p.dts != avocet_nopts_value() ? p.dts : p.pts
        segments.leadTime = max(segments.leadTime, Double(decode) * Double(t.timeBase.num) / Double(t.timeBase.den))
        try release(upTo: segments.leadTime, segments)
    }

    /// Writes a packet into the segment being made, noting what it adds to the segment's report.
    private func write(_ packet: UnsafeMutablePointer<AVPacket>, _ track: Int, _ segments: Segments) throws {
        let p = packet.pointee
        segments.packets[track, default: []].append((Int(p.size), p.pts, p.duration, p.flags & AV_PKT_FLAG_KEY != 0))
        let t = tracks[track]
        try writer.write(packet, stream: t.stream, timeBase: t.timeBase)
    }

    /// Writes the held packets of the other tracks whose time is before `time` seconds, in time order.
    private func release(upTo time: Double, _ segments: Segments) throws {
        while true {
            var best: (track: Int, seconds: Double)?
            for (track, held) in segments.held {
                guard let first = held.first else { continue }
                let base = tracks[track].timeBase
                let seconds = Double(first.pointer.pointee.pts) * Double(base.num) / Double(base.den)
                if seconds < time, best.map({ seconds < $0.seconds }) ?? true { best = (track, seconds) }
            }
            guard let best, let packet = segments.held[best.track]?.removeFirst() else { return }
            try write(packet.pointer, best.track, segments)
        }
    }

    /// How far each held-back track's packets run ahead of the leading track, in seconds: a writer
    /// holds an input that runs far ahead back, so held packets stay few. Empty for files.
    /// Counted from what was appended (an encoder's delay does not count); nothing is ahead of a
    /// leading track that has had nothing appended yet, or has finished.
    package var secondsAheadOfLead: [Int: Double] {
        guard let segments else { return [:] }
        let lead = tracks.firstIndex { $0.isVideo } ?? 0
        guard let leadUntil = segments.appendedUntil[lead], !tracks[lead].finished else { return [:] }
        var ahead: [Int: Double] = [:]
        for (track, until) in segments.appendedUntil where track != lead { ahead[track] = until - leadUntil }
        return ahead
    }

    /// Notes how far `track` has had samples appended (segment output's back-pressure).
    private func noteAppended(_ track: Int, until seconds: Double) {
        guard let segments, seconds.isFinite else { return }
        segments.appendedUntil[track] = max(segments.appendedUntil[track] ?? -.infinity, seconds)
    }

    /// Hands out the bytes gathered as one media segment, with what each track put in it.
    private func cutSegment(_ segments: Segments) {
        let data = segments.bytes
        // Where the media data starts: after the 'moof' box and the 'mdat' header.
        let moof = data.count >= 8 ? data.prefix(4).reduce(0) { $0 << 8 | Int($1) } : 0
        var offset = moof + 8
        var reports: [TrackReport] = []
        for index in segments.packets.keys.sorted() {
            guard let packets = segments.packets[index], let first = packets.first else { continue }
            let base = tracks[index].timeBase
            let tb = Rational(base.num, base.den)
            let earliest = packets.map(\.pts).min() ?? first.pts
            let latest = packets.map(\.pts).max() ?? first.pts
            var duration = packets.reduce(Int64(0)) { $0.addingSaturating($1.duration) }
            if packets.contains(where: { $0.duration <= 0 }) {
                // Encoders that leave durations out (x264's pictures): the span of the times, and one
                // more step of their average spacing for the last.
                let span = latest.subtractingSaturating(earliest)
                duration = packets.count > 1 ? span.addingSaturating(span / Int64(packets.count - 1)) : max(first.duration, 0)
            }
            var report = TrackReport(track: index, earliestPresentationTime: MediaTimestamp(value: earliest, timeBase: tb),
                                     duration: MediaTimestamp(value: duration, timeBase: tb), firstSample: nil)
            if tracks[index].isVideo {
                report.firstSample = (MediaTimestamp(value: first.pts, timeBase: tb), offset, first.size, first.key)
            }
            offset += packets.reduce(0) { $0 + $1.size }
            reports.append(report)
        }
        segments.onSegment(Segment(data: data, isInitialization: false, tracks: reports))
        segments.bytes = Data()
        segments.packets = [:]
    }

    /// Bytes written so far.
    package var bytesWritten: Int64 { writer.bytesWritten }

    private func active(_ track: Int) throws -> Track {
        guard started else { throw misuse("the file's header is not written yet") }
        guard tracks.indices.contains(track), !tracks[track].finished else { throw misuse("track \(track) is finished or unknown") }
        return tracks[track]
    }

    private func rescale(_ time: MediaTimestamp, to base: AVRational) -> Int64 {
        guard time.timeBase.numerator > 0, time.timeBase.denominator > 0 else { return 0 }
        let rounding = AVRounding(rawValue: AV_ROUND_NEAR_INF.rawValue | AV_ROUND_PASS_MINMAX.rawValue)
        return av_rescale_q_rnd(time.value, AVRational(num: time.timeBase.numerator, den: time.timeBase.denominator), base, rounding)
    }

    private func misuse(_ words: String) -> MediaEngineError {
        MediaEngineError(.invalidArgument, source: path, operation: "write", reason: words)
    }

    private func closed() -> MediaEngineError {
        MediaEngineError(.failed, source: path, operation: "add a stream", reason: "the encoder closed")
    }
}
