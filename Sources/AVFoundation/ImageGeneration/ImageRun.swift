internal import MediaEngine
import Foundation
internal import Locking

/// One run of image generation over a list of times, with one picture reader for all of them: what
/// `images(for:)` iterates and the legacy batch call reports. Each `next()` claims the next time and
/// generates its image on an engine thread; a cancelled calling task ends the run.
final class ImageRun: Sendable {
    private struct State {
        var next = 0
        var finished = false
        /// The reader between times (nil while a time is being generated, or before the first).
        var reader: PictureSource.HeldReader?
    }

    private let source: PictureSource
    private let times: [CMTime]
    private let settings: ImageSettings
    private let state = Locked(State())

    init(source: PictureSource, times: [CMTime], settings: ImageSettings) {
        self.source = source
        self.times = times
        self.settings = settings
    }

    deinit {
        source.checkIn(state.withLock { $0.reader })
    }

    /// The next time's outcome; nil once every time has had one, or when the calling task is cancelled
    /// (the run then ends: later calls return nil too).
    func next() async -> AVAssetImageGenerator.Images.Element? {
        guard let index = claim() else { return finish() }
        let time = times[index]
        if Task.isCancelled { return finish() }
        do {
            let tracks = try await source.tracks()
            let (source, settings) = (self.source, self.settings)
            let generated = try await IOExecutor.shared.run { token in
                // Taken here, on the engine thread: a job cancelled while queued holds no reader.
                var open = self.takeReader()
                defer { self.keep(open) }
                return try source.generate(at: time, settings: settings, tracks: tracks, reader: &open, cancellation: token)
            }
            return .success(requestedTime: time, image: generated.image, actualTime: generated.actualTime)
        } catch {
            if Task.isCancelled { return finish() }
            return .failure(requestedTime: time, error: AVError.converting(error))
        }
    }

    private func claim() -> Int? {
        state.withLock { s -> Int? in
            guard !s.finished, s.next < times.count else {
                s.finished = true
                return nil
            }
            defer { s.next += 1 }
            return s.next
        }
    }

    private func takeReader() -> PictureSource.HeldReader? {
        state.withLock { s -> PictureSource.HeldReader? in
            defer { s.reader = nil }
            return s.reader
        }
    }

    /// Keeps `reader` for the next time (a second one, from a concurrent call, goes back to the source).
    private func keep(_ reader: PictureSource.HeldReader?) {
        let spare = state.withLock { s -> PictureSource.HeldReader? in
            guard s.reader == nil, !s.finished else { return reader }
            s.reader = reader
            return nil
        }
        source.checkIn(spare)
    }

    private func finish() -> AVAssetImageGenerator.Images.Element? {
        let reader = state.withLock { s -> PictureSource.HeldReader? in
            s.finished = true
            defer { s.reader = nil }
            return s.reader
        }
        source.checkIn(reader)
        return nil
    }
}
