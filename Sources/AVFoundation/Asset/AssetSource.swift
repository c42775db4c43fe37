internal import MediaEngine
import Foundation

/// Where an asset's bytes come from, and the one packet scan of them that the asset and its tracks
/// share. Holds no open file: each piece of work opens the source afresh and closes it when done, so
/// a process can keep thousands of loaded assets without running out of file descriptors.
///
/// Holds nothing that refers back to the asset or its tracks, so tracks can keep it (and keep loading
/// scan-backed keys) after their asset is gone, without a cycle.
final class AssetSource: Sendable {
    private let open: @Sendable () throws -> any ByteSource
    private let options: DemuxerOptions
    /// The packet scan: one pass over the file's packets, shared by every key that needs it.
    let scan = SharedLoad<[PacketStatistics]>()

    init(options: DemuxerOptions = DemuxerOptions(), open: @escaping @Sendable () throws -> any ByteSource) {
        self.options = options
        self.open = open
    }

    /// Opens and parses the container. Blocking: runs on an engine thread. The returned demuxer holds the
    /// source open until it is dropped.
    func openDemuxer(cancellation: CancellationToken) throws -> Demuxer {
        try AVError.converting { try Demuxer(source: open(), options: options, cancellation: cancellation) }
    }

    /// Packet statistics of every stream, from one pass over the file on an engine thread; the result is
    /// kept. A cancelled pass keeps nothing, and the next one starts from the beginning.
    func packetStatistics() async throws -> [PacketStatistics] {
        try await scan.value(scanOperation)
    }

    /// The same, blocking the calling thread (for the deprecated synchronous getters).
    func blockingPacketStatistics() -> Result<[PacketStatistics], any Error> {
        scan.blockingValue(scanOperation)
    }

    private var scanOperation: SharedLoad<[PacketStatistics]>.Operation {
        { [open, options] token in
            try AVError.converting { try Demuxer.scanPackets(source: open(), options: options, cancellation: token) }
        }
    }
}
