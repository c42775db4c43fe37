import Foundation

extension CMFormatDescription {
    /// The extension dictionary of a format description.
    ///
    /// On Linux there is no `CFPropertyList`, so keys are string-backed ``Key``s and values are ``Value``s
    /// holding a property-list value (string, integer, double, bool, data, array or dictionary).
    public struct Extensions: Collection, Hashable, Sendable {
        /// A key and its value.
        public typealias Element = (key: Key, value: Value)
        /// A position among the extensions, which are ordered by key.
        public typealias Index = Int

        private var storage: [Key: Value]

        /// No extensions.
        public init() { storage = [:] }

        /// Extensions from string keys and property-list values; values of other types are dropped.
        ///
        /// - Parameter base: Values by key string, such as `["FormatName": "H.264"]`; nil for none.
        ///   Arrays and dictionaries are kept only when every value in them is a property-list value.
        public init(base: [String: Any]?) {
            storage = [:]
            for (key, value) in base ?? [:] {
                if let v = Value(propertyList: value) { storage[Key(rawValue: key)] = v }
            }
        }

        /// The value stored under `key`; nil when absent. Setting nil removes it.
        public subscript(key: Key) -> Value? {
            get { storage[key] }
            set { storage[key] = newValue }
        }

        /// The first position (0).
        public var startIndex: Int { 0 }
        /// The position past the last extension: their count.
        public var endIndex: Int { storage.count }
        /// The position after `i`.
        public func index(after i: Int) -> Int { i + 1 }
        /// The extension at `position`, in key order. Sorts the keys on each access (O(n log n)).
        public subscript(position: Int) -> Element {
            let entry = storage.sorted { $0.key.rawValue < $1.key.rawValue }[position]
            return (entry.key, entry.value)
        }

        /// Whether both hold the same keys with equal values.
        public static func == (lhs: Extensions, rhs: Extensions) -> Bool { lhs.storage == rhs.storage }
        /// Hashes the keys and values, consistently with `==`.
        public func hash(into hasher: inout Hasher) { hasher.combine(storage) }

        /// A format-description extension key (Apple's `kCMFormatDescriptionExtension_*` names).
        public struct Key: RawRepresentable, Hashable, Sendable {
            /// The key's string, as Apple's constant holds it (`"FormatName"`).
            public let rawValue: String
            /// A key from its string.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// The codec's human-readable name (`kCMFormatDescriptionExtension_FormatName`).
            public static let formatName = Key(rawValue: "FormatName")
            /// Bits per pixel of the video (`kCMFormatDescriptionExtension_Depth`).
            public static let depth = Key(rawValue: "Depth")
            /// The shape of a pixel, as `{HorizontalSpacing, VerticalSpacing}` (`kCMFormatDescriptionExtension_PixelAspectRatio`).
            public static let pixelAspectRatio = Key(rawValue: "PixelAspectRatio")
            /// Whether luma and chroma use the full range of their values (`kCMFormatDescriptionExtension_FullRangeVideo`).
            public static let fullRangeVideo = Key(rawValue: "FullRangeVideo")
            /// The colour primaries (`kCMFormatDescriptionExtension_ColorPrimaries`).
            public static let colorPrimaries = Key(rawValue: "ColorPrimaries")
            /// The transfer function (`kCMFormatDescriptionExtension_TransferFunction`).
            public static let transferFunction = Key(rawValue: "TransferFunction")
            /// The matrix from Y'CbCr to RGB (`kCMFormatDescriptionExtension_YCbCrMatrix`).
            public static let yCbCrMatrix = Key(rawValue: "YCbCrMatrix")
            /// 1 for progressive video, 2 for interlaced (`kCMFormatDescriptionExtension_FieldCount`).
            public static let fieldCount = Key(rawValue: "FieldCount")
            /// The settings the media was first compressed with (`kCMFormatDescriptionExtension_OriginalCompressionSettings`).
            public static let originalCompressionSettings = Key(rawValue: "OriginalCompressionSettings")
            /// The container's sample description, byte for byte (`kCMFormatDescriptionExtension_VerbatimSampleDescription`).
            public static let verbatimSampleDescription = Key(rawValue: "VerbatimSampleDescription")
        }

        /// A property-list value of an extension.
        public struct Value: Hashable, Sendable {
            fileprivate indirect enum Storage: Hashable, Sendable {
                case string(String), integer(Int), double(Double), bool(Bool), data(Data)
                case array([Storage]), dictionary([String: Storage])
            }
            fileprivate let storage: Storage

            /// A string value.
            public init(_ string: String) { storage = .string(string) }
            /// An integer value.
            public init(_ integer: Int) { storage = .integer(integer) }
            /// A floating-point value.
            public init(_ double: Double) { storage = .double(double) }
            /// A Boolean value.
            public init(_ bool: Bool) { storage = .bool(bool) }
            /// A data value.
            public init(_ data: Data) { storage = .data(data) }
            private init(storage: Storage) { self.storage = storage }

            /// A value from a property list; nil when `propertyList` holds a type a property list cannot.
            ///
            /// - Parameter propertyList: A `String`, `Int`, `Double`, `Bool`, `Data`, ``Value``, or an
            ///   array or string-keyed dictionary of them (nested as deep as wanted).
            public init?(propertyList: Any) {
                guard let s = Value.storage(from: propertyList) else { return nil }
                storage = s
            }

            /// Pixel aspect ratio as `{HorizontalSpacing, VerticalSpacing}`, as Apple stores it.
            ///
            /// - Parameters:
            ///   - horizontalSpacing: A pixel's width, relative to `verticalSpacing`.
            ///   - verticalSpacing: A pixel's height, relative to `horizontalSpacing`.
            /// - Returns: The value to store under ``Key/pixelAspectRatio``, which
            ///   ``CMFormatDescription/presentationDimensions(usePixelAspectRatio:useCleanAperture:)``
            ///   reads.
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
