import Foundation

/// One piece of metadata: a key in a key space and a value (a title, a date, cover art).
///
/// Items read from files hold their values in memory, so every property is loaded from the start:
/// `load(.value)` returns at once and ``AVAsynchronousKeyValueLoading/status(of:)`` reports loaded.
/// Format-specific items carry a ``commonKey`` when they map onto the common key space;
/// ``AVAsset/commonMetadata`` holds copies of those in the common key space (identifier
/// "common/title" and so on).
open class AVMetadataItem: NSObject, AVAsynchronousKeyValueLoading, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: every field sits behind `fields`' lock; values are immutable Foundation objects.
    struct Fields {
        var key: (any NSCopying & NSObjectProtocol)?
        var keySpace: AVMetadataKeySpace?
        var commonKey: AVMetadataKey?
        var locale: Locale?
        var extendedLanguageTag: String?
        var time: CMTime = .invalid
        var duration: CMTime = .invalid
        var startDate: Date?
        var dataType: String?
        var value: (any NSCopying & NSObjectProtocol)?
        var extraAttributes: [AVMetadataExtraAttributeKey: Any]?
    }

    private let fields: LockedState<Fields>
    /// For an item made with ``init(propertiesOf:valueLoadingHandler:)``: its value, asked of the app's
    /// handler when first loaded; nil for every other item (their values are in memory).
    let valueLoad: MetadataValueLoad?

    init(fields: Fields, valueLoad: MetadataValueLoad? = nil) {
        self.fields = LockedState(fields)
        self.valueLoad = valueLoad
    }

    /// An empty item; set its fields through ``AVMutableMetadataItem``.
    public override init() {
        fields = LockedState(Fields())
        valueLoad = nil
    }

    /// What `body` makes of a copy of the fields, taken under the lock.
    func read<T>(_ body: (Fields) -> T) -> T {
        body(fields.value)
    }

    /// Changes the fields in place, under the lock.
    func write(_ body: (inout Fields) -> Void) {
        fields.change(body)
    }

    /// "<key space prefix>/<percent-encoded key>", as ``identifier(forKey:keySpace:)`` builds it.
    open var identifier: AVMetadataIdentifier? {
        read { f in
            guard let key = f.key, let space = f.keySpace else { return nil }
            return AVMetadataItem.identifier(forKey: key, keySpace: space)
        }
    }

    /// The key: an `NSNumber` holding the four-character code for the iTunes and QuickTime user-data
    /// key spaces (as Apple's), an `NSString` for the others.
    open var key: (any NSCopying & NSObjectProtocol)? { read { $0.key } }
    /// The key space of ``key``.
    open var keySpace: AVMetadataKeySpace? { read { $0.keySpace } }
    /// The common key the item maps onto (``AVMetadataKey/commonKeyTitle`` for iTunes' `©nam`); nil when
    /// it maps onto none.
    open var commonKey: AVMetadataKey? { read { $0.commonKey } }
    /// The language of the value, where the format records one; nil otherwise.
    open var locale: Locale? { read { $0.locale } }
    /// The BCP 47 tag of the value's language, where known.
    open var extendedLanguageTag: String? { read { $0.extendedLanguageTag } }
    /// When a timed item (a chapter title) applies; `.invalid` for untimed metadata.
    open var time: CMTime { read { $0.time } }
    /// How long a timed item applies; `.invalid` for untimed metadata.
    open var duration: CMTime { read { $0.duration } }
    /// The date and time a timed item starts, for date-based timelines; nil otherwise.
    open var startDate: Date? { read { $0.startDate } }
    /// The value's type as a `com.apple.metadata.datatype.*` identifier (UTF-8, JPEG, PNG, raw data).
    open var dataType: String? { read { $0.dataType } }

    /// The value: an `NSString`, `NSNumber`, `NSDate` or `NSData`. In memory; use `load(.value)`.
    @available(*, deprecated, message: "Use load(.value) instead")
    open var value: (any NSCopying & NSObjectProtocol)? { currentValue }
    /// The value as a string: text as is, numbers in decimal, dates in ISO 8601; nil for data.
    @available(*, deprecated, message: "Use load(.stringValue) instead")
    open var stringValue: String? { currentStringValue }
    /// The value as a number: numbers as is, text whose start is a number ("3", "3/12"); nil otherwise.
    @available(*, deprecated, message: "Use load(.numberValue) instead")
    open var numberValue: NSNumber? { currentNumberValue }
    /// The value as a date: dates as is, text in ISO 8601 forms read as UTC; nil otherwise.
    @available(*, deprecated, message: "Use load(.dateValue) instead")
    open var dateValue: Date? { currentDateValue }
    /// The value as bytes: data as is (cover art); nil for text and numbers.
    @available(*, deprecated, message: "Use load(.dataValue) instead")
    open var dataValue: Data? { currentDataValue }
    /// Attributes beyond the value, keyed by ``AVMetadataExtraAttributeKey``; nil when there are none.
    @available(*, deprecated, message: "Use load(.extraAttributes) instead")
    open var extraAttributes: [AVMetadataExtraAttributeKey: Any]? { read { $0.extraAttributes } }

    /// The value: in memory, or, for an item whose value a handler gives, that value once answered
    /// (before that nil, and the handler is asked if no one has asked it yet).
    var currentValue: (any NSCopying & NSObjectProtocol)? {
        // A value set on a mutable item counts before its handler's.
        if let stored = read({ $0.value }) { return stored }
        guard let valueLoad else { return nil }
        if case .loaded(let value) = valueLoad.status { return value }
        valueLoad.start(self)
        return nil
    }

    /// Where the value stands: loaded for an item whose value is in memory.
    var valueStatus: LoadStatus<Void> {
        valueLoad?.status.map { _ in () } ?? .loaded(())
    }

    /// Waits for a handler-given value (asking the handler first if no one has); at once for the others.
    func loadValue() async throws {
        if let valueLoad { _ = try await valueLoad.value(of: self) }
    }

    /// The value as a string: text as is, numbers in decimal, dates in ISO 8601; nil for data.
    var currentStringValue: String? {
        switch currentValue {
        case let s as NSString: return s as String
        case let n as NSNumber: return n.stringValue
        case let d as NSDate: return ISO8601DateFormatter().string(from: d as Date)
        default: return nil
        }
    }

    /// The value as a number: numbers as is; text whose start is a number ("3", "3/12", "2.5").
    var currentNumberValue: NSNumber? {
        switch currentValue {
        case let n as NSNumber: return n
        case let s as NSString: return MetadataValues.number(from: s as String)
        default: return nil
        }
    }

    /// The value as a date: dates as is; text in ISO 8601 forms ("2024-05-01T12:30:00Z", "2024-05-01",
    /// "2024"), read as UTC.
    var currentDateValue: Date? {
        switch currentValue {
        case let d as NSDate: return d as Date
        case let s as NSString: return MetadataValues.date(from: s as String)
        default: return nil
        }
    }

    /// The value as bytes: data as is (cover art); nil for text and numbers.
    var currentDataValue: Data? {
        (currentValue as? NSData).map { Data(referencing: $0) }
    }

    var currentExtraAttributes: [AVMetadataExtraAttributeKey: Any]? { read { $0.extraAttributes } }

    /// An immutable copy of the item.
    open func copy(with zone: NSZone? = nil) -> Any {
        AVMetadataItem(fields: read { $0 }, valueLoad: valueLoad)
    }

    /// A mutable copy of the item.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        var fields = read { $0 }
        // A handler-given value is copied as it stands (nil until the handler has answered).
        if valueLoad != nil { fields.value = currentValue }
        return AVMutableMetadataItem(fields: fields)
    }

    /// The item's identifier, common key and value (data as its byte count).
    open override var description: String {
        let id = identifier?.rawValue ?? "nil"
        let text = currentStringValue ?? currentDataValue.map { "<\($0.count) bytes>" } ?? "nil"
        return "<AVMetadataItem identifier=\(id) commonKey=\(commonKey?.rawValue ?? "nil") value=\(text)>"
    }

    // MARK: - Loading: values are in memory, so every key is loaded.

    package static let loadableKeys: Set<String> = ["value", "stringValue", "numberValue", "dateValue", "dataValue", "extraAttributes"]

    /// Where the value for `key` stands: an item's values are always in memory.
    ///
    /// - Parameters:
    ///   - key: "value", "stringValue", "numberValue", "dateValue", "dataValue" or "extraAttributes".
    ///   - outError: Never written.
    /// - Returns: ``AVKeyValueStatus/loaded`` for those keys; ``AVKeyValueStatus/unknown`` for another.
    @available(*, deprecated, message: "Use status(of:) instead")
    open func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        guard AVMetadataItem.loadableKeys.contains(key) else { return .unknown }
        guard key != "extraAttributes" else { return .loaded }
        switch valueStatus {
        case .notYetLoaded: return .unknown
        case .loading: return .loading
        case .loaded: return .loaded
        case .cancelled: return .cancelled
        case .failed(let error):
            outError?.pointee = LoadStatus<Void>.nsError(error)
            return .failed
        }
    }

    /// Calls `handler` once the values of `keys` are loaded: at once, on the calling thread, for an
    /// item whose value is in memory; for an item whose value a handler gives, once that handler has
    /// answered (or let its request go), on a background thread.
    ///
    /// - Parameters:
    ///   - keys: The properties' names; only the value keys wait for a handler.
    ///   - handler: Called exactly once.
    @available(*, deprecated, message: "Use load(_:) instead")
    open func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (() -> Void)?) {
        guard let valueLoad, keys.contains(where: { $0 != "extraAttributes" && AVMetadataItem.loadableKeys.contains($0) }) else {
            handler?()
            return
        }
        let done = UncheckedBox(handler)
        Task { [self] in
            _ = try? await valueLoad.value(of: self)
            // On a dispatch queue, not the cooperative pool: an app's handler may block.
            DispatchQueue.global().async { done.value?() }
        }
    }

    // MARK: - Identifiers

    /// The identifier of `key` in `keySpace`: "<prefix>/<key>" with the key's bytes percent-encoded
    /// where they are not letters, digits or `-._~` (© is the Mac Roman byte 0xA9, so "©nam" becomes
    /// "%A9nam"). In the iTunes and QuickTime user-data key spaces a leading "@", as Apple's key
    /// constants spell ©, counts as ©: ``AVMetadataKey/iTunesMetadataKeySongName`` ("@nam") gives
    /// ``AVMetadataIdentifier/iTunesMetadataSongName`` ("itsk/%A9nam").
    ///
    /// - Parameters:
    ///   - key: A string, or an `NSNumber` holding a four-character code.
    ///   - keySpace: The key space, such as ``AVMetadataKeySpace/iTunes``.
    /// - Returns: The identifier; nil for a key that is neither a string nor a number.
    open class func identifier(forKey key: Any, keySpace: AVMetadataKeySpace) -> AVMetadataIdentifier? {
        guard let text = MetadataValues.nativeKey(key, in: keySpace) else { return nil }
        return AVMetadataIdentifier(rawValue: keySpace.identifierPrefix + "/" + MetadataValues.percentEncode(text))
    }

    /// The key of `identifier`, in the form items of its key space use.
    ///
    /// - Parameter identifier: An identifier such as ``AVMetadataIdentifier/iTunesMetadataSongName``.
    /// - Returns: An `NSNumber` four-character code for iTunes and QuickTime user data, a string
    ///   otherwise; nil when the identifier has no slash or names no key space Avocet knows.
    open class func key(forIdentifier identifier: AVMetadataIdentifier) -> Any? {
        guard let (space, key) = MetadataValues.split(identifier) else { return nil }
        return MetadataValues.keyObject(key, in: space)
    }

    /// The key space of `identifier`.
    ///
    /// - Parameter identifier: An identifier such as ``AVMetadataIdentifier/commonIdentifierTitle``.
    /// - Returns: The key space the part before the slash names; nil when there is no slash or it
    ///   names none Avocet knows.
    open class func keySpace(forIdentifier identifier: AVMetadataIdentifier) -> AVMetadataKeySpace? {
        MetadataValues.split(identifier)?.0
    }

    // MARK: - Filtering

    /// The items whose identifier is `identifier`.
    ///
    /// - Parameters:
    ///   - metadataItems: The items to filter, such as an asset's ``AVAsset/metadata``.
    ///   - identifier: The identifier wanted.
    /// - Returns: The matching items, in their order.
    open class func metadataItems(from metadataItems: [AVMetadataItem], filteredByIdentifier identifier: AVMetadataIdentifier) -> [AVMetadataItem] {
        metadataItems.filter { $0.identifier == identifier }
    }

    /// The items with `key` in `keySpace`.
    ///
    /// - Parameters:
    ///   - metadataItems: The items to filter.
    ///   - key: A string ("©nam", or "@nam" as Apple's constants spell it) or the four-character code's
    ///     number; nil matches any key.
    ///   - keySpace: The key space; nil matches any.
    /// - Returns: The matching items, in their order.
    open class func metadataItems(from metadataItems: [AVMetadataItem], withKey key: Any?, keySpace: AVMetadataKeySpace?) -> [AVMetadataItem] {
        metadataItems.filter { item in
            if let keySpace, item.keySpace != keySpace { return false }
            if let key {
                guard let wanted = MetadataValues.nativeKey(key, in: item.keySpace),
                      let itemKey = item.key.flatMap({ MetadataValues.nativeKey($0, in: item.keySpace) }), itemKey == wanted else { return false }
            }
            return true
        }
    }

    /// The items whose locale's language is one of `preferredLanguages`, ordered by preference.
    ///
    /// - Parameters:
    ///   - metadataItems: The items to filter.
    ///   - preferredLanguages: BCP 47 tags such as "en" or "fr-CA", most preferred first; matched by
    ///     language code.
    /// - Returns: The items of the first language, then those of the next, each once; items without a
    ///   locale are left out.
    open class func metadataItems(from metadataItems: [AVMetadataItem], filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String]) -> [AVMetadataItem] {
        var result: [AVMetadataItem] = []
        for language in preferredLanguages {
            let code = MetadataValues.languageCode(of: Locale(identifier: language))
            result += metadataItems.filter { item in
                guard let locale = item.locale, !result.contains(where: { $0 === item }) else { return false }
                return MetadataValues.languageCode(of: locale) == code
            }
        }
        return result
    }

    /// The items whose locale has the language of `locale`.
    ///
    /// - Parameters:
    ///   - metadataItems: The items to filter.
    ///   - locale: The locale whose language code is matched.
    /// - Returns: The matching items, in their order; items without a locale are left out.
    open class func metadataItems(from metadataItems: [AVMetadataItem], with locale: Locale) -> [AVMetadataItem] {
        let code = MetadataValues.languageCode(of: locale)
        return metadataItems.filter { $0.locale.map(MetadataValues.languageCode) == code }
    }
}

