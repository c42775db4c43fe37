import AVFoundation
import Foundation
import Locking
import Synchronization
import VideoWindow

/// `avtool play --video`: shows the item's pictures in a window, as an app would, through an
/// `AVPlayerItemVideoOutput` asked every 8 ms for the picture at the item's time on the host clock (a
/// picture shows at most 8 ms late; ffplay looks every 10 ms). Pictures come as 4:2:0 planar (`y420`)
/// at the window's size, which SDL converts straight into the window's pixels with the video's matrix
/// (BT.601 or BT.709); a turned window, or a video of another matrix (BT.2020, which SDL 2 lacks),
/// takes BGRA, which the engine converts.
/// The window lives on a thread of its own (SDL wants one thread; Swift's cooperative pool is never
/// blocked), which also turns the window's keys into the player's commands. Where no window can be
/// opened (no display) it says so once and the sound plays on.
final class VideoDisplay: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    /// Starts showing `item` (ready to play) in a window titled `title`, its pictures turned clockwise
    /// by `degrees`. `yCbCrMatrix` is the video's matrix as its format description states it (Apple's
    /// `ITU_R_709_2`, `ITU_R_601_4`, `ITU_R_2020`), nil where it states none: then BT.709 above 576 lines
    /// and BT.601 below, as the engine assumes. `command` gets the window's keys; `ready` is called once
    /// with the window's size, when the first picture shows.
    init(item: AVPlayerItem, title: String, degrees: Int, yCbCrMatrix: String?, command: @escaping @Sendable (Play.Command) -> Void,
         ready: @escaping @Sendable (Int, Int) -> Void) {
        let size = VideoDisplay.windowSize(item.presentationSize)
        // Pictures come at the size they show at (before turning), scaled as they are decoded, so the
        // window converts them as they are.
        let turned = degrees % 180 != 0
        let planar = degrees % 360 == 0 && [nil, AVVideoYCbCrMatrix_ITU_R_709_2, AVVideoYCbCrMatrix_ITU_R_601_4].contains(yCbCrMatrix)
        let highDefinition = yCbCrMatrix.map { $0 == AVVideoYCbCrMatrix_ITU_R_709_2 } ?? (item.presentationSize.height > 576)
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey as String: planar ? kCVPixelFormatType_420YpCbCr8Planar : kCVPixelFormatType_32BGRA,
            kCVPixelBufferWidthKey as String: turned ? size.height : size.width,
            kCVPixelBufferHeightKey as String: turned ? size.width : size.height,
        ])
        item.add(output)
        let thread = Thread { [self] in
            defer { finished.store(true, ordering: .releasing) }
            let window: VideoWindow
            do {
                window = try VideoWindow(title: title, width: size.width, height: size.height, degrees: degrees)
            } catch {
                AVTool.complain("no window for --video (\(error)); playing on without pictures")
                return
            }
            var shown = false
            while !stopped.load(ordering: .acquiring) {
                for event in window.events() {
                    switch event {
                    case .quit, .key("q"): command(.quit)
                    case .key(" "): command(.toggle)
                    case .key("+"), .key("="): command(.faster)
                    case .key("-"): command(.slower)
                    case .left: command(.seek(-5))
                    case .right: command(.seek(5))
                    default: break
                    }
                }
                let now = CMClockGetTime(CMClockGetHostTimeClock())
                let time = output.itemTime(forHostTime: now.seconds)
                if time.isValid, output.hasNewPixelBuffer(forItemTime: time),
                   let buffer = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: nil) {
                    CVPixelBufferLockBaseAddress(buffer, .readOnly)
                    if VideoDisplay.show(buffer, in: window, highDefinition: highDefinition) {
                        if !shown { ready(window.width, window.height) }
                        shown = true
                    }
                    CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
                }
                Thread.sleep(forTimeInterval: 0.008)
            }
        }
        thread.name = "avtool.video"
        thread.start()
    }

    /// Closes the window (on its thread) and waits, at most a second, until it is gone: the wait holds
    /// a Dispatch thread, not the caller's.
    func stop() async {
        stopped.store(true, ordering: .releasing)
        await withHandOffContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [self] in
                for _ in 0..<200 where !finished.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.005) }
                done.resume()
            }
        }
    }

    /// Shows `buffer` (locked): BGRA, or 4:2:0 planar whose planes lie as I420's do (Avocet's `y420`
    /// buffers; one laid out otherwise is not shown). Whether it was shown.
    private static func show(_ buffer: CVPixelBuffer, in window: VideoWindow, highDefinition: Bool) -> Bool {
        let (width, height) = (CVPixelBufferGetWidth(buffer), CVPixelBufferGetHeight(buffer))
        guard CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8Planar else {
            guard let base = CVPixelBufferGetBaseAddress(buffer) else { return false }
            window.show(bgra: base, bytesPerRow: CVPixelBufferGetBytesPerRow(buffer), width: width, height: height)
            return true
        }
        let row = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
        guard CVPixelBufferGetPlaneCount(buffer) == 3, let y = CVPixelBufferGetBaseAddressOfPlane(buffer, 0),
              let cb = CVPixelBufferGetBaseAddressOfPlane(buffer, 1), let cr = CVPixelBufferGetBaseAddressOfPlane(buffer, 2),
              CVPixelBufferGetBytesPerRowOfPlane(buffer, 1) == (row + 1) / 2, CVPixelBufferGetBytesPerRowOfPlane(buffer, 2) == (row + 1) / 2,
              cb - y == row * height, cr - cb == (row + 1) / 2 * ((height + 1) / 2) else { return false }
        window.show(planar: y, bytesPerRow: row, width: width, height: height, highDefinition: highDefinition)
        return true
    }

    /// The presentation size, made to fit 1280 x 720 (never enlarged; 320 x 240 without video).
    static func windowSize(_ size: CGSize) -> (width: Int, height: Int) {
        guard size.width >= 1, size.height >= 1, size.width.isFinite, size.height.isFinite else { return (320, 240) }
        let scale = min(1, 1280 / size.width, 720 / size.height)
        return (max(1, Int((size.width * scale).rounded())), max(1, Int((size.height * scale).rounded())))
    }

    /// The turn of a video with this preferred transform, clockwise in degrees (a multiple of 90).
    static func degrees(_ t: CGAffineTransform) -> Int {
        let angle = atan2(Double(t.b), Double(t.a)) * 180 / .pi
        guard angle.isFinite else { return 0 }
        return (Int((angle / 90).rounded()) * 90 + 360) % 360
    }
}
