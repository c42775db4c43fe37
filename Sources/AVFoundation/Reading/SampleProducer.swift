internal import MediaEngine
import Foundation

/// Makes the sample buffers of one output over a time range, on an engine thread: opened once, started
/// again for each range a random-access output is reset to. One caller at a time (its queue's job).
protocol SampleProducer: AnyObject {
    /// Starts at `range` (item time); the buffers that follow lie in it.
    func start(_ range: CMTimeRange, _ token: CancellationToken) throws
    /// The next sample of the range; nil at its end.
    func next(_ token: CancellationToken) throws -> ProducedSample?
    /// Whether a sample costs less than waking an engine thread and never waits on a network, a
    /// delegate or FFmpeg's demuxing, so that `copyNextSampleBuffer()` may make it on its caller's
    /// thread (`SampleQueue`'s `takesInline`).
    var makesSamplesWithoutWaiting: Bool { get }
    /// The next sample, made on the thread that will take it (`copyNextSampleBuffer()`'s, where
    /// `makesSamplesWithoutWaiting`): it may be a finished buffer where `next` would lend a packet.
    func nextOnTakingThread(_ token: CancellationToken) throws -> ProducedSample?
}

extension SampleProducer {
    var makesSamplesWithoutWaiting: Bool { false }
    func nextOnTakingThread(_ token: CancellationToken) throws -> ProducedSample? { try next(token) }
}

/// A sample made on an engine thread, as it waits in its output's queue: a finished buffer, or a
/// stored packet whose buffer the thread that takes it makes (`StoredPacket`), so that the buffer's
/// memory is allocated and freed on that thread (or, for a packet the buffer refers to, given back
/// from the thread that releases the buffer).
enum ProducedSample {
    case buffer(CMSampleBuffer)
    case packet(StoredPacket)

    /// The sample's buffer; made here for a packet, which goes back to its shelf now, or when the
    /// buffer goes for one it refers to. On the taking thread.
    func sampleBuffer() throws -> CMSampleBuffer {
        switch self {
        case .buffer(let buffer): buffer
        case .packet(let packet): try packet.sampleBuffer()
        }
    }

    /// Drops a sample nobody will take (a packet goes back to its shelf).
    func discard() {
        if case .packet(let packet) = self { packet.lent.giveBack() }
    }

    /// The bytes it holds, for a queue's budget.
    var byteCount: Int {
        switch self {
        case .buffer(let buffer): max(0, CMSampleBufferGetTotalSampleSize(buffer))
        case .packet(let packet): packet.lent.bytes.count
        }
    }
}

/// A stored packet lent by the engine thread that read it (`PacketShelf`), and what its sample
/// buffer needs: made on the thread that takes it, with one copy of its bytes (or none, below).
///
/// It refers to its shelf and its format description without reference counts, which the engine
/// thread and the taking thread would both write for every sample: its producer owns both, and the
/// queue it waits in keeps its producer (see `AVAssetReaderOutput.begin`), so they outlive it.
///
/// With `copies` false (the output's `alwaysCopiesSampleData`), a buffer of a packet of at least
/// `referredBytes` refers to the packet's bytes instead of a copy: the packet goes back to its shelf
/// when the buffer's last reference goes, on that thread, and the buffer holds the shelf (one
/// reference count a sample) until then. Smaller packets are copied still: handing one back from the
/// taking thread costs more than copying it (the 2-hour file of small packets read 10% slower with
/// every packet referred to, where the 1080p file's large ones read 5% faster).
struct StoredPacket {
    /// Packets of this many bytes or more are referred to, not copied, when the output allows it.
    static let referredBytes = 4096

    let lent: PacketShelf.Lent
    private let formatDescription: Unmanaged<CMFormatDescription>?
    let timeBase: Rational
    let copies: Bool

    init(lent: PacketShelf.Lent, formatDescription: CMFormatDescription?, timeBase: Rational, copies: Bool = true) {
        self.lent = lent
        self.formatDescription = formatDescription.map { Unmanaged.passUnretained($0) }
        self.timeBase = timeBase
        self.copies = copies
    }

