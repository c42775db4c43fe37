@_exported import CoreMedia
@_exported import Foundation
