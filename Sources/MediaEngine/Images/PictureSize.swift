/// The pixel size of an encoded still picture (cover art) read from its header bytes: PNG's IHDR or a
/// JPEG start-of-frame marker. Nil for anything else or anything malformed. Reads at most the bytes
/// given, with every index checked.
enum PictureSize {
    static func of(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        png(bytes) ?? jpeg(bytes)
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int? {
        guard offset >= 0, count > 0, offset <= bytes.count - count else { return nil }
        return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func png(_ bytes: [UInt8]) -> (Int, Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature), bytes.count >= 24, bytes[12..<16].elementsEqual(Array("IHDR".utf8)),
              let w = bigEndian(bytes, at: 16, count: 4), let h = bigEndian(bytes, at: 20, count: 4), w > 0, h > 0 else { return nil }
        return (w, h)
    }

    private static func jpeg(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }
            guard let length = bigEndian(bytes, at: i + 2, count: 2), length >= 2 else { return nil }
            // Start-of-frame markers (baseline, progressive, ...), not DHT (C4), JPG (C8) or DAC (CC).
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let h = bigEndian(bytes, at: i + 5, count: 2), let w = bigEndian(bytes, at: i + 7, count: 2), w > 0, h > 0 else { return nil }
                return (w, h)
            }
            i += 2 + length
        }
        return nil
    }
}