    /// A buffer holding a copy of the packet's bytes (or, without `copies`, the bytes themselves), with
    /// its times and `notSync` unless it is a keyframe. A copied packet goes back to its shelf here,
    /// made or not; one referred to, when its buffer goes (here, when it could not be made).
    func sampleBuffer() throws -> CMSampleBuffer {
        let bytes = lent.bytes
        var given = false
        defer { if !given { lent.giveBack() } }
        let block: CMBlockBuffer
        if !copies, let base = bytes.baseAddress, bytes.count >= Self.referredBytes {
            let (lent, shelf) = (lent, lent.heldShelf)
            block = try CMBlockBuffer(buffer: UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: base), count: bytes.count)) { _, _ in
                withExtendedLifetime(shelf) { lent.giveBack() }
            }
            given = true
        } else {
            block = try SampleMemory.blockBuffer(copying: bytes)
        }
        return try formatDescription.map { description in
            try description._withUnsafeGuaranteedRef { try Self.sampleBuffer(block, size: bytes.count, timing: lent.timing, formatDescription: $0, timeBase: timeBase) }
        } ?? Self.sampleBuffer(block, size: bytes.count, timing: lent.timing, formatDescription: nil, timeBase: timeBase)
    }

    /// A buffer of a copy of `bytes`, a stored sample's, with its times and `notSync` unless it is a
    /// keyframe.
    static func sampleBuffer(copying bytes: UnsafeRawBufferPointer, timing: StreamReader.PacketTiming, formatDescription: CMFormatDescription?,
                             timeBase: Rational) throws -> CMSampleBuffer {
        try sampleBuffer(SampleMemory.blockBuffer(copying: bytes), size: bytes.count, timing: timing, formatDescription: formatDescription, timeBase: timeBase)
    }

    private static func sampleBuffer(_ block: CMBlockBuffer, size: Int, timing packet: StreamReader.PacketTiming,
                                     formatDescription: CMFormatDescription?, timeBase: Rational) throws -> CMSampleBuffer {
        let timing = CMSampleTimingInfo(duration: CMTime(ticks: packet.duration, timeBase: timeBase),
                                        presentationTimeStamp: packet.presentationTime.map { CMTime(ticks: $0, timeBase: timeBase) } ?? .invalid,
                                        decodeTimeStamp: packet.decodeTime.map { CMTime(ticks: $0, timeBase: timeBase) } ?? .invalid)
        let buffer = try SampleMemory.sampleBuffer(data: block, formatDescription: formatDescription, samples: 1, timing: timing, size: size)
        if !packet.isKeyframe { buffer.markNotSync() }
        return buffer
    }
}

/// Memory of sample buffers: blocks of the C heap, freed with their block buffer; and the buffers made
/// with CoreMedia's C-style calls, which the overlay's initializers would copy into a second buffer
/// (attachments and all: for small stored samples that copy cost as much as the rest of the sample).
enum SampleMemory {
    /// A ready buffer of `samples` samples of `data`, one timing and one size for them all.
    static func sampleBuffer(data: CMBlockBuffer?, formatDescription: CMFormatDescription?, samples: Int, timing: CMSampleTimingInfo,
                             size: Int) throws -> CMSampleBuffer {
        var (timing, size) = (timing, size)
        var made: CMSampleBuffer?
        try StatusCode.check(CMSampleBufferCreateReady(allocator: nil, dataBuffer: data, formatDescription: formatDescription,
                                                       sampleCount: samples, sampleTimingEntryCount: 1, sampleTimingArray: &timing,
                                                       sampleSizeEntryCount: 1, sampleSizeArray: &size, sampleBufferOut: &made))
        guard let made else { throw CMSampleBuffer.Error.allocationFailed }
        return made
    }

    /// A ready buffer of one picture.
    static func pictureBuffer(_ image: CVPixelBuffer, formatDescription: CMVideoFormatDescription, timing: CMSampleTimingInfo) throws -> CMSampleBuffer {
        var timing = timing
        var made: CMSampleBuffer?
        try StatusCode.check(CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: image, formatDescription: formatDescription,
                                                                      sampleTiming: &timing, sampleBufferOut: &made))
        guard let made else { throw CMSampleBuffer.Error.allocationFailed }
        return made
    }

    /// A block buffer holding a copy of `bytes`, in memory of its own (freed with it).
    static func blockBuffer(copying bytes: UnsafeRawBufferPointer) throws -> CMBlockBuffer {
        try blockBuffer(length: bytes.count) { memory in
            if let base = bytes.baseAddress { memory.copyMemory(from: base, byteCount: bytes.count) }
        }
    }

    /// A block buffer of `length` bytes, in memory of its own that `fill` writes. Zero bytes (a
    /// container's empty sample) make an empty block buffer, which CoreMedia cannot make over memory.
    static func blockBuffer(length: Int, fill: (UnsafeMutableRawPointer) throws -> Void) throws -> CMBlockBuffer {
        guard length > 0 else {
            var empty: CMBlockBuffer?
            try StatusCode.check(CMBlockBufferCreateEmpty(allocator: nil, capacity: 0, flags: 0, blockBufferOut: &empty))
            guard let empty else { throw AVError(.outOfMemory, userInfo: [NSLocalizedDescriptionKey: "Out of memory for an empty sample."]) }
            return empty
        }
        guard let memory = malloc(length) else {
            throw AVError(.outOfMemory, userInfo: [NSLocalizedDescriptionKey: "Out of memory for a sample of \(length) bytes."])
        }
        do {
            try fill(memory)
            return try CMBlockBuffer(buffer: UnsafeMutableRawBufferPointer(start: memory, count: length)) { pointer, _ in free(pointer) }
        } catch {
            // Neither filled nor owned by a block buffer: freed here.
            free(memory)
            throw error
        }
    }
}

