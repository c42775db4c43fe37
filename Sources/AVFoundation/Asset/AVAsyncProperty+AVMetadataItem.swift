import Foundation

/// The loadable properties of a metadata item. Item values are held in memory: these load at once.
extension AVPartialAsyncProperty where Root: AVMetadataItem {
    private static func inMemory<V>(_ key: String, _ value: @escaping @Sendable (AVMetadataItem) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(key: key, loader: { value($0) }, blocking: { .success(value($0)) }, status: { .loaded(value($0)) })
    }

    public static var value: AVAsyncProperty<Root, (any NSCopying & NSObjectProtocol)?> { inMemory("value") { $0.currentValue } }
    public static var stringValue: AVAsyncProperty<Root, String?> { inMemory("stringValue") { $0.currentStringValue } }
    public static var numberValue: AVAsyncProperty<Root, NSNumber?> { inMemory("numberValue") { $0.currentNumberValue } }
    public static var dateValue: AVAsyncProperty<Root, Date?> { inMemory("dateValue") { $0.currentDateValue } }
    public static var dataValue: AVAsyncProperty<Root, Data?> { inMemory("dataValue") { $0.currentDataValue } }
    public static var extraAttributes: AVAsyncProperty<Root, [AVMetadataExtraAttributeKey: Any]?> {
        inMemory("extraAttributes") { $0.currentExtraAttributes }
    }
}
