import AVFoundation
import FixtureSupport
import Foundation
import Testing

private func asset(_ name: String, options: [String: Any]? = nil) -> AVURLAsset {
    AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name)), options: options)
}

/// Every media fixture through the public API, against ffprobe's report of the same file and against
/// the facts the fixture script put in; read from the file, through a resource loader delegate and over
/// HTTP alike.
@Suite("AVAsset on the fixtures")
struct AssetFixtureTests {
    @Test(arguments: Fixtures.media.map(\.name), AssetRoute.allCases)
    func valuesAgreeWithFFprobe(name: String, route: AssetRoute) async throws {
        let fx = Fixtures.fixture(name)
        let probe = FFprobeReport.of(name)
        let asset = route.asset(name)
        let (duration, tracks, playable, common) = try await asset.load(.duration, .tracks, .isPlayable, .commonMetadata)

        if let probed = probe.duration {
            #expect(abs(duration.seconds - probed) < 0.001, "\(name): \(duration.seconds) vs ffprobe \(probed)")
            if fx.vbrWithoutXing != true, let expected = fx.duration {
                #expect(abs(duration.seconds - expected) < 0.05, "\(name) against the facts")
            }
        } else {
            #expect(fx.unknownDuration == true && duration == .indefinite, "\(name): no duration in the header is indefinite")
        }
        #expect(playable)

        let probed = probe.streams.filter { !$0.isAttachedPicture }
        #expect(tracks.count == probed.count, "\(name): one track per stream, cover art aside")
        for (track, stream) in zip(tracks, probed) {
            let (descriptions, size, transform, language) = try await track.load(.formatDescriptions, .naturalSize, .preferredTransform, .languageCode)
            let description = try #require(descriptions.first)
            #expect(descriptions.count == 1)
            switch stream.codecType {
            case "video":
                #expect(track.mediaType == .video)
                #expect(description.dimensions == CMVideoDimensions(width: Int32(stream.width!), height: Int32(stream.height!)))
                #expect(size == CGSize(width: stream.width!, height: stream.height!))
                // ffprobe counts its rotation counter-clockwise; the transform turns clockwise.
                let degrees = (atan2(Double(transform.b), Double(transform.a)) * 180 / .pi).rounded()
                #expect(Int(degrees) == -(stream.rotation ?? 0), "\(name) rotation")
                let rate = try await track.load(.nominalFrameRate)
                // Within 5% of the container's stream rate, edit lists and fragments notwithstanding.
                let expected = try #require(fx.video?.frameRate)
                #expect(abs(Double(rate) - expected) <= 0.05 * expected, "\(name): \(rate) fps, the stream has \(expected)")
            case "audio":
                #expect(track.mediaType == .audio)
                let asbd = try #require(description.audioStreamBasicDescription)
                #expect(asbd.mSampleRate == Double(stream.sampleRate!)!)
                #expect(asbd.mChannelsPerFrame == UInt32(stream.channels!))
            case "subtitle":
                #expect(track.mediaType == .subtitle)
            default:
                #expect(track.mediaType == .text, "\(name): the MP4 chapter list is a text track")
            }
            let probedLanguage = stream.tags?["language"]
            #expect(language == (probedLanguage == "und" ? nil : probedLanguage))
        }

        let commonKeys: [String: AVMetadataIdentifier] = [
            "title": .commonIdentifierTitle, "artist": .commonIdentifierArtist, "album": .commonIdentifierAlbumName,
        ]
        for (tag, identifier) in commonKeys {
            guard let expected = fx.tags?[tag] else { continue }
            let items = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: identifier)
            #expect(try await items.first?.load(.stringValue) == expected, "\(name) \(tag)")
        }
        let artwork = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierArtwork)
        if fx.coverArt == true {
            let data = try #require(try await artwork.first?.load(.dataValue))
            #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name): PNG cover art")
            #expect(artwork.first?.dataType == "com.apple.metadata.datatype.PNG")
        } else {
            #expect(artwork.isEmpty)
        }
    }

    @Test func rotationIsAPreferredTransform() async throws {
        let track = try #require(try await asset("rotated.mov").loadTracks(withMediaType: .video).first)
        let (transform, size) = try await track.load(.preferredTransform, .naturalSize)
        #expect(transform == CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 180, ty: 0))
        #expect(size == CGSize(width: 320, height: 180))
        #expect(CGRect(origin: .zero, size: size).applying(transform) == CGRect(x: 0, y: 0, width: 180, height: 320))
        let plain = try #require(try await asset("av.mp4").loadTracks(withMediaType: .video).first)
        #expect(try await plain.load(.preferredTransform).isIdentity)
    }

    @Test func mp4TrackFacts() async throws {
        let a = asset("av.mp4")
        let video = try #require(try await a.loadTrack(withTrackID: 1))
        let audio = try #require(try await a.loadTrack(withTrackID: 2))
        #expect(try await a.loadTrack(withTrackID: 3) == nil, "cover art is metadata, not a track")
        let (timeRange, timescale, frameRate, minFrame) = try await video.load(.timeRange, .naturalTimeScale, .nominalFrameRate, .minFrameDuration)
        #expect(timeRange == CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1)))
        #expect(timescale == 12800)
        #expect(frameRate == 25)
        #expect(minFrame == CMTime(value: 1, timescale: 25))
        let (enabled, characteristics, reorders, segments) = try await video.load(.isEnabled, .mediaCharacteristics, .requiresFrameReordering, .segments)
        #expect(enabled)
        #expect(characteristics == [.visual, .frameBased])
        #expect(!reorders, "ultrafast x264 makes no B-frames")
        #expect(segments.count == 1 && segments[0].timeMapping.target == timeRange && !segments[0].isEmpty)
        let asbd = try #require(try await audio.load(.formatDescriptions).first?.audioStreamBasicDescription)
        #expect(asbd.mFormatID == kAudioFormatMPEG4AAC && asbd.mFormatFlags == kMPEG4Object_AAC_LC)
        #expect(asbd.mFramesPerPacket == 1024 && asbd.mBytesPerPacket == 0)
        #expect(try await audio.load(.mediaCharacteristics) == [.audible])
        #expect(try await audio.load(.preferredVolume) == 1)
        #expect(try await a.loadTracks(withMediaCharacteristic: .audible) == [audio])
    }

    /// A video's Y'CbCr matrix, where its file states one (MP4's `colr` box), is in its format
    /// description as Apple's string; none where the file states none. The movies are made here by
    /// ffmpeg from a test pattern, a tenth of a second each (no fixture is tagged).
    @Test func theMatrixAFileStatesIsInTheFormatDescription() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (space, expected) in [("bt709", "ITU_R_709_2"), ("smpte170m", "ITU_R_601_4"), ("bt2020nc", "ITU_R_2020")] {
            let movie = directory.appendingPathComponent("\(space).mp4")
            let made = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=0.1", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-colorspace", space, "-color_primaries", space == "bt2020nc" ? "bt2020" : space,
                "-color_trc", "bt709", "-y", movie.path])
            #expect(made.status == 0, "\(made.stderr)")
            let track = try #require(try await AVURLAsset(url: movie).loadTracks(withMediaType: .video).first)
            let description = try #require(try await track.load(.formatDescriptions).first)
            #expect(description.extensions[.yCbCrMatrix]?.propertyListRepresentation as? String == expected, "\(space)")
        }
        let untagged = try #require(try await asset("av.mp4").loadTracks(withMediaType: .video).first)
        #expect(try await untagged.load(.formatDescriptions).first?.extensions[.yCbCrMatrix] == nil)
    }

    @Test func wavIsLinearPCM() async throws {
        let track = try #require(try await asset("tone.wav").load(.tracks).first)
        let asbd = try #require(try await track.load(.formatDescriptions).first?.audioStreamBasicDescription)
        #expect(asbd.mFormatID == kAudioFormatLinearPCM)
        #expect(asbd.mFormatFlags == kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked)
        #expect(asbd.mBitsPerChannel == 16 && asbd.mBytesPerFrame == 2 && asbd.mBytesPerPacket == 2 && asbd.mFramesPerPacket == 1)
        #expect(asbd.mSampleRate == 22050 && asbd.mChannelsPerFrame == 1)
        #expect(try await track.load(.totalSampleDataLength) == 44100, "one second of 16-bit mono at 22050 Hz")
    }

    /// MP4 sums its sample index; Matroska needs a packet scan. The same x264 settings made both videos,
    /// so the two totals agree to the byte.
    @Test func sampleTotalsFromIndexAndFromScan() async throws {
        let mp4 = try #require(try await asset("av.mp4").loadTracks(withMediaType: .video).first)
        let mkv = try #require(try await asset("multi.mkv").loadTracks(withMediaType: .video).first)
        let fromIndex = try await mp4.load(.totalSampleDataLength)
        let fromScan = try await mkv.load(.totalSampleDataLength)
        #expect(fromIndex == fromScan)
        #expect(fromIndex > 10_000)
        let rate = try await mkv.load(.estimatedDataRate)
        #expect(abs(Double(rate) - Double(fromScan * 8) / 2.0) / Double(rate) < 0.05)
    }

    @Test func fragments() async throws {
        let fragmented = asset("fragmented.mp4")
        let (can, does, hint, duration) = try await fragmented.load(.canContainFragments, .containsFragments, .overallDurationHint, .duration)
        #expect(can && does)
        #expect(hint == duration)
        let plain = asset("av.mp4")
        #expect(try await plain.load(.canContainFragments) == false)
        #expect(try await plain.load(.containsFragments) == false)
        #expect(!(try await plain.load(.overallDurationHint)).isValid)
        #expect(try await asset("multi.mkv").load(.containsFragments) == false)
    }

    /// The header of a VBR MP3 without a Xing header only estimates; the option asks for the exact value.
    @Test func preciseDurationOption() async throws {
        let fx = Fixtures.fixture("vbr-no-xing.mp3")
        let estimated = asset(fx.name)
        #expect(try await estimated.load(.providesPreciseDurationAndTiming) == false)
        #expect(abs(try await estimated.load(.duration).seconds - FFprobeReport.of(fx.name).duration!) < 0.001, "ffprobe's estimate")
        let precise = asset(fx.name, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        let (duration, isPrecise) = try await precise.load(.duration, .providesPreciseDurationAndTiming)
        #expect(isPrecise)
        #expect(abs(duration.seconds - fx.duration!) < 0.06, "\(duration.seconds)")
        let track = try #require(try await precise.load(.tracks).first)
        #expect(abs(try await track.load(.timeRange).duration.seconds - duration.seconds) < 0.001)
        // A file whose header is exact costs no scan and is precise either way.
        #expect(try await asset("av.mp4").load(.providesPreciseDurationAndTiming))
    }

    @Test func matroskaTracksLanguagesAndTitles() async throws {
        let a = asset("multi.mkv")
        let audio = try await a.loadTracks(withMediaType: .audio)
        #expect(try await audio.asyncMap { try await $0.load(.languageCode) } == ["eng", "fra"])
        #expect(try await audio.asyncMap { try await $0.load(.extendedLanguageTag) } == ["en", "fr"])
        let titles = try await audio.asyncMap { track -> String? in
            let items = AVMetadataItem.metadataItems(from: try await track.load(.commonMetadata), filteredByIdentifier: .commonIdentifierTitle)
            return try await items.first?.load(.stringValue)
        }
        #expect(titles == ["English", "Français"])
        let subtitles = try await a.loadTracks(withMediaCharacteristic: .legible)
        #expect(subtitles.count == 1 && subtitles[0].mediaType == .subtitle)
        #expect(Set(try await a.load(.tracks).map(\.trackID)) == [1, 2, 3, 4])
    }
}