extension StreamReader {
    /// Starts reading at `range`'s start; returns where the range ends in the stream's ticks, rounded
    /// up (a sample at a tick before the end is in the range, even when the end falls between ticks);
    /// nil for a range without an end.
    func start(_ range: CMTimeRange, _ token: CancellationToken) throws -> Int64? {
        try AVError.converting { try start(at: MediaTimestamp(range.start), token) }
        let end = range.end
        return end.isNumeric ? ticks(MediaTimestamp(end), roundingUp: true) : nil
    }
}

/// Pixel buffers of one format from a pool made again when the size changes: the memory a reader's
/// pictures are converted into. Used by one producer at a time.
final class PixelBufferSupply {
    let pixelFormat: OSType
    private var pool: CVPixelBufferPool?
    private var size: (width: Int, height: Int)?

    init(pixelFormat: OSType) { self.pixelFormat = pixelFormat }

    /// A buffer of `width` x `height` from the pool (its memory reused once let go).
    func buffer(width: Int, height: Int) throws -> CVPixelBuffer {
        if pool == nil || size?.width != width || size?.height != height {
            let attributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: pixelFormat),
                                             kCVPixelBufferWidthKey as String: NSNumber(value: width),
                                             kCVPixelBufferHeightKey as String: NSNumber(value: height)]
            var made: CVPixelBufferPool?
            let status = CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made)
            guard status == kCVReturnSuccess, let made else {
                throw AVError(.outOfMemory, userInfo: [NSLocalizedDescriptionKey: "Could not make pixel buffers of \(width)x\(height) (CVReturn \(status))."])
            }
            (pool, size) = (made, (width, height))
        }
        var buffer: CVPixelBuffer?
        guard let pool, CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer) == kCVReturnSuccess, let buffer else {
            throw AVError(.outOfMemory, userInfo: [NSLocalizedDescriptionKey: "Out of memory for a picture of \(width)x\(height)."])
        }
        return buffer
    }

    /// The next picture `reader` decodes, converted once into a buffer of this supply (at `width` x
    /// `height`, or the picture's own size), with its timing; nil at the end of the stream. Blocking:
    /// decodes on the calling engine thread.
    func nextPicture(from reader: StreamReader, width: Int? = nil, height: Int? = nil,
                     _ token: CancellationToken) throws -> (buffer: CVPixelBuffer, timing: StreamReader.PictureTiming)? {
        var made: CVPixelBuffer?
        let timing = try AVError.converting {
            try reader.nextPicture(token) { decodedWidth, decodedHeight in
                let buffer = try self.buffer(width: width ?? decodedWidth, height: height ?? decodedHeight)
                guard let memory = buffer.pixelMemory else {
                    throw AVError(.decodeFailed, userInfo: [NSLocalizedDescriptionKey: "Pictures cannot be converted into pixel format \(self.pixelFormat)."])
                }
                made = buffer
                return memory
            }
        }
        guard let timing, let made else { return nil }
        return (made, timing)
    }
}

/// The stored samples of a file's track, as the container holds them (`outputSettings: nil`): one
/// packet a buffer, from the keyframe at or before the range's start to the last packet decoded before
/// its end, with the track's format description and `notSync` on every sample that is not a keyframe.
/// Packets are read here and lent, uncopied, to the output's reader, whose thread makes their buffers.
final class StoredSampleProducer: SampleProducer {
    private let reader: StreamReader
    private let formatDescription: CMFormatDescription?
    private let shelf = PacketShelf()
    private var end: Int64?
    /// Whether each buffer holds a copy of its packet (the output's `alwaysCopiesSampleData`).
    private let copies: Bool

