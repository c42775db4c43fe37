import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// Packets lent uncopied to another thread (stored samples): their bytes stay theirs while they are
/// out, however many more are read, and a packet given back is read into again instead of a new one.
@Suite("Packet shelf")
struct PacketShelfTests {
    /// The bytes of every packet of `path`'s stream `index`, each copied and given back as it is read.
    static func packets(_ path: String, stream index: Int, keepingOut kept: Int, shelf: PacketShelf, _ token: CancellationToken) throws -> [[UInt8]] {
        // The packets refer to their shelf without a reference count: it must outlive them.
        defer { withExtendedLifetime(shelf) {} }
        let reader = try StreamReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: index, forPackets: true,
                                      cancellation: token)
        var out: [PacketShelf.Lent] = []
        var seen: [[UInt8]] = []
        while let lent = try reader.nextPacket(token, lendingFrom: shelf) {
            out.append(lent)
            if out.count > kept {
                let oldest = out.removeFirst()
                seen.append(Array(oldest.bytes))
                oldest.giveBack()
            }
        }
        for lent in out {
            seen.append(Array(lent.bytes))
            lent.giveBack()
        }
        return seen
    }

    @Test("packets kept out hold their bytes while 24 more are read; given back, they are read into again", arguments: [0, 1])
    func lentPacketsKeepTheirBytes(stream: Int) async throws {
        let path = Fixtures.path("av.mp4")
        let (one, many, shelf) = try await IOExecutor.shared.run { token in
            let one = try Self.packets(path, stream: stream, keepingOut: 0, shelf: PacketShelf(), token)
            let shelf = PacketShelf()
            let many = try Self.packets(path, stream: stream, keepingOut: 24, shelf: shelf, token)
            return (one, many, shelf)
        }
        #expect(one.count >= 50, "packets of stream \(stream)")
        #expect(Set(one.map(\.count)).count > 1, "packets of several sizes")
        #expect(many == one)
        #expect(shelf.packetsOut == 0)
        // 25 out at most, and one more while the next read takes back what was given.
        #expect(shelf.packetsMade <= 26, "\(shelf.packetsMade) packets made for \(one.count) read")
    }
}
