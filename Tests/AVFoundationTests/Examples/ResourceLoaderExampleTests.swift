import AVFoundation
import FixtureSupport
import Foundation
import Testing

// The resource loader example of the DocC article "Loading from your own storage, HTTP and HLS", as
// written there: an MP4 kept inside a project file of the app's own (seed 002's case for
// AVAssetResourceLoader), served from disk on demand.

/// Serves the movie stored in a project file, `length` bytes from `offset`.
final class ProjectFileLoader: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "project-file")   // the delegate's methods run here, one at a time
    let file: FileHandle
    let offset: UInt64
    let length: Int64

    init(project: URL, offset: UInt64, length: Int64) throws {
        file = try FileHandle(forReadingFrom: project)
        self.offset = offset
        self.length = length
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentType = AVFileType.mp4.rawValue
            info.contentLength = length
            info.isByteRangeAccessSupported = true
            info.isEntireLengthAvailableOnDemand = true   // on local disk: no network-style read-ahead
        }
        if let data = loadingRequest.dataRequest {
            let start = data.requestedOffset
            let end = data.requestsAllDataToEndOfResource ? length : min(length, start + Int64(data.requestedLength))
            if start < end {
                do {
                    try file.seek(toOffset: offset + UInt64(start))
                    data.respond(with: file.readData(ofLength: Int(end - start)))
                } catch {
                    loadingRequest.finishLoading(with: error)
                    return true
                }
            }
        }
        loadingRequest.finishLoading()
        return true
    }
}

@Suite("Article example: serving an MP4 from a project file")
struct ResourceLoaderExampleTests {
    @Test func theExampleRunsAsWritten() async throws {
        // A project file: a header of the app's own, the movie, then more of the app's data.
        let movie = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let header = Data("PROJECT v1\n".utf8) + Data(count: 4085)
        let project = try Fixtures.temporaryDirectory().appendingPathComponent("trip.project")
        try (header + movie + Data("thumbnails...".utf8)).write(to: project)

        // The article's lines.
        let loader = try ProjectFileLoader(project: project, offset: UInt64(header.count), length: Int64(movie.count))
        let asset = AVURLAsset(url: URL(string: "project://trip/clip.mp4")!)
        asset.resourceLoader.setDelegate(loader, queue: loader.queue)
        let (duration, tracks) = try await asset.load(.duration, .tracks)

        let file = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let (fileDuration, fileTracks) = try await file.load(.duration, .tracks)
        #expect(duration == fileDuration)
        #expect(tracks.map(\.mediaType) == fileTracks.map(\.mediaType))
        let scanned = try await tracks[0].load(.totalSampleDataLength)
        #expect(scanned == (try await fileTracks[0].load(.totalSampleDataLength)), "every packet read through the loader")
    }
}