@Suite("Metadata of the fixtures")
struct AssetMetadataTests {
    @Test func iTunesItemsInTheirKeySpace() async throws {
        let a = asset("tagged.m4a")
        #expect(try await a.load(.availableMetadataFormats) == [.iTunesMetadata])
        let items = try await a.loadMetadata(for: .iTunesMetadata)
        let title = try #require(AVMetadataItem.metadataItems(from: items, filteredByIdentifier: .iTunesMetadataSongName).first)
        #expect(title.identifier?.rawValue == "itsk/%A9nam")
        #expect(title.keySpace == .iTunes)
        #expect(title.commonKey == .commonKeyTitle)
        #expect((title.key as? NSNumber)?.uint32Value == 0xA96E_616D, "the key is the four-character code, as Apple's")
        #expect(try await title.load(.stringValue) == "Shore Song")
        let genre = AVMetadataItem.metadataItems(from: items, withKey: "©gen", keySpace: .iTunes)
        #expect(try await genre.first?.load(.stringValue) == "Field Recording")
        let track = AVMetadataItem.metadataItems(from: items, filteredByIdentifier: .iTunesMetadataTrackNumber)
        #expect(try await track.first?.load(.numberValue) == 3)
        let cover = AVMetadataItem.metadataItems(from: items, filteredByIdentifier: .iTunesMetadataCoverArt)
        #expect(try await cover.first?.load(.dataValue)?.count == 1687)
    }

