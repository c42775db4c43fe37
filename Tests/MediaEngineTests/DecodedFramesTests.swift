@testable import MediaEngine
internal import CFFmpeg
import Testing

/// The frames a segment keeps (`DecodedFrames`), in chunks or one allocation each: every frame comes
/// back with its own samples, moved out or left in (freed with the store; the sanitizers' runs of the
/// suite catch a leak or a double free).
@Suite("Decoded frames")
struct DecodedFramesTests {
    /// A frame of `samples` 16-bit mono samples, each `value`, at time `pts`.
    static func frame(samples: Int32, value: Int16, pts: Int64) throws -> UnsafeMutablePointer<AVFrame> {
        let frame = try #require(av_frame_alloc())
        frame.pointee.format = AV_SAMPLE_FMT_S16.rawValue
        frame.pointee.nb_samples = samples
        frame.pointee.sample_rate = 48_000
        av_channel_layout_default(&frame.pointee.ch_layout, 1)
        frame.pointee.pts = pts
        #expect(av_frame_get_buffer(frame, 0) >= 0)
        let data = try #require(frame.pointee.data.0)
        data.withMemoryRebound(to: Int16.self, capacity: Int(samples)) { for i in 0..<Int(samples) { $0[i] = value } }
        return frame
    }

    @Test(arguments: [true, false]) func framesComeBackInOrder(inPlace: Bool) throws {
        var store = DecodedFrames(inPlace: inPlace)
        let scratch = try Self.frame(samples: 1, value: 0, pts: 0)
        defer {
            var p: UnsafeMutablePointer<AVFrame>? = scratch
            av_frame_free(&p)
        }
        // 600 frames: three chunks, the last one partly filled.
        for n in 0..<600 {
            let made = try Self.frame(samples: Int32(1 + n % 7), value: Int16(n), pts: Int64(n) * 10)
            let appended = store.append(movingFrom: made)
            #expect(appended)
            #expect(made.pointee.nb_samples == 0 && made.pointee.buf.0 == nil, "the frame given is left blank")
            var p: UnsafeMutablePointer<AVFrame>? = made
            av_frame_free(&p)
        }
        let count = store.count
        #expect(count == 600)
        // The first 300 are moved out (as the reader takes them); the rest stay in the store.
        for n in 0..<300 {
            av_frame_unref(scratch)
            av_frame_move_ref(scratch, store.frame(at: n))
            let data = try #require(scratch.pointee.data.0)
            let first = data.withMemoryRebound(to: Int16.self, capacity: 1) { $0[0] }
            #expect(scratch.pointee.nb_samples == Int32(1 + n % 7) && scratch.pointee.pts == Int64(n) * 10 && first == Int16(n))
            let blank = store.frame(at: n).pointee.buf.0 == nil
            #expect(blank, "a frame moved out leaves a blank")
        }
        for n in 300..<600 {
            let kept = store.frame(at: n)
            #expect(kept.pointee.nb_samples == Int32(1 + n % 7) && kept.pointee.pts == Int64(n) * 10)
            let planes = UnsafeMutableRawPointer(kept) + (try #require(MemoryLayout<AVFrame>.offset(of: \AVFrame.data)))
            #expect(UnsafeMutableRawPointer(kept.pointee.extended_data) == planes, "the plane list points into the frame where it now is")
        }
    }
}