    init(file: AVAssetTrack.FileTrack, formatDescription: CMFormatDescription?, copies: Bool, _ token: CancellationToken) throws {
        reader = try file.source.openStreamReader(streamIndex: file.stream.index, forPackets: true, cancellation: token)
        self.formatDescription = formatDescription
        self.copies = copies
    }

    func start(_ range: CMTimeRange, _ token: CancellationToken) throws {
        end = try reader.start(range, token)
    }

    /// Whether a packet of `timing` lies past the range's end (it decodes, or without a decode time
    /// shows, at or after it).
    private func endsRange(_ timing: StreamReader.PacketTiming) -> Bool {
        guard let end, let time = timing.decodeTime ?? timing.presentationTime else { return false }
        return time >= end
    }

    /// A local file's track of small samples read through its sample table: a sample is a copy out of
    /// a block read from the file (see `StreamReader.readsWithoutWaiting`).
    var makesSamplesWithoutWaiting: Bool { reader.readsWithoutWaiting }

    /// Copies the sample's bytes from the reader's block straight into its buffer's memory, made on
    /// this thread: no packet is lent.
    func nextOnTakingThread(_ token: CancellationToken) throws -> ProducedSample? {
        let made = try AVError.converting {
            try reader.nextStoredSample(token) { bytes, timing -> CMSampleBuffer? in
                if endsRange(timing) { return nil }
                return try StoredPacket.sampleBuffer(copying: bytes, timing: timing, formatDescription: formatDescription, timeBase: reader.timeBase)
            }
        }
        guard let made, let buffer = made else { return nil }
        return .buffer(buffer)
    }

    func next(_ token: CancellationToken) throws -> ProducedSample? {
        guard let lent = try AVError.converting({ try reader.nextPacket(token, lendingFrom: shelf) }) else { return nil }
        if endsRange(lent.timing) {
            lent.giveBack()
            return nil
        }
        return .packet(StoredPacket(lent: lent, formatDescription: formatDescription, timeBase: reader.timeBase, copies: copies))
    }
}

/// The decoded pictures of a file's video track, converted once from the decoder's frame into a pixel
/// buffer of the asked format and size, from a pool that is reused. Pictures that end at or before
/// the range's start, or start at or after its end, are not handed out.
final class PictureSampleProducer: SampleProducer {
    private let reader: StreamReader
    private let settings: ReaderOutputFormat.PictureSettings
    private var end: Int64?
    private let buffers: PixelBufferSupply
    private var formatDescription: CMVideoFormatDescription?

    init(file: AVAssetTrack.FileTrack, settings: ReaderOutputFormat.PictureSettings, _ token: CancellationToken) throws {
        reader = try file.source.openStreamReader(streamIndex: file.stream.index, cancellation: token)
        self.settings = settings
        buffers = PixelBufferSupply(pixelFormat: settings.pixelFormat)
    }

    func start(_ range: CMTimeRange, _ token: CancellationToken) throws {
        end = try reader.start(range, token)
    }

    func next(_ token: CancellationToken) throws -> ProducedSample? {
        guard let (buffer, timing) = try buffers.nextPicture(from: reader, width: settings.width, height: settings.height, token) else {
            return nil
        }
        if let end, timing.presentationTime >= end { return nil }
        let description = try formatDescription(for: buffer)
        let tb = reader.timeBase
        let sampleTiming = CMSampleTimingInfo(duration: CMTime(ticks: timing.duration, timeBase: tb),
                                              presentationTimeStamp: CMTime(ticks: timing.presentationTime, timeBase: tb),
                                              decodeTimeStamp: .invalid)
        return .buffer(try SampleMemory.pictureBuffer(buffer, formatDescription: description, timing: sampleTiming))
    }

    private func formatDescription(for buffer: CVPixelBuffer) throws -> CMVideoFormatDescription {
        if let formatDescription, CMVideoFormatDescriptionMatchesImageBuffer(formatDescription, imageBuffer: buffer) { return formatDescription }
        var made: CMVideoFormatDescription?
        let status = CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer, formatDescriptionOut: &made)
        guard status == noErr, let made else {
            throw AVError(.unknown, userInfo: [NSLocalizedDescriptionKey: "Could not describe a decoded picture (OSStatus \(status))."])
        }
        formatDescription = made
        return made
    }
}