/// An item whose fields can be set; setting ``identifier`` sets ``key`` and ``keySpace``, and the
/// reverse.
open class AVMutableMetadataItem: AVMetadataItem, @unchecked Sendable {
    /// An empty item: no key, key space or value.
    public override init() {
        super.init(fields: Fields())
    }

    /// An item with `fields` (and, made with `init(propertiesOf:valueLoadingHandler:)`, a value its
    /// handler gives until one is set).
    override init(fields: Fields, valueLoad: MetadataValueLoad? = nil) {
        super.init(fields: fields, valueLoad: valueLoad)
    }

    /// The identifier; setting it sets ``key`` and ``keySpace`` (nil, or an identifier Avocet cannot
    /// split, clears both).
    open override var identifier: AVMetadataIdentifier? {
        get { super.identifier }
        set {
            write { f in
                if let newValue, let (space, key) = MetadataValues.split(newValue) {
                    f.keySpace = space
                    f.key = MetadataValues.keyObject(key, in: space)
                } else {
                    f.keySpace = nil
                    f.key = nil
                }
            }
        }
    }

    /// The key; settable.
    open override var key: (any NSCopying & NSObjectProtocol)? {
        get { super.key }
        set { write { $0.key = newValue } }
    }

    /// The common key an item read from a file was given; for an item an app makes, the one its key
    /// maps onto, as for a file's items (`udta/%A9nam` and `itsk/%A9nam` map onto `commonKeyTitle`), or
    /// in the common key space its key itself.
    open override var commonKey: AVMetadataKey? {
        if let stored = super.commonKey { return stored }
        guard let space = keySpace, let key = key.flatMap({ MetadataValues.nativeKey($0, in: space) }) else { return nil }
        if space == .common { return AVMetadataKey(rawValue: key) }
        return MetadataMapping.commonKey(forKey: key, space: space)
    }

