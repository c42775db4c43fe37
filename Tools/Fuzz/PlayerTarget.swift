import AVFoundation
import Foundation

/// A 4-byte header of settings, then a file: play it through `AVPlayer` (sound to ALSA's null device,
/// pictures taken from an `AVPlayerItemVideoOutput`) for at most two seconds of host time, seeking
/// before and while it plays, then let the player go. Traps on an item or player that fails without
/// an AVError that names a cause, an item still unknown after 20 s, a time past the item's duration
/// or before zero, or a picture of another format than the one asked for.
///
/// Header: [0] bits 0-1 the rate (1, 2, 4, 8: above 2 the pictures play without sound), bit 2 take
/// 420v pictures (else 32BGRA), bit 3 no video output, bit 4 seek before playing, bit 5 seek with zero
/// tolerances, bit 6 seek again while playing, bit 7 replace the item with nothing at the end (else
/// pause); [1] the first seek's time, [2] the second's, in tenths of a second; [3] unused.
enum PlayerTarget {
    /// The host time one input may play for.
    static let budget = 2.0

    static func run(_ bytes: Data) {
        // Sound goes nowhere: the fuzzer must not need (or wait for) a sound card.
        setenv("AVOCET_AUDIO_DEVICE", "null", 0)
        var header = ByteReader(bytes)
        let flags = header.byte()
        let rate: Float = [1, 2, 4, 8][Int(flags & 3)]
        let format = flags & 4 != 0 ? kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange : kCVPixelFormatType_32BGRA
        let first = CMTime(value: CMTimeValue(header.byte()), timescale: 10)
        let second = CMTime(value: CMTimeValue(header.byte()), timescale: 10)
        _ = header.byte()
        let url = Scratch.write(header.rest())

        let item = AVPlayerItem(url: url)
        let output = flags & 8 == 0 ? AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey as String: format]) : nil
        if let output { item.add(output) }
        let player = AVPlayer(playerItem: item)
        let exact = flags & 32 != 0
        // Until the item knows whether it can play.
        let start = DispatchTime.now()
        while item.status == .unknown {
            guard DispatchTime.now() < start + 20 else { fatalError("hang: the item's status was still unknown after 20 s") }
            usleep(2_000)
        }
        if item.status == .failed {
            checkFailed(item, player)
            return
        }
        if flags & 16 != 0 { seek(player, to: first, exact: exact) }
        player.rate = rate
        let duration = item.duration
        let end = DispatchTime.now() + budget
        var seekedAgain = flags & 64 == 0
        var previous = CMTime.zero
        var pictures = 0
        while DispatchTime.now() < end, item.status != .failed {
            let now = player.currentTime()
            guard now.isNumeric, now >= .zero else { fatalError("the player's time is \(now)") }
            if duration.isNumeric, duration > .zero, now > duration {
                fatalError("the player's time \(now.seconds) s is past the item's duration \(duration.seconds) s")
            }
            if let output {
                let time = output.itemTime(forHostTime: CMClockGetTime(CMClockGetHostTimeClock()).seconds)
                if output.hasNewPixelBuffer(forItemTime: time), let picture = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: nil) {
                    let got = CVPixelBufferGetPixelFormatType(picture)
                    guard got == format else { fatalError("asked for \(format) pictures, got \(got)") }
                    guard CVPixelBufferGetWidth(picture) > 0, CVPixelBufferGetHeight(picture) > 0 else { fatalError("an empty picture") }
                    pictures += 1
                }
            }
            if !seekedAgain, now > previous {
                seekedAgain = true
                seek(player, to: second, exact: exact)
            }
            previous = now
            if player.timeControlStatus == .paused && now == duration { break }
            usleep(10_000)
        }
        if item.status == .failed || player.status == .failed { checkFailed(item, player) }
        if ProcessInfo.processInfo.environment["AVOCET_FUZZ_VERBOSE"] != nil {
            print("player: status \(item.status.rawValue), rate \(rate), at \(player.currentTime().seconds) of \(duration.seconds) s, \(pictures) pictures")
        }
        if flags & 128 != 0 { player.replaceCurrentItem(with: nil) } else { player.pause() }
    }

    /// Seeks and waits for the seek to finish (or be overtaken), at most 20 s.
    static func seek(_ player: AVPlayer, to time: CMTime, exact: Bool) {
        let done = DispatchSemaphore(value: 0)
        let tolerance = exact ? CMTime.zero : .positiveInfinity
        player.seek(to: time, toleranceBefore: tolerance, toleranceAfter: tolerance) { _ in done.signal() }
        waitOrReportHang(done, "a seek to \(time.seconds) s")
    }

    /// A failed item or player names its cause.
    static func checkFailed(_ item: AVPlayerItem, _ player: AVPlayer) {
        if item.status == .failed {
            guard let error = item.error else { fatalError("the item failed without an error") }
            requireNamedFailure(error, cancelled: false, "the item")
        }
        if player.status == .failed {
            guard let error = player.error else { fatalError("the player failed without an error") }
            requireNamedFailure(error, cancelled: false, "the player")
        }
    }
}
