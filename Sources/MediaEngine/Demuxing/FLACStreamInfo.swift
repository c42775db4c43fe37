import Foundation

/// The facts of a FLAC STREAMINFO block (the codec setup data FFmpeg gives for FLAC), read with every
/// index checked. Nil when the block is short or states an impossible format.
struct FLACStreamInfo: Equatable {
    var sampleRate: Int
    var channels: Int
    var bitsPerSample: Int
    /// Total samples per channel; nil when the encoder did not know it.
    var totalSamples: Int64?

    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(34))
        guard bytes.count >= 18 else { return nil }
        // Bytes 10...17: sample rate (20 bits), channels - 1 (3), bits per sample - 1 (5), total samples (36).
        let rate = Int(bytes[10]) << 12 | Int(bytes[11]) << 4 | Int(bytes[12]) >> 4
        let channels = Int((bytes[12] >> 1) & 0x07) + 1
        let bits = (Int(bytes[12] & 0x01) << 4 | Int(bytes[13]) >> 4) + 1
        let total = Int64(bytes[13] & 0x0F) << 32 | Int64(bytes[14]) << 24 | Int64(bytes[15]) << 16 | Int64(bytes[16]) << 8 | Int64(bytes[17])
        guard rate > 0, rate <= 655_350, bits >= 4 else { return nil }
        sampleRate = rate
        self.channels = channels
        bitsPerSample = bits
        totalSamples = total > 0 ? total : nil
    }
}
