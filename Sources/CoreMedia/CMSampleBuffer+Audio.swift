import Foundation

// The audio calls of CMSampleBuffer: its linear PCM as an AudioBufferList (one buffer for interleaved
// audio, one per channel otherwise), and copies of a range of its frames. Audio only: on any other
// buffer they fail with kCMSampleBufferError_InvalidMediaTypeForOperation.

/// Asks ``CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(_:bufferListSizeNeededOut:bufferListOut:bufferListSize:blockBufferAllocator:blockBufferMemoryAllocator:flags:blockBufferOut:)``
/// for buffers aligned to 16 bytes.
public var kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment: UInt32 { 1 << 0 }

extension CMSampleBuffer {
    /// Options of the audio buffer list calls.
    public struct Flags: OptionSet, Sendable {
        /// The flag bits, such as ``kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment``.
        public let rawValue: UInt32
        /// Flags from their bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Buffers aligned to 16 bytes (``kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment``).
        public static let audioBufferListAssure16ByteAlignment = Flags(rawValue: 1 << 0)
    }

    /// The buffer's audio layout: how many buffers, channels in each, bytes per frame in each, frames.
    /// Fails for buffers that are not linear PCM audio, or whose data is not ready.
    func audioLayout() -> Result<(buffers: Int, channelsPerBuffer: Int, bytesPerFrame: Int, frames: Int), StatusCode> {
        guard valid else { return .failure(.init(kCMSampleBufferError_Invalidated)) }
        guard let format = storedFormatDescription, format.mediaType == .audio, let asbd = format.audioStreamBasicDescription else {
            return .failure(.init(kCMSampleBufferError_InvalidMediaTypeForOperation))
        }
        guard asbd.mFormatID == kAudioFormatLinearPCM, asbd.mBytesPerFrame > 0, asbd.mChannelsPerFrame > 0 else {
            return .failure(.init(kCMSampleBufferError_InvalidMediaFormat))
        }
        guard case .ready = currentReadiness else { return .failure(.init(kCMSampleBufferError_BufferNotReady)) }
        let planar = asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0
        let channels = Int(asbd.mChannelsPerFrame)
        return .success((planar ? channels : 1, planar ? 1 : channels, Int(asbd.mBytesPerFrame), sampleCount))
    }
}

