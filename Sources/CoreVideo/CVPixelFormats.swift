// The pixel formats Avocet's pixel buffers hold, with Apple's values (four-character codes, and 32
// for 32ARGB, as Apple's).

/// 8-bit alpha, red, green, blue (the value 32, as Apple's).
public let kCVPixelFormatType_32ARGB: OSType = 0x0000_0020
/// 8-bit blue, green, red, alpha ('BGRA').
public let kCVPixelFormatType_32BGRA: OSType = 0x4247_5241
/// 8-bit red, green, blue, alpha ('RGBA').
public let kCVPixelFormatType_32RGBA: OSType = 0x5247_4241
/// 4:2:0 Y plane then interleaved CbCr plane, 8 bits, video range ('420v').
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = 0x3432_3076
/// The same, full range ('420f').
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = 0x3432_3066
/// 4:2:0 planar: a Y plane, then a Cb plane and a Cr plane at half width and height, 8 bits, video
/// range ('y420'). Avocet's buffers of it lay the three planes out one after another, each chroma row
/// half as long as a luma row (I420's layout).
public let kCVPixelFormatType_420YpCbCr8Planar: OSType = 0x7934_3230
/// The same, full range ('f420').
public let kCVPixelFormatType_420YpCbCr8PlanarFullRange: OSType = 0x6634_3230
/// 4:2:0 bi-planar, 10 bits in the high bits of 16, video range ('x420').
public let kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: OSType = 0x7834_3230
/// The same, full range ('xf20').
public let kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: OSType = 0x7866_3230

/// How the memory of a buffer in `format` is laid out; nil for a format Avocet's buffers do not hold.
/// Rows are as long as their samples (no padding beyond `rowAlignment`; 4:2:0 planar luma rows to twice
/// it, so that chroma rows are half as long).
func planeLayout(_ format: OSType, width: Int, height: Int, rowAlignment: Int) -> [CVBuffer.Plane]? {
    func aligned(_ bytes: Int) -> Int { (bytes + rowAlignment - 1) / rowAlignment * rowAlignment }
    switch format {
    case kCVPixelFormatType_32BGRA, kCVPixelFormatType_32ARGB, kCVPixelFormatType_32RGBA:
        return [CVBuffer.Plane(offset: 0, width: width, height: height, bytesPerRow: aligned(width * 4))]
    case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
         kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr10BiPlanarFullRange:
        let bytesPerSample = format == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            || format == kCVPixelFormatType_420YpCbCr10BiPlanarFullRange ? 2 : 1
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaRow = aligned(width * bytesPerSample), chromaRow = aligned(chromaWidth * 2 * bytesPerSample)
        return [CVBuffer.Plane(offset: 0, width: width, height: height, bytesPerRow: lumaRow),
                CVBuffer.Plane(offset: lumaRow * height, width: chromaWidth, height: chromaHeight, bytesPerRow: chromaRow)]
    case kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange:
        // Luma rows aligned to twice the alignment, so that chroma rows of half their length are aligned.
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaRow = (max(width, chromaWidth * 2) + 2 * rowAlignment - 1) / (2 * rowAlignment) * (2 * rowAlignment)
        let chromaRow = lumaRow / 2
        return [CVBuffer.Plane(offset: 0, width: width, height: height, bytesPerRow: lumaRow),
                CVBuffer.Plane(offset: lumaRow * height, width: chromaWidth, height: chromaHeight, bytesPerRow: chromaRow),
                CVBuffer.Plane(offset: lumaRow * height + chromaRow * chromaHeight, width: chromaWidth, height: chromaHeight,
                               bytesPerRow: chromaRow)]
    default:
        return nil
    }
}
