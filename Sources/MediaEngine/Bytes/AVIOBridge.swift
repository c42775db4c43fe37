internal import CFFmpeg
import Foundation

/// Owns an `AVIOContext` whose read and seek callbacks call a `ByteSource`, and the interrupt callback
/// that lets FFmpeg see cancellation.
///
/// Confinement: used only by the engine thread running the current operation of its demuxer, one at a
/// time; `cancellation` is swapped per operation. Unchecked Sendable for that reason.
final class AVIOBridge: @unchecked Sendable {
    /// FFmpeg reads through this buffer; 64 KiB keeps callbacks few without wasting memory.
    static let bufferSize = 64 * 1024

    let source: any ByteSource
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    /// The token of the operation in progress; FFmpeg's interrupt callback and reads check it.
    var cancellation: CancellationToken
    /// The byte source's last error, which explains a failed FFmpeg call better than EIO does.
    var lastError: MediaEngineError?
    private var position: Int64 = 0
    private let size: Int64?

    init(source: any ByteSource, cancellation: CancellationToken) throws {
        self.source = source
        self.cancellation = cancellation
        size = try source.size(cancellation: cancellation)
        guard let buffer = av_malloc(AVIOBridge.bufferSize) else {
            throw MediaEngineError(.outOfMemory, source: source.name, operation: "open", reason: "out of memory")
        }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        guard let ctx = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Int32(AVIOBridge.bufferSize), 0, opaque,
            avocetReadPacket, nil, avocetSeek)
        else {
            av_free(buffer)
            throw MediaEngineError(.outOfMemory, source: source.name, operation: "open", reason: "out of memory")
        }
        context = ctx
    }

    deinit {
        if let ctx = context {
            av_freep(&ctx.pointee.buffer)
            avio_context_free(&context)
        }
    }

    /// The interrupt callback to install on an `AVFormatContext`; valid while this bridge lives.
    var interruptCallback: AVIOInterruptCB {
        AVIOInterruptCB(callback: avocetInterrupt, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Calls the installed interrupt callback as FFmpeg does: true means "stop now".
    var interruptRequested: Bool {
        let cb = interruptCallback
        return cb.callback.map { $0(cb.opaque) != 0 } ?? false
    }

    fileprivate func read(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int32) -> Int32 {
        if isInterrupted { return avocet_averror_exit() }
        if let size, position >= size { return avocet_averror_eof() }
        do {
            let n = try source.read(at: position, into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(count)),
                                    cancellation: cancellation)
            // A source that claims more than it was asked for is held to the buffer.
            let count = min(max(n, 0), Int(count))
            if count == 0 { return avocet_averror_eof() }
            position = position.addingSaturating(Int64(count))
            return Int32(count)
        } catch let error as MediaEngineError {
            lastError = error
            return error.code == .cancelled ? avocet_averror_exit() : avocet_averror_eio()
        } catch {
            lastError = MediaEngineError(.readFailed, source: source.name, operation: "read", reason: "\(error)")
            return avocet_averror_eio()
        }
    }

    fileprivate func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        let mode = whence & ~Int32(AVSEEK_FORCE)
        if mode == avocet_seek_size() { return size ?? -1 }
        let target: Int64
        switch mode {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position.addingSaturating(offset)
        case SEEK_END:
            guard let size else { return -1 }
            target = size.addingSaturating(offset)
        default: return -1
        }
        guard target >= 0 else { return Int64(avocet_averror_einval()) }
        position = target
        return target
    }

    /// Cancelled, or a read gave up on bytes not yet arrived: either way the operation's result is
    /// worthless, and FFmpeg should stop at its next step.
    fileprivate var isInterrupted: Bool {
        cancellation.isCancelled || cancellation.missedOffset != nil || cancellation.isOverBudget
    }
}

private func bridge(_ opaque: UnsafeMutableRawPointer?) -> AVIOBridge? {
    opaque.map { Unmanaged<AVIOBridge>.fromOpaque($0).takeUnretainedValue() }
}

private let avocetReadPacket: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
    opaque, buffer, count in
    guard let bridge = bridge(opaque), let buffer, count > 0 else { return avocet_averror_einval() }
    return bridge.read(buffer, count)
}

private let avocetSeek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
    bridge(opaque)?.seek(offset, whence) ?? Int64(avocet_averror_einval())
}

private let avocetInterrupt: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    bridge(opaque)?.isInterrupted == false ? 0 : 1
}