    /// The key space; settable.
    open override var keySpace: AVMetadataKeySpace? {
        get { super.keySpace }
        set { write { $0.keySpace = newValue } }
    }

    /// The value's language; settable.
    open override var locale: Locale? {
        get { super.locale }
        set { write { $0.locale = newValue } }
    }

    /// The BCP 47 tag of the value's language; settable.
    open override var extendedLanguageTag: String? {
        get { super.extendedLanguageTag }
        set { write { $0.extendedLanguageTag = newValue } }
    }

    /// When a timed item applies; settable.
    open override var time: CMTime {
        get { super.time }
        set { write { $0.time = newValue } }
    }

    /// How long a timed item applies; settable.
    open override var duration: CMTime {
        get { super.duration }
        set { write { $0.duration = newValue } }
    }

    /// The date a timed item starts; settable.
    open override var startDate: Date? {
        get { super.startDate }
        set { write { $0.startDate = newValue } }
    }

    /// The value's type identifier; settable.
    open override var dataType: String? {
        get { super.dataType }
        set { write { $0.dataType = newValue } }
    }

    /// The value; settable. Reading it is not deprecated on a mutable item.
    open override var value: (any NSCopying & NSObjectProtocol)? {
        get { currentValue }
        set { write { $0.value = newValue } }
    }

