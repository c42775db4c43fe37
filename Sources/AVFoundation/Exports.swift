// AVFoundation re-exports CoreMedia and Foundation, as Apple's module does.
@_exported import CoreMedia
@_exported import Foundation
