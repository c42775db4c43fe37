import AVFoundation
import FixtureSupport
import Locking
import Testing

/// The "Playing" article's subtitle delegate, as written there (it records what it would print).
final class Captions: NSObject, AVPlayerItemLegibleOutputPushDelegate, @unchecked Sendable {
    let printed = Locked<[String]>([])
    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {
        printed.withLock { $0.append("\(itemTime.seconds) \(strings.map(\.string))") }
    }
}

/// The samples of the README and the DocC articles (Inspecting assets, Making thumbnails, Selecting
/// media, Composing and exporting, Reading samples, Writing samples, Playing), with what they say they
/// print. The
/// first test keeps the CoreMedia lines an earlier README showed.
@Suite("README and article examples")
struct ReadmeExamplesTests {
    @Test func sample() {
        let a = CMTime(value: 1, timescale: 2)
        let b = CMTime(value: 1, timescale: 3)
        #expect((a + b).description == "{5/6 = 0.833}")
        #expect(CMTime(value: 1, timescale: 2) == CMTime(value: 300, timescale: 600))
        let clip = CMTimeRange(start: .zero, duration: CMTime(seconds: 2, preferredTimescale: 600))
        #expect(!clip.containsTime(clip.end))
        let portrait = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        #expect(CGRect(x: 0, y: 0, width: 1920, height: 1080).applying(portrait).size == CGSize(width: 1080, height: 1920))
        let boundary = NSValue(time: CMTime(value: 3, timescale: 1))
        #expect(boundary.timeValue == CMTime(value: 3, timescale: 1))
    }

