internal import MediaEngine
import Foundation

/// Turns the tags FFmpeg reads (under its own normalised names: "title", "album_artist", "date") back
/// into each format's metadata items: the key space of the container, the format's native key, and the
/// common key it maps onto.
enum MetadataMapping {
    typealias Entry = (native: String, common: AVMetadataKey?)

    /// The key space of a container's tags.
    static func keySpace(for info: ContainerInfo) -> AVMetadataKeySpace {
        switch info.format {
        case .quickTime: return info.isQuickTimeMovie ? .quickTimeUserData : .iTunes
        case .mp3: return .id3
        case .flac, .ogg: return .vorbisComment
        case .matroska: return .matroska
        default: return .audioFile
        }
    }

    /// FFmpeg names for things that are not metadata: file structure, muxers, statistics.
    private static let technicalKeys: Set<String> = [
        "major_brand", "minor_version", "compatible_brands", "creation_time", "handler_name", "vendor_id",
        "language", "duration", "timecode", "bps", "number_of_frames", "number_of_bytes", "_statistics_writing_app",
        "_statistics_writing_date_utc", "_statistics_tags",
    ]

    private static let iTunes: [String: Entry] = [
        "title": ("©nam", .commonKeyTitle), "artist": ("©ART", .commonKeyArtist), "album": ("©alb", .commonKeyAlbumName),
        "album_artist": ("aART", nil), "composer": ("©wrt", .commonKeyCreator), "genre": ("©gen", nil),
        "date": ("©day", .commonKeyCreationDate), "comment": ("©cmt", nil), "description": ("desc", .commonKeyDescription),
        "synopsis": ("ldes", nil), "copyright": ("cprt", .commonKeyCopyrights), "encoder": ("©too", .commonKeySoftware),
        "encoded_by": ("©enc", nil), "track": ("trkn", nil), "disc": ("disk", nil), "grouping": ("©grp", nil),
        "lyrics": ("©lyr", nil), "compilation": ("cpil", nil), "show": ("tvsh", nil), "network": ("tvnn", nil),
        "episode_id": ("tven", nil), "media_type": ("stik", nil), "hd_video": ("hdvd", nil), "gapless_playback": ("pgap", nil),
        "keywords": ("keyw", nil), "category": ("catg", nil), "podcast": ("pcst", nil), "rating": ("rtng", nil),
        "author": ("©aut", .commonKeyAuthor), "publisher": ("©pub", .commonKeyPublisher),
        // Phones write the place in MP4's user data too; FFmpeg reads and writes it as "location".
        "location": ("©xyz", .commonKeyLocation),
        // Atoms FFmpeg 5.1's demuxer reads under names of its own (mov_read_udta_string) that have an
        // Apple constant: `©dir` is iTunesMetadataDirector, `©src` iTunesMetadataCredits, `©url`
        // iTunesMetadataOnlineExtras, `©mak` iTunesMetadataRecordCompany, and so on.
        "director": ("©dir", nil), "producer": ("©prd", nil), "performers": ("©prf", nil),
        "original_artist": ("©ope", nil), "subtitle": ("©st3", nil), "original_source": ("©src", nil),
        "url": ("©url", nil), "make": ("©mak", nil), "account_type": ("akID", nil), "account_id": ("apID", nil),
        // Sort orders and TV fields: Apple declares no constant for them, but the item keeps its atom.
        "sort_name": ("sonm", nil), "sort_artist": ("soar", nil), "sort_album": ("soal", nil),
        "sort_album_artist": ("soaa", nil), "sort_composer": ("soco", nil), "sort_show": ("sosn", nil),
        "episode_sort": ("tves", nil), "season_number": ("tvsn", nil),
    ]

