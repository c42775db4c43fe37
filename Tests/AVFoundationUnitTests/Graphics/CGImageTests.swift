import AVFoundation
import Testing

@Suite("CGImage and its PNG and JPEG encoding")
struct CGImageTests {
    /// A 16x8 gradient: red rises left to right, green top to bottom, blue fixed, alpha varies by row.
    private func gradient(alpha: CGImageAlphaInfo = .last, opaque: Bool = false) -> CGImage {
        let width = 16, height = 8, stride = width * 4 + 8
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * stride + x * 4
                bytes[i] = UInt8(x * 16)
                bytes[i + 1] = UInt8(y * 32)
                bytes[i + 2] = 200
                bytes[i + 3] = opaque ? 255 : UInt8(255 - y * 20)
            }
        }
        return CGImage(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: stride,
                       space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue),
                       provider: CGDataProvider(data: Data(bytes))!, decode: nil, shouldInterpolate: true,
                       intent: .defaultIntent)!
    }

    @Test func properties() {
        let image = gradient()
        #expect(image.width == 16 && image.height == 8)
        #expect(image.bitsPerComponent == 8 && image.bitsPerPixel == 32 && image.bytesPerRow == 72)
        #expect(image.alphaInfo == .last)
        #expect(image.colorSpace == CGColorSpaceCreateDeviceRGB())
        #expect(image.pixel(x: 3, y: 2)! == (48, 64, 200, 215))
        #expect(image.dataProvider?.data?.count == 72 * 8)
    }

    @Test func rejectsLayoutsItCannotHold() {
        let data = CGDataProvider(data: Data(count: 64 * 4))!
        let rgb = CGColorSpaceCreateDeviceRGB()
        func make(bpc: Int = 8, bpp: Int = 32, stride: Int = 32, info: UInt32 = CGImageAlphaInfo.last.rawValue) -> CGImage? {
            CGImage(width: 8, height: 8, bitsPerComponent: bpc, bitsPerPixel: bpp, bytesPerRow: stride, space: rgb,
                    bitmapInfo: CGBitmapInfo(rawValue: info), provider: data, decode: nil, shouldInterpolate: false,
                    intent: .defaultIntent)
        }
        #expect(make() != nil)
        #expect(make(bpc: 16, bpp: 64, stride: 64) == nil, "16-bit components")
        #expect(make(stride: 16) == nil, "rows shorter than the width")
        #expect(make(info: CGImageAlphaInfo.premultipliedFirst.rawValue) == nil, "alpha first")
        #expect(make(info: CGImageAlphaInfo.last.rawValue | CGBitmapInfo.byteOrder32Little.rawValue) == nil, "BGRA")
        #expect(CGImage(width: 8, height: 9, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 32, space: rgb,
                        bitmapInfo: [], provider: data, decode: nil, shouldInterpolate: false, intent: .defaultIntent) == nil,
                "not enough bytes")
        #expect(CGDataProvider(data: Data()) == nil)
    }

    @Test func cropping() throws {
        let crop = try #require(gradient().cropping(to: CGRect(x: 4, y: 2, width: 3, height: 5)))
        #expect(crop.width == 3 && crop.height == 5)
        #expect(crop.pixel(x: 0, y: 0)! == (64, 64, 200, 215))
        #expect(gradient().cropping(to: CGRect(x: 100, y: 100, width: 3, height: 3)) == nil)
    }

    @Test func pngRoundTripIsExact() throws {
        let image = gradient()
        let png = try image.pngData()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let decoded = try CGImage.decoded(from: png)
        #expect(decoded.width == 16 && decoded.height == 8)
        for (x, y) in [(0, 0), (15, 7), (7, 3)] {
            #expect(decoded.pixel(x: x, y: y)! == image.pixel(x: x, y: y)!, "pixel \(x),\(y)")
        }
    }

    @Test func pngUnpremultipliesAlpha() throws {
        // Premultiplied (100, 50, 0) at alpha 128 is straight (199, 100, 0).
        let bytes: [UInt8] = [100, 50, 0, 128]
        let image = try #require(CGImage(width: 1, height: 1, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 4,
                                         space: CGColorSpaceCreateDeviceRGB(),
                                         bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedLast.rawValue),
                                         provider: CGDataProvider(data: Data(bytes))!, decode: nil, shouldInterpolate: true,
                                         intent: .defaultIntent))
        let pixel = try CGImage.decoded(from: image.pngData()).pixel(x: 0, y: 0)!
        #expect(pixel == (199, 100, 0, 128))
    }

    @Test func jpegIsCloseAndQualityMatters() throws {
        let image = gradient(alpha: .noneSkipLast, opaque: true)
        let best = try image.jpegData(compressionQuality: 1)
        let worst = try image.jpegData(compressionQuality: 0)
        #expect(best.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(worst.count < best.count, "lower quality, fewer bytes")
        let decoded = try CGImage.decoded(from: best)
        #expect(decoded.width == 16 && decoded.height == 8)
        let original = image.pixel(x: 8, y: 4)!, round = decoded.pixel(x: 8, y: 4)!
        #expect(abs(Int(original.red) - Int(round.red)) < 24)
        #expect(abs(Int(original.green) - Int(round.green)) < 24)
        #expect(abs(Int(original.blue) - Int(round.blue)) < 24)
        #expect(round.alpha == 255)
    }

    @Test func decodingGarbageFailsClearly() {
        #expect(throws: AVError.self) { try CGImage.decoded(from: Data("hello".utf8)) }
        do {
            _ = try CGImage.decoded(from: Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))
            Issue.record("a broken PNG must not decode")
        } catch let error as AVError {
            #expect(!(error.errorDescription ?? "").isEmpty)
        } catch {
            Issue.record("wrong error type \(error)")
        }
    }
}