/// The buffer's linear PCM as an ``AudioBufferList`` whose buffers point into `blockBufferOut`, a block
/// buffer the caller keeps while it uses the list: the buffer's own data when it is contiguous (and
/// aligned, with ``kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment``), else a copy. Call with
/// `bufferListOut` nil for the size the list needs in `bufferListSizeNeededOut`; a list too small is
/// ``kCMSampleBufferError_ArrayTooSmall``. Costs at most one copy of the data.
///
/// - Parameters:
///   - sbuf: A buffer of linear PCM audio whose data is ready.
///   - bufferListSizeNeededOut: Receives the bytes the list needs (see
///     ``AudioBufferList/sizeInBytes(maximumBuffers:)``); nil when not wanted.
///   - bufferListOut: Memory for the list, or nil to ask for its size only.
///   - bufferListSize: The bytes at `bufferListOut`.
///   - blockBufferStructureAllocator: Ignored.
///   - blockBufferBlockAllocator: Allocates the copy's block when one is made; nil for the C heap.
///   - flags: ``kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment`` for buffers aligned to 16
///     bytes, or 0.
///   - blockBufferOut: Receives the block buffer that holds the list's bytes; keep it while using the
///     list. Pass nil only when asking for the size: the bytes may be a copy that goes with it.
/// - Returns: `noErr`; ``kCMSampleBufferError_ArrayTooSmall`` when `bufferListSize` is less than the
///   list needs; ``kCMSampleBufferError_InvalidSampleData`` when the data is shorter than the frames
///   say; ``kCMSampleBufferError_InvalidMediaTypeForOperation`` for a buffer not of audio;
///   ``kCMSampleBufferError_InvalidMediaFormat`` for audio that is not linear PCM;
///   ``kCMSampleBufferError_BufferNotReady`` when the data is not ready;
///   ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated; a block buffer status when
///   the copy cannot be made.
@discardableResult
public func CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
    _ sbuf: CMSampleBuffer, bufferListSizeNeededOut: UnsafeMutablePointer<Int>?, bufferListOut: UnsafeMutablePointer<AudioBufferList>?,
    bufferListSize: Int, blockBufferAllocator blockBufferStructureAllocator: CFAllocator?,
    blockBufferMemoryAllocator blockBufferBlockAllocator: CFAllocator?, flags: UInt32,
    blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>?
) -> OSStatus {
    blockBufferOut?.pointee = nil
    let layout: (buffers: Int, channelsPerBuffer: Int, bytesPerFrame: Int, frames: Int)
    switch sbuf.audioLayout() {
    case .success(let l): layout = l
    case .failure(let e): return e.status
    }
    let needed = AudioBufferList.sizeInBytes(maximumBuffers: layout.buffers)
    bufferListSizeNeededOut?.pointee = needed
    guard let bufferListOut else { return noErr }
    guard bufferListSize >= needed else { return kCMSampleBufferError_ArrayTooSmall }
    let (perBuffer, overflow) = layout.frames.multipliedReportingOverflow(by: layout.bytesPerFrame)
    let (total, totalOverflow) = perBuffer.multipliedReportingOverflow(by: layout.buffers)
    guard !overflow, !totalOverflow, perBuffer <= Int(UInt32.max), let data = sbuf.storedDataBuffer, data.length >= total else {
        return kCMSampleBufferError_InvalidSampleData
    }
    // One contiguous run of the bytes: the buffer's own when it is, else a copy.
    var copyFlags: CMBlockBufferFlags = 0
    if flags & kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment != 0, data.pieces.count == 1,
       let base = data.pieces.first.flatMap({ $0.memory.pointer.map { $0 + data.pieces[0].offset } }), Int(bitPattern: base) % 16 != 0 {
        copyFlags = kCMBlockBufferAlwaysCopyDataFlag
    }
    var contiguous: CMBlockBuffer?
    var status = CMBlockBufferCreateContiguous(allocator: nil, sourceBuffer: data, blockAllocator: blockBufferBlockAllocator,
                                               customBlockSource: nil, offsetToData: 0, dataLength: total, flags: copyFlags,
                                               blockBufferOut: &contiguous)
    guard status == kCMBlockBufferNoErr, let contiguous else { return status == noErr ? kCMSampleBufferError_AllocationFailed : status }
    var pointer: UnsafeMutablePointer<CChar>?
    if total > 0 {
        status = CMBlockBufferGetDataPointer(contiguous, atOffset: 0, lengthAtOffsetOut: nil, totalLengthOut: nil, dataPointerOut: &pointer)
        guard status == kCMBlockBufferNoErr else { return status }
    }
    let list = UnsafeMutableAudioBufferListPointer(bufferListOut)
    list.count = layout.buffers
    for i in 0..<layout.buffers {
        list[i] = AudioBuffer(mNumberChannels: UInt32(layout.channelsPerBuffer), mDataByteSize: UInt32(perBuffer),
                              mData: pointer.map { UnsafeMutableRawPointer($0) + i * perBuffer })
    }
    blockBufferOut?.pointee = contiguous
    return noErr
}

