import Foundation

/// Conversions between the forms metadata keys and values take.
enum MetadataValues {
    /// Key spaces whose keys Apple gives as numbers holding four-character codes.
    static let fourCharCodeSpaces: Set<AVMetadataKeySpace> = [.iTunes, .quickTimeUserData]

    /// A key as text: strings (and ``AVMetadataKey`` constants) as they are, four-character-code numbers
    /// as their characters (Mac Roman).
    static func keyString(_ key: Any) -> String? {
        switch key {
        case let s as String: return s
        case let k as AVMetadataKey: return k.rawValue
        case let s as NSString: return s as String
        case let n as NSNumber:
            let code = UInt32(truncatingIfNeeded: n.int64Value)
            let bytes = [24, 16, 8, 0].map { UInt8((code >> UInt32($0)) & 0xff) }
            return String(bytes: bytes, encoding: .isoLatin1)
        default: return nil
        }
    }

    /// A key as the file spells it. Apple's constants for the iTunes and QuickTime user-data key spaces
    /// write an atom's leading © as "@" (``AVMetadataKey/iTunesMetadataKeySongName`` is "@nam" for the
    /// `©nam` atom), so there a key of `atSignConstants` means the © atom. Other keys that start with
    /// "@" are atoms of their own (iTunes writes `@PST`, `@ppi`, `@pti` and `@sti`) and stay as they are,
    /// as does any other key: `keyString`'s text.
    static func nativeKey(_ key: Any, in space: AVMetadataKeySpace?) -> String? {
        guard let text = keyString(key) else { return nil }
        guard let space, fourCharCodeSpaces.contains(space), atSignConstants.contains(text) else { return text }
        return "©" + text.dropFirst()
    }

    /// The raw values of Apple's iTunes and QuickTime user-data key constants that spell an atom's © as
    /// "@" ("@nam"), made once.
    static let atSignConstants: Set<String> = {
        let keys: [AVMetadataKey] = [
            .quickTimeUserDataKeyAccessibilityDescription, .quickTimeUserDataKeyAlbum, .quickTimeUserDataKeyArranger,
            .quickTimeUserDataKeyArtist, .quickTimeUserDataKeyAuthor, .quickTimeUserDataKeyChapter, .quickTimeUserDataKeyComment,
            .quickTimeUserDataKeyComposer, .quickTimeUserDataKeyCopyright, .quickTimeUserDataKeyCreationDate,
            .quickTimeUserDataKeyCredits, .quickTimeUserDataKeyDescription, .quickTimeUserDataKeyDirector,
            .quickTimeUserDataKeyDisclaimer, .quickTimeUserDataKeyEncodedBy, .quickTimeUserDataKeyFullName,
            .quickTimeUserDataKeyGenre, .quickTimeUserDataKeyHostComputer, .quickTimeUserDataKeyInformation,
            .quickTimeUserDataKeyKeywords, .quickTimeUserDataKeyLocationISO6709, .quickTimeUserDataKeyMake,
            .quickTimeUserDataKeyModel, .quickTimeUserDataKeyOriginalArtist, .quickTimeUserDataKeyOriginalFormat,
            .quickTimeUserDataKeyOriginalSource, .quickTimeUserDataKeyPerformers, .quickTimeUserDataKeyPhonogramRights,
            .quickTimeUserDataKeyProducer, .quickTimeUserDataKeyProduct, .quickTimeUserDataKeyPublisher,
            .quickTimeUserDataKeySoftware, .quickTimeUserDataKeySpecialPlaybackRequirements, .quickTimeUserDataKeyTrack,
            .quickTimeUserDataKeyURLLink, .quickTimeUserDataKeyWarning, .quickTimeUserDataKeyWriter,
            .iTunesMetadataKeyAcknowledgement, .iTunesMetadataKeyAlbum, .iTunesMetadataKeyArranger, .iTunesMetadataKeyArtDirector,
            .iTunesMetadataKeyArtist, .iTunesMetadataKeyAuthor, .iTunesMetadataKeyComposer, .iTunesMetadataKeyConductor,
            .iTunesMetadataKeyCredits, .iTunesMetadataKeyDescription, .iTunesMetadataKeyDirector, .iTunesMetadataKeyEQ,
            .iTunesMetadataKeyEncodedBy, .iTunesMetadataKeyEncodingTool, .iTunesMetadataKeyExecProducer,
            .iTunesMetadataKeyLinerNotes, .iTunesMetadataKeyLyrics, .iTunesMetadataKeyOnlineExtras,
            .iTunesMetadataKeyOriginalArtist, .iTunesMetadataKeyPerformer, .iTunesMetadataKeyPhonogramRights,
            .iTunesMetadataKeyProducer, .iTunesMetadataKeyPublisher, .iTunesMetadataKeyRecordCompany,
            .iTunesMetadataKeyReleaseDate, .iTunesMetadataKeySoloist, .iTunesMetadataKeySongName, .iTunesMetadataKeySoundEngineer,
            .iTunesMetadataKeyThanks, .iTunesMetadataKeyTrackSubTitle, .iTunesMetadataKeyUserComment, .iTunesMetadataKeyUserGenre
        ]
        return Set(keys.map(\.rawValue))
    }()

