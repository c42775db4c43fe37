import Foundation

extension CMFormatDescription {
    /// The extension dictionary of a format description.
    ///
    /// On Linux there is no `CFPropertyList`, so keys are string-backed `Key`s and values are `Value`s
    /// holding a property-list value (string, integer, double, bool, data, array or dictionary).
    public struct Extensions: Collection, Hashable, Sendable {
        public typealias Element = (key: Key, value: Value)
        public typealias Index = Int

        private var storage: [Key: Value]

        public init() { storage = [:] }

        /// Extensions from string keys and property-list values; values of other types are dropped.
        public init(base: [String: Any]?) {
            storage = [:]
            for (key, value) in base ?? [:] {
                if let v = Value(propertyList: value) { storage[Key(rawValue: key)] = v }
            }
        }

        public subscript(key: Key) -> Value? {
            get { storage[key] }
            set { storage[key] = newValue }
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { storage.count }
        public func index(after i: Int) -> Int { i + 1 }
        public subscript(position: Int) -> Element {
            let entry = storage.sorted { $0.key.rawValue < $1.key.rawValue }[position]
            return (entry.key, entry.value)
        }

        public static func == (lhs: Extensions, rhs: Extensions) -> Bool { lhs.storage == rhs.storage }
        public func hash(into hasher: inout Hasher) { hasher.combine(storage) }

        /// A format-description extension key (Apple's `kCMFormatDescriptionExtension_*` names).
        public struct Key: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let formatName = Key(rawValue: "FormatName")
            public static let depth = Key(rawValue: "Depth")
            public static let pixelAspectRatio = Key(rawValue: "PixelAspectRatio")
            public static let fullRangeVideo = Key(rawValue: "FullRangeVideo")
            public static let colorPrimaries = Key(rawValue: "ColorPrimaries")
            public static let transferFunction = Key(rawValue: "TransferFunction")
            public static let yCbCrMatrix = Key(rawValue: "YCbCrMatrix")
            public static let fieldCount = Key(rawValue: "FieldCount")
            public static let originalCompressionSettings = Key(rawValue: "OriginalCompressionSettings")
            public static let verbatimSampleDescription = Key(rawValue: "VerbatimSampleDescription")
        }

        /// A property-list value of an extension.
        public struct Value: Hashable, Sendable {
            fileprivate indirect enum Storage: Hashable, Sendable {
                case string(String), integer(Int), double(Double), bool(Bool), data(Data)
                case array([Storage]), dictionary([String: Storage])
            }
            fileprivate let storage: Storage

            public init(_ string: String) { storage = .string(string) }
            public init(_ integer: Int) { storage = .integer(integer) }
            public init(_ double: Double) { storage = .double(double) }
            public init(_ bool: Bool) { storage = .bool(bool) }
            public init(_ data: Data) { storage = .data(data) }
            private init(storage: Storage) { self.storage = storage }

            /// A value from a property list; nil when `propertyList` holds a type a property list cannot.
            public init?(propertyList: Any) {
                guard let s = Value.storage(from: propertyList) else { return nil }
                storage = s
            }

            /// Pixel aspect ratio as `{HorizontalSpacing, VerticalSpacing}`, as Apple stores it.
            public static func pixelAspectRatio(horizontalSpacing: Int, verticalSpacing: Int) -> Value {
                Value(storage: .dictionary(["HorizontalSpacing": .integer(horizontalSpacing),
                                            "VerticalSpacing": .integer(verticalSpacing)]))
            }

            /// The value as Foundation property-list types (String, Int, Double, Bool, Data, [Any], [String: Any]).
            public var propertyListRepresentation: Any { Value.plist(storage) }

            var pixelAspectRatio: (horizontal: Int, vertical: Int)? {
                guard case .dictionary(let d) = storage, case .integer(let h)? = d["HorizontalSpacing"],
                      case .integer(let v)? = d["VerticalSpacing"] else { return nil }
                return (h, v)
            }

            private static func plist(_ s: Storage) -> Any {
                switch s {
                case .string(let v): return v
                case .integer(let v): return v
                case .double(let v): return v
                case .bool(let v): return v
                case .data(let v): return v
                case .array(let v): return v.map(plist)
                case .dictionary(let v): return v.mapValues(plist)
                }
            }

            private static func storage(from any: Any) -> Storage? {
                switch any {
                case let v as String: return .string(v)
                case let v as Bool: return .bool(v)
                case let v as Int: return .integer(v)
                case let v as Double: return .double(v)
                case let v as Data: return .data(v)
                case let v as Value: return v.storage
                case let v as [Any]:
                    let items = v.compactMap(storage(from:))
                    return items.count == v.count ? .array(items) : nil
                case let v as [String: Any]:
                    var out: [String: Storage] = [:]
                    for (k, item) in v {
                        guard let s = storage(from: item) else { return nil }
                        out[k] = s
                    }
                    return .dictionary(out)
                default: return nil
                }
            }
        }
    }
}
