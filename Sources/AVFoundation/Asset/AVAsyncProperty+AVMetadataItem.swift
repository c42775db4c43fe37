import Foundation

/// The loadable properties of a metadata item. Item values are held in memory: these load at once.
extension AVPartialAsyncProperty where Root: AVMetadataItem {
    private static func inMemory<V>(_ key: String, _ value: @escaping @Sendable (AVMetadataItem) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(key: key, loader: { value($0) }, blocking: { .success(value($0)) }, status: { .loaded(value($0)) })
    }

    /// The item's value: a string, number, date or data. Held in memory, so it loads at once.
    public static var value: AVAsyncProperty<Root, (any NSCopying & NSObjectProtocol)?> { inMemory("value") { $0.currentValue } }
    /// The value as a string, where it converts; loads at once.
    public static var stringValue: AVAsyncProperty<Root, String?> { inMemory("stringValue") { $0.currentStringValue } }
    /// The value as a number, where it converts; loads at once.
    public static var numberValue: AVAsyncProperty<Root, NSNumber?> { inMemory("numberValue") { $0.currentNumberValue } }
    /// The value as a date, where it converts; loads at once.
    public static var dateValue: AVAsyncProperty<Root, Date?> { inMemory("dateValue") { $0.currentDateValue } }
    /// The value as data, where it converts; loads at once.
    public static var dataValue: AVAsyncProperty<Root, Data?> { inMemory("dataValue") { $0.currentDataValue } }
    /// The item's extra attributes; loads at once.
    public static var extraAttributes: AVAsyncProperty<Root, [AVMetadataExtraAttributeKey: Any]?> {
        inMemory("extraAttributes") { $0.currentExtraAttributes }
    }
}
