// CoreMedia re-exports CoreVideo (pixel buffers, CoreFoundation's type names), as Apple's does.
@_exported import CoreVideo
