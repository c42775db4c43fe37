import AVFoundation
import Foundation

/// An 8-byte header of reader settings, then a file: read every video, audio and timed metadata
/// track's samples through `AVAssetReader` (each metadata sample also made into a timed metadata group,
/// as the metadata adaptor and output do). Traps on a buffer that is not what its output's settings asked for (a
/// picture of another size or format, sound whose bytes are not its frames times the frame size, a
/// decoded sample without a time), a failure without an AVError that names a cause, a reader still
/// reading once every output has ended, or a cancellation nobody asked for.
///
/// Header: [0] bits 0-1 video (stored, 32BGRA, 420v, 32BGRA scaled to [3] x [4]); bits 2-3 audio
/// (stored, Float32 at the file's rate, 16 kHz mono 16-bit integer, every audio track through an
/// audio mix output); bit 4 take samples from the async sequence instead of copyNextSampleBuffer;
/// bit 5 cancel after [5] buffers; bit 6 random access: after the first pass, read again from [6]
/// tenths of a second, then mark the configuration final; [1], [2] the reader's time range, start and
/// duration in tenths of a second (duration 0: to the end); [3], [4] the scaled size / 4 (0: 16).
enum ReaderTarget {
    struct Settings {
        var video: Int
        var audio: Int
        var async: Bool
        var cancelAfter: Int?
        var randomAccess: Bool
        var range: CMTimeRange
        var size: (width: Int, height: Int)
        var second: CMTime

        init(_ reader: inout ByteReader) {
            let flags = reader.byte()
            video = Int(flags & 3)
            audio = Int(flags >> 2 & 3)
            async = flags & 16 != 0
            let start = CMTime(value: CMTimeValue(reader.byte()), timescale: 10)
            let duration = reader.byte()
            range = CMTimeRange(start: start, duration: duration == 0 ? .positiveInfinity : CMTime(value: CMTimeValue(duration), timescale: 10))
            size = (max(16, Int(reader.byte()) * 4), max(16, Int(reader.byte()) * 4))
            let count = Int(reader.byte())
            cancelAfter = flags & 32 != 0 ? count : nil
            randomAccess = flags & 64 != 0
            second = CMTime(value: CMTimeValue(reader.byte()), timescale: 10)
            _ = reader.byte()
        }
    }

    /// What an output was asked for, to check its buffers against.
    enum Expected {
        case stored
        case picture(format: OSType, size: (width: Int, height: Int)?)
        case sound(bytesPerSample: Int, channels: Int?)
        /// A stored timed metadata sample, read as a group.
        case metadata
    }

    /// The most buffers one input reads (a long file would only slow the fuzzer down).
    static let limit = 3000

