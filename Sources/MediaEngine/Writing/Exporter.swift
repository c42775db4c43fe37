internal import CFFmpeg
import Foundation

/// Writes an `ExportPlan` to a file through `SampleWriter`, the writing layer behind `AVAssetWriter`
/// (the same encoders and muxing): copies and encodes its tracks, interleaving them by always
/// advancing the track furthest behind (so nothing is buffered beyond a few packets per track),
/// reports progress as the share of the output's duration written, and stops at the next packet when
/// cancelled. Blocking: runs on the calling engine thread for the whole export. The caller removes
/// the file when it throws.
package enum Exporter {
    package static func run(_ plan: ExportPlan, to path: String, cancellation: CancellationToken,
                            progress: (Double) -> Void) throws {
        try FFmpegLog.capturing {
            let output = try SampleWriter(path: path, container: plan.container)
            var tracks: [any TrackWriter] = []
            // Stream copies into MP4 and QuickTime cut exactly, with edit lists the engine writes itself
            // after FFmpeg's muxer is done (and then moves the header in front itself, when asked).
            let editsCopies = plan.container.isQuickTimeFamily && !plan.copied.isEmpty && plan.video == nil && plan.audio == nil
            var copies: [CopyTrackWriter] = []
            for copied in plan.copied {
                let copy = try CopyTrackWriter(copied, output: output, exactCuts: editsCopies, cancellation: cancellation)
                copies.append(copy)
                tracks.append(copy)
            }
            if let video = plan.video { tracks.append(try VideoTrackWriter(video, output: output)) }
            if let audio = plan.audio { tracks.append(try AudioTrackWriter(audio, output: output)) }
            for tag in plan.metadata { output.setMetadata(tag.key, tag.value) }
            try output.setChapters(plan.chapters.map { chapter in
                (Int64((chapter.start * 1_000_000).rounded()), Int64((chapter.end * 1_000_000).rounded()), chapter.title)
            })
            try output.start(fastStart: plan.fastStart && !editsCopies, fragmentSeconds: nil)
            let duration = plan.duration > 0 && plan.duration.isFinite ? plan.duration : 0
            var stoppedAt: Double?
            while let next = tracks.filter({ !$0.isDone }).min(by: { $0.position < $1.position }) {
                if cancellation.isCancelled { throw FFmpeg.error(avocet_averror_exit(), "export", source: path) }
                try next.step(cancellation)
                if duration > 0 {
                    let written = tracks.filter { !$0.isDone }.map(\.position).min() ?? duration
                    progress(min(1, max(0, written / duration)))
                }
                if plan.fileLengthLimit > 0 && output.bytesWritten >= plan.fileLengthLimit {
                    stoppedAt = tracks.map(\.position).min()
                    break
                }
            }
            if cancellation.isCancelled { throw FFmpeg.error(avocet_averror_exit(), "export", source: path) }
            // At the length limit, what the encoders still hold is dropped rather than written past it.
            try output.finish(drainingEncoders: stoppedAt == nil)
            if editsCopies {
                var edits: [Int32: [MP4EditLists.Edit]] = [:]
                for copy in copies {
                    guard let stream = output.stream(of: copy.track) else { continue }
                    edits[stream + 1] = MP4EditLists.trimmed(copy.edits, to: stoppedAt)
                }
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