    private static let quickTimeUserData: [String: Entry] = [
        "title": ("©nam", .commonKeyTitle), "artist": ("©ART", .commonKeyArtist), "album": ("©alb", .commonKeyAlbumName),
        "date": ("©day", .commonKeyCreationDate), "comment": ("©cmt", nil), "description": ("©des", .commonKeyDescription),
        "copyright": ("©cpy", .commonKeyCopyrights), "encoder": ("©swr", .commonKeySoftware), "make": ("©mak", .commonKeyMake),
        "model": ("©mod", .commonKeyModel), "location": ("©xyz", .commonKeyLocation), "author": ("©aut", .commonKeyAuthor),
        "composer": ("©com", nil), "genre": ("©gen", nil), "encoded_by": ("©enc", nil),
        // Atoms FFmpeg 5.1's demuxer reads under names of its own that have an Apple constant
        // (quickTimeUserDataDirector for `©dir`, quickTimeUserDataURLLink for `©url`, ...).
        "director": ("©dir", nil), "producer": ("©prd", nil), "performers": ("©prf", nil),
        "original_artist": ("©ope", nil), "original_format": ("©fmt", nil), "original_source": ("©src", nil),
        "host_computer": ("©hst", nil), "disclaimer": ("©dis", nil), "warning": ("©wrn", nil),
        "playback_requirements": ("©req", nil), "chapter": ("©chp", nil), "url": ("©url", nil), "track": ("©trk", nil),
    ]

    private static let quickTimeMetadata: [String: AVMetadataKey] = [
        "com.apple.quicktime.title": .commonKeyTitle, "com.apple.quicktime.artist": .commonKeyArtist,
        "com.apple.quicktime.album": .commonKeyAlbumName, "com.apple.quicktime.author": .commonKeyAuthor,
        "com.apple.quicktime.creationdate": .commonKeyCreationDate, "com.apple.quicktime.description": .commonKeyDescription,
        "com.apple.quicktime.copyright": .commonKeyCopyrights, "com.apple.quicktime.make": .commonKeyMake,
        "com.apple.quicktime.model": .commonKeyModel, "com.apple.quicktime.software": .commonKeySoftware,
        "com.apple.quicktime.location.iso6709": .commonKeyLocation, "com.apple.quicktime.publisher": .commonKeyPublisher,
        "com.apple.quicktime.artwork": .commonKeyArtwork,
    ]

    private static let id3: [String: Entry] = [
        "title": ("TIT2", .commonKeyTitle), "artist": ("TPE1", .commonKeyArtist), "album": ("TALB", .commonKeyAlbumName),
        "album_artist": ("TPE2", nil), "composer": ("TCOM", .commonKeyCreator), "genre": ("TCON", nil),
        "date": ("TDRC", .commonKeyCreationDate), "track": ("TRCK", nil), "disc": ("TPOS", nil),
        "copyright": ("TCOP", .commonKeyCopyrights), "encoder": ("TSSE", .commonKeySoftware), "encoded_by": ("TENC", nil),
        "publisher": ("TPUB", .commonKeyPublisher), "language": ("TLAN", .commonKeyLanguage), "comment": ("COMM", nil),
        "lyrics": ("USLT", nil), "original_date": ("TDOR", nil),
    ]

    private static let vorbis: [String: Entry] = [
        "title": ("TITLE", .commonKeyTitle), "artist": ("ARTIST", .commonKeyArtist), "album": ("ALBUM", .commonKeyAlbumName),
        "album_artist": ("ALBUMARTIST", nil), "composer": ("COMPOSER", .commonKeyCreator), "genre": ("GENRE", nil),
        "date": ("DATE", .commonKeyCreationDate), "track": ("TRACKNUMBER", nil), "disc": ("DISCNUMBER", nil),
        "comment": ("COMMENT", nil), "description": ("DESCRIPTION", .commonKeyDescription),
        "copyright": ("COPYRIGHT", .commonKeyCopyrights), "publisher": ("ORGANIZATION", .commonKeyPublisher),
        "encoder": ("ENCODER", .commonKeySoftware), "language": ("LANGUAGE", .commonKeyLanguage),
    ]

    private static let matroska: [String: Entry] = [
        "title": ("TITLE", .commonKeyTitle), "artist": ("ARTIST", .commonKeyArtist), "album": ("ALBUM", .commonKeyAlbumName),
        "album_artist": ("ALBUM_ARTIST", nil), "composer": ("COMPOSER", .commonKeyCreator), "genre": ("GENRE", nil),
        "date": ("DATE_RELEASED", .commonKeyCreationDate), "date_released": ("DATE_RELEASED", .commonKeyCreationDate),
        "track": ("PART_NUMBER", nil), "comment": ("COMMENT", .commonKeyDescription), "description": ("DESCRIPTION", .commonKeyDescription),
        "copyright": ("COPYRIGHT", .commonKeyCopyrights), "publisher": ("PUBLISHER", .commonKeyPublisher),
        // Tags that place or identify (what a phone movie copied to Matroska carries), so that a filter
        // for sharing knows them.
        "location": ("LOCATION", .commonKeyLocation), "make": ("MAKE", .commonKeyMake), "model": ("MODEL", .commonKeyModel),
        "author": ("AUTHOR", .commonKeyAuthor),
    ]

