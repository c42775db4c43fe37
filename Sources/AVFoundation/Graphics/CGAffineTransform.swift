import Foundation

/// A 2-D affine transform: a point (x, y) maps to (a·x + c·y + tx, b·x + d·y + ty), as in CoreGraphics.
///
/// Linux Foundation lacks it; Avocet supplies it in AVFoundation because the API needs it
/// (``AVAssetTrack/preferredTransform``). Code that imports CoreGraphics should guard that import with
/// `#if canImport(CoreGraphics)`. Pure value type; every operation is O(1).
public struct CGAffineTransform: Hashable, Sendable, Codable {
    /// The x scale (and rotation) term: x' = a·x + c·y + tx.
    public var a: CGFloat
    /// The y shear (and rotation) term: y' = b·x + d·y + ty.
    public var b: CGFloat
    /// The x shear (and rotation) term: x' = a·x + c·y + tx.
    public var c: CGFloat
    /// The y scale (and rotation) term: y' = b·x + d·y + ty.
    public var d: CGFloat
    /// The x translation.
    public var tx: CGFloat
    /// The y translation.
    public var ty: CGFloat

    /// All zero, as CoreGraphics' `CGAffineTransform()`; use ``identity`` for "no transform".
    public init() {
        self.init(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0)
    }

    /// A transform from its six terms.
    public init(a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// The transform that changes nothing.
    public static let identity = CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// Rotation by `angle` about the origin.
    ///
    /// - Parameter angle: The angle in radians; positive turns clockwise on a screen whose y axis
    ///   points down.
    public init(rotationAngle angle: CGFloat) {
        let cosine = CGFloat(cos(Double(angle))), sine = CGFloat(sin(Double(angle)))
        self.init(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
    }

    /// Scaling by `sx` horizontally and `sy` vertically.
    public init(scaleX sx: CGFloat, y sy: CGFloat) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// Moving by `tx` horizontally and `ty` vertically.
    public init(translationX tx: CGFloat, y ty: CGFloat) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)
    }

    /// Whether the transform equals ``identity``.
    public var isIdentity: Bool { self == .identity }

    /// `self` followed by `t2`.
    ///
    /// - Parameter t2: The transform applied after this one.
    /// - Returns: A transform that maps a point as this one then `t2` would.
    public func concatenating(_ t2: CGAffineTransform) -> CGAffineTransform {
        CGAffineTransform(
            a: a * t2.a + b * t2.c, b: a * t2.b + b * t2.d,
            c: c * t2.a + d * t2.c, d: c * t2.b + d * t2.d,
            tx: tx * t2.a + ty * t2.c + t2.tx, ty: tx * t2.b + ty * t2.d + t2.ty)
    }

    /// The inverse.
    ///
    /// - Returns: The transform that undoes this one; this transform unchanged when it cannot be
    ///   inverted (determinant 0), as CoreGraphics does.
    public func inverted() -> CGAffineTransform {
        let det = a * d - b * c
        guard det != 0 else { return self }
        return CGAffineTransform(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    /// A rotation by `angle` applied before this transform.
    ///
    /// - Parameter angle: The angle in radians (see ``init(rotationAngle:)``).
    /// - Returns: The rotation concatenated with this transform.
    public func rotated(by angle: CGFloat) -> CGAffineTransform {
        CGAffineTransform(rotationAngle: angle).concatenating(self)
    }

    /// A scale applied before this transform.
    ///
    /// - Parameters:
    ///   - sx: The horizontal factor.
    ///   - sy: The vertical factor.
    /// - Returns: The scale concatenated with this transform.
    public func scaledBy(x sx: CGFloat, y sy: CGFloat) -> CGAffineTransform {
        CGAffineTransform(scaleX: sx, y: sy).concatenating(self)
    }

    /// A translation applied before this transform.
    ///
    /// - Parameters:
    ///   - tx: The horizontal distance.
    ///   - ty: The vertical distance.
    /// - Returns: The translation concatenated with this transform.
    public func translatedBy(x tx: CGFloat, y ty: CGFloat) -> CGAffineTransform {
        CGAffineTransform(translationX: tx, y: ty).concatenating(self)
    }
}

/// A transform from its six terms.
public func CGAffineTransformMake(_ a: CGFloat, _ b: CGFloat, _ c: CGFloat, _ d: CGFloat, _ tx: CGFloat, _ ty: CGFloat) -> CGAffineTransform {
    CGAffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
}

/// Applying an affine transform to a point.
extension CGPoint {
    /// The point moved by `t`.
    ///
    /// - Parameter t: The transform to apply.
    /// - Returns: The point (a·x + c·y + tx, b·x + d·y + ty).
    public func applying(_ t: CGAffineTransform) -> CGPoint {
        CGPoint(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }
}

/// Applying an affine transform to a size.
extension CGSize {
    /// The size transformed by `t`'s linear part (translation does not apply to a size).
    ///
    /// - Parameter t: The transform to apply.
    /// - Returns: The transformed size; its width or height is negative when `t` flips that axis.
    public func applying(_ t: CGAffineTransform) -> CGSize {
        CGSize(width: t.a * width + t.c * height, height: t.b * width + t.d * height)
    }
}

/// Applying an affine transform to a rectangle.
extension CGRect {
    /// The smallest rectangle holding the four transformed corners.
    ///
    /// - Parameter t: The transform to apply.
    /// - Returns: The bounding rectangle, with a positive width and height; a null rectangle stays null.
    public func applying(_ t: CGAffineTransform) -> CGRect {
        if isNull { return self }
        let corners = [CGPoint(x: minX, y: minY), CGPoint(x: maxX, y: minY),
                       CGPoint(x: minX, y: maxY), CGPoint(x: maxX, y: maxY)].map { $0.applying(t) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let minX = xs.min()!, minY = ys.min()!
        return CGRect(x: minX, y: minY, width: xs.max()! - minX, height: ys.max()! - minY)
    }
}