    @Test func id3ItemsInTheirKeySpace() async throws {
        let a = asset("tagged.mp3")
        #expect(try await a.load(.availableMetadataFormats) == [.id3Metadata])
        let items = try await a.load(.metadata)
        let title = try #require(AVMetadataItem.metadataItems(from: items, filteredByIdentifier: .id3MetadataTitleDescription).first)
        #expect(title.identifier?.rawValue == "id3/TIT2" && title.keySpace == .id3 && (title.key as? NSString) == "TIT2")
        #expect(try await title.load(.stringValue) == "Wader Call")
        let created = try #require(try await a.load(.creationDate))
        #expect(try await created.load(.stringValue) == "2023")
        let year = try #require(try await created.load(.dateValue))
        #expect(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: year).year == 2023)
        let art = AVMetadataItem.metadataItems(from: items, filteredByIdentifier: .id3MetadataAttachedPicture)
        #expect(art.count == 1 && art.first?.commonKey == .commonKeyArtwork)
    }

    @Test func vorbisCommentsAndMatroskaTags() async throws {
        let flac = try await asset("tagged.flac").load(.metadata)
        #expect(flac.first?.keySpace == .vorbisComment)
        let title = AVMetadataItem.metadataItems(from: flac, withKey: "TITLE", keySpace: .vorbisComment)
        #expect(try await title.first?.load(.stringValue) == "Lossless Lagoon")
        #expect(title.first?.identifier?.rawValue == "vorbis/TITLE")
        let opus = try await asset("voice.opus").load(.commonMetadata)
        let opusTitle = AVMetadataItem.metadataItems(from: opus, filteredByIdentifier: .commonIdentifierTitle)
        #expect(try await opusTitle.first?.load(.stringValue) == "Opus Estuary", "Ogg keeps its comments on the stream")
        let mkv = try await asset("multi.mkv").load(.metadata)
        #expect(mkv.map { $0.identifier?.rawValue } == ["mkv/TITLE"], "the muxing application is not a tag")
        #expect(try await asset("multi.mkv").load(.availableMetadataFormats) == [.matroskaTags])
    }

