import Foundation
internal import MediaEngine

/// The reading side of an ``AVAudioFile``: the file's first audio stream, decoded at its own rate and
/// channel count (FFmpeg's decoder, libswresample for the sample format), counted in frames from the
/// stream's first sound. Decoding runs ahead of the reads from the first: MP3 and Opus in segments on the
/// engine's compute threads (`SegmentedAudioDecoder`), other codecs on a thread of the file's own
/// (`DecodeAhead`); the rest on the calling thread, one caller at a time (the file's lock sees to that).
final class AudioFileReader {
    let path: String
    /// The stream as the container describes it (for `fileFormat`), and the frames a second.
    let stream: StreamInfo
    let format: ContainerFormat
    let rate: Int32
    let channels: Int32
    /// The stream's place among those the container describes (the packet scan's order).
    private let slot: Int?
    /// The format the stream is stored in (`fileFormat`); nil where none describes it.
    let storedFormat: AVAudioFormat?
    private let ahead: DecodeAhead
    private let token = CancellationToken()
    /// The next frame `read` gives, from the stream's first sound.
    private(set) var position: Int64 = 0
    /// Where the stream's first sound lies (item time, frames); known once something was decoded.
    private var origin: Int64?
    /// The length once worked out.
    private var knownLength: Int64?
    /// Whether the position was set at or past the end.
    private var atEnd = false

    /// Opens `path` and its first audio stream (the default one where several are), and parses the
    /// header, for both the file's description and its reading (once, but for Matroska, whose
    /// description reads its first packets: then twice); reads the first packets only for containers
    /// whose header leaves facts out.
    init(path: String) throws {
        self.path = path
        let (info, reader, choice) = try AudioSampleReader.opening(source: FileByteSource(path: path), options: DemuxerOptions(),
                                                                   cancellation: token, decoding: .segmented()) { info in
            let choice = try AudioStreamChoice(info, name: path, failedCall: "ExtAudioFileOpenURL", domain: AudioError.domain)
            return (choice.stream.index, choice.rate, choice.channels, choice)
        }
        (stream, format, rate, channels) = (choice.stream, info.format, choice.rate, choice.channels)
        slot = info.streams.firstIndex { $0.index == choice.stream.index }
        storedFormat = choice.storedFormat()
        try AudioFileReader.start(reader, atFrame: 0, rate: choice.rate, token)
        // A stream decoded in segments is decoded ahead on the engine's compute threads already: its
        // reads convert on the calling thread, with no thread of their own between.
        ahead = DecodeAhead(reader, channels: Int(choice.channels), token: token, inline: reader.decodesInSegments)
    }

    deinit { ahead.stop() }

    /// Reads up to `count` frames into `buffer` from its first frame, setting its `frameLength`; fewer
    /// only at the end of the stream (none there). A damaged stream throws once what could be read
    /// was read.
    func read(_ count: Int, into buffer: AVAudioPCMBuffer) throws {
        buffer.frameLength = 0
        guard !atEnd else { return }
        var filled = 0
        while filled < count {
            let got = try ahead.read(count - filled) { samples -> Int in
                buffer.store(interleaved: samples, at: filled)
            }
            if origin == nil { origin = ahead.firstFrame }
            guard got > 0 else { break }
            filled += got
            position += Int64(got)
        }
        buffer.frameLength = AVAudioFrameCount(filled)
    }

    /// Makes `frame` (from the stream's first sound) the next frame read; exact to the sample. At or
    /// past the end (which may need the length worked out) nothing more is read.
    ///
    /// Near the start (the first two seconds) the stream is decoded afresh from its first packet and
    /// the frames before `frame` dropped: a decoder sent back to the first packet by a seek does not
    /// always start as it did (FFmpeg's MP4 reader gives the skip of AAC's priming to the first packet
    /// read after opening only). Further on, the container seeks to the packet before and decodes
    /// from there.
    func seek(to frame: Int64) throws {
        let target = max(0, frame)
        if target >= (try length()) {
            atEnd = true
            position = target
            return
        }
        atEnd = false
        if target < 2 * Int64(rate) {
            try ahead.restart { _ in try AudioFileReader.fromTheStart(path: path, stream: stream.index, rate: rate, channels: channels, token) }
            var dropped: Int64 = 0
            while dropped < target {
                let got = try ahead.read(Int(min(target - dropped, 65_536))) { $0.count / Int(channels) }
                if got == 0 { break }
                dropped += Int64(got)
            }
            if origin == nil { origin = ahead.firstFrame }
            position = target
            return
        }
        try ahead.restart { reader in
            if origin == nil {
                // Where the sound starts is known once a frame was decoded: decode one from the start.
                try AudioFileReader.start(reader, atFrame: 0, rate: rate, token)
                _ = try reader.read(1, token) { $0.count }
                origin = reader.firstFrame ?? 0
            }
            try AudioFileReader.start(reader, atFrame: (origin ?? 0).addingSaturating(target), rate: rate, token)
            return reader
        }
        position = target
    }