    @Test func assetSample() async throws {
        let asset = AVAsset(url: URL(fileURLWithPath: Fixtures.path("multi.mkv")))   // an AVURLAsset; no I/O yet
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        #expect(asset is AVURLAsset && duration.seconds == 2.021 && tracks.count == 4)
        var printed: [String] = []
        for track in try await asset.loadTracks(withMediaType: .audio) {
            let (formats, language) = try await track.load(.formatDescriptions, .languageCode)
            printed.append("\(language ?? "und") \(formats.first?.audioStreamBasicDescription?.mSampleRate ?? 0)")
        }
        #expect(printed == ["eng 48000.0", "fra 48000.0"])
        let titles = AVMetadataItem.metadataItems(from: try await asset.load(.commonMetadata),
                                                  filteredByIdentifier: .commonIdentifierTitle)
        #expect(try await titles.first?.load(.stringValue) ?? "" == "Two Tongues")
        let chapters = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["en"])
        #expect(chapters.count == 2)
    }

    /// The "Selecting media" article's example, with what it prints.
    @Test func selectingMediaSample() async throws {
        let movie = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("selection.mkv")))
        guard let audible = try await movie.loadMediaSelectionGroup(for: .audible),
              let choice = try await movie.load(.preferredMediaSelection).mutableCopy() as? AVMutableMediaSelection else {
            Issue.record("no audible group or no mutable copy")
            return
        }
        #expect(audible.options.map { $0.displayName(with: Locale(identifier: "en")) } == ["English", "Français", "German"])
        let wanted = AVMediaSelectionGroup.mediaSelectionOptions(from: audible.options,
                                                                 filteredAndSortedAccordingToPreferredLanguages: ["fr-CA", "en"])
        choice.select(wanted.first, in: audible)
        #expect(choice.selectedMediaOption(in: audible)?.extendedLanguageTag ?? "und" == "fr")

        let subtitles = try await movie.loadMediaSelectionGroup(for: .legible)
        let forced = AVMediaSelectionGroup.mediaSelectionOptions(from: subtitles?.options ?? [],
                                                                 withMediaCharacteristics: [.containsOnlyForcedSubtitles])
        #expect(forced.map(\.displayName) == ["English (forced)"])
    }

    /// The "Selecting media" article's playback example.
    @Test func playingASelectionSample() async throws {
        let movie = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("selection.mkv")))
        let item = AVPlayerItem(asset: movie)
        let player = AVPlayer(playerItem: item)
        player.setMediaSelectionCriteria(AVPlayerMediaSelectionCriteria(preferredLanguages: ["de", "fr"], preferredMediaCharacteristics: nil),
                                         forMediaCharacteristic: .audible)
        try await PlayerTests.ready(item, in: player)
        if let subtitles = try await movie.loadMediaSelectionGroup(for: .legible) {
            item.select(subtitles.options.first, in: subtitles)
        }
        let audible = try #require(try await movie.loadMediaSelectionGroup(for: .audible))
        let legible = try #require(try await movie.loadMediaSelectionGroup(for: .legible))
        #expect(item.currentMediaSelection.selectedMediaOption(in: audible)?.extendedLanguageTag == "de")
        #expect(item.currentMediaSelection.selectedMediaOption(in: legible)?.extendedLanguageTag == "en")
    }

    /// The "Playing" article's subtitle example, on the Matroska fixture with English subtitles chosen.
    @Test func captionsSample() async throws {
        let player = AVPlayer()
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("selection.mkv")))
        let item = AVPlayerItem(asset: asset)
        if let subtitles = try await asset.loadMediaSelectionGroup(for: .legible) { item.select(subtitles.options.first, in: subtitles) }
        let captions = Captions()
        let legible = AVPlayerItemLegibleOutput()
        legible.setDelegate(captions, queue: DispatchQueue(label: "captions"))
        item.add(legible)
        player.replaceCurrentItem(with: item)
        try await PlayerTests.ready(item, in: player)
        await until("the first cue printed") {
            _ = await player.seek(to: CMTime(value: 3, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero)
            return captions.printed.withLock { $0.contains { $0.hasSuffix("[\"Shore ahead.\"]") } }
        }
    }

    /// The "Reading samples" article's example, with what it prints.
    @Test func readingSamplesSample() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let track = try await asset.loadTracks(withMediaType: .video)[0]
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
        ])
        reader.add(output)
        reader.startReading()
        var printed: [String] = []
        for try await sample in output.sampleBuffers {
            guard let pixels = sample.imageBuffer else { continue }
            printed.append("\(sample.presentationTimeStamp.seconds) \(CVPixelBufferGetWidth(pixels))")
        }
        #expect(printed.count == 100 && printed.first == "0.0 320" && printed.last == "3.96 320")
        #expect(reader.status == .completed)
        let speech: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 16000,
                                     AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
        let audio = try await AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))).loadTracks(withMediaType: .audio)[0]
        #expect(AVAssetReaderTrackOutput(track: audio, outputSettings: speech).mediaType == .audio)
    }

    /// The "Writing samples" article's example (its output path in a temporary directory).
    @Test func writingSamplesSample() async throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("out.mp4").path
        let writer = try AVAssetWriter(outputURL: URL(fileURLWithPath: path), fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: [
            AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 1280, AVVideoHeightKey: 720,
        ])
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
        ])
        writer.add(input)
        writer.startWriting()
        writer.startSession(atSourceTime: .zero)
        for frame in 0..<90 {
            while !input.isReadyForMoreMediaData { try await Task.sleep(for: .milliseconds(1)) }
            var buffer: CVPixelBuffer?
            CVPixelBufferPoolCreatePixelBuffer(nil, adaptor.pixelBufferPool!, &buffer)
            // ... draw into buffer ...
            adaptor.append(buffer!, withPresentationTime: CMTime(value: Int64(frame), timescale: 30))
        }
        input.markAsFinished()
        await writer.finishWriting()
        #expect(writer.status == .completed)
        #expect(try await AVURLAsset(url: URL(fileURLWithPath: path)).load(.duration).seconds == 3)
    }

    @Test func thumbnailSample() async throws {
        let generator = AVAssetImageGenerator(asset: AVAsset(url: URL(fileURLWithPath: Fixtures.path("iphone.mov"))))
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = CGSize(width: 160, height: 0)
        let (image, actualTime) = try await generator.image(at: CMTime(seconds: 0.5, preferredTimescale: 600))
        #expect("\(image.width) \(image.height) \(actualTime.seconds)" == "160 284 0.8333333333333334")
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let dir = try Fixtures.temporaryDirectory()
        var printed: [String] = []
        for await result in generator.images(for: [0.25, 0.5, 9].map { CMTime(seconds: $0, preferredTimescale: 600) }) {
            switch result {
            case .success(requestedTime: _, image: let image, actualTime: let time):
                try image.jpegData().write(to: dir.appendingPathComponent("thumb-\(time.seconds).jpg"))
            case .failure(requestedTime: let time, error: let error):
                printed.append("\(time.seconds) \((error as? AVError)?.code == .noImageAtTime)")
            }
        }
        #expect(printed == ["9.0 true"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 2)
    }

    @Test func compositionSample() async throws {
        func seconds(_ n: Int64) -> CMTime { CMTime(value: n, timescale: 1) }
        let clip = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let composition = AVMutableComposition()
        try await composition.insertTimeRange(CMTimeRange(start: .zero, duration: seconds(2)), of: clip, at: .zero)
        try await composition.insertTimeRange(CMTimeRange(start: seconds(3), duration: seconds(1)), of: clip, at: seconds(2))
        #expect("\(composition.duration.seconds) \(composition.tracks.count)" == "3.0 1")

        let video = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: composition)
        let fade = AVMutableVideoCompositionLayerInstruction(assetTrack: composition.tracks[0])
        fade.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: CMTimeRange(start: seconds(2), duration: seconds(1)))
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = CMTimeRange(start: .zero, duration: composition.duration)
        instruction.layerInstructions = [fade]
        video.instructions = [instruction]
        #expect(try await video.isValid(for: composition, timeRange: instruction.timeRange, validationDelegate: nil))

        let out = try Fixtures.temporaryDirectory().appendingPathComponent("spliced.mp4")
        guard let export = AVAssetExportSession(asset: composition, presetName: AVAssetExportPreset1280x720) else { return }
        export.videoComposition = video
        try await export.export(to: out, as: .mp4)
        let (duration, tracks) = try await AVURLAsset(url: out).load(.duration, .tracks)
        #expect(abs(duration.seconds - 3) < 0.05 && tracks.count == 1)
    }

    @Test func playbackSample() async throws {
        let item = AVPlayerItem(asset: AVAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))),
                                automaticallyLoadedAssetKeys: [.isPlayable, .hasProtectedContent])
        let printed = PlayerTests.Recorder<Bool>()
        let observation = item.observe(\.status, options: [.initial, .new]) { item, _ in
            printed.add(item.status == .readyToPlay)
        }
        let player = AVPlayer(playerItem: item)
        let clock = CMClock.manual()
        player.sourceClock = clock
        let queue = DispatchQueue(label: "readme.player")
        let times = PlayerTests.Recorder<Double>()
        let token = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 2), queue: queue) { time in
            times.add(time.seconds)
        }
        try await PlayerTests.ready(item, in: player)
        await until("two statuses printed and the player ready") { printed.values.count == 2 && player.status == .readyToPlay }
        player.play()
        for _ in 0..<10 { clock.advance(by: CMTime(value: 1, timescale: 10)) }
        // The observer's calls reach its queue from the player's own; on a loaded machine (ThreadSanitizer
        // beside it) the last may not be queued yet when the clock has moved: wait for three, then check.
        await until("three periodic times observed") { times.values.count >= 3 }
        queue.sync {}
        #expect(printed.values == [false, true] && times.values == [0, 0.5, 1.0])
        player.removeTimeObserver(token)
        observation.invalidate()
    }

    /// The "Playing" article's looping example, as written (on a manual clock, the sound on a null device).
    @Test func loopingSample() async throws {
        let url = URL(fileURLWithPath: Fixtures.path("tone.wav"))
        let queue = AVQueuePlayer()
        let clock = CMClock.manual()
        queue.sourceClock = clock
        queue.audioDevice = PlayerLooperTests.nullDevice
        let looper = AVPlayerLooper(player: queue, templateItem: AVPlayerItem(url: url),
                                    timeRange: CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1)))
        queue.play()
        await until("the looper ready") { looper.status != .unknown }
        #expect(looper.status == .ready, "the range is cut at the 1 s item's end")
        await PlayerLooperTests.playing(queue)
        #expect(PlayerLooperTests.playOut(queue, clock) == 20 && looper.loopCount == 1)
        looper.disableLooping()
        #expect(looper.status == .cancelled)
    }

    /// The "Working with audio" article's samples: a file to 16 kHz mono floats, a FLAC written and
    /// read back, a sound played (on a null device, as no sound card is assumed).
    @Test func workingWithAudioSamples() throws {
        let file = try AVAudioFile(forReading: URL(fileURLWithPath: Fixtures.audioPath("sine.mp3")))
        let speech = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false))
        let converter = try #require(AVAudioConverter(from: file.processingFormat, to: speech))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 44_100))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: speech, frameCapacity: 16_384))
        var samples: [Float] = []
        var finished = false
        while true {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, inputStatus in
                do { try file.read(into: input) } catch { finished = true }
                if finished || input.frameLength == 0 {
                    finished = true
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                inputStatus.pointee = .haveData
                return input
            }
            samples += UnsafeBufferPointer(start: output.floatChannelData?[0], count: Int(output.frameLength))
            if status == .endOfStream || status == .error || (status == .inputRanDry && finished) { break }
        }
        #expect(file.length == 44_100 && samples.count == 16_000, "\(file.length) \(samples.count)")

        let url = try Fixtures.temporaryDirectory().appendingPathComponent("tone.flac")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1]
        let tone = try AVAudioFile(forWriting: url, settings: settings)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: tone.processingFormat, frameCapacity: 48_000))
        let data = try #require(buffer.floatChannelData)
        for i in 0..<48_000 { data[0][i] = 0.5 * sin(2 * .pi * 440 * Float(i) / 48_000) }
        buffer.frameLength = 48_000
        try tone.write(from: buffer)
        tone.close()
        #expect(try AVAudioFile(forReading: url).length == 48_000)

        let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: Fixtures.audioPath("sine.flac")))
        player.audioDevice = (name: "avocetnull", configuration: "pcm.avocetnull { type null }")
        player.numberOfLoops = 1
        player.enableRate = true
        player.rate = 1.5
        #expect(player.play() && player.isPlaying)
        player.stop()
        #expect(!player.isPlaying)
    }
}
