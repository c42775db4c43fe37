internal import MediaEngine
import Foundation
internal import Locking

/// Where an asset's bytes come from, and the one packet scan of them that the asset and its tracks
/// share. Holds no open file: each piece of work opens the source afresh and closes it when done, so
/// a process can keep thousands of loaded assets without running out of file descriptors.
///
/// Holds nothing that refers back to the asset or its tracks, so tracks can keep it (and keep loading
/// scan-backed keys) after their asset is gone, without a cycle.
final class AssetSource: Sendable {
    let open: @Sendable () throws -> any ByteSource
    let options: DemuxerOptions
    /// The packet scan: one pass over the file's packets, shared by every key that needs it.
    let scan = SharedLoad<[PacketStatistics]>()
    /// What the header parse saw (size, streams): the scan, which opens the source again, checks it.
    private let header = Locked<(byteSize: Int64?, streams: Int)?>(nil)

    init(options: DemuxerOptions = DemuxerOptions(), open: @escaping @Sendable () throws -> any ByteSource) {
        self.options = options
        self.open = open
    }

    /// Opens and parses the container. Blocking: runs on an engine thread. The returned demuxer holds the
    /// source open until it is dropped.
    func openDemuxer(cancellation: CancellationToken) throws -> Demuxer {
        let demuxer = try AVError.converting { try Demuxer(source: open(), options: options, cancellation: cancellation) }
        header.withLock { $0 = (demuxer.info.byteSize, demuxer.info.streams.count) }
        return demuxer
    }

    /// Opens the source afresh for reading pictures of the stream at `streamIndex`. Blocking: runs on an
    /// engine thread. The reader holds the source open until it is dropped.
    func openFrameReader(streamIndex: Int, cancellation: CancellationToken) throws -> VideoFrameReader {
        try AVError.converting {
            try VideoFrameReader(source: openUnchanged(cancellation: cancellation), options: options, streamIndex: streamIndex,
                                 cancellation: cancellation)
        }
    }

    /// Opens the source afresh for reading the stream at `streamIndex` in order (a reader output's
    /// packets, `forPackets`, or pictures). Blocking: runs on an engine thread. The reader holds the
    /// source open until it is dropped.
    func openStreamReader(streamIndex: Int, forPackets: Bool = false, cancellation: CancellationToken) throws -> StreamReader {
        try AVError.converting {
            try StreamReader(source: openUnchanged(cancellation: cancellation), options: options, streamIndex: streamIndex,
                             forPackets: forPackets, cancellation: cancellation)
        }
    }

    /// Opens the bytes again, checking they are the size the header parse saw: a file replaced or
    /// truncated since fails here (`AVError.fileFailedToParse`-family, "the file changed") rather than
    /// read as something else, or as less. Blocking: call on an engine thread.
    func openUnchanged(cancellation: CancellationToken = CancellationToken()) throws -> any ByteSource {
        let source = try open()
        if let expected = header.withLock({ $0 }), let size = try source.size(cancellation: cancellation), let known = expected.byteSize,
           size != known {
            throw MediaEngineError(.truncated, source: source.name, operation: "read",
                                   reason: "the file changed after its header was read (it had \(known) bytes, now \(size))")
        }
        return source
    }

    /// Packet statistics of every stream, from one pass over the file on an engine thread; the result is
    /// kept. A cancelled pass keeps nothing, and the next one starts from the beginning. A file that
    /// changed since the header parse (another size or stream count) fails the pass.
    func packetStatistics() async throws -> [PacketStatistics] {
        try await scan.value(scanOperation)
    }

    /// The same, blocking the calling thread (for the deprecated synchronous getters).
    func blockingPacketStatistics() -> Result<[PacketStatistics], any Error> {
        scan.blockingValue(scanOperation)
    }

    private var scanOperation: SharedLoad<[PacketStatistics]>.Operation {
        { [self] token in
            let expected = header.withLock { $0 }
            return try AVError.converting {
                try Demuxer.scanPackets(source: open(), options: options, cancellation: token, expecting: expected)
            }
        }
    }
}