    /// Attributes beyond the value; settable.
    open override var extraAttributes: [AVMetadataExtraAttributeKey: Any]? {
        get { currentExtraAttributes }
        set { write { $0.extraAttributes = newValue } }
    }

    /// The value as a string, as ``AVMetadataItem`` converts it; not deprecated on a mutable item.
    open override var stringValue: String? { currentStringValue }
    /// The value as a number, as ``AVMetadataItem`` converts it; not deprecated on a mutable item.
    open override var numberValue: NSNumber? { currentNumberValue }
    /// The value as a date, as ``AVMetadataItem`` converts it; not deprecated on a mutable item.
    open override var dateValue: Date? { currentDateValue }
    /// The value as bytes, as ``AVMetadataItem`` converts it; not deprecated on a mutable item.
    open override var dataValue: Data? { currentDataValue }
}

extension AVMetadataItem {
    /// An item with the properties of `metadataItem` (identifier, key, key space, language, times,
    /// data type, extra attributes) and a value that `handler` gives when it is first loaded: an
    /// expensive value (cover art from a server, say) is made only if asked for.
    ///
    /// The first load of the value, or of a form of it (``AVPartialAsyncProperty/stringValue`` and the
    /// others), calls `handler` once, on a global dispatch queue (never Swift's cooperative pool), with
    /// an ``AVMetadataItemValueRequest`` to answer; every load waits for that answer without holding a
    /// thread, and a cancelled task stops waiting. A request let go unanswered fails the load. The
    /// deprecated synchronous getters (`value`, `stringValue`, ...) never wait, as Apple's do not say:
    /// they give the value once answered, and nil until then (asking the handler if no one has). The
    /// template's own value is not used.
    ///
    /// - Parameters:
    ///   - metadataItem: The item whose properties the new one takes.
    ///   - handler: Called once with the request for the value; it must answer it (now or later).
    public convenience init(propertiesOf metadataItem: AVMetadataItem,
                            valueLoadingHandler handler: @escaping (AVMetadataItemValueRequest) -> Void) {
        var fields = metadataItem.read { $0 }
        fields.value = nil
        self.init(fields: fields, valueLoad: MetadataValueLoad(handler: handler))
    }

    /// The same as ``init(propertiesOf:valueLoadingHandler:)``, in the spelling of Apple's newer SDKs.
    ///
    /// - Parameters:
    ///   - metadataItem: The item whose properties the new one takes.
    ///   - handler: Called once with the request for the value.
    public convenience init(propertiesOfMetadataItem metadataItem: AVMetadataItem,
                            valueLoadingHandler handler: @escaping (AVMetadataItemValueRequest) -> Void) {
        self.init(propertiesOf: metadataItem, valueLoadingHandler: handler)
    }
}
