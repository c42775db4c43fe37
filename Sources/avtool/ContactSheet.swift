import AVFoundation
import Foundation

/// Lays pictures out in a grid, in reading order, on a dark background: a timeline contact sheet.
enum ContactSheet {
    static let gap = 4
    static let background: [UInt8] = [24, 24, 24, 255]

    /// The sheet, or nil when there is no picture at all. Cells are as large as the largest picture;
    /// each picture is centred in its cell; a missing picture leaves its cell dark.
    static func make(_ images: [CGImage?], columns: Int) -> CGImage? {
        let present = images.compactMap { $0 }
        guard let cellWidth = present.map(\.width).max(), let cellHeight = present.map(\.height).max(), columns > 0 else { return nil }
        let rows = (images.count + columns - 1) / columns
        let used = min(columns, images.count)
        let width = used * cellWidth + (used + 1) * gap, height = rows * cellHeight + (rows + 1) * gap
        var pixels = Data(count: width * height * 4)
        pixels.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
            for i in stride(from: 0, to: dst.count, by: 4) {
                for c in 0..<4 { dst[i + c] = background[c] }
            }
            for (index, image) in images.enumerated() {
                guard let image, let data = image.dataProvider?.data else { continue }
                let x0 = gap + (index % columns) * (cellWidth + gap) + (cellWidth - image.width) / 2
                let y0 = gap + (index / columns) * (cellHeight + gap) + (cellHeight - image.height) / 2
                data.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                    for row in 0..<image.height {
                        let from = row * image.bytesPerRow, to = ((y0 + row) * width + x0) * 4
                        for i in 0..<(image.width * 4) { dst[to + i] = src[from + i] }
                    }
                }
            }
        }
        return CGImage(rgbaPixels: pixels, width: width, height: height)
    }
}
