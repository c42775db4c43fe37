import Foundation

/// Draws layers of RGBA pictures into one picture, as Apple's built-in video compositor does: each
/// layer's picture, cropped, placed by an affine transform (picture pixels to output pixels, y down),
/// sampled bilinearly and blended over the layers below it with its opacity, over a background colour.
/// Pure computation on the calling thread: about one multiply-add per channel per covered output pixel
/// per layer.
enum LayerCompositor {
    struct Layer {
        /// Tightly packed opaque RGBA rows.
        var pixels: Data
        var width: Int
        var height: Int
        /// From picture pixels to output pixels.
        var transform: CGAffineTransform
        /// 0 (invisible) to 1.
        var opacity: Float
        /// The part of the picture shown, in picture pixels; `.null` for all of it.
        var crop: CGRect
    }

    /// The output, `width` x `height` tightly packed opaque RGBA; `layers` front to back (the first on top).
    static func render(_ layers: [Layer], background: (UInt8, UInt8, UInt8, UInt8), width: Int, height: Int) -> Data {
        let count = width * height * 4
        var output = Data(count: count)
        output.withUnsafeMutableBytes { raw in
            guard let out = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            // The background, its alpha over black (the output is opaque).
            let alpha = Int(background.3)
            let fill = [background.0, background.1, background.2].map { UInt8(Int($0) * alpha / 255) }
            for i in stride(from: 0, to: count, by: 4) {
                out[i] = fill[0]; out[i + 1] = fill[1]; out[i + 2] = fill[2]; out[i + 3] = 255
            }
            for layer in layers.reversed() { draw(layer, into: out, width: width, height: height) }
        }
        return output
    }

    private static func draw(_ layer: Layer, into out: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        let opacity = Double(min(1, max(0, layer.opacity.isFinite ? layer.opacity : 0)))
        guard opacity > 0, layer.width > 0, layer.height > 0, layer.pixels.count >= layer.width * layer.height * 4 else { return }
        let t = layer.transform
        let determinant = t.a * t.d - t.b * t.c
        guard determinant.isFinite, abs(determinant) > 1e-12 else { return }
        let inverse = t.inverted()
        var shown = CGRect(x: 0, y: 0, width: layer.width, height: layer.height)
        if !layer.crop.isNull { shown = shown.intersection(layer.crop.standardized) }
        guard !shown.isNull, shown.width > 0, shown.height > 0 else { return }
        // Output pixels the shown part can reach.
        let box = shown.applying(t)
        guard box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite else { return }
        // Clamped as Doubles first: a transform may place the layer anywhere, however far.
        func clamp(_ v: CGFloat, _ limit: Int) -> Int { Int(max(0, min(Double(limit), Double(v)))) }
        let x0 = clamp(box.minX.rounded(.down), width), x1 = clamp(box.maxX.rounded(.up), width)
        let y0 = clamp(box.minY.rounded(.down), height), y1 = clamp(box.maxY.rounded(.up), height)
        guard x0 < x1, y0 < y1 else { return }
        let (minU, maxU) = (Double(shown.minX), Double(shown.maxX))
        let (minV, maxV) = (Double(shown.minY), Double(shown.maxY))
        let (ia, ib, ic, id, itx, ity) = (Double(inverse.a), Double(inverse.b), Double(inverse.c), Double(inverse.d),
                                          Double(inverse.tx), Double(inverse.ty))
        let w = layer.width, h = layer.height
        layer.pixels.withUnsafeBytes { raw in
            guard let src = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            for y in y0..<y1 {
                let cy = Double(y) + 0.5
                var row = out + (y * width + x0) * 4
                for x in x0..<x1 {
                    defer { row += 4 }
                    let cx = Double(x) + 0.5
                    // The output pixel's centre in picture coordinates.
                    let u = ia * cx + ic * cy + itx, v = ib * cx + id * cy + ity
                    guard u >= minU, u < maxU, v >= minV, v < maxV else { continue }
                    // Bilinear between the four nearest picture pixel centres, clamped at the edges.
                    let fu = u - 0.5, fv = v - 0.5
                    let u0 = Int(fu.rounded(.down)), v0 = Int(fv.rounded(.down))
                    let du = fu - Double(u0), dv = fv - Double(v0)
                    let ua = min(max(u0, 0), w - 1), ub = min(max(u0 + 1, 0), w - 1)
                    let va = min(max(v0, 0), h - 1), vb = min(max(v0 + 1, 0), h - 1)
                    let p00 = src + (va * w + ua) * 4, p10 = src + (va * w + ub) * 4
                    let p01 = src + (vb * w + ua) * 4, p11 = src + (vb * w + ub) * 4
                    for c in 0..<3 {
                        let top = Double(p00[c]) + (Double(p10[c]) - Double(p00[c])) * du
                        let bottom = Double(p01[c]) + (Double(p11[c]) - Double(p01[c])) * du
                        let sample = top + (bottom - top) * dv
                        let blended = sample * opacity + Double(row[c]) * (1 - opacity)
                        row[c] = UInt8(min(255, max(0, blended.rounded())))
                    }
                }
            }
        }
    }
}