    private static let audioFile: [String: Entry] = [
        "title": ("title", .commonKeyTitle), "artist": ("artist", .commonKeyArtist), "album": ("album", .commonKeyAlbumName),
        "date": ("year", .commonKeyCreationDate), "comment": ("comments", .commonKeyDescription),
        "copyright": ("copyright", .commonKeyCopyrights), "encoder": ("encoding application", .commonKeySoftware),
        "genre": ("genre", nil), "track": ("track number", nil), "composer": ("composer", .commonKeyCreator),
    ]

    private static func table(_ space: AVMetadataKeySpace) -> [String: Entry] {
        switch space {
        case .iTunes: return iTunes
        case .quickTimeUserData: return quickTimeUserData
        case .id3: return id3
        case .vorbisComment: return vorbis
        case .matroska: return matroska
        default: return audioFile
        }
    }

    /// Items for `tags` in `space`. Keys of QuickTime's `mdta` scheme ("com.apple.quicktime.title") go
    /// to the QuickTime metadata key space whatever the container's own space.
    static func items(_ tags: [Tag], space: AVMetadataKeySpace, skippingEncoder: Bool = false) -> [AVMetadataItem] {
        let known = table(space)
        var result: [AVMetadataItem] = []
        for tag in tags {
            let generic = tag.key.lowercased()
            if technicalKeys.contains(generic) || (skippingEncoder && generic == "encoder") { continue }
            if generic.hasPrefix("com.apple.quicktime.") {
                result.append(item(key: tag.key, space: .quickTimeMetadata, common: quickTimeMetadata[generic], text: tag.value))
                continue
            }
            // FFmpeg suffixes language-specific ID3 frames ("lyrics-eng"); the text is what matters.
            let base = generic.split(separator: "-").first.map(String.init) ?? generic
            if let entry = known[generic] ?? known[base] {
                result.append(item(key: entry.native, space: space, common: entry.common, text: tag.value))
            } else {
                let native = space == .vorbisComment || space == .matroska ? tag.key.uppercased() : tag.key
                result.append(item(key: native, space: space, common: nil, text: tag.value))
            }
        }
        return result
    }

    /// The common key that `key` of `space` maps onto when a file holds it; nil when it maps onto none.
    static func commonKey(forKey key: String, space: AVMetadataKeySpace) -> AVMetadataKey? {
        if space == .quickTimeMetadata { return quickTimeMetadata[key.lowercased()] }
        return table(space).values.first { $0.native == key }?.common
    }

    /// The key space a written file's tags land in: iTunes in MP4, M4V and M4A, QuickTime user data in
    /// MOV, Matroska tags in Matroska and WebM (what `keySpace(for:)` reads back from each).
    static func keySpace(writing container: OutputContainer) -> AVMetadataKeySpace {
        switch container {
        case .mp4, .m4v, .m4a: return .iTunes
        case .mov: return .quickTimeUserData
        case .matroska, .webm: return .matroska
        case .flac, .ogg: return .vorbisComment
        case .wav, .aiff, .caf: return .audioFile
        }
    }

    /// The tags FFmpeg 5.1's muxers write, by key space (checked with its command: MOV's muxer drops a
    /// description, a composer and keywords, and reads its `©aut` back as the artist; MP4's drops an
    /// author, a publisher, a category and a rating). Matroska takes any tag.
    private static let writable: [AVMetadataKeySpace: Set<String>] = [
        .quickTimeUserData: ["title", "artist", "album", "date", "comment", "genre", "copyright", "make", "model", "location"],
        .iTunes: ["title", "artist", "album_artist", "album", "composer", "genre", "date", "comment", "description", "synopsis",
                  "copyright", "track", "disc", "grouping", "lyrics", "compilation", "show", "network", "episode_id", "media_type",
                  "hd_video", "gapless_playback", "keywords", "location"],
    ]