/// Copies `numFrames` frames from `frameOffset` of the buffer's linear PCM into the buffers of
/// `bufferList` (one for interleaved audio, one per channel otherwise), each with room for them; sets
/// each buffer's `mDataByteSize` to the bytes copied.
///
/// - Parameters:
///   - sbuf: A buffer of linear PCM audio whose data is ready.
///   - frameOffset: The first frame to copy, from 0.
///   - numFrames: How many frames to copy.
///   - bufferList: The list to copy into: its `mNumberBuffers` buffers, one for interleaved audio or
///     one per channel, each with `mData` set and `mDataByteSize` giving its room in bytes.
/// - Returns: `noErr`; ``kCMSampleBufferError_SampleIndexOutOfRange`` when the range is outside the
///   buffer's frames; ``kCMSampleBufferError_InvalidMediaFormat`` when the list does not match the
///   format (another count of buffers), or for audio that is not linear PCM;
///   ``kCMSampleBufferError_ArrayTooSmall`` when a buffer of the list has too little room, or no
///   memory; ``kCMSampleBufferError_InvalidSampleData`` when the data is shorter than the frames say;
///   ``kCMSampleBufferError_InvalidMediaTypeForOperation`` for a buffer not of audio;
///   ``kCMSampleBufferError_BufferNotReady`` when the data is not ready;
///   ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferCopyPCMDataIntoAudioBufferList(_ sbuf: CMSampleBuffer, at frameOffset: Int32, frameCount numFrames: Int32,
                                                         into bufferList: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
    let layout: (buffers: Int, channelsPerBuffer: Int, bytesPerFrame: Int, frames: Int)
    switch sbuf.audioLayout() {
    case .success(let l): layout = l
    case .failure(let e): return e.status
    }
    let offset = Int(frameOffset), count = Int(numFrames)
    guard offset >= 0, count >= 0, offset <= layout.frames, count <= layout.frames - offset else {
        return kCMSampleBufferError_SampleIndexOutOfRange
    }
    let list = UnsafeMutableAudioBufferListPointer(bufferList)
    guard list.count == layout.buffers else { return kCMSampleBufferError_InvalidMediaFormat }
    // The data must hold every buffer's frames; past this check every offset below fits in its length.
    let (perBuffer, overflow) = layout.frames.multipliedReportingOverflow(by: layout.bytesPerFrame)
    let (total, totalOverflow) = perBuffer.multipliedReportingOverflow(by: layout.buffers)
    guard let data = sbuf.storedDataBuffer, !overflow, !totalOverflow, total <= data.length else { return kCMSampleBufferError_InvalidSampleData }
    let bytes = count * layout.bytesPerFrame
    for i in 0..<layout.buffers {
        let buffer = list[i]
        guard let destination = buffer.mData, Int(buffer.mDataByteSize) >= bytes else { return kCMSampleBufferError_ArrayTooSmall }
        let start = i * perBuffer + offset * layout.bytesPerFrame
        guard start + bytes <= data.length, data.copyBytes(in: start..<(start + bytes), to: destination) else {
            return kCMSampleBufferError_InvalidSampleData
        }
        list[i].mDataByteSize = UInt32(bytes)
    }
    return noErr
}

