internal import MediaEngine

extension CVBuffer {
    /// The engine's view of the buffer's memory, for converting a picture straight into it or encoding
    /// from it; nil for a pixel format the engine does not handle.
    var pixelMemory: PixelMemory? {
        let format: PixelMemory.Format
        var fullRange = false
        switch pixelFormat {
        case kCVPixelFormatType_32BGRA: format = .bgra
        case kCVPixelFormatType_32ARGB: format = .argb
        case kCVPixelFormatType_32RGBA: format = .rgba
        case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: format = .nv12
        case kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: (format, fullRange) = (.nv12, true)
        case kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: format = .p010
        case kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: (format, fullRange) = (.p010, true)
        case kCVPixelFormatType_420YpCbCr8Planar: format = .yuv420p
        case kCVPixelFormatType_420YpCbCr8PlanarFullRange: (format, fullRange) = (.yuv420p, true)
        default: return nil
        }
        return PixelMemory(format: format, fullRange: fullRange, width: width, height: height,
                           planes: planes.map { (memory + $0.offset, $0.bytesPerRow) })
    }
}
