import Foundation

/// Reads the frame-index pattern of the Fixtures/frames-* movies (see facts.json): red, green and blue
/// quarters and, in the bottom right quarter, the frame number as two grey levels.
public enum FramePattern {
    /// What a picture shows: the colour of each quarter's middle and the frame number its grey blocks
    /// encode (nil when they are not grey levels the pattern uses).
    public struct Reading: Sendable, Equatable, CustomStringConvertible {
        public var topLeft: RGB
        public var topRight: RGB
        public var bottomLeft: RGB
        public var frameNumber: Int?

        public var description: String { "frame \(frameNumber.map(String.init) ?? "?") \(topLeft)/\(topRight)/\(bottomLeft)" }
    }

    public struct RGB: Sendable, Equatable, CustomStringConvertible {
        public var red: Double, green: Double, blue: Double
        public init(_ red: Double, _ green: Double, _ blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }
        public var description: String { "(\(Int(red)),\(Int(green)),\(Int(blue)))" }

        /// Within `tolerance` of `other` in every channel.
        public func isClose(to other: RGB, tolerance: Double = 24) -> Bool {
            abs(red - other.red) <= tolerance && abs(green - other.green) <= tolerance && abs(blue - other.blue) <= tolerance
        }

        public static let red = RGB(255, 0, 0), green = RGB(0, 255, 0), blue = RGB(0, 0, 255), black = RGB(0, 0, 0)
    }

    /// The mean colour of the box of `radius` pixels around (x, y) in tightly packed RGBA.
    public static func mean(_ rgba: Data, width: Int, height: Int, x: Int, y: Int, radius: Int = 4) -> RGB {
        var sum = (0.0, 0.0, 0.0)
        var n = 0.0
        rgba.withUnsafeBytes { (p: UnsafeRawBufferPointer) in
            for yy in max(0, y - radius)...min(height - 1, y + radius) {
                for xx in max(0, x - radius)...min(width - 1, x + radius) {
                    let i = (yy * width + xx) * 4
                    sum.0 += Double(p[i]); sum.1 += Double(p[i + 1]); sum.2 += Double(p[i + 2])
                    n += 1
                }
            }
        }
        return RGB(sum.0 / n, sum.1 / n, sum.2 / n)
    }

    /// Reads an upright picture of the pattern (any size: positions are fractions of it).
    public static func read(_ rgba: Data, width: Int, height: Int) -> Reading {
        func at(_ fx: Double, _ fy: Double) -> RGB {
            mean(rgba, width: width, height: height, x: Int(Double(width) * fx), y: Int(Double(height) * fy),
                 radius: max(1, min(width, height) / 40))
        }
        func level(_ c: RGB) -> Int? {
            let grey = (c.red + c.green + c.blue) / 3
            let step = ((grey - 8) / 16).rounded()
            guard step >= 0, step < 16, abs(grey - (step * 16 + 8)) < 6 else { return nil }
            return Int(step)
        }
        let low = level(at(0.625, 0.75)), high = level(at(0.875, 0.75))
        let number = low.flatMap { l in high.map { $0 * 16 + l } }
        return Reading(topLeft: at(0.25, 0.25), topRight: at(0.75, 0.25), bottomLeft: at(0.25, 0.75), frameNumber: number)
    }
}
