import AVFoundation
import Dispatch
import Foundation
import Locking
import AssetProbe

/// An asset loaded through a resource loader delegate that behaves as the input says: it serves a
/// fixture, picked by the first byte, and answers each loading request by the next op of the program.
///
/// Input: [0] fixture; [1] content information (bits 0-1: the length told is exact, 1000 short, 1000 long
/// or 0; bit 2: byte ranges; bit 3: no content type; bit 4: entire length on demand); [2] when to
/// cancel (0: never, n: cancelLoading after n ms); [3] what to load (bit 0: an image at 1 s too,
/// bit 1: the legacy API); then one op per request (low 4 bits the op, high 4 a parameter; past the
/// end every request is served).
///
/// Traps when a load fails with something other than an AVError (or with AVError.unknown), when it outlives `cancelLoading()`
/// by 5 s, when a request kept unanswered is never cancelled after the asset is gone, or when a
/// request reaches the delegate off its queue.
enum LoaderTarget {
    /// Small fixtures of different containers, read once.
    static let fixtures: [Data] = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures").standardized
        let names = ["frames-h264.mp4", "moov-at-end.mp4", "vp9.webm", "frames-live.webm", "tagged.m4a",
                     "voice.opus", "tagged.mp3", "tagged.flac", "no-duration.avi", "fragmented.mp4"]
        let files = names.compactMap { FileManager.default.contents(atPath: directory.appendingPathComponent($0).path) }
        guard files.count == names.count else { fatalError("the loader target needs the fixtures in \(directory.path)") }
        return files
    }()

    static func run(_ input: Data) {
        var reader = ByteReader(input)
        let file = fixtures[Int(reader.byte()) % fixtures.count]
        let info = reader.byte()
        let cancelAfter = Int(reader.byte())
        let what = reader.byte()
        let delegate = ProgramDelegate(file: file, info: info, program: Array(reader.rest()))
        let gone = loadAndRelease(through: delegate, cancelAfter: cancelAfter, what: what)
        let until = Date().addingTimeInterval(5)
        while gone.object != nil {
            if Date() > until { fatalError("the asset was still alive 5 s after its last use") }
            Thread.sleep(forTimeInterval: 0.002)
        }
        delegate.expectKeptRequestsCancelled(within: 5)
        if delegate.offQueue { fatalError("a request reached the delegate off its queue") }
    }

    /// Loads an asset through `delegate`; the asset is gone when this returns.
    static func loadAndRelease(through delegate: ProgramDelegate, cancelAfter: Int, what: UInt8) -> Weak<AVURLAsset> {
        let asset = AVURLAsset(url: URL(string: "fuzz://media/input")!)
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let done = DispatchSemaphore(value: 0)
        let cancelled = Locked(false)
        let work = Task {
            await load(asset, image: what & 1 != 0, legacy: what & 2 != 0, cancelled: cancelled)
            done.signal()
        }
        // A program that keeps a request unanswered is cancelled at the latest 30 ms in, as an app
        // whose server never answers would.
        let deadline = cancelAfter > 0 ? cancelAfter : (delegate.mayKeepRequests ? 30 : 0)
        if deadline > 0, done.wait(timeout: .now() + .milliseconds(deadline)) == .timedOut {
            // The load stops at its next stage once cancelled; a stage that had just begun when the
            // first cancelLoading() came is a new load, which the next call cancels. The image request
            // is not loading (cancelLoading() leaves it, as Apple's): the task's cancellation ends it.
            cancelled.withLock { $0 = true }
            work.cancel()
            let until = DispatchTime.now() + 5
            var ended = false
            while !ended && DispatchTime.now() < until {
                asset.cancelLoading()
                ended = done.wait(timeout: .now() + .milliseconds(50)) == .success
            }
            if !ended { fatalError("the load outlived cancelLoading() by 5 s") }
        } else if deadline == 0 {
            waitOrReportHang(done, "the load")
        }
        return Weak(asset)
    }

    static func load(_ asset: AVURLAsset, image: Bool, legacy: Bool, cancelled: Locked<Bool>) async {
        func check(_ error: any Error) {
            requireNamedFailure(error, cancelled: cancelled.withLock { $0 }, "a load through the delegate")
        }
        if legacy {
            let loader: any LegacyLoading = LegacyLoader()
            await loader.load(asset, cancelled: cancelled)
        }
        if cancelled.withLock({ $0 }) { return }
        do {
            let (_, tracks) = try await asset.load(.duration, .tracks)
            for track in tracks {
                _ = try await track.load(.formatDescriptions, .naturalSize, .timeRange, .nominalFrameRate)
            }
            _ = try await asset.load(.metadata, .isPlayable)
            if image, !cancelled.withLock({ $0 }) {
                let generator = AVAssetImageGenerator(asset: asset)
                _ = try await generator.image(at: CMTime(value: 1, timescale: 1))
            }
        } catch {
            check(error)
        }
    }
}

/// A reference that does not keep its object.
final class Weak<Object: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: only read after the object's users are done.
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

/// The legacy loading API (its witness is deprecated, so the calls raise no warning; the caller goes
/// through the protocol, which is not).
protocol LegacyLoading {
    func load(_ asset: AVURLAsset, cancelled: Locked<Bool>) async
}

struct LegacyLoader: LegacyLoading {
    /// loadValuesAsynchronously, then every key must be settled: loaded, failed with an AVError, or
    /// cancelled when the input cancelled.
    @available(*, deprecated)
    func load(_ asset: AVURLAsset, cancelled: Locked<Bool>) async {
        let keys = ["duration", "tracks", "playable"]
        await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: keys) { continuation.resume() }
        }
        for key in keys {
            var error: NSError?
            let status = asset.statusOfValue(forKey: key, error: &error)
            switch status {
            case .loaded: break
            case .failed where error?.domain == AVError.errorDomain && error?.code != AVError.Code.unknown.rawValue: break
            case .cancelled where cancelled.withLock({ $0 }): break
            default: fatalError("legacy status of \(key): \(status.rawValue), error \(String(describing: error))")
            }
        }
    }
}