    /// A reader of stream `stream` at its own rate and channels, at the stream's first packet.
    private static func fromTheStart(path: String, stream: Int, rate: Int32, channels: Int32, _ token: CancellationToken) throws -> AudioSampleReader {
        let reader = try AudioSampleReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: stream,
                                           outputRate: rate, channels: channels, cancellation: token, decoding: .segmented())
        try start(reader, atFrame: 0, rate: rate, token)
        return reader
    }

    /// Starts `reader` at `frame` of the stream's own timeline at `rate` (0: its first packet), at
    /// speed 1, from the stream's own first sound (no silence before it).
    private static func start(_ reader: AudioSampleReader, atFrame frame: Int64, rate: Int32, _ token: CancellationToken) throws {
        try reader.start(at: MediaTimestamp(value: frame, timeBase: Rational(1, rate)), speed: 1, fillsGap: false, token)
    }

    /// The frames the stream decodes to, exact: from the header where it states them (linear PCM, FLAC's
    /// stream info, an MP4 track's edited duration), else from a scan of every packet's times less the
    /// samples the container tells the decoder to drop (MP3's LAME delay and padding, Ogg's pre-skip),
    /// else (times too coarse to count samples in, as Matroska's milliseconds) by decoding the stream.
    /// The first call may read the whole file; later calls are free.
    func length() throws -> Int64 {
        if let knownLength { return knownLength }
        let counted = try headerLength() ?? scannedLength() ?? decodedLength()
        knownLength = counted
        return counted
    }

    private func headerLength() -> Int64? {
        guard let duration = stream.duration, duration > 0 else { return nil }
        switch (format, stream.codec) {
        case (.wav, .pcm), (.aiff, .pcm), (.caf, .pcm), (.flac, .flac), (.quickTime, _):
            return frames(duration)
        default:
            return nil
        }
    }

    private func scannedLength() throws -> Int64? {
        // FFmpeg's Vorbis decoder gives no sound for a stream's first packet (its blocks only overlap
        // the next): the packets' times say more than it decodes, so Vorbis is counted by decoding.
        guard stream.codec != .vorbis else { return nil }
        let tb = stream.timeBase
        guard tb.numerator > 0, tb.denominator > 0 else { return nil }
        // Whole samples a tick (Ogg's 1/rate) or whole ticks a sample (MP3's 1/14112000): times
        // convert to samples exactly.
        let samplesPerTick = Int64(tb.numerator) * Int64(rate)
        guard samplesPerTick % Int64(tb.denominator) == 0 || Int64(tb.denominator) % samplesPerTick == 0 else { return nil }
        let all = try Demuxer.scanPackets(source: FileByteSource(path: path), options: DemuxerOptions(), cancellation: token)
        guard let slot, all.indices.contains(slot),
              let first = all[slot].firstPresentationTime, let end = all[slot].endPresentationTime, end > first else { return nil }
        // Ogg's demuxer has already shortened the last packet by its end trim.
        let discarded = format == .ogg ? 0 : all[slot].discardedAtEnd
        return max(0, frames(end - first) - all[slot].skippedAtStart - discarded)
    }

    /// Counts the frames by decoding the whole stream through a reader of its own.
    private func decodedLength() throws -> Int64 {
        let counter = try AudioFileReader.fromTheStart(path: path, stream: stream.index, rate: rate, channels: channels, token)
        var total: Int64 = 0
        while true {
            let got = try counter.read(65_536, token) { $0.count / Int(channels) }
            if got == 0 { break }
            total += Int64(got)
        }
        return total
    }

    /// Stream ticks as frames at the stream's rate, rounded to the nearest.
    private func frames(_ ticks: Int64) -> Int64 {
        MediaTimestamp(value: ticks, timeBase: stream.timeBase).rescaled(to: Rational(1, rate))
    }

    /// Stops what is running: the decoding ahead, and a length scan or read in progress.
    func cancel() {
        ahead.stop()
        token.cancel()
    }
}
