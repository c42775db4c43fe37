import Foundation

/// Which picture of a video stream to decode: a time and the window around it where the picture may
/// lie (the time less the tolerance before it, to the time plus the tolerance after).
///
/// Times are on the asset's timeline (a playlist's starts at zero, whatever its segments' timestamps);
/// a bound of nil is unbounded. A time between two ticks of the stream's time base counts as the
/// earlier tick: it lies inside the picture that starts there.
package struct PictureRequest: Sendable, Equatable {
    package var time: MediaTimestamp
    package var earliest: MediaTimestamp?
    package var latest: MediaTimestamp?

    package init(time: MediaTimestamp, earliest: MediaTimestamp?, latest: MediaTimestamp?) {
        self.time = time
        self.earliest = earliest
        self.latest = latest
    }
}

/// How a decoded picture becomes pixels: scaled to `width` x `height` (the size before reorienting),
/// then turned as `orientation` says. A width or height of zero means a size the header did not
/// state: the decoded size, shrunk to fit `maximumWidth` x `maximumHeight` after reorienting (a
/// zero maximum leaves that side free).
package struct PictureFormat: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var orientation: PictureOrientation
    package var maximumWidth: Double
    package var maximumHeight: Double

    package init(width: Int, height: Int, orientation: PictureOrientation = .up, maximumWidth: Double = 0, maximumHeight: Double = 0) {
        self.width = width
        self.height = height
        self.orientation = orientation
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
    }

    /// Most pixels an output picture may have (8192 x 8192): a header claiming more never makes the
    /// engine allocate gigabytes.
    package static let maximumPixels = 8192 * 8192

    /// The longest side of a picture made (65536; 8192 x 8192 pixels at most in all).
    package static let maximumSide = 65536

    /// `width` x `height` shrunk to fit `maximumWidth` x `maximumHeight` keeping the aspect ratio
    /// (never enlarged; a zero or non-finite maximum leaves that side free), and held under
    /// `maximumPixels` and `maximumSide`. A side that is not a number of at least one pixel gives 1 x 1.
    package static func fit(width: Double, height: Double, maximumWidth: Double, maximumHeight: Double) -> (width: Int, height: Int) {
        guard width.isFinite, height.isFinite, width >= 1, height >= 1 else { return (1, 1) }
        var scale = 1.0
        if maximumWidth > 0, maximumWidth.isFinite { scale = min(scale, maximumWidth / width) }
        if maximumHeight > 0, maximumHeight.isFinite { scale = min(scale, maximumHeight / height) }
        let limit = Double(maximumPixels)
        // Each side is held under `maximumSide` too (an extreme shape could otherwise make one side
        // billions of pixels long within the pixel count).
        func side(_ v: Double, _ rule: FloatingPointRoundingRule) -> Int { max(1, Int(min(Double(maximumSide), v.rounded(rule)))) }
        if width * height * scale * scale > limit {
            // Rounded down, so the rounded sides stay under the limit too.
            scale = (limit / (width * height)).squareRoot()
            return (side(width * scale, .down), side(height * scale, .down))
        }
        return (side(width * scale, .toNearestOrAwayFromZero), side(height * scale, .toNearestOrAwayFromZero))
    }

    /// `width` x `height` (before reorienting) shrunk as `fit` says so that, turned as `orientation`
    /// says, it fits `maximumWidth` x `maximumHeight`; the size before reorienting.
    package static func fit(width: Double, height: Double, turned orientation: PictureOrientation,
                            maximumWidth: Double, maximumHeight: Double) -> (width: Int, height: Int) {
        let shown = orientation.transposes ? (height, width) : (width, height)
        let fitted = fit(width: shown.0, height: shown.1, maximumWidth: maximumWidth, maximumHeight: maximumHeight)
        return orientation.transposes ? (fitted.height, fitted.width) : fitted
    }

    /// The size to scale a decoded `decodedWidth` x `decodedHeight` picture to: the stated size, or
    /// when none is stated the decoded one fitted to the maximum as it will be shown (after reorienting).
    package func size(decodedWidth: Int, decodedHeight: Int) -> (width: Int, height: Int) {
        guard width <= 0 || height <= 0 else { return (width, height) }
        return PictureFormat.fit(width: Double(decodedWidth), height: Double(decodedHeight), turned: orientation,
                                 maximumWidth: maximumWidth, maximumHeight: maximumHeight)
    }

    /// The size after reorienting.
    package var orientedSize: (width: Int, height: Int) {
        orientation.transposes ? (height, width) : (width, height)
    }
}

/// One of the eight ways a picture can be turned by quarter turns and mirroring (a display matrix
/// whose entries are 0, 1 or -1). Output pixel (X, Y) comes from source pixel (x, y) where, without
/// `transposes`, X follows x and Y follows y; with it, X follows y and Y follows x. `reversesX` makes X
/// run against its source axis (X = last - source), `reversesY` likewise for Y.
package struct PictureOrientation: Sendable, Equatable {
    package var transposes: Bool
    package var reversesX: Bool
    package var reversesY: Bool

    package init(transposes: Bool, reversesX: Bool, reversesY: Bool) {
        self.transposes = transposes
        self.reversesX = reversesX
        self.reversesY = reversesY
    }

    package static let up = PictureOrientation(transposes: false, reversesX: false, reversesY: false)

    /// The orientation of an affine transform's linear part `(a, b, c, d)` (x' = a x + c y, y' = b x + d y),
    /// or nil when it is not a quarter turn or mirror (a free angle, a skew, a scale other than 1).
    package init?(a: Double, b: Double, c: Double, d: Double) {
        func unit(_ v: Double) -> Int? {
            if abs(v) < 1e-6 { return 0 }
            if abs(v - 1) < 1e-6 { return 1 }
            if abs(v + 1) < 1e-6 { return -1 }
            return nil
        }
        guard let a = unit(a), let b = unit(b), let c = unit(c), let d = unit(d) else { return nil }
        if b == 0 && c == 0 && a != 0 && d != 0 {
            self.init(transposes: false, reversesX: a < 0, reversesY: d < 0)
        } else if a == 0 && d == 0 && b != 0 && c != 0 {
            // X = c * y (+ shift), Y = b * x (+ shift).
            self.init(transposes: true, reversesX: c < 0, reversesY: b < 0)
        } else {
            return nil
        }
    }
}

/// A decoded picture as 8-bit RGBA pixels (straight alpha, opaque), with its time.
package struct DecodedPicture: Sendable {
    package var width: Int
    package var height: Int
    /// Tightly packed rows of RGBA.
    package var pixels: Data
    /// When the picture shows, on the asset's timeline, in the stream's time base.
    package var presentationTime: MediaTimestamp
}
