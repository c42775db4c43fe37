import Foundation

/// The loadable properties of a metadata item. Values are held in memory and load at once, but for
/// an item made with `init(propertiesOf:valueLoadingHandler:)`, whose value loads when first asked
/// for, from its handler.
extension AVPartialAsyncProperty where Root: AVMetadataItem {
    private static func inMemory<V>(_ key: String, _ value: @escaping @Sendable (AVMetadataItem) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(key: key, loader: { value($0) }, blocking: { .success(value($0)) }, status: { .loaded(value($0)) })
    }

    /// A form of the value: waits for a handler-given value first.
    private static func valueForm<V>(_ key: String, _ value: @escaping @Sendable (AVMetadataItem) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { item in
                try await item.loadValue()
                return value(item)
            },
            blocking: { item in
                switch item.valueStatus {
                case .loaded: return .success(value(item))
                case .failed(let error): return .failure(error)
                default:
                    return .failure(AVError(.operationNotAllowed, userInfo: [
                        NSLocalizedDescriptionKey: "The metadata item's value is still being loaded by its handler."]))
                }
            },
            status: { item in item.valueStatus.map { value(item) } })
    }

    /// The item's value: a string, number, date or data. In memory, so it loads at once; from the
    /// handler for an item made with ``AVMetadataItem/init(propertiesOf:valueLoadingHandler:)``.
    public static var value: AVAsyncProperty<Root, (any NSCopying & NSObjectProtocol)?> { valueForm("value") { $0.currentValue } }
    /// The value as a string, where it converts; loads at once.
    public static var stringValue: AVAsyncProperty<Root, String?> { valueForm("stringValue") { $0.currentStringValue } }
    /// The value as a number, where it converts; loads at once.
    public static var numberValue: AVAsyncProperty<Root, NSNumber?> { valueForm("numberValue") { $0.currentNumberValue } }
    /// The value as a date, where it converts; loads at once.
    public static var dateValue: AVAsyncProperty<Root, Date?> { valueForm("dateValue") { $0.currentDateValue } }
    /// The value as data, where it converts; loads at once.
    public static var dataValue: AVAsyncProperty<Root, Data?> { valueForm("dataValue") { $0.currentDataValue } }
    /// The item's extra attributes; loads at once.
    public static var extraAttributes: AVAsyncProperty<Root, [AVMetadataExtraAttributeKey: Any]?> {
        inMemory("extraAttributes") { $0.currentExtraAttributes }
    }
}
