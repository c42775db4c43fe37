internal import CFFmpeg
import Foundation

/// Writes an `ExportPlan` to a file: copies and encodes its tracks, interleaving them by always
/// advancing the track furthest behind (so nothing is buffered beyond a few packets per track),
/// reports progress as the share of the output's duration written, and stops at the next packet when
/// cancelled. Blocking: runs on the calling engine thread for the whole export. The caller removes
/// the file when it throws.
package enum Exporter {
    package static func run(_ plan: ExportPlan, to path: String, cancellation: CancellationToken,
                            progress: (Double) -> Void) throws {
        try FFmpegLog.capturing {
            let writer = try MediaWriter(path: path, container: plan.container)
            var tracks: [any TrackWriter] = []
            // Stream copies into MP4 and QuickTime cut exactly, with edit lists the engine writes itself
            // after FFmpeg's muxer is done (and then moves the header in front itself, when asked).
            let editsCopies = plan.container.isQuickTimeFamily && !plan.copied.isEmpty && plan.video == nil && plan.audio == nil
            var copies: [CopyTrackWriter] = []
            for copied in plan.copied {
                let copy = try CopyTrackWriter(copied, writer: writer, exactCuts: editsCopies, cancellation: cancellation)
                copies.append(copy)
                tracks.append(copy)
            }
            if let video = plan.video { tracks.append(try VideoTrackWriter(video, writer: writer)) }
            if let audio = plan.audio { tracks.append(try AudioTrackWriter(audio, writer: writer)) }
            for tag in plan.metadata { writer.setMetadata(tag.key, tag.value) }
            try writer.setChapters(plan.chapters.map { chapter in
                (Int64((chapter.start * 1_000_000).rounded()), Int64((chapter.end * 1_000_000).rounded()), chapter.title)
            })
            try writer.writeHeader(fastStart: plan.fastStart && !editsCopies)
            let duration = plan.duration > 0 && plan.duration.isFinite ? plan.duration : 0
            var stoppedAt: Double?
            while let next = tracks.filter({ !$0.isDone }).min(by: { $0.position < $1.position }) {
                if cancellation.isCancelled { throw FFmpeg.error(avocet_averror_exit(), "export", source: path) }
                try next.step(cancellation)
                if duration > 0 {
                    let written = tracks.filter { !$0.isDone }.map(\.position).min() ?? duration
                    progress(min(1, max(0, written / duration)))
                }
                if plan.fileLengthLimit > 0 && writer.bytesWritten >= plan.fileLengthLimit {
                    stoppedAt = tracks.map(\.position).min()
                    break
                }
            }
            if cancellation.isCancelled { throw FFmpeg.error(avocet_averror_exit(), "export", source: path) }
            try writer.finish()
            if editsCopies {
                var edits: [Int32: [MP4EditLists.Edit]] = [:]
                for copy in copies { edits[copy.streamIndex + 1] = MP4EditLists.trimmed(copy.edits, to: stoppedAt) }
                try MP4EditLists.rewrite(path: path, edits: edits, fastStart: plan.fastStart)
            }
            progress(1)
        }
    }
}

/// One output track being written: each step writes its next packet or few.
protocol TrackWriter: AnyObject {
    /// Seconds of output written so far.
    var position: Double { get }
    var isDone: Bool { get }
    func step(_ token: CancellationToken) throws
}

