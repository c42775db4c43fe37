import Foundation

/// A channel layout (which speaker each channel feeds), owning a copy of Core Audio's variable-length
/// `AudioChannelLayout`. Immutable. Made in memory.
open class AVAudioChannelLayout: NSObject, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: the layout memory is written once, in init, and freed in deinit.
    private let storage: UnsafeMutableRawPointer
    /// The bytes of the layout, its descriptions included.
    let byteCount: Int

    /// A layout of a standard arrangement, such as ``kAudioChannelLayoutTag_Stereo``.
    ///
    /// - Parameter layoutTag: The arrangement; the tags that defer to descriptions or a bitmap
    ///   (``kAudioChannelLayoutTag_UseChannelDescriptions``, ``kAudioChannelLayoutTag_UseChannelBitmap``)
    ///   need a full layout and give nil.
    public convenience init?(layoutTag: AudioChannelLayoutTag) {
        guard layoutTag != kAudioChannelLayoutTag_UseChannelDescriptions, layoutTag != kAudioChannelLayoutTag_UseChannelBitmap else { return nil }
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = layoutTag
        self.init(layout: &layout)
    }

    /// A copy of `layout`, with every channel description it counts (those past the first follow it in
    /// memory, as in Core Audio's struct).
    ///
    /// - Parameter layout: The layout; its `mNumberChannelDescriptions` must match the memory given.
    public init(layout: UnsafePointer<AudioChannelLayout>) {
        let descriptions = Int(layout.pointee.mNumberChannelDescriptions)
        byteCount = AVAudioChannelLayout.size(descriptions: descriptions)
        storage = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: MemoryLayout<AudioChannelLayout>.alignment)
        storage.copyMemory(from: UnsafeRawPointer(layout), byteCount: byteCount)
        super.init()
    }

    /// The layout `data` holds (``AVChannelLayoutKey``'s value): nil when the bytes are fewer than the
    /// layout and the descriptions it counts take.
    convenience init?(data: Data) {
        guard data.count >= MemoryLayout<AudioChannelLayout>.size else { return nil }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: data.count, alignment: MemoryLayout<AudioChannelLayout>.alignment)
        defer { copy.deallocate() }
        data.copyBytes(to: copy.assumingMemoryBound(to: UInt8.self), count: data.count)
        let layout = copy.assumingMemoryBound(to: AudioChannelLayout.self)
        let count = Int(layout.pointee.mNumberChannelDescriptions)
        guard count <= 65_536, AVAudioChannelLayout.size(descriptions: count) <= data.count else { return nil }
        self.init(layout: layout)
    }

    deinit { storage.deallocate() }

    /// Layouts decode only as layouts (secure coding).
    public static var supportsSecureCoding: Bool { true }

    /// Writes the layout's bytes (Avocet's own key; archives do not cross to Apple's platforms).
    open func encode(with coder: NSCoder) {
        coder.encode(Data(bytes: storage, count: byteCount) as NSData, forKey: "layout")
    }

    /// The layout ``encode(with:)`` wrote; nil for bytes that are not one.
    public required convenience init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "layout") as Data? else { return nil }
        self.init(data: data)
    }

    /// The bytes of a layout with `descriptions` channel descriptions (at least the struct's own size).
    static func size(descriptions: Int) -> Int {
        MemoryLayout<AudioChannelLayout>.size + max(0, descriptions - 1) * MemoryLayout<AudioChannelDescription>.stride
    }

    /// The layout's tag.
    open var layoutTag: AudioChannelLayoutTag { layout.pointee.mChannelLayoutTag }

    /// The layout itself; valid as long as this object lives.
    open var layout: UnsafePointer<AudioChannelLayout> {
        UnsafePointer(storage.assumingMemoryBound(to: AudioChannelLayout.self))
    }

    /// The channels the layout describes: the tag's count, the bitmap's speakers, or the descriptions.
    open var channelCount: AVAudioChannelCount {
        let l = layout.pointee
        switch l.mChannelLayoutTag {
        case kAudioChannelLayoutTag_UseChannelDescriptions: return l.mNumberChannelDescriptions
        case kAudioChannelLayoutTag_UseChannelBitmap: return UInt32(l.mChannelBitmap.rawValue.nonzeroBitCount)
        default: return AudioChannelLayoutTag_GetNumberOfChannels(l.mChannelLayoutTag)
        }
    }

    /// Whether `object` is a layout of the same bytes.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioChannelLayout else { return false }
        return other === self || (other.byteCount == byteCount && memcmp(other.storage, storage, byteCount) == 0)
    }

    /// Consistent with ``isEqual(_:)``.
    open override var hash: Int { Int(layoutTag) ^ Int(channelCount) << 20 }
}
