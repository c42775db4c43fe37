internal import CFFmpeg
import Foundation
internal import Locking
import Synchronization

/// Packets read on an engine thread and lent, unchanged and uncopied, to the thread that takes them,
/// which copies what it needs and gives them back (or hands them on inside a sample buffer that refers
/// to their bytes, given back when it goes). A packet's memory (FFmpeg's, from the demuxer) is freed on
/// an engine thread when its shell is used again, not on the taker's: glibc's allocator serialises a
/// thread's frees of another thread's memory against that thread's allocations, and for small stored
/// samples that lock cost more than the rest of the sample. Only the shelf's own end frees on whichever
/// thread lets go of it last (a sample buffer's, when one outlives the reader).
///
/// The shelf owns every packet it lends: one given back is reused by the next read, and those not
/// given back (a queue dropped with packets in it) are freed with the shelf. Its owner keeps it alive
/// while any packet it lent is out: a `Lent` refers to it without a reference count, which the engine
/// thread lending and the thread giving back would otherwise both write for every packet; what holds
/// a packet past its owner's life (a sample buffer over its bytes) holds the shelf too (`heldShelf`). Reads: one
/// engine thread at a time; `giveBack` and the `Lent` accessors: any thread.
package final class PacketShelf: @unchecked Sendable {
    // @unchecked Sendable: `spare` is touched only by the one reading engine thread, `all` under
    // `returned`'s lock (and in deinit); the packets given back cross threads under that lock.

    /// A packet lent to a taker: its bytes and times, valid until it is given back.
    package struct Lent: @unchecked Sendable {
        // @unchecked Sendable: the packet is touched by one thread at a time, handed on with the value.
        fileprivate let packet: UnsafeMutablePointer<AVPacket>
        /// The shelf the packet goes back to, which its owner keeps alive while the packet is out.
        fileprivate let shelf: Unmanaged<PacketShelf>
        /// Its times (item time, stream ticks) and whether it is a keyframe.
        package let timing: StreamReader.PacketTiming
        /// The packet's bytes as the container holds them; empty for a packet of none.
        package let bytes: UnsafeRawBufferPointer

        /// The shelf, held: for what refers to the packet's bytes past its owner's life (a sample
        /// buffer over them), which keeps the shelf, and so the packet, until it gives the packet back.
        package var heldShelf: PacketShelf { shelf.takeUnretainedValue() }

        /// Gives the packet back to its shelf, once: its bytes must not be used after.
        package func giveBack() {
            shelf._withUnsafeGuaranteedRef { $0.giveBack(packet) }
        }
    }

    /// A packet crossing threads.
    private struct Shell: @unchecked Sendable {
        // @unchecked Sendable: whoever holds the shell is the one thread using the packet.
        let packet: UnsafeMutablePointer<AVPacket>
    }

    /// Packets given back, not yet emptied (their memory freed on the reading thread).
    private let returned = Locked<[Shell]>([])
    /// Empty packets ready to read into.
    private var spare: [UnsafeMutablePointer<AVPacket>] = []
    /// Every packet made, freed with the shelf; appended to under `returned`'s lock.
    private var all: [UnsafeMutablePointer<AVPacket>] = []
    private let lentCount = Atomic<Int>(0)

    package init() {}

    /// How many packets are lent and not yet given back.
    package var packetsOut: Int { lentCount.load(ordering: .relaxed) }

    /// How many packets the shelf has made (they are reused once given back).
    package var packetsMade: Int { returned.withLock { _ in all.count } }

    deinit {
        for packet in all {
            var p: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&p)
        }
    }

    /// The most data bytes a packet given back keeps for the next read into it (`lend(reading:)`):
    /// reading small samples then allocates and frees nothing. The memory a shelf keeps is at most
    /// this for each packet it lent at once.
    package static let keptBufferBytes = 16 << 10

    /// Packets given back, taken from `returned` in one swap (its array is not copied).
    private var back: [Shell] = []

    /// An empty packet to read into: one given back (emptied here, on the reading thread, but for
    /// memory of at most `keptBufferBytes`, which it keeps for the reader to reuse if it is the
    /// memory's only holder), or a new one. Reading thread only.
    private func emptyPacket() throws -> UnsafeMutablePointer<AVPacket> {
        if spare.isEmpty {
            returned.withLock { swap(&$0, &back) }
            for shell in back {
                let packet = shell.packet
                if let buf = packet.pointee.buf, buf.pointee.size <= Self.keptBufferBytes + Int(AV_INPUT_BUFFER_PADDING_SIZE) {
                    av_packet_free_side_data(packet)
                } else {
                    av_packet_unref(packet)
                }
                spare.append(packet)
            }
            back.removeAll(keepingCapacity: true)
        }
        if let packet = spare.popLast() { return packet }
        guard let made = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: "", operation: "read a packet", reason: "out of memory")
        }
        // Under the lock only for `packetsMade`, read from other threads (tests); packets are seldom made.
        returned.withLock { _ in all.append(made) }
        return made
    }

    /// Lends `packet`'s contents (moved out of it, leaving it empty) with `timing`. Reading thread only.
    func lend(movingFrom packet: UnsafeMutablePointer<AVPacket>, timing: StreamReader.PacketTiming) throws -> Lent {
        let shell = try emptyPacket()
        av_packet_unref(shell)
        av_packet_move_ref(shell, packet)
        return lend(shell, timing: timing)
    }

    /// Lends the packet `read` reads into one of the shelf's (which may hold the memory of a packet
    /// given back, for `read` to reuse or free), with the timing `timing` gives it; nil when `read`
    /// finds the end. Reading thread only.
    func lend(reading read: (UnsafeMutablePointer<AVPacket>) throws -> Bool,
              timing: (AVPacket) -> StreamReader.PacketTiming) throws -> Lent? {
        let shell = try emptyPacket()
        let filled: Bool
        do {
            filled = try read(shell)
        } catch {
            spare.append(shell)
            throw error
        }
        guard filled else {
            spare.append(shell)
            return nil
        }
        return lend(shell, timing: timing(shell.pointee))
    }

    private func lend(_ shell: UnsafeMutablePointer<AVPacket>, timing: StreamReader.PacketTiming) -> Lent {
        lentCount.wrappingAdd(1, ordering: .relaxed)
        let p = shell.pointee
        let bytes = UnsafeRawBufferPointer(start: p.data, count: p.data == nil ? 0 : Int(max(0, p.size)))
        return Lent(packet: shell, shelf: Unmanaged.passUnretained(self), timing: timing, bytes: bytes)
    }

    private func giveBack(_ packet: UnsafeMutablePointer<AVPacket>) {
        let shell = Shell(packet: packet)
        returned.withLock { $0.append(shell) }
        lentCount.wrappingSubtract(1, ordering: .relaxed)
    }
}
