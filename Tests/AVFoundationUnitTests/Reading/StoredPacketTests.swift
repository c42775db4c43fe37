@testable import AVFoundation
import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// A stored packet made into a sample buffer: copied (given back at once), or, without copies and for
/// a packet of 4 KiB or more, referred to (given back when the buffer goes, its bytes the packet's).
@Suite("Stored packet")
struct StoredPacketTests {
    /// av.mp4's video packets, lent from `shelf`, up to the first of 4 KiB or more (its first keyframe).
    static func firstLargePacket(_ shelf: PacketShelf, _ token: CancellationToken) throws -> PacketShelf.Lent {
        let reader = try StreamReader(source: FileByteSource(path: Fixtures.path("av.mp4")), options: DemuxerOptions(), streamIndex: 0,
                                      forPackets: true, cancellation: token)
        while let lent = try reader.nextPacket(token, lendingFrom: shelf) {
            if lent.bytes.count >= StoredPacket.referredBytes { return lent }
            lent.giveBack()
        }
        throw CancellationError()
    }

    @Test("without copies a large packet's buffer refers to it until released; with copies it goes back at once")
    func referredUntilReleased() async throws {
        let (outWhileHeld, outAfter, sameBytes, copiedOut) = try await IOExecutor.shared.run { token in
            let shelf = PacketShelf()
            return try withExtendedLifetime(shelf) { () -> (Int, Int, Bool, Int) in
                let lent = try Self.firstLargePacket(shelf, token)
                let original = Data(lent.bytes)
                var buffer: CMSampleBuffer? = try StoredPacket(lent: lent, formatDescription: nil, timeBase: Rational(1, 12_800), copies: false)
                    .sampleBuffer()
                let held = shelf.packetsOut
                let same = try #require(buffer?.dataBuffer).dataBytes() == original
                buffer = nil
                let after = shelf.packetsOut
                let copied = try StoredPacket(lent: Self.firstLargePacket(shelf, token), formatDescription: nil, timeBase: Rational(1, 12_800),
                                              copies: true).sampleBuffer()
                return withExtendedLifetime(copied) { (held, after, same, shelf.packetsOut) }
            }
        }
        #expect(outWhileHeld == 1, "the buffer holds its packet")
        #expect(sameBytes)
        #expect(outAfter == 0, "released, the packet went back")
        #expect(copiedOut == 0, "a copy gives its packet back at once")
    }
}
