internal import MediaEngine
import Foundation
internal import Locking

/// The reading layer's pool of picture readers (an open container and decoder each, `VideoFrameReader`)
/// kept idle between requests, so that the next request for the same stream skips opening the file and
/// parsing its header. A `PictureSource` owns one: the image generator, the player's video output and
/// an export's rendered pictures each check readers out of their source's pool and back in.
///
/// At most `capacity` readers wait idle, holding their byte sources (file descriptors for files) open
/// until the pool is gone; requests running at the same time each use readers of their own. Closing a
/// reader joins its decoder's threads, so it happens on an engine thread, never the caller's.
final class ReaderPool: Sendable {
    /// A reader, and the byte source of the asset it reads (which tells readers apart with the stream).
    struct HeldReader: Sendable {
        let source: AssetSource
        let reader: VideoFrameReader
    }

    private let idle = Locked<[HeldReader]>([])
    let capacity: Int

    init(capacity: Int = 4) {
        self.capacity = capacity
    }

    /// An idle reader of `file`'s stream, if one waits; it is the caller's until checked in.
    func checkOut(_ file: AVAssetTrack.FileTrack) -> HeldReader? {
        idle.withLock { readers in
            readers.firstIndex { $0.source === file.source && $0.reader.decodedStreamIndex == file.stream.index }
                .map { readers.remove(at: $0) }
        }
    }

    /// Keeps `held` for a later request, or closes it when `capacity` readers wait already.
    func checkIn(_ held: HeldReader?) {
        guard let held else { return }
        let kept = idle.withLock { readers -> Bool in
            guard readers.count < capacity else { return false }
            readers.append(held)
            return true
        }
        if !kept { ReaderPool.close([held]) }
    }

    deinit {
        ReaderPool.close(idle.withLock { $0 })
    }

    /// Drops `readers` on an engine thread.
    static func close(_ readers: [HeldReader]) {
        guard !readers.isEmpty else { return }
        IOExecutor.shared.submit { withExtendedLifetime(readers) {} }
    }
}
