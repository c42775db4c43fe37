// Playback figures that need the player from inside: how far sound and pictures stray from the
// player's clock over a long file, and how long a seek takes until its picture is there.
//
//     swift build -c release --product avocet-play-bench
//     .build/release/avocet-play-bench drift FILE SECONDS
//     .build/release/avocet-play-bench seek FILE TIME...
//
// drift  plays FILE for SECONDS on the host clock, its sound into ALSA's file device (to /dev/null:
//        real writes, no sound card), and pulls pictures from an AVPlayerItemVideoOutput at 60 Hz, as
//        a display link would. Prints `key value` lines: pictures (shown), expectedPictures (the frame
//        rate times the time played), pictureLagMaxMs (how far behind the item time the picture shown
//        was, at worst: under a frame is on time), soundLeadMinMs / soundLeadMaxMs (item time of the
//        sound written less the player's time: the renderer keeps 200 ms ahead) and driftMs (the
//        spread of the sound's lead over the run plus the worst picture lag beyond a frame: how far
//        sound and pictures strayed apart).
// seek   for each TIME (seconds), seeks a ready item with zero tolerances, then with the default
//        (infinite) ones, and times each until the video output hands out the picture at the landing
//        time. Prints exactMsMedian, wideMsMedian and each run's figures.
import AVFoundation
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("avocet-play-bench: \(message)\n".utf8))
    exit(1)
}

func milliseconds(_ start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// A player of `path`, ready, with a video output handing out `pixelFormat` (nil: the output's
/// default, 32BGRA).
func readyItem(_ path: String, pixelFormat: OSType? = nil) async -> (AVPlayer, AVPlayerItem, AVPlayerItemVideoOutput) {
    let item = AVPlayerItem(url: URL(fileURLWithPath: path))
    let attributes: [String: Any]? = pixelFormat.map { [kCVPixelBufferPixelFormatTypeKey as String: $0] }
    let output = AVPlayerItemVideoOutput(pixelBufferAttributes: attributes)
    item.add(output)
    let player = AVPlayer(playerItem: item)
    player.audioDevice = ("bench", #"pcm.bench { type file slave { pcm { type null } } file "/dev/null" format raw }"#)
    while item.status == .unknown { try? await Task.sleep(nanoseconds: 5_000_000) }
    guard item.status == .readyToPlay else { fail("\(path): \(String(describing: item.error))") }
    return (player, item, output)
}

/// A 60 Hz display's refresh interval: how often the drift consumer asks for a picture.
let displayInterval: UInt64 = 16_666_667

func drift(_ path: String, seconds: Double, pixelFormat: OSType?) async {
    let (player, item, output) = await readyItem(path, pixelFormat: pixelFormat)
    let rate = Double((try? await item.asset.loadTracks(withMediaType: .video).first?.load(.nominalFrameRate)) ?? 30)
    player.play()
    let started = ContinuousClock.now
    var pictures = 0
    var lagMax = 0.0
    var leadMin = Double.infinity, leadMax = -Double.infinity
    var warm = false
    var handedOut: OSType?
    while milliseconds(started) < seconds * 1000 {
        let host = CMClockGetTime(CMClockGetHostTimeClock())
        let time = output.itemTime(forHostTime: host.seconds)
        var shown = CMTime.invalid
        if time.isValid, output.hasNewPixelBuffer(forItemTime: time),
           let picture = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: &shown), shown.isNumeric {
            if handedOut == nil { handedOut = CVPixelBufferGetPixelFormatType(picture) }
            pictures += 1
            lagMax = max(lagMax, (time - shown).seconds)
        }
        // After the first half second (the sound's first fill) and before the last (where the sound
        // has all been written), the lead of the sound written.
        let now = player.currentTime().seconds
        if milliseconds(started) > 500 && now < item.duration.seconds - 0.5 {
            warm = true
            let lead = Double(player.audioFramesWritten) / 48_000 - now
            leadMin = min(leadMin, lead)
            leadMax = max(leadMax, lead)
        }
        if player.rate == 0 { break }
        // At the display rate, as a display link would ask.
        try? await Task.sleep(nanoseconds: displayInterval)
    }
    let played = player.currentTime().seconds
    player.pause()
    guard warm else { fail("played too briefly") }
    let frame = 1 / max(1, rate)
    print("played \(String(format: "%.3f", played))")
    // The pixel format handed out, as its four characters (BGRA, 420v).
    let code = handedOut.map { f in String((0..<4).map { Character(UnicodeScalar(UInt8(truncatingIfNeeded: f >> (24 - 8 * $0)))) }) }
    print("pixelFormat \(code ?? "none")")
    print("pictures \(pictures)")
    print("expectedPictures \(Int((played * rate).rounded()))")
    print("pictureLagMaxMs \(String(format: "%.1f", lagMax * 1000))")
    print("soundLeadMinMs \(String(format: "%.1f", leadMin * 1000))")
    print("soundLeadMaxMs \(String(format: "%.1f", leadMax * 1000))")
    print("driftMs \(String(format: "%.1f", ((leadMax - leadMin) + max(0, lagMax - frame)) * 1000))")
}

func seeks(_ path: String, times: [Double]) async {
    let (player, _, output) = await readyItem(path)
    var exact: [Double] = [], wide: [Double] = []
    for (i, seconds) in times.enumerated() {
        let target = CMTime(seconds: seconds, preferredTimescale: 90_000)
        for tolerance in [CMTime.zero, .positiveInfinity] {
            let start = ContinuousClock.now
            _ = await player.seek(to: target, toleranceBefore: tolerance, toleranceAfter: tolerance)
            let landed = player.currentTime()
            var picture: CVPixelBuffer?
            while picture == nil {
                picture = output.copyPixelBuffer(forItemTime: landed, itemTimeForDisplay: nil)
                if picture == nil { try? await Task.sleep(nanoseconds: 200_000) }
                if milliseconds(start) > 10_000 { fail("no picture at \(landed.seconds) s") }
            }
            let ms = milliseconds(start)
            if tolerance == .zero { exact.append(ms) } else { wide.append(ms) }
            print("seek\(i) \(tolerance == .zero ? "exact" : "wide") \(String(format: "%.3f", seconds)) -> \(String(format: "%.3f", landed.seconds)) \(String(format: "%.1f", ms))")
        }
    }
    print("exactMsMedian \(String(format: "%.1f", median(exact)))")
    print("wideMsMedian \(String(format: "%.1f", median(wide)))")
}

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first, arguments.count >= 3 else { fail("usage: drift FILE SECONDS [420v] | seek FILE TIME...") }
let file = arguments[arguments.startIndex + 1]
let rest = arguments.dropFirst(2).compactMap(Double.init)
switch mode {
case "drift":
    // 420v: the pictures as the decoder's 4:2:0 gives them (bi-planar, no colour conversion).
    let format: OSType? = arguments.dropFirst(2).contains("420v") ? kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange : nil
    await drift(file, seconds: rest.first ?? 60, pixelFormat: format)
case "seek": await seeks(file, times: rest)
default: fail("unknown mode \(mode)")
}
