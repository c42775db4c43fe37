import AVFoundation
import Foundation
import Locking

/// A 16-byte header of generator settings and times, then a file: generate images at those times
/// through one of the generator's four ways. Traps on an image outside `maximumSize`, a failure other
/// than an AVError (or AVError.unknown), a cancellation nobody asked for, or a legacy handler not called once per time.
///
/// Header: [0] way (bits 0-1: image(at:), images(for:), generateCGImagesAsynchronously, copyCGImage),
/// bit 2 appliesPreferredTrackTransform, bits 3-4 aperture mode, bit 5 cancel after the first image,
/// bit 6 precise timing; [1] tolerance (0 exact, 1 Apple's default, n: n/100 s); [2], [3] maximum
/// width and height / 4 (0: free); [4] number of times - 1 (mod 4); [5...12] times, two bytes each:
/// milliseconds, or 0xFFFF invalid, 0xFFFE +infinity, 0xFFFD one second before zero.
enum ThumbnailTarget {
    struct Settings {
        var way: Int
        var appliesTransform: Bool
        var aperture: AVAssetImageGenerator.ApertureMode?
        var cancelEarly: Bool
        var precise: Bool
        var tolerance: CMTime
        var maximumSize: CGSize
        var times: [CMTime]

        init(_ reader: inout ByteReader) {
            let flags = reader.byte()
            way = Int(flags & 3)
            appliesTransform = flags & 4 != 0
            aperture = [nil, .cleanAperture, .productionAperture, .encodedPixels][Int(flags >> 3 & 3)]
            cancelEarly = flags & 32 != 0
            precise = flags & 64 != 0
            switch reader.byte() {
            case 0: tolerance = .zero
            case 1: tolerance = .positiveInfinity
            case let n: tolerance = CMTime(value: CMTimeValue(n), timescale: 100)
            }
            maximumSize = CGSize(width: Int(reader.byte()) * 4, height: Int(reader.byte()) * 4)
            let count = Int(reader.byte() % 4) + 1
            var times: [CMTime] = []
            for index in 0..<4 {
                let value = reader.uint16()
                guard index < count else { continue }
                switch value {
                case 0xFFFF: times.append(.invalid)
                case 0xFFFE: times.append(.positiveInfinity)
                case 0xFFFD: times.append(CMTime(value: -1, timescale: 1))
                default: times.append(CMTime(value: CMTimeValue(value), timescale: 1000))
                }
            }
            self.times = times
            for _ in 13..<16 { _ = reader.byte() }
        }
    }

    static func run(_ bytes: Data) {
        var reader = ByteReader(bytes)
        let settings = Settings(&reader)
        let url = Scratch.write(reader.rest())
        let asset = AVURLAsset(url: url, options: settings.precise ? [AVURLAssetPreferPreciseDurationAndTimingKey: true] : nil)
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = settings.appliesTransform
        generator.apertureMode = settings.aperture
        generator.requestedTimeToleranceBefore = settings.tolerance
        generator.requestedTimeToleranceAfter = settings.tolerance
        generator.maximumSize = settings.maximumSize
        switch settings.way {
        case 0: viaImageAt(generator, settings)
        case 1: viaImages(generator, settings)
        case 2: viaCallbacks(generator, settings)
        default: viaCopy(generator, settings)
        }
    }

    /// An image must fit `maximumSize` and have pixels; its time must be a time.
    static func check(_ image: CGImage, _ actualTime: CMTime, _ settings: Settings) {
        guard image.width >= 1, image.height >= 1 else { fatalError("an empty image: \(image.width)x\(image.height)") }
        let (maxWidth, maxHeight) = (Int(settings.maximumSize.width), Int(settings.maximumSize.height))
        if maxWidth > 0, image.width > maxWidth { fatalError("image width \(image.width) over maximumSize \(maxWidth)") }
        if maxHeight > 0, image.height > maxHeight { fatalError("image height \(image.height) over maximumSize \(maxHeight)") }
        guard actualTime.isNumeric else { fatalError("an image whose actual time is \(actualTime)") }
    }

    static func check(_ error: any Error, cancelled: Bool) {
        requireNamedFailure(error, cancelled: cancelled, "image generation")
    }

    static func viaImageAt(_ generator: AVAssetImageGenerator, _ settings: Settings) {
        runBlocking {
            for time in settings.times {
                do {
                    let (image, actualTime) = try await generator.image(at: time)
                    check(image, actualTime, settings)
                } catch {
                    check(error, cancelled: false)
                }
            }
        }
    }

    static func viaImages(_ generator: AVAssetImageGenerator, _ settings: Settings) {
        runBlocking {
            let task = Task {
                var count = 0
                for await element in generator.images(for: settings.times) {
                    count += 1
                    switch element {
                    case let .success(_, image, actualTime): check(image, actualTime, settings)
                    case let .failure(_, error): check(error, cancelled: settings.cancelEarly)
                    }
                    if settings.cancelEarly { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return count
            }
            let count = await task.value
            if count > settings.times.count { fatalError("images(for:) gave \(count) elements for \(settings.times.count) times") }
            if !settings.cancelEarly, count != settings.times.count {
                fatalError("images(for:) gave \(count) elements for \(settings.times.count) times")
            }
        }
    }

    static func viaCallbacks(_ generator: AVAssetImageGenerator, _ settings: Settings) {
        let calls = Locked<[CMTime]>([])
        let done = DispatchSemaphore(value: 0)
        let cancelled = Locked(false)
        let times = settings.times.map { NSValue(time: $0) }
        generator.generateCGImagesAsynchronously(forTimes: times) { requested, image, actualTime, result, error in
            switch result {
            case .succeeded:
                guard let image else { fatalError("succeeded without an image") }
                check(image, actualTime, settings)
            case .failed:
                guard let error else { fatalError("failed without an error") }
                check(error, cancelled: false)
            case .cancelled:
                if !cancelled.withLock({ $0 }) { fatalError("a time reported cancelled although nothing cancelled it") }
            }
            let count = calls.withLock { calls in
                calls.append(requested)
                return calls.count
            }
            if settings.cancelEarly, count == 1 {
                cancelled.withLock { $0 = true }
                generator.cancelAllCGImageGeneration()
            }
            if count == times.count { done.signal() }
            if count > times.count { fatalError("the handler was called \(count) times for \(times.count) times") }
        }
        waitOrReportHang(done, "generateCGImagesAsynchronously's handlers")
        let requested = calls.withLock { $0 }
        for (time, call) in zip(settings.times, requested) where time.isValid && call != time {
            fatalError("reported \(call) for requested \(time): out of order")
        }
    }

    static func viaCopy(_ generator: AVAssetImageGenerator, _ settings: Settings) {
        for time in settings.times {
            var actualTime = CMTime.invalid
            do {
                let image = try generator.copyCGImage(at: time, actualTime: &actualTime)
                check(image, actualTime, settings)
            } catch {
                check(error, cancelled: false)
            }
        }
    }
}
