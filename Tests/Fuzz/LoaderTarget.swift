import AVFoundation
import Dispatch
import Foundation
import Locking

/// An asset loaded through a resource loader delegate that behaves as the input says: it serves a
/// fixture, picked by the first byte, and answers each loading request by the next op of the program.
///
/// Input: [0] fixture; [1] content information (bits 0-1: the length told is exact, 1000 short, 1000 long
/// or 0; bit 2: byte ranges; bit 3: no content type; bit 4: entire length on demand); [2] when to
/// cancel (0: never, n: cancelLoading after n ms); [3] what to load (bit 0: an image at 1 s too,
/// bit 1: the legacy API); then one op per request (low 4 bits the op, high 4 a parameter; past the
/// end every request is served).
///
/// Traps when a load fails with something other than an AVError, when it outlives `cancelLoading()`
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
        Task {
            await load(asset, image: what & 1 != 0, legacy: what & 2 != 0, cancelled: cancelled)
            done.signal()
        }
        // A program that keeps a request unanswered is cancelled at the latest 30 ms in, as an app
        // whose server never answers would.
        let deadline = cancelAfter > 0 ? cancelAfter : (delegate.mayKeepRequests ? 30 : 0)
        if deadline > 0, done.wait(timeout: .now() + .milliseconds(deadline)) == .timedOut {
            cancelled.withLock { $0 = true }
            asset.cancelLoading()
            if done.wait(timeout: .now() + 5) == .timedOut { fatalError("the load outlived cancelLoading() by 5 s") }
        } else if deadline == 0 {
            done.wait()
        }
        return Weak(asset)
    }

    static func load(_ asset: AVURLAsset, image: Bool, legacy: Bool, cancelled: Locked<Bool>) async {
        func check(_ error: any Error) {
            if error is AVError { return }
            fatalError("a load through the delegate failed without an AVError: \(String(reflecting: error))")
        }
        if legacy {
            let loader: any LegacyLoading = LegacyLoader()
            await loader.load(asset, cancelled: cancelled)
        }
        do {
            let (_, tracks) = try await asset.load(.duration, .tracks)
            for track in tracks {
                _ = try await track.load(.formatDescriptions, .naturalSize, .timeRange, .nominalFrameRate)
            }
            _ = try await asset.load(.metadata, .isPlayable)
            if image {
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
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: keys) { continuation.resume() }
        }
        for key in keys {
            var error: NSError?
            let status = asset.statusOfValue(forKey: key, error: &error)
            switch status {
            case .loaded: break
            case .failed where error?.domain == AVError.errorDomain: break
            case .cancelled where cancelled.withLock({ $0 }): break
            default: fatalError("legacy status of \(key): \(status.rawValue), error \(String(describing: error))")
            }
        }
    }
}

/// A resource loader delegate that follows a program: one op per loading request.
final class ProgramDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: immutable but for the records behind locks.
    let queue = DispatchQueue(label: "avocet-fuzz.delegate")
    private static let queueKey = DispatchSpecificKey<Bool>()
    private let file: Data
    private let info: UInt8
    private let program: [UInt8]
    private let next = Locked(0)
    private let kept = Locked<[AVAssetResourceLoadingRequest]>([])
    private let offQueueSeen = Locked(false)

    init(file: Data, info: UInt8, program: [UInt8]) {
        self.file = file
        self.info = info
        self.program = program
        super.init()
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    /// Whether some op keeps a request unanswered (silent, or answering without finishing).
    var mayKeepRequests: Bool { program.contains { [5, 10].contains($0 & 15) } }
    var offQueue: Bool { offQueueSeen.withLock { $0 } }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if DispatchQueue.getSpecific(key: Self.queueKey) != true { offQueueSeen.withLock { $0 = true } }
        let step = next.withLock { index -> UInt8 in
            defer { index += 1 }
            return index < program.count ? program[index] : 0
        }
        let (op, parameter) = (step & 15, Int(step >> 4))
        switch op {
        case 1:
            // Later, from another queue.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(parameter)) {
                self.answer(loadingRequest, fraction: 16)
                loadingRequest.finishLoading()
            }
        case 2:
            answer(loadingRequest, fraction: parameter)
            loadingRequest.finishLoading()
        case 3:
            loadingRequest.finishLoading(with: NSError(domain: "avocet-fuzz", code: parameter))
        case 4:
            return false
        case 5:
            kept.withLock { $0.append(loadingRequest) }
        case 6:
            answer(loadingRequest, fraction: 16, garbage: true)
            loadingRequest.finishLoading()
        case 7:
            answer(loadingRequest, fraction: 16)
            loadingRequest.dataRequest?.respond(with: Data(repeating: 0x47, count: 1000 * (parameter + 1)))
            loadingRequest.finishLoading()
        case 8:
            setInformation(loadingRequest)
            loadingRequest.finishLoading()
        case 9:
            answer(loadingRequest, fraction: 16)
            loadingRequest.finishLoading()
            loadingRequest.finishLoading()
            loadingRequest.dataRequest?.respond(with: Data([1, 2, 3]))
            loadingRequest.finishLoading(with: NSError(domain: "avocet-fuzz", code: 9))
        case 10:
            answer(loadingRequest, fraction: 16)
            kept.withLock { $0.append(loadingRequest) }
        case 11:
            answer(loadingRequest, fraction: parameter)
            loadingRequest.finishLoading(with: NSError(domain: "avocet-fuzz", code: 11))
        default:
            answer(loadingRequest, fraction: 16, chunk: (parameter + 1) * 4096)
            loadingRequest.finishLoading()
        }
        return true
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
        if DispatchQueue.getSpecific(key: Self.queueKey) != true { offQueueSeen.withLock { $0 = true } }
    }

    func setInformation(_ request: AVAssetResourceLoadingRequest) {
        guard let information = request.contentInformationRequest else { return }
        let length = Int64(file.count)
        switch info & 3 {
        case 0: information.contentLength = length
        case 1: information.contentLength = max(0, length - 1000)
        case 2: information.contentLength = length + 1000
        default: information.contentLength = 0
        }
        information.isByteRangeAccessSupported = info & 4 != 0
        information.contentType = info & 8 != 0 ? nil : AVFileType.mp4.rawValue
        information.isEntireLengthAvailableOnDemand = info & 16 != 0
    }

    /// The content information, then `fraction`/16 of the bytes asked for (all of them at 16), in chunks.
    func answer(_ request: AVAssetResourceLoadingRequest, fraction: Int, garbage: Bool = false, chunk: Int = 16384) {
        setInformation(request)
        guard let data = request.dataRequest else { return }
        let start = Int(clamping: max(0, data.requestedOffset))
        guard start < file.count else { return }
        let asked = data.requestsAllDataToEndOfResource ? file.count - start : min(file.count - start, max(0, data.requestedLength))
        let stop = start + asked * min(fraction, 16) / 16
        var position = start
        while position < stop, !request.isCancelled {
            let end = min(stop, position + chunk)
            data.respond(with: garbage ? Data(repeating: 0, count: end - position) : file.subdata(in: position..<end))
            position = end
        }
    }

    /// Every request kept unanswered must be cancelled or finished once the asset is gone.
    func expectKeptRequestsCancelled(within seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let open = kept.withLock { $0.filter { !$0.isCancelled && !$0.isFinished } }
            if open.isEmpty { return }
            if Date() > deadline {
                fatalError("\(open.count) request(s) kept by the delegate were never cancelled after the asset was released")
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}
