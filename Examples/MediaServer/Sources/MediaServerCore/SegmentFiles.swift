import AVFoundation
import Foundation
import Synchronization

/// `AVAssetWriter`'s segment delegate for one HLS rendition: writes the initialization segment as
/// `init.mp4` and each media segment as `segmentN.m4s` into its directory as the writer hands them
/// out (on the writer's engine thread, in order), and keeps each segment's duration and size for
/// the playlists.
final class SegmentFiles: NSObject, AVAssetWriterDelegate, Sendable {
    private struct Written {
        var segments: [(seconds: Double, bytes: Int)] = []
        var failure: (any Error)?
    }

    let directory: URL
    private let written = Mutex(Written())

    init(directory: URL) {
        self.directory = directory
    }

    /// The first write that failed, if any.
    var failure: (any Error)? { written.withLock { $0.failure } }

    func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                     segmentReport: AVAssetSegmentReport?) {
        // The pictures' span where there are pictures (the sound's packets overhang the cut a little).
        let reports = segmentReport?.trackReports ?? []
        let seconds = (reports.first { $0.mediaType == .video } ?? reports.first).map(\.duration.seconds).flatMap { $0.isFinite ? $0 : nil } ?? 0
        let number = written.withLock { $0.segments.count + 1 }
        let name = segmentType == .initialization ? "init.mp4" : "segment\(number).m4s"
        do {
            try segmentData.write(to: directory.appendingPathComponent(name), options: .atomic)
            if segmentType == .separable {
                written.withLock { $0.segments.append((seconds, segmentData.count)) }
            }
        } catch {
            written.withLock { if $0.failure == nil { $0.failure = error } }
        }
    }

    /// Writes the media playlist (`index.m3u8`) of the segments written; their peak and average bits
    /// a second.
    func writePlaylist(target: Double) throws -> (peak: Int, average: Int) {
        let segments = written.withLock { $0.segments }
        let longest = segments.map(\.seconds).max() ?? target
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, Int(longest.rounded(.up))))",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"init.mp4\""]
        for (index, segment) in segments.enumerated() {
            lines.append(String(format: "#EXTINF:%.3f,", segment.seconds))
            lines.append("segment\(index + 1).m4s")
        }
        lines.append("#EXT-X-ENDLIST")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: directory.appendingPathComponent("index.m3u8"), options: .atomic)
        let rates = segments.filter { $0.seconds > 0 }.map { Double($0.bytes * 8) / $0.seconds }
        let seconds = segments.map(\.seconds).reduce(0, +)
        let average = seconds > 0 ? Double(segments.map(\.bytes).reduce(0, +) * 8) / seconds : 0
        return (Int((rates.max() ?? 0).rounded(.up)), Int(average.rounded(.up)))
    }
}