extension CMSampleBuffer {
    /// Calls `body` with the buffer's linear PCM as an audio buffer list and the block buffer that holds
    /// its memory (see ``CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(_:bufferListSizeNeededOut:bufferListOut:bufferListSize:blockBufferAllocator:blockBufferMemoryAllocator:flags:blockBufferOut:)``);
    /// the list lives for the call.
    ///
    /// - Parameters:
    ///   - blockBufferMemoryAllocator: Allocates the copy's block when the data must be copied; nil for
    ///     the C heap.
    ///   - flags: ``Flags/audioBufferListAssure16ByteAlignment`` for buffers aligned to 16 bytes.
    ///   - body: Called once with the list and the block buffer; neither list nor memory may be kept
    ///     past the call unless the block buffer is.
    /// - Returns: What `body` returns.
    /// - Throws: ``Error/invalidMediaTypeForOperation`` for a buffer not of audio;
    ///   ``Error/invalidMediaFormat`` for audio that is not linear PCM; ``Error/bufferNotReady`` when
    ///   the data is not ready; ``Error/invalidSampleData`` when the data is shorter than the frames
    ///   say; ``Error/invalidated`` when the buffer was invalidated; or what `body` throws.
    public func withAudioBufferList<R>(blockBufferMemoryAllocator: CFAllocator? = kCFAllocatorDefault, flags: Flags = [],
                                       body: (UnsafeMutableAudioBufferListPointer, CMBlockBuffer) throws -> R) throws -> R {
        var size = 0
        try StatusCode.check(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            self, bufferListSizeNeededOut: &size, bufferListOut: nil, bufferListSize: 0, blockBufferAllocator: nil,
            blockBufferMemoryAllocator: blockBufferMemoryAllocator, flags: flags.rawValue, blockBufferOut: nil))
        let list = AudioBufferList.allocate(maximumBuffers: max(1, (size - MemoryLayout<AudioBufferList>.size) / MemoryLayout<AudioBuffer>.stride + 1))
        defer { free(list.unsafeMutablePointer) }
        var block: CMBlockBuffer?
        try StatusCode.check(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            self, bufferListSizeNeededOut: nil, bufferListOut: list.unsafeMutablePointer, bufferListSize: size, blockBufferAllocator: nil,
            blockBufferMemoryAllocator: blockBufferMemoryAllocator, flags: flags.rawValue, blockBufferOut: &block))
        guard let block else { throw Error.invalidSampleData }
        return try body(list, block)
    }

    /// Copies frames `range` of the buffer's linear PCM into `bufferList`
    /// (``CMSampleBufferCopyPCMDataIntoAudioBufferList(_:at:frameCount:into:)``).
    ///
    /// - Parameters:
    ///   - range: The frames to copy, by index from 0.
    ///   - bufferList: The list to copy into: one buffer for interleaved audio or one per channel, each
    ///     with `mData` set and `mDataByteSize` giving its room; each `mDataByteSize` is set to the
    ///     bytes copied.
    /// - Throws: ``Error/sampleIndexOutOfRange`` for frames outside the buffer's;
    ///   ``Error/invalidMediaFormat`` for a list with another count of buffers, or audio that is not
    ///   linear PCM; ``Error/arrayTooSmall`` for a buffer with too little room;
    ///   ``Error/invalidMediaTypeForOperation``, ``Error/bufferNotReady``, ``Error/invalidSampleData``
    ///   or ``Error/invalidated`` as ``CMSampleBufferCopyPCMDataIntoAudioBufferList(_:at:frameCount:into:)``
    ///   returns them.
    public func copyPCMData(fromRange range: Range<Int>, into bufferList: UnsafeMutablePointer<AudioBufferList>) throws {
        guard let offset = Int32(exactly: range.lowerBound), let count = Int32(exactly: range.count) else {
            throw Error.sampleIndexOutOfRange
        }
        try StatusCode.check(CMSampleBufferCopyPCMDataIntoAudioBufferList(self, at: offset, frameCount: count, into: bufferList))
    }
}