    static func run(_ bytes: Data) {
        var header = ByteReader(bytes)
        let settings = Settings(&header)
        let url = Scratch.write(header.rest())
        let asset = AVURLAsset(url: url)
        let tracks = runBlocking { () -> [AVAssetTrack]? in try? await asset.load(.tracks) } ?? []
        let reader: AVAssetReader
        do {
            reader = try AVAssetReader(asset: asset)
        } catch {
            check(error, cancelled: false)
            return
        }
        reader.timeRange = settings.range
        var outputs: [(AVAssetReaderOutput, Expected)] = []
        let videos = tracks.filter { $0.mediaType == .video }.prefix(2)
        let audios = tracks.filter { $0.mediaType == .audio }.prefix(4)
        for track in videos {
            let (output, expected) = videoOutput(track, settings)
            if reader.canAdd(output) { reader.add(output); outputs.append((output, expected)) }
        }
        if settings.audio == 3, !audios.isEmpty {
            let output = AVAssetReaderAudioMixOutput(audioTracks: Array(audios), audioSettings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
                AVLinearPCMIsNonInterleaved: false, AVLinearPCMIsBigEndianKey: false, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2,
            ])
            if reader.canAdd(output) { reader.add(output); outputs.append((output, .sound(bytesPerSample: 4, channels: 2))) }
        } else {
            for track in audios {
                let (output, expected) = audioOutput(track, settings)
                if reader.canAdd(output) { reader.add(output); outputs.append((output, expected)) }
            }
        }
        for track in tracks.filter({ $0.mediaType == .metadata }).prefix(2) {
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            if reader.canAdd(output) { reader.add(output); outputs.append((output, .metadata)) }
        }
        if settings.randomAccess { for (output, _) in outputs { output.supportsRandomAccess = true } }
        guard reader.startReading() else {
            guard reader.status == .failed, let error = reader.error else { fatalError("startReading() false with status \(reader.status.rawValue)") }
            check(error, cancelled: false)
            return
        }
        var taken = 0
        var cancelled = false
        func take(_ buffer: CMSampleBuffer, _ expected: Expected) {
            check(buffer, expected)
            taken += 1
            if let after = settings.cancelAfter, taken >= after, !cancelled {
                cancelled = true
                reader.cancelReading()
            }
        }
        readAll(outputs, settings, take: take)
        if settings.randomAccess, !cancelled, reader.status == .reading {
            let again = [NSValue(timeRange: CMTimeRange(start: settings.second, duration: CMTime(value: 5, timescale: 10)))]
            for (output, _) in outputs { output.reset(forReadingTimeRanges: again) }
            readAll(outputs, settings, take: take)
            for (output, _) in outputs { output.markConfigurationAsFinal() }
            for (output, expected) in outputs { while taken < limit, let buffer = output.copyNextSampleBuffer() { take(buffer, expected) } }
        }
        guard taken < limit else {
            reader.cancelReading()
            return
        }
        switch reader.status {
        case .completed: break
        case .cancelled: if !cancelled { fatalError("the reader was cancelled although nothing cancelled it") }
        case .failed:
            guard let error = reader.error else { fatalError("the reader failed without an error") }
            check(error, cancelled: cancelled)
        default: fatalError("every output ended but the reader's status is \(reader.status.rawValue)")
        }
    }

    /// Takes every output's buffers, one from each in turn (or each through its async sequence), up
    /// to `limit` in all.
    static func readAll(_ outputs: [(AVAssetReaderOutput, Expected)], _ settings: Settings, take: (CMSampleBuffer, Expected) -> Void) {
        var taken = 0
        if settings.async {
            for (output, expected) in outputs {
                let buffers = runBlocking { () -> [UncheckedBuffer] in
                    var got: [UncheckedBuffer] = []
                    do {
                        for try await buffer in output.sampleBuffers {
                            got.append(UncheckedBuffer(buffer: buffer))
                            if got.count >= limit { break }
                        }
                    } catch {
                        check(error, cancelled: settings.cancelAfter != nil)
                    }
                    return got
                }
                for box in buffers where taken < limit {
                    taken += 1
                    take(box.buffer, expected)
                }
            }
            return
        }
        var open = Array(outputs.indices)
        while !open.isEmpty && taken < limit {
            open = open.filter { i in
                guard let buffer = outputs[i].0.copyNextSampleBuffer() else { return false }
                taken += 1
                take(buffer, outputs[i].1)
                return true
            }
        }
    }

    /// A sample buffer carried out of the task that took it (the fuzzer checks it on its own thread
    /// after the task has ended).
    struct UncheckedBuffer: @unchecked Sendable {
        let buffer: CMSampleBuffer
    }

    static func videoOutput(_ track: AVAssetTrack, _ settings: Settings) -> (AVAssetReaderOutput, Expected) {
        switch settings.video {
        case 0: return (AVAssetReaderTrackOutput(track: track, outputSettings: nil), .stored)
        case 1, 2:
            let format = settings.video == 1 ? kCVPixelFormatType_32BGRA : kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
            return (AVAssetReaderTrackOutput(track: track, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: format]),
                    .picture(format: format, size: nil))
        default:
            let (width, height) = settings.size
            return (AVAssetReaderTrackOutput(track: track, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
                                                                           kCVPixelBufferWidthKey as String: width,
                                                                           kCVPixelBufferHeightKey as String: height]),
                    .picture(format: kCVPixelFormatType_32BGRA, size: (width, height)))
        }
    }

    static func audioOutput(_ track: AVAssetTrack, _ settings: Settings) -> (AVAssetReaderOutput, Expected) {
        switch settings.audio {
        case 0: return (AVAssetReaderTrackOutput(track: track, outputSettings: nil), .stored)
        case 1:
            return (AVAssetReaderTrackOutput(track: track, outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32,
                                                                           AVLinearPCMIsFloatKey: true, AVLinearPCMIsNonInterleaved: false]),
                    .sound(bytesPerSample: 4, channels: nil))
        default:
            return (AVAssetReaderTrackOutput(track: track, outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16,
                                                                           AVLinearPCMIsFloatKey: false, AVSampleRateKey: 16_000,
                                                                           AVNumberOfChannelsKey: 1]),
                    .sound(bytesPerSample: 2, channels: 1))
        }
    }

    /// A buffer must hold what its output was asked for.
    static func check(_ buffer: CMSampleBuffer, _ expected: Expected) {
        let count = CMSampleBufferGetNumSamples(buffer)
        guard count >= 1 else { fatalError("a buffer of \(count) samples") }
        switch expected {
        case .stored:
            guard CMSampleBufferGetDataBuffer(buffer) != nil else { fatalError("a stored sample without data") }
        case .metadata:
            // Any bytes give a group (of no items, at worst) at the sample's time, or none for a format
            // not read; never a trap.
            if let group = AVTimedMetadataGroup(sampleBuffer: buffer) {
                guard group.timeRange.start == buffer.presentationTimeStamp else { fatalError("a group at \(group.timeRange.start) for a sample at \(buffer.presentationTimeStamp)") }
                for item in group.items where item.identifier == nil && item.keySpace != nil { fatalError("an item of a key space with no identifier") }
            }
        case let .picture(format, size):
            guard let image = CMSampleBufferGetImageBuffer(buffer) else { fatalError("a picture output's buffer without a picture") }
            let (width, height) = (CVPixelBufferGetWidth(image), CVPixelBufferGetHeight(image))
            guard width >= 1, height >= 1 else { fatalError("an empty picture: \(width)x\(height)") }
            guard CVPixelBufferGetPixelFormatType(image) == format else { fatalError("a picture of another pixel format") }
            if let size, size.width != width || size.height != height {
                fatalError("a \(width)x\(height) picture for \(size.width)x\(size.height)")
            }
            guard buffer.presentationTimeStamp.isNumeric else { fatalError("a picture without a time: \(buffer.presentationTimeStamp)") }
        case let .sound(bytesPerSample, channels):
            guard let description = CMSampleBufferGetFormatDescription(buffer),
                  let basic = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee else {
                fatalError("sound without a stream description")
            }
            let perFrame = Int(basic.mChannelsPerFrame) * bytesPerSample
            if let channels, Int(basic.mChannelsPerFrame) != channels { fatalError("\(basic.mChannelsPerFrame) channels for \(channels)") }
            guard Int(basic.mBytesPerFrame) == perFrame else { fatalError("\(basic.mBytesPerFrame) bytes a frame for \(perFrame)") }
            guard let data = CMSampleBufferGetDataBuffer(buffer), CMBlockBufferGetDataLength(data) == count * perFrame else {
                fatalError("sound whose bytes are not its \(count) frames of \(perFrame) bytes")
            }
            guard buffer.presentationTimeStamp.isNumeric else { fatalError("sound without a time: \(buffer.presentationTimeStamp)") }
        }
    }

    static func check(_ error: any Error, cancelled: Bool) {
        requireNamedFailure(error, cancelled: cancelled, "reading")
    }
}
