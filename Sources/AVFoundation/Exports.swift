// AVFoundation re-exports AVFAudio, CoreMedia and Foundation, as Apple's module does.
@_exported import AVFAudio
@_exported import CoreMedia
@_exported import Foundation
// On Linux URLRequest, URLResponse and URLAuthenticationChallenge live in FoundationNetworking; on
// Apple's platforms Foundation has them. Re-exported so that resource loader code compiles unchanged.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