    /// The key object items of `space` carry: an NSNumber four-character code, or an NSString.
    static func keyObject(_ key: String, in space: AVMetadataKeySpace) -> any NSCopying & NSObjectProtocol {
        let key = nativeKey(key, in: space) ?? key
        if fourCharCodeSpaces.contains(space), let bytes = key.data(using: .isoLatin1), bytes.count == 4 {
            let code = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return NSNumber(value: Int32(bitPattern: code))
        }
        return key as NSString
    }

    static func percentEncode(_ key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars {
            let c = Character(scalar)
            if scalar.isASCII, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else if scalar.value < 256 {
                out += String(format: "%%%02X", scalar.value)
            } else {
                for byte in String(c).utf8 { out += String(format: "%%%02X", byte) }
            }
        }
        return out
    }

    static func percentDecode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i != utf8.endIndex {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%"), let h1 = utf8.index(i, offsetBy: 1, limitedBy: utf8.endIndex), h1 != utf8.endIndex,
               let h2 = utf8.index(h1, offsetBy: 1, limitedBy: utf8.endIndex), h2 != utf8.endIndex,
               let value = UInt8(String(decoding: [utf8[h1], utf8[h2]], as: UTF8.self), radix: 16) {
                bytes.append(value)
                i = utf8.index(after: h2)
            } else {
                bytes.append(byte)
                i = utf8.index(after: i)
            }
        }
        return String(bytes: bytes, encoding: .utf8) ?? String(bytes: bytes, encoding: .isoLatin1) ?? text
    }

    /// The key space and decoded key of an identifier.
    static func split(_ identifier: AVMetadataIdentifier) -> (AVMetadataKeySpace, String)? {
        guard let slash = identifier.rawValue.firstIndex(of: "/") else { return nil }
        let prefix = String(identifier.rawValue[..<slash])
        guard let space = AVMetadataKeySpace(identifierPrefix: prefix) else { return nil }
        return (space, percentDecode(String(identifier.rawValue[identifier.rawValue.index(after: slash)...])))
    }

    /// The leading number of a text: "3" and "3/12" give 3, "2.5" gives 2.5.
    static func number(from text: String) -> NSNumber? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let prefix = trimmed.prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" }
        if let int = Int(prefix) { return NSNumber(value: int) }
        if let double = Double(prefix) { return NSNumber(value: double) }
        return nil
    }

    /// Dates as metadata writes them: ISO 8601 with or without a time, fractions and a time zone
    /// ("2024-05-01T12:30:00.5+02:00", "2024-05-01 12:30:00", "2024-05-01", "2024-05", "2024"). A time
    /// without a zone is UTC. Parsed by hand, in microseconds for any text: making and trying
    /// Foundation's date formatters took milliseconds a value, most of all for text that is no date.
    static func date(from text: String) -> Date? {
        var scanner = DateScanner(Array(text.utf8))
        scanner.skipSpaces()
        guard let year = scanner.number(digits: 4...4) else { return nil }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0, fraction = 0.0, offset = 0
        if scanner.take("-") {
            guard let m = scanner.number(digits: 1...2) else { return nil }
            month = m
            if scanner.take("-") {
                guard let d = scanner.number(digits: 1...2) else { return nil }
                day = d
                if scanner.take("T") || scanner.takeSpaceBeforeDigit() {
                    guard let h = scanner.number(digits: 1...2), scanner.take(":"), let mi = scanner.number(digits: 1...2) else { return nil }
                    (hour, minute) = (h, mi)
                    if scanner.take(":") {
                        guard let sec = scanner.number(digits: 1...2) else { return nil }
                        second = sec
                        if scanner.take(".") || scanner.take(",") {
                            guard let digits = scanner.digits(), !digits.isEmpty else { return nil }
                            fraction = Double("0." + String(decoding: digits.prefix(9), as: UTF8.self)) ?? 0
                        }
                    }
                    if scanner.take("Z") {
                        offset = 0
                    } else if let sign = scanner.take("+") ? 1 : scanner.take("-") ? -1 : nil {
                        guard let zoneHours = scanner.number(digits: 2...2), zoneHours <= 23 else { return nil }
                        _ = scanner.take(":")
                        let zoneMinutes = scanner.number(digits: 2...2) ?? 0
                        guard zoneMinutes <= 59 else { return nil }
                        offset = sign * (zoneHours * 3600 + zoneMinutes * 60)
                    }
                }
            }
        }
        scanner.skipSpaces()
        guard scanner.atEnd, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let days = daysFromEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days from 1970-01-01 to a day of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`). Years here have four digits, so nothing overflows.
    private static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Reads a date's text a byte at a time.
    private struct DateScanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        }

        /// Takes `character` if it comes next.
        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Takes a space that a digit follows (a time after a day).
        mutating func takeSpaceBeforeDigit() -> Bool {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: " "), isDigit(bytes[index + 1]) else { return false }
            index += 1
            return true
        }

        private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        /// The ASCII digits that come next, at most `limit` of them (possibly none).
        mutating func digits(limit: Int = .max) -> ArraySlice<UInt8>? {
            let start = index
            while index < bytes.count, index - start < limit, isDigit(bytes[index]) { index += 1 }
            return bytes[start..<index]
        }

        /// A number written with `allowed` digits (at most its upper bound are read), or nil with
        /// nothing taken.
        mutating func number(digits allowed: ClosedRange<Int>) -> Int? {
            let start = index
            guard let run = digits(limit: allowed.upperBound), allowed.contains(run.count) else {
                index = start
                return nil
            }
            return run.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
    }

    /// The two-letter language code where one exists ("eng" gives "en"), else the code as given.
    static func languageCode(of locale: Locale) -> String? {
        guard let code = locale.language.languageCode else { return nil }
        return code.identifier(.alpha2) ?? code.identifier
    }

    /// A locale for an ISO 639-2 code from a container ("eng" gives "en"); nil for "und" or none.
    static func locale(forISO639 code: String?) -> Locale? {
        guard let code, !code.isEmpty, code != "und" else { return nil }
        let language = Locale.LanguageCode(code)
        return Locale(identifier: language.identifier(.alpha2) ?? code)
    }

    /// Apple's data type identifier for image bytes, by their signature.
    static func imageDataType(_ data: Data) -> String {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return dataTypePNG }
        if data.starts(with: [0xFF, 0xD8]) { return dataTypeJPEG }
        if data.starts(with: Array("BM".utf8)) { return "com.apple.metadata.datatype.BMP" }
        return dataTypeRaw
    }

    static let dataTypeUTF8 = "com.apple.metadata.datatype.UTF-8"
    static let dataTypePNG = "com.apple.metadata.datatype.PNG"
    static let dataTypeJPEG = "com.apple.metadata.datatype.JPEG"
    static let dataTypeRaw = "com.apple.metadata.datatype.raw-data"
}
