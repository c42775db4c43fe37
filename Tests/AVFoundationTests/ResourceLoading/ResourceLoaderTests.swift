import AVFoundation
import FixtureSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import Synchronization
import Testing

/// AVAssetResourceLoader and its delegate: seed 001's data-request semantics, faults, cancellation.
@Suite("Resource loader")
struct ResourceLoaderTests {
    func delegate(_ name: String, _ behaviour: FileServingDelegate.Behaviour = .serve, chunk: Int = 64 << 10,
                  onDemand: Bool = false, byteRanges: Bool = true, lengthKnown: Bool = true) throws -> FileServingDelegate {
        try FileServingDelegate(file: Fixtures.path(name), behaviour: behaviour, chunk: chunk, onDemand: onDemand,
                                byteRanges: byteRanges, lengthKnown: lengthKnown)
    }

    func underlying(_ error: any Error) -> NSError? {
        (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
    }

    // MARK: - Seed 001's semantics

    @Test func aDelegateServesTheSameAssetAsTheFile() async throws {
        let server = try delegate("av.mp4", chunk: 1000)
        let asset = server.asset("av.mp4")
        let file = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        let fileDuration = try await file.load(.duration)
        let fileTracks = try await file.load(.tracks)
        #expect(duration == fileDuration)
        #expect(tracks.map(\.mediaType) == fileTracks.map(\.mediaType))
        #expect(server.seen.first?.askedForInfo == true, "the first request asks for the content information")
        #expect(server.seen.dropFirst().allSatisfy { !$0.askedForInfo }, "and only the first")
        #expect(server.seen.allSatisfy { $0.onDelegateQueue }, "every request arrives on the delegate queue")
        #expect(asset.resourceLoader.delegate === server)
        #expect(asset.resourceLoader.delegateQueue === server.queue)
    }

    @Test func respondMayBeCalledManyTimesAndAdvancesCurrentOffset() async throws {
        let server = try delegate("av.mp4", .silent)
        let asset = server.asset("av.mp4")
        let load = Task { try await asset.load(.duration) }
        await until("!server.pending.isEmpty") { !server.pending.isEmpty }
        let request = try #require(server.pending.first)
        let data = try #require(request.dataRequest)
        #expect(data.requestedOffset == 0)
        #expect(data.currentOffset == 0)
        data.respond(with: server.bytes.subdata(in: 0..<10))
        data.respond(with: server.bytes.subdata(in: 10..<25))
        data.respond(with: Data())
        #expect(data.currentOffset == 25)
        #expect(!request.isFinished && !request.isCancelled)
        // The rest, then the end: the load completes.
        if let info = request.contentInformationRequest {
            info.contentLength = Int64(server.bytes.count)
            info.isByteRangeAccessSupported = true
        }
        server.answerRest(request, from: 25)
        let fileDuration = try await AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))).load(.duration)
        #expect(try await load.value == fileDuration)
        #expect(request.isFinished)
        // After the end, calls are ignored and change nothing.
        let offset = data.currentOffset
        data.respond(with: Data([1, 2, 3]))
        request.finishLoading()
        request.finishLoading(with: NSError(domain: "late", code: 1))
        #expect(data.currentOffset == offset)
        #expect(request.isFinished && !request.isCancelled)
    }

    @Test func bytesAreUsedAsTheyArriveBeforeFinishLoading() async throws {
        let server = try delegate("multi.mkv", .respondWithoutFinishing)
        let duration = try await server.asset("multi.mkv").load(.duration)
        #expect(abs(duration.seconds - (Fixtures.fixture("multi.mkv").duration ?? 0)) < 0.05)
    }

    /// A delegate that keeps requests it answered but never finishes keeps neither the asset nor its
    /// buffered source alive (found by avocet-fuzz's loader target: a request's redirect path held the
    /// source): once the asset is gone, every such request is cancelled, and the delegate hears it.
    @Test func requestsKeptUnfinishedAreCancelledWhenTheAssetGoes() async throws {
        let server = try delegate("frames-live.webm", .respondWithoutFinishing)
        var asset: AVURLAsset? = server.asset("frames-live.webm")
        _ = try await asset?.load(.duration, .tracks)
        #expect(!server.pending.isEmpty)
        weak let weakAsset = asset
        asset = nil
        await until("the asset freed and its requests cancelled") { weakAsset == nil && server.pending.allSatisfy(\.isCancelled) }
        #expect(weakAsset == nil)
        #expect(server.pending.allSatisfy { $0.isCancelled }, "cancelled once the asset is gone")
        await until("server.cancelled.count == server.pending.count") { server.cancelled.count == server.pending.count }
        #expect(server.cancelled.count == server.pending.count, "didCancel for each")
    }

    @Test func finishingWithFewerBytesEndsTheResourceThere() async throws {
        // The delegate says the file is whole but gives only its first 2,000 bytes: a truncated file.
        let server = try TruncatingDelegate(file: Fixtures.path("av.mp4"), keep: 2000)
        let asset = AVURLAsset(url: URL(string: "fixture://media/av.mp4")!)
        asset.resourceLoader.setDelegate(server, queue: server.queue)
        await #expect(throws: AVError.self) { try await asset.load(.duration) }
    }

    @Test(arguments: ["av.mp4", "moov-at-end.mp4", "multi.mkv", "tagged.flac"])
    func anUnknownContentLengthWorks(_ name: String) async throws {
        let server = try delegate(name, lengthKnown: false)
        let (duration, tracks) = try await server.asset(name).load(.duration, .tracks)
        let file = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name)))
        let (fileDuration, fileTracks) = try await file.load(.duration, .tracks)
        #expect(duration == fileDuration)
        #expect(tracks.count == fileTracks.count)
    }

    @Test func withoutByteRangesEveryRequestStartsAtZero() async throws {
        let server = try delegate("av.mp4", byteRanges: false)
        let duration = try await server.asset("av.mp4").load(.duration)
        #expect(duration.seconds > 0)
        #expect(server.seen.allSatisfy { $0.offset == 0 }, "a delegate without byte ranges reads from the start")
        #expect(server.seen.dropFirst().allSatisfy { $0.toEnd })
    }

    @Test func entireLengthOnDemandAsksForLessThanANetworkSource() async throws {
        let network = try delegate("moov-at-end.mp4")
        let local = try delegate("moov-at-end.mp4", onDemand: true)
        _ = try await network.asset("moov-at-end.mp4").load(.duration, .tracks)
        _ = try await local.asset("moov-at-end.mp4").load(.duration, .tracks)
        let networkAsked = network.seen.map { Int64($0.length) }.reduce(0, +)
        let localAsked = local.seen.dropFirst().map { Int64($0.length) }.reduce(0, +)
        #expect(local.seen.dropFirst().allSatisfy { $0.length <= 1 << 20 }, "on demand: small requests, when needed")
        #expect(localAsked < networkAsked, "on demand asks for less: \(localAsked) vs \(networkAsked)")
    }

    // MARK: - Faults

    @Test func aSchemeNobodyLoadsFailsClearly() async throws {
        let asset = AVURLAsset(url: URL(string: "nothing://here/movie.mp4")!)
        do {
            _ = try await asset.load(.duration)
            Issue.record("no delegate: the load must fail")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(error.localizedDescription.contains("nothing://here/movie.mp4"))
            #expect(error.localizedDescription.contains("no delegate"))
            #expect(underlying(error)?.domain == NSURLErrorDomain)
            #expect(underlying(error)?.code == NSURLErrorUnsupportedURL)
        }
        if case .failed = asset.status(of: .duration) {} else { Issue.record("the key is failed") }
    }

    @Test func aDelegateThatDeclinesFailsTheLoad() async throws {
        let server = try delegate("av.mp4", .decline)
        do {
            _ = try await server.asset("av.mp4").load(.tracks)
            Issue.record("declined: the load must fail")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(error.localizedDescription.contains("declined"))
            #expect(underlying(error)?.code == NSURLErrorResourceUnavailable)
        }
    }

    @Test @available(*, deprecated) func finishLoadingWithAnErrorCarriesIt() async throws {
        let cause = NSError(domain: "com.example.archive", code: 42, userInfo: [NSLocalizedDescriptionKey: "the archive is locked"])
        let server = try delegate("av.mp4", .fail(cause))
        let asset = server.asset("av.mp4")
        do {
            _ = try await asset.load(.duration)
            Issue.record("failed by the delegate: the load must fail")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(underlying(error)?.domain == "com.example.archive")
            #expect(underlying(error)?.code == 42)
            #expect(error.localizedDescription.contains("the archive is locked"))
        }
        // The legacy API reports the same failure.
        await withHandOffContinuation { continuation in
            asset.loadValuesAsynchronously(forKeys: ["duration"]) { continuation.resume() }
        }
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .failed)
        #expect(error?.code == AVError.Code.failedToLoadMediaData.rawValue)
    }

    @Test func cancelLoadingCancelsASilentDelegatesRequests() async throws {
        let server = try delegate("av.mp4", .silent)
        let asset = server.asset("av.mp4")
        let load = Task { try await asset.load(.duration) }
        await until("!server.pending.isEmpty") { !server.pending.isEmpty }
        let start = ContinuousClock.now
        asset.cancelLoading()
        do {
            _ = try await load.value
            Issue.record("cancelled: the load must not succeed")
        } catch let error as AVError {
            #expect(error.code == .operationCancelled)
        }
        #expect(ContinuousClock.now - start < TestTiming.bound(10), "ends at once, not when the silent delegate is given up on")
        await until("!server.cancelled.isEmpty") { !server.cancelled.isEmpty }
        let request = try #require(server.pending.first)
        #expect(request.isCancelled && !request.isFinished)
        #expect(server.cancelled.count == 1)
        #expect(server.cancelled.first?.onDelegateQueue == true, "didCancel on the delegate queue")
        #expect(server.cancelled.first?.isCancelled == true, "isCancelled is already true when didCancel comes")
        // Answers after the cancellation are ignored.
        request.dataRequest?.respond(with: Data([0]))
        request.finishLoading()
        #expect(request.isCancelled && !request.isFinished)
        #expect(request.dataRequest?.currentOffset == 0)
    }

    @Test func taskCancellationCancelsASilentDelegatesRequests() async throws {
        let server = try delegate("av.mp4", .silent)
        let asset = server.asset("av.mp4")
        let load = Task { try await asset.load(.duration) }
        await until("!server.pending.isEmpty") { !server.pending.isEmpty }
        let start = ContinuousClock.now
        load.cancel()
        await #expect(throws: (any Error).self) { try await load.value }
        #expect(ContinuousClock.now - start < TestTiming.bound(10), "ends at once, not when the silent delegate is given up on")
        await until("!server.cancelled.isEmpty") { !server.cancelled.isEmpty }
        #expect(server.cancelled.first?.onDelegateQueue == true)
        #expect(server.pending.first?.isCancelled == true)
    }

    /// A delegate may redirect a request (here to the web server that holds the movie): that request and
    /// every later one of the asset go there. A redirect to a scheme Avocet does not load fails clearly.
    @Test func aDelegateRedirectIsFollowedToHTTP() async throws {
        let server = try LoopbackHTTPServer(routes: ["/signed/av.mp4": .file(URL(fileURLWithPath: Fixtures.path("av.mp4")))])
        let redirector = RedirectingDelegate(target: server.url("/signed/av.mp4"))
        let asset = AVURLAsset(url: URL(string: "signed://av.mp4")!)
        asset.resourceLoader.setDelegate(redirector, queue: redirector.queue)
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        let file = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let (fileDuration, fileTracks) = try await file.load(.duration, .tracks)
        #expect(duration == fileDuration)
        #expect(tracks.count == fileTracks.count)
        #expect(redirector.asked.withLock { $0 } == 1, "after the redirect, requests go to the server")
        #expect(server.requests.first?.headers["range"]?.hasPrefix("bytes=0-") == true)

        let elsewhere = RedirectingDelegate(target: URL(string: "ftp://example.invalid/av.mp4")!)
        let refused = AVURLAsset(url: URL(string: "signed://other.mp4")!)
        refused.resourceLoader.setDelegate(elsewhere, queue: elsewhere.queue)
        do {
            _ = try await refused.load(.duration)
            Issue.record("a redirect to ftp must fail")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(error.localizedDescription.contains("ftp://example.invalid/av.mp4"))
        }
    }

    /// The deprecated synchronous getters wait on their calling thread (never the pool) for the same
    /// shared parse, which waits for the delegate without an engine thread.
    @Test @available(*, deprecated) func synchronousGettersWorkThroughADelegate() async throws {
        let server = try delegate("multi.mkv", .later(0.02))
        let asset = server.asset("multi.mkv")
        let (seconds, trackCount) = try await onOwnThread { (asset.duration.seconds, asset.tracks.count) }
        let file = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("multi.mkv")))
        let (duration, tracks) = try await file.load(.duration, .tracks)
        #expect(seconds == duration.seconds)
        #expect(trackCount == tracks.count)
    }

    @Test func aDelegateThatAnswersLaterIsWaitedFor() async throws {
        let server = try delegate("tagged.flac", .later(0.05))
        let tracks = try await server.asset("tagged.flac").load(.tracks)
        #expect(tracks.map(\.mediaType) == [.audio])
    }

    /// An app's delegate often keeps its asset; the asset's requests hold the delegate weakly, as the
    /// loader does, so the two do not keep each other alive.
    @Test func aDelegateThatKeepsItsAssetDoesNotLeakIt() async throws {
        var server: AssetKeepingDelegate? = try AssetKeepingDelegate(file: Fixtures.path("av.mp4"))
        var asset: AVURLAsset? = AVURLAsset(url: URL(string: "fixture://media/av.mp4")!)
        asset?.resourceLoader.setDelegate(server, queue: server?.queue)
        server?.asset = asset
        _ = try await asset?.load(.duration, .tracks)
        weak let weakAsset = asset
        weak let weakServer = server
        asset = nil
        server = nil
        // The last engine job to hold them lets them go just after the load returns.
        await until("the asset and its delegate freed") { weakAsset == nil && weakServer == nil }
    }

    /// A delegate that lies: any length (the largest there is, or negative), and more bytes than asked,
    /// of garbage, for every request. The load ends with an AVError, without a trap or a hang, and the
    /// cache keeps no more than it holds.
    @Test(arguments: [Int64.max, -5, 0])
    func aLyingDelegateEndsInAnError(_ length: Int64) async throws {
        let liar = LyingDelegate(length: length)
        let asset = AVURLAsset(url: URL(string: "liar://movie.mp4")!)
        asset.resourceLoader.setDelegate(liar, queue: liar.queue)
        await #expect(throws: AVError.self) { try await asset.load(.duration, .tracks) }
    }

    @Test func theDelegateIsNotRetained() throws {
        var server: FileServingDelegate? = try delegate("av.mp4")
        let asset = try #require(server).asset("av.mp4")
        weak let weakServer = server
        server = nil
        #expect(weakServer == nil)
        #expect(asset.resourceLoader.delegate == nil)
    }
}

