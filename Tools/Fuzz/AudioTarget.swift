import AVFoundation
import Foundation

/// A 4-byte header of settings, then a file: open it with `AVAudioFile`, read every frame in its
/// processing format, read again from a position, and convert it through `AVAudioConverter`. Traps on
/// an error outside AVFAudio's domain (or without a code), a buffer longer than asked for, a frame
/// position that does not move by the frames read, a processing format other than the one asked for,
/// or a converter that neither ends nor fails.
///
/// Header: [0] bits 0-1 the processing format (Float32, Float64, Int16, Int32), bit 2 interleaved,
/// bit 3 convert to 16 kHz mono Float32 (else to 48 kHz stereo Int16, interleaved); [1] the read
/// buffer's capacity / 16 (0: 1 frame); [2] where to read again, in 256ths of the length; [3] the
/// converter's output capacity / 16 (0: 1 frame).
enum AudioTarget {
    /// The most frames one pass reads or converts (a long file would only slow the fuzzer down).
    static let limit: AVAudioFramePosition = 2_000_000

    static func run(_ bytes: Data) {
        var header = ByteReader(bytes)
        let flags = header.byte()
        let common: AVAudioCommonFormat = [.pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16, .pcmFormatInt32][Int(flags & 3)]
        let interleaved = flags & 4 != 0
        let capacity = AVAudioFrameCount(max(1, Int(header.byte()) * 16))
        let again = header.byte()
        let outputCapacity = AVAudioFrameCount(max(1, Int(header.byte()) * 16))
        let url = Scratch.write(header.rest())

        let file: AVAudioFile
        do {
            file = try AVAudioFile(forReading: url, commonFormat: common, interleaved: interleaved)
        } catch {
            check(error, "opening the file")
            return
        }
        let format = file.processingFormat
        guard format.commonFormat == common, format.sampleRate > 0, format.channelCount > 0 else {
            fatalError("asked for \(common.rawValue), the processing format is \(format)")
        }
        guard file.length >= 0, file.framePosition == 0 else { fatalError("length \(file.length), position \(file.framePosition)") }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity) else {
            fatalError("no buffer of \(capacity) frames in \(format)")
        }
        readAll(file, into: buffer)
        // Again from a position inside the file (or its very end).
        let position = file.length / 256 * AVAudioFramePosition(again)
        file.framePosition = position
        guard file.framePosition == position else { fatalError("set the position to \(position), it reads \(file.framePosition)") }
        readAll(file, into: buffer)
        file.framePosition = 0
        convert(file, reading: buffer, toMono: flags & 8 != 0, capacity: outputCapacity)
    }

    /// Reads from the file's position to its end (or the first error), checking each read.
    static func readAll(_ file: AVAudioFile, into buffer: AVAudioPCMBuffer) {
        var read: AVAudioFramePosition = 0
        while read < limit {
            let before = file.framePosition
            do {
                try file.read(into: buffer)
            } catch {
                check(error, "reading")
                return
            }
            let frames = buffer.frameLength
            guard frames <= buffer.frameCapacity else { fatalError("\(frames) frames read into a buffer of \(buffer.frameCapacity)") }
            guard file.framePosition == before + AVAudioFramePosition(frames) else {
                fatalError("read \(frames) frames from \(before), the position is \(file.framePosition)")
            }
            if frames == 0 { return }
            read += AVAudioFramePosition(frames)
        }
    }

    /// Converts the whole file, read through `buffer`, to 16 kHz mono Float32 or 48 kHz stereo Int16.
    static func convert(_ file: AVAudioFile, reading buffer: AVAudioPCMBuffer, toMono: Bool, capacity: AVAudioFrameCount) {
        let target = toMono
            ? AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)
            : AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)
        guard let target, let converter = AVAudioConverter(from: file.processingFormat, to: target),
              let output = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: capacity) else {
            fatalError("no converter from \(file.processingFormat)")
        }
        var ended = false
        var converted: AVAudioFramePosition = 0
        // Every call gives at least one frame or ends; a converter that does neither would spin here.
        var idle = 0
        while converted < limit {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, inputStatus in
                if ended {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                do {
                    try file.read(into: buffer)
                } catch {
                    check(error, "reading for the converter")
                    ended = true
                }
                if ended || buffer.frameLength == 0 {
                    ended = true
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                inputStatus.pointee = .haveData
                return buffer
            }
            guard output.frameLength <= output.frameCapacity else { fatalError("\(output.frameLength) frames converted into \(output.frameCapacity)") }
            switch status {
            case .haveData, .inputRanDry:
                converted += AVAudioFramePosition(output.frameLength)
                idle = output.frameLength == 0 ? idle + 1 : 0
                if idle > 3 { fatalError("the converter gave nothing \(idle) times in a row with status \(status.rawValue)") }
            case .endOfStream:
                return
            case .error:
                guard let error else { fatalError("the converter failed without an error") }
                check(error, "converting")
                return
            @unknown default:
                fatalError("the converter's status \(status.rawValue)")
            }
        }
    }

    /// An error AVFAudio throws: an NSError in its domain (or the OSStatus domain) with a nonzero code.
    static func check(_ error: any Error, _ what: String) {
        let ns = error as NSError
        guard ns.domain == "com.apple.coreaudio.avfaudio" || ns.domain == NSOSStatusErrorDomain, ns.code != 0 else {
            fatalError("\(what) failed with \(String(reflecting: error)), not an AVFAudio error")
        }
    }
}
