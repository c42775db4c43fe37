import AVFoundation
import Dispatch
import Foundation
import Locking

/// A resource loader delegate that follows a program: one op per loading request, low 4 bits the op,
/// high 4 a parameter p; past the program's end every request is served.
///
/// Ops: 1 serve later (after p ms, from another queue); 2 serve p/16 of the bytes asked, then finish;
/// 3 fail with an error; 4 decline; 5 keep the request and never answer; 6 answer zeros; 7 answer more
/// bytes than asked; 8 finish without bytes; 9 finish twice, answer after finishing, then fail; 10 answer
/// everything but never finish (kept); 11 answer p/16 then fail; anything else serve in (p+1)*4 KiB
/// chunks. The content information follows `info`: bits 0-1 the length told is exact, 1000 short,
/// 1000 long or 0; bit 2 byte ranges; bit 3 no content type; bit 4 entire length on demand.
public final class ProgramDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: immutable but for the records behind locks.
    /// The queue the delegate is called on (set it with the loader's `setDelegate(_:queue:)`).
    public let queue = DispatchQueue(label: "avocet.program-delegate")
    private static let queueKey = DispatchSpecificKey<Bool>()
    private let file: Data
    private let info: UInt8
    private let program: [UInt8]
    private let next = Locked(0)
    private let kept = Locked<[AVAssetResourceLoadingRequest]>([])
    private let offQueueSeen = Locked(false)

    /// A delegate serving `file`, telling its content information as `info` says, answering each
    /// request by the next op of `program`.
    public init(file: Data, info: UInt8, program: [UInt8]) {
        self.file = file
        self.info = info
        self.program = program
        super.init()
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    /// Whether some op keeps a request unanswered (silent, or answering without finishing).
    public var mayKeepRequests: Bool { program.contains { [5, 10].contains($0 & 15) } }
    /// Whether a call reached the delegate off its queue.
    public var offQueue: Bool { offQueueSeen.withLock { $0 } }

    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
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

    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
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
    public func expectKeptRequestsCancelled(within seconds: Double) {
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
