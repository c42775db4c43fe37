internal import CFFmpeg

/// Decoded frames kept in order where they were put, without a frame allocated for each: the frames'
/// fields live in chunks of 256 `AVFrame`s, allocated a chunk at a time, and a frame is moved in
/// (`av_frame_move_ref`) by the thread that decoded it and moved out by the one that uses it. Handing
/// on a 20 ms Opus frame this way costs no allocation, where a frame of its own cost one on the
/// decoding thread and a free on the other (about 4% of an hour's CPU).
///
/// The size of `AVFrame` is not part of FFmpeg's ABI: chunks are used only when the libavutil
/// running is the major and minor version compiled against; otherwise each frame is allocated on its
/// own, as before. Not thread-safe: its owner guards it. Frames not moved out are unreferenced when
/// it goes.
struct DecodedFrames: ~Copyable {
    private static let chunkSize = 256
    /// Whether the running libavutil's `AVFrame` is the one compiled against.
    static let layoutMatches = avutil_version() >> 8 == UInt32(LIBAVUTIL_VERSION_MAJOR) << 8 | UInt32(LIBAVUTIL_VERSION_MINOR)
    /// Whether frames are kept in chunks (else each in a frame of its own).
    private let inPlace: Bool
    private var chunks: [UnsafeMutablePointer<AVFrame>] = []
    /// The frames, one allocation each, where chunks are not used.
    private var singles: [UnsafeMutablePointer<AVFrame>] = []
    /// Frames put in so far (moved out or not).
    private(set) var count = 0

    /// An empty store; `inPlace` (tests) chooses the layout, which is otherwise chunks where the
    /// running libavutil allows.
    init(inPlace: Bool = DecodedFrames.layoutMatches) { self.inPlace = inPlace }

    deinit {
        for index in 0..<count { av_frame_unref(frame(at: index)) }
        for chunk in chunks { av_free(chunk) }
        for single in singles {
            var p: UnsafeMutablePointer<AVFrame>? = single
            av_frame_free(&p)
        }
    }

    /// Moves `frame`'s contents in (it is left blank); false when memory runs out (`frame` keeps them).
    mutating func append(movingFrom frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard inPlace else {
            guard let single = av_frame_alloc() else { return false }
            av_frame_move_ref(single, frame)
            singles.append(single)
            count += 1
            return true
        }
        let (chunk, slot) = count.quotientAndRemainder(dividingBy: Self.chunkSize)
        if chunk == chunks.count {
            guard let raw = av_mallocz(Self.chunkSize * MemoryLayout<AVFrame>.stride) else { return false }
            chunks.append(raw.bindMemory(to: AVFrame.self, capacity: Self.chunkSize))
        }
        av_frame_move_ref(chunks[chunk] + slot, frame)
        count += 1
        return true
    }

    /// The frame at `index` (below `count`): to read, or to move out with `av_frame_move_ref` (which
    /// leaves it blank).
    func frame(at index: Int) -> UnsafeMutablePointer<AVFrame> {
        guard inPlace else { return singles[index] }
        let (chunk, slot) = index.quotientAndRemainder(dividingBy: Self.chunkSize)
        return chunks[chunk] + slot
    }
}