/// A ready buffer of `numSamples` audio packets in `dataBuffer` starting at `presentationTimeStamp`:
/// each packet's place and size from `packetDescriptions` (needed for compressed formats whose packets
/// vary; nil for linear PCM or constant-size packets), its duration from the format's frames per
/// packet (or the packet's own frame count) at its sample rate. Fails for a format that is not audio,
/// a non-numeric time, no samples, or packets outside the data.
///
/// - Parameters:
///   - allocator: Ignored.
///   - dataBuffer: The packets' bytes.
///   - formatDescription: An audio description with a sample rate above 0.
///   - numSamples: How many packets, at least 1.
///   - presentationTimeStamp: The first packet's time; the packets' times are in a timescale of the
///     sample rate, rounded.
///   - packetDescriptions: `numSamples` descriptions, in order and back to back from offset 0; nil for
///     packets of the format's constant size (`mBytesPerPacket`).
///   - sampleBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: `noErr`; ``kCMSampleBufferError_InvalidMediaFormat`` for a format that is not audio or
///   has no sample rate; ``kCMSampleBufferError_RequiredParameterMissing`` for no packets (or more
///   than ``CMSampleBuffer/maximumSampleCount``), a time that is not numeric, or no descriptions for a
///   format without a constant packet size; ``kCMSampleBufferError_InvalidSampleData`` for packets
///   that are not back to back from offset 0, or that reach past the data's end.
@discardableResult
public func CMAudioSampleBufferCreateReadyWithPacketDescriptions(
    allocator: CFAllocator?, dataBuffer: CMBlockBuffer, formatDescription: CMAudioFormatDescription, sampleCount numSamples: CMItemCount,
    presentationTimeStamp: CMTime, packetDescriptions: UnsafePointer<AudioStreamPacketDescription>?,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard let asbd = formatDescription.audioStreamBasicDescription, asbd.mSampleRate > 0 else {
        return kCMSampleBufferError_InvalidMediaFormat
    }
    guard numSamples > 0, numSamples <= CMSampleBuffer.maximumSampleCount, presentationTimeStamp.isNumeric else {
        return kCMSampleBufferError_RequiredParameterMissing
    }
    let descriptions = packetDescriptions.map { Array(UnsafeBufferPointer(start: $0, count: numSamples)) } ?? []
    let timescale = Int32(exactly: asbd.mSampleRate.rounded()) ?? 44_100
    let start = presentationTimeStamp.convertScale(timescale, method: .default)
    var timings: [CMSampleTimingInfo]
    var sizes: [Int]
    if descriptions.isEmpty {
        guard asbd.mBytesPerPacket > 0 else { return kCMSampleBufferError_RequiredParameterMissing }
        let frames = Int64(max(1, asbd.mFramesPerPacket))
        timings = [CMSampleTimingInfo(duration: CMTime(value: frames, timescale: timescale), presentationTimeStamp: start, decodeTimeStamp: .invalid)]
        sizes = [Int(asbd.mBytesPerPacket)]
    } else {
        var at = start.value
        timings = []
        sizes = []
        var offset: Int64 = 0
        for packet in descriptions {
            // Packets lie in order, one after another, inside the data.
            guard packet.mStartOffset == offset, packet.mStartOffset >= 0 else { return kCMSampleBufferError_InvalidSampleData }
            offset += Int64(packet.mDataByteSize)
            let frames = Int64(packet.mVariableFramesInPacket > 0 ? packet.mVariableFramesInPacket : max(1, asbd.mFramesPerPacket))
            timings.append(CMSampleTimingInfo(duration: CMTime(value: frames, timescale: timescale),
                                              presentationTimeStamp: CMTime(value: at, timescale: timescale), decodeTimeStamp: .invalid))
            at = at.addingReportingOverflow(frames).partialValue
            sizes.append(Int(packet.mDataByteSize))
        }
        guard offset <= Int64(dataBuffer.length) else { return kCMSampleBufferError_InvalidSampleData }
    }
    switch makeSampleBuffer(dataBuffer: dataBuffer, imageBuffer: nil, dataReady: true, formatDescription: formatDescription,
                            numSamples: numSamples, timings: SampleEntries(timings), sizes: SampleEntries(sizes)) {
    case .success(let buffer):
        buffer.packetDescriptions = descriptions
        sampleBufferOut.pointee = buffer
        return noErr
    case .failure(let e):
        return e.status
    }
}