extension FileServingDelegate {
    /// Gives the rest of the bytes a data request asks for, from `offset`, then finishes.
    func answerRest(_ request: AVAssetResourceLoadingRequest, from offset: Int) {
        if let data = request.dataRequest {
            let stop = data.requestsAllDataToEndOfResource ? bytes.count
                : min(bytes.count, Int(data.requestedOffset) + data.requestedLength)
            if offset < stop { data.respond(with: bytes.subdata(in: offset..<stop)) }
        }
        request.finishLoading()
    }
}

/// Claims a whole file's length and byte ranges, but gives only its first `keep` bytes.
final class TruncatingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let queue = DispatchQueue(label: "test.truncating")
    let bytes: Data
    let keep: Int

    init(file: String, keep: Int) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        self.keep = keep
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentLength = Int64(bytes.count)
            info.isByteRangeAccessSupported = true
        }
        if let data = loadingRequest.dataRequest, data.requestedOffset < Int64(keep) {
            let stop = min(keep, Int(data.requestedOffset) + data.requestedLength)
            data.respond(with: bytes.subdata(in: Int(data.requestedOffset)..<stop))
        }
        loadingRequest.finishLoading()
        return true
    }
}

/// Serves a file and keeps the asset it serves, as app code often does.
final class AssetKeepingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: `asset` is set once before loading; the rest is immutable.
    let queue = DispatchQueue(label: "test.keeping")
    let bytes: Data
    var asset: AVURLAsset?

    init(file: String) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentLength = Int64(bytes.count)
            info.isByteRangeAccessSupported = true
        }
        if let data = loadingRequest.dataRequest, data.requestedOffset < Int64(bytes.count) {
            let stop = min(bytes.count, Int(data.requestedOffset) + data.requestedLength)
            data.respond(with: bytes.subdata(in: Int(data.requestedOffset)..<stop))
        }
        loadingRequest.finishLoading()
        return true
    }
}

/// Redirects every request to `target`, without giving any bytes itself.
final class RedirectingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: immutable but for `asked`, behind its lock.
    let queue = DispatchQueue(label: "test.redirecting")
    let target: URL
    let asked = Locked(0)

    init(target: URL) {
        self.target = target
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        asked.withLock { $0 += 1 }
        loadingRequest.redirect = URLRequest(url: target)
        loadingRequest.finishLoading()
        return true
    }
}

/// Claims `length` bytes with ranges, and answers every request with 3 MiB of noise (more than asked).
final class LyingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let queue = DispatchQueue(label: "test.lying")
    let length: Int64
    let noise: Data

    init(length: Int64) {
        self.length = length
        // Filled in place: a debug build's map over millions of elements would hold a pool thread long.
        var generator = SplitMix64(seed: 7)
        var noise = Data(count: 3 << 20)
        noise.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: generator.next(), toByteOffset: i, as: UInt64.self) }
        }
        self.noise = noise
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentLength = length
            info.isByteRangeAccessSupported = true
        }
        loadingRequest.dataRequest?.respond(with: noise)
        loadingRequest.finishLoading()
        return true
    }
}