    @Test func creationDateFromTheMovieHeader() async throws {
        let item = try #require(try await asset("av.mp4").load(.creationDate))
        let date = try #require(try await item.load(.dateValue))
        #expect(date == ISO8601DateFormatter().date(from: "2024-05-01T12:30:00Z"))
        #expect(try await asset("tone.wav").load(.creationDate) == nil)
        #expect(try await asset("tone.wav").load(.commonMetadata).isEmpty)
    }

    @Test func mp4Chapters() async throws {
        let a = asset("chapters.mp4")
        let facts = Fixtures.fixture("chapters.mp4").chapters!
        #expect(try await a.load(.availableChapterLocales) == [Locale(identifier: "en")])
        let groups = try await a.loadChapterMetadataGroups(withTitleLocale: Locale(identifier: "en_US"))
        #expect(groups.count == facts.count)
        for (group, fact) in zip(groups, facts) {
            #expect(abs(group.timeRange.start.seconds - fact.start) < 0.001)
            #expect(abs(group.timeRange.end.seconds - fact.end) < 0.001)
            let title = try #require(group.items.first)
            #expect(title.commonKey == .commonKeyTitle && title.identifier == .commonIdentifierTitle)
            #expect(try await title.load(.stringValue) == fact.title)
            #expect(title.time == group.timeRange.start && title.duration == group.timeRange.duration)
            #expect(title.locale == Locale(identifier: "en"))
        }
        #expect(try await a.loadChapterMetadataGroups(withTitleLocale: Locale(identifier: "fr")).isEmpty)
        #expect(try await a.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["fr", "en"]).count == 3)
        let titles = AVMetadataItem.metadataItems(from: groups.flatMap(\.items), filteredAndSortedAccordingToPreferredLanguages: ["en"])
        #expect(titles.count == 3)
    }

    @Test func matroskaChapters() async throws {
        let a = asset("multi.mkv")
        #expect(try await a.load(.availableChapterLocales).isEmpty, "FFmpeg does not expose Matroska chapter languages")
        let groups = try await a.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["de"])
        let titles = try await groups.asyncMap { try await $0.items.first?.load(.stringValue) }
        #expect(titles == Fixtures.fixture("multi.mkv").chapters!.map(\.title))
        #expect(try await asset("av.mp4").loadChapterMetadataGroups(withTitleLocale: .current).isEmpty)
    }
}

extension Sequence {
    /// `map` with an async, throwing transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
