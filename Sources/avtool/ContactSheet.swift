import AVFoundation
import Foundation

/// Lays pictures out in a grid, in reading order, on a dark background: a timeline contact sheet.
enum ContactSheet {
    static let gap = 4
    static let background: [UInt8] = [24, 24, 24, 255]
    /// The largest sheet made (8192 x 8192 pixels' worth): larger grids are shrunk to fit.
    static let maximumPixels = 8192 * 8192

    /// The sheet, or nil when there is no picture at all. Cells are as large as the largest picture
    /// (shrunk when the sheet would pass `maximumPixels`); each picture is centred in its cell; a
    /// missing picture leaves its cell dark.
    static func make(_ images: [CGImage?], columns: Int, maximumPixels: Int = ContactSheet.maximumPixels) -> CGImage? {
        let present = images.compactMap { $0 }
        guard let largestWidth = present.map(\.width).max(), let largestHeight = present.map(\.height).max(), columns > 0 else {
            return nil
        }
        let used = min(columns, images.count), rows = (images.count + columns - 1) / columns
        let full = Double(used * largestWidth) * Double(rows * largestHeight)
        let scale = full > Double(maximumPixels) ? (Double(maximumPixels) / full).squareRoot() : 1
        func shrunk(_ side: Int) -> Int { max(1, Int((Double(side) * scale).rounded(.down))) }
        let cellWidth = shrunk(largestWidth), cellHeight = shrunk(largestHeight)
        let width = used * cellWidth + (used + 1) * gap, height = rows * cellHeight + (rows + 1) * gap
        var pixels = Data(count: width * height * 4)
        pixels.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
            for i in stride(from: 0, to: dst.count, by: 4) {
                for c in 0..<4 { dst[i + c] = background[c] }
            }
            for (index, image) in images.enumerated() {
                guard let image, let data = image.dataProvider?.data else { continue }
                let w = min(cellWidth, shrunk(image.width)), h = min(cellHeight, shrunk(image.height))
                let x0 = gap + (index % columns) * (cellWidth + gap) + (cellWidth - w) / 2
                let y0 = gap + (index / columns) * (cellHeight + gap) + (cellHeight - h) / 2
                data.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                    for row in 0..<h {
                        // Nearest source row and column: a plain copy when the sheet is not shrunk.
                        let sy = min(image.height - 1, row * image.height / h)
                        for col in 0..<w {
                            let sx = min(image.width - 1, col * image.width / w)
                            let from = sy * image.bytesPerRow + sx * 4, to = ((y0 + row) * width + x0 + col) * 4
                            for c in 0..<4 { dst[to + c] = src[from + c] }
                        }
                    }
                }
            }
        }
        return CGImage(rgbaPixels: pixels, width: width, height: height)
    }
}
