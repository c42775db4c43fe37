import Foundation
import Synchronization

/// Options of ``CVPixelBufferPoolFlush(_:_:)``.
public struct CVPixelBufferPoolFlushFlags: OptionSet, Sendable {
    /// The flag bits.
    public let rawValue: CVOptionFlags
    /// Flags from their bits.
    public init(rawValue: CVOptionFlags) { self.rawValue = rawValue }
    /// Free every buffer kept for reuse beyond the pool's minimum.
    public static let excessBuffers = CVPixelBufferPoolFlushFlags(rawValue: 1)
}

/// Pixel buffers of one size and format, reused: a buffer the caller lets go gives its memory back
/// to the pool, and the next one created takes it instead of allocating. Apple's CoreVideo type,
/// reached through ``CVPixelBufferPoolCreate(_:_:_:_:)`` and ``CVPixelBufferPoolCreatePixelBuffer(_:_:_:)``. Safe to use from
/// any thread; creating a buffer costs one lock and, with nothing to reuse, one allocation.
// @unchecked Sendable: every stored property is immutable (the attribute dictionaries are NSDictionary,
// never mutated) but the store, which guards itself.
public final class CVPixelBufferPool: @unchecked Sendable {
    let width: Int
    let height: Int
    let pixelFormat: OSType
    let planes: [CVBuffer.Plane]
    let byteCount: Int
    let minimumBufferCount: Int
    let attributes: CFDictionary?
    let pixelBufferAttributes: CFDictionary?
    /// The memory blocks free for reuse, and how many of the pool's buffers are alive.
    private let store: Store

    /// A block of memory kept for reuse.
    private struct Block: @unchecked Sendable {
        // @unchecked Sendable: a block is owned by one buffer, or by the free list under its lock.
        let pointer: UnsafeMutableRawPointer
    }

    private final class Store: Sendable {
        struct State {
            var free: [Block] = []
            var alive = 0
            /// Set when the pool goes: memory given back afterwards is freed.
            var closed = false
        }
        let state = Mutex(State())
    }

    init(width: Int, height: Int, pixelFormat: OSType, planes: [CVBuffer.Plane], byteCount: Int, minimumBufferCount: Int,
         attributes: CFDictionary?, pixelBufferAttributes: CFDictionary?) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.planes = planes
        self.byteCount = byteCount
        self.minimumBufferCount = max(0, minimumBufferCount)
        self.attributes = attributes
        self.pixelBufferAttributes = pixelBufferAttributes
        store = Store()
    }

    deinit {
        let free = store.state.withLock { s -> [Block] in
            s.closed = true
            defer { s.free = [] }
            return s.free
        }
        for block in free { Foundation.free(block.pointer) }
    }

    /// A buffer from the pool: reused memory when there is some (its old pixels still in it, as with
    /// Apple's pools), else new zeroed memory; or the CVReturn that refuses one (`threshold` buffers
    /// alive already, memory that cannot be had).
    func makeBuffer(threshold: Int?) -> Result<CVBuffer, StatusCode> {
        let reused = store.state.withLock { s -> Block?? in
            if let threshold, s.alive >= threshold { return .none }
            s.alive += 1
            return .some(s.free.popLast())
        }
        guard case .some(let block) = reused else { return .failure(StatusCode(kCVReturnWouldExceedAllocationThreshold)) }
        let memory: UnsafeMutableRawPointer
        if let block {
            memory = block.pointer
        } else if let fresh = CVBuffer.zeroedMemory(byteCount) {
            memory = fresh
        } else {
            store.state.withLock { $0.alive -= 1 }
            return .failure(StatusCode(kCVReturnPoolAllocationFailed))
        }
        let store = self.store
        return .success(CVBuffer(width: width, height: height, pixelFormat: pixelFormat, planes: planes, memory: memory, byteCount: byteCount) { pointer, _ in
            let block = Block(pointer: pointer)
            let kept = store.state.withLock { s -> Bool in
                s.alive -= 1
                guard !s.closed else { return false }
                s.free.append(block)
                return true
            }
            if !kept { free(pointer) }
        })
    }

    /// Frees the memory kept for reuse beyond the pool's minimum (`kCVPixelBufferPoolMinimumBufferCountKey`).
    func flush() {
        let excess = store.state.withLock { s -> [Block] in
            let keep = max(0, minimumBufferCount)
            guard s.free.count > keep else { return [] }
            let extra = Array(s.free[keep...])
            s.free.removeLast(s.free.count - keep)
            return extra
        }
        for block in excess { free(block.pointer) }
    }

    /// Memory blocks kept for reuse now (for tests).
    package var freeBufferCount: Int { store.state.withLock { $0.free.count } }
}