/// The buffer's packet descriptions: a pointer to them (nil when it has none), valid while the buffer
/// lives, and their size in bytes.
///
/// - Parameters:
///   - sbuf: A buffer of audio.
///   - packetDescriptionsPointerOut: Receives the pointer, or nil when the buffer has no packet
///     descriptions (linear PCM, or packets of a constant size); pass nil when not wanted.
///   - sizeOut: Receives the descriptions' size in bytes (their count times the stride of
///     ``AudioStreamPacketDescription``); nil when not wanted.
/// - Returns: `noErr`; ``kCMSampleBufferError_InvalidMediaTypeForOperation`` for a buffer not of audio;
///   ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferGetAudioStreamPacketDescriptionsPtr(
    _ sbuf: CMSampleBuffer, packetDescriptionsPointerOut: UnsafeMutablePointer<UnsafePointer<AudioStreamPacketDescription>?>?,
    sizeOut: UnsafeMutablePointer<Int>?
) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    guard sbuf.storedFormatDescription?.mediaType == .audio else { return kCMSampleBufferError_InvalidMediaTypeForOperation }
    sizeOut?.pointee = sbuf.packetDescriptions.count * MemoryLayout<AudioStreamPacketDescription>.stride
    packetDescriptionsPointerOut?.pointee = sbuf.packetDescriptionStorage
    return noErr
}

extension CMSampleBuffer {
    /// A ready buffer of `numSamples` audio packets
    /// (``CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator:dataBuffer:formatDescription:sampleCount:presentationTimeStamp:packetDescriptions:sampleBufferOut:)``).
    ///
    /// - Parameters:
    ///   - dataBuffer: The packets' bytes; required.
    ///   - formatDescription: An audio description with a sample rate above 0.
    ///   - numSamples: How many packets, at least 1.
    ///   - presentationTimeStamp: The first packet's time; numeric.
    ///   - packetDescriptions: One description per packet, in order and back to back from offset 0;
    ///     empty for packets of the format's constant size.
    /// - Throws: ``Error/requiredParameterMissing`` for no `dataBuffer`, no packets, a time that is not
    ///   numeric, or no descriptions for a format without a constant packet size;
    ///   ``Error/invalidMediaFormat`` for a format that is not audio; ``Error/invalidSampleData`` for
    ///   packets that are not back to back or reach past the data's end.
    public convenience init(dataBuffer: CMBlockBuffer?, formatDescription: CMFormatDescription, numSamples: CMItemCount,
                            presentationTimeStamp: CMTime, packetDescriptions: [AudioStreamPacketDescription]) throws {
        guard let dataBuffer else { throw Error.requiredParameterMissing }
        var made: CMSampleBuffer?
        try packetDescriptions.withUnsafeBufferPointer { descriptions in
            try StatusCode.check(CMAudioSampleBufferCreateReadyWithPacketDescriptions(
                allocator: nil, dataBuffer: dataBuffer, formatDescription: formatDescription, sampleCount: numSamples,
                presentationTimeStamp: presentationTimeStamp, packetDescriptions: descriptions.isEmpty ? nil : descriptions.baseAddress,
                sampleBufferOut: &made))
        }
        try self.init(adopting: made)
    }

    /// The packet descriptions of compressed audio; empty for constant-size packets and linear PCM.
    ///
    /// - Throws: ``Error/invalidMediaTypeForOperation`` for a buffer not of audio;
    ///   ``Error/invalidated`` when the buffer was invalidated.
    public func audioStreamPacketDescriptions() throws -> [AudioStreamPacketDescription] {
        guard valid else { throw Error.invalidated }
        guard storedFormatDescription?.mediaType == .audio else { throw Error.invalidMediaTypeForOperation }
        return packetDescriptions
    }

    /// Calls `body` with the packet descriptions, lent for the call.
    ///
    /// - Parameter body: Called once with the descriptions (empty as ``audioStreamPacketDescriptions()``
    ///   says); the pointer is valid only during the call.
    /// - Returns: What `body` returns.
    /// - Throws: The errors of ``audioStreamPacketDescriptions()``, or what `body` throws.
    public func withUnsafeAudioStreamPacketDescriptions<R>(_ body: (UnsafeBufferPointer<AudioStreamPacketDescription>) throws -> R) throws -> R {
        try audioStreamPacketDescriptions().withUnsafeBufferPointer(body)
    }
}