    /// Tags under FFmpeg's names that its muxers write in `space` and that `items(_:space:)` reads back
    /// as the same items: an item of `space` by its own key (any key, in Matroska, whose tags are free
    /// form), an item of another key space by the common key it maps onto. Text, numbers and dates go
    /// in as text; data (cover art), items with no place in `space` and tags the muxer would drop (see
    /// `writable`) are left out. The first item for a tag wins.
    static func tags(for items: [AVMetadataItem], space: AVMetadataKeySpace) -> [(key: String, value: String)] {
        let known = table(space)
        var byNative: [String: String] = [:]
        var byCommon: [AVMetadataKey: String] = [:]
        for name in known.keys.sorted() {
            guard let entry = known[name] else { continue }
            if byNative[entry.native] == nil { byNative[entry.native] = name }
            if let common = entry.common, byCommon[common] == nil { byCommon[common] = name }
        }
        var tags: [(key: String, value: String)] = []
        for item in items {
            guard let value = item.currentStringValue, !value.isEmpty else { continue }
            var name: String?
            if item.keySpace == space, let key = item.key.flatMap({ MetadataValues.nativeKey($0, in: space) }) {
                name = byNative[key] ?? (space == .matroska || space == .vorbisComment ? key : nil)
            }
            let common = item.keySpace == .common ? item.key.flatMap(MetadataValues.keyString).map { AVMetadataKey(rawValue: $0) } : item.commonKey
            if name == nil, let common { name = byCommon[common] }
            guard let name, !tags.contains(where: { $0.key.lowercased() == name.lowercased() }) else { continue }
            if let allowed = writable[space], !allowed.contains(name.lowercased()) { continue }
            tags.append((name, value))
        }
        return tags
    }

    /// The cover-art item of `space` for an attached picture's bytes, mapped to the common artwork key.
    static func artwork(_ data: Data, space: AVMetadataKeySpace) -> AVMetadataItem {
        let (key, itemSpace): (String, AVMetadataKeySpace)
        switch space {
        case .iTunes: (key, itemSpace) = ("covr", .iTunes)
        case .id3: (key, itemSpace) = ("APIC", .id3)
        case .vorbisComment: (key, itemSpace) = ("METADATA_BLOCK_PICTURE", .vorbisComment)
        case .matroska: (key, itemSpace) = ("COVER", .matroska)
        default: (key, itemSpace) = ("com.apple.quicktime.artwork", .quickTimeMetadata)
        }
        var fields = AVMetadataItem.Fields()
        fields.key = MetadataValues.keyObject(key, in: itemSpace)
        fields.keySpace = itemSpace
        fields.commonKey = .commonKeyArtwork
        fields.value = data as NSData
        fields.dataType = MetadataValues.imageDataType(data)
        return AVMetadataItem(fields: fields)
    }

    static func item(key: String, space: AVMetadataKeySpace, common: AVMetadataKey?, text: String,
                     locale: Locale? = nil, time: CMTime = .invalid, duration: CMTime = .invalid) -> AVMetadataItem {
        var fields = AVMetadataItem.Fields()
        fields.key = MetadataValues.keyObject(key, in: space)
        fields.keySpace = space
        fields.commonKey = common
        fields.value = text as NSString
        fields.dataType = MetadataValues.dataTypeUTF8
        fields.locale = locale
        fields.time = time
        fields.duration = duration
        return AVMetadataItem(fields: fields)
    }

    /// Copies of the items that map onto the common key space, in it ("common/title" and so on).
    static func commonItems(_ items: [AVMetadataItem]) -> [AVMetadataItem] {
        items.compactMap { item in
            guard let common = item.commonKey else { return nil }
            var fields = item.read { $0 }
            fields.key = common.rawValue as NSString
            fields.keySpace = .common
            return AVMetadataItem(fields: fields)
        }
    }

    /// The formats `items` come in, in first-seen order.
    static func formats(_ items: [AVMetadataItem]) -> [AVMetadataFormat] {
        var seen: [AVMetadataFormat] = []
        for item in items {
            guard let format = item.keySpace?.format, !seen.contains(format) else { continue }
            seen.append(format)
        }
        return seen
    }
}
