// Apple's CoreAudioTypes channel layouts: which speaker each channel feeds. A layout is a tag (a
// standard arrangement), a bitmap of speakers, or a list of channel descriptions; the C struct is
// variable length (descriptions past the first follow it in memory), and Swift's has the same layout.

/// A layout tag: the arrangement's index in the high 16 bits, its channel count in the low 16.
public typealias AudioChannelLayoutTag = UInt32
/// What a channel is (left, right, centre, LFE, ...).
public typealias AudioChannelLabel = UInt32

/// Speakers present, for ``kAudioChannelLayoutTag_UseChannelBitmap``.
public struct AudioChannelBitmap: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let bit_Left = AudioChannelBitmap(rawValue: 1 << 0)
    public static let bit_Right = AudioChannelBitmap(rawValue: 1 << 1)
    public static let bit_Center = AudioChannelBitmap(rawValue: 1 << 2)
    public static let bit_LFEScreen = AudioChannelBitmap(rawValue: 1 << 3)
    public static let bit_LeftSurround = AudioChannelBitmap(rawValue: 1 << 4)
    public static let bit_RightSurround = AudioChannelBitmap(rawValue: 1 << 5)
}

/// How a channel description's coordinates are to be read.
public struct AudioChannelFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let rectangularCoordinates = AudioChannelFlags(rawValue: 1 << 0)
    public static let sphericalCoordinates = AudioChannelFlags(rawValue: 1 << 1)
    public static let meters = AudioChannelFlags(rawValue: 1 << 2)
}

/// One channel: its label, and where it is when the label does not say.
public struct AudioChannelDescription {
    public var mChannelLabel: AudioChannelLabel
    public var mChannelFlags: AudioChannelFlags
    public var mCoordinates: (Float32, Float32, Float32)

    public init() {
        mChannelLabel = 0
        mChannelFlags = []
        mCoordinates = (0, 0, 0)
    }

    public init(mChannelLabel: AudioChannelLabel, mChannelFlags: AudioChannelFlags, mCoordinates: (Float32, Float32, Float32)) {
        self.mChannelLabel = mChannelLabel
        self.mChannelFlags = mChannelFlags
        self.mCoordinates = mCoordinates
    }
}

/// A channel layout: a tag, a bitmap (with ``kAudioChannelLayoutTag_UseChannelBitmap``) or descriptions
/// (with ``kAudioChannelLayoutTag_UseChannelDescriptions``; those past the first follow in memory).
public struct AudioChannelLayout {
    public var mChannelLayoutTag: AudioChannelLayoutTag
    public var mChannelBitmap: AudioChannelBitmap
    public var mNumberChannelDescriptions: UInt32
    public var mChannelDescriptions: (AudioChannelDescription)

    /// An empty layout (tag 0, no descriptions).
    public init() {
        mChannelLayoutTag = 0
        mChannelBitmap = []
        mNumberChannelDescriptions = 0
        mChannelDescriptions = AudioChannelDescription()
    }

    public init(mChannelLayoutTag: AudioChannelLayoutTag, mChannelBitmap: AudioChannelBitmap, mNumberChannelDescriptions: UInt32,
                mChannelDescriptions: (AudioChannelDescription)) {
        self.mChannelLayoutTag = mChannelLayoutTag
        self.mChannelBitmap = mChannelBitmap
        self.mNumberChannelDescriptions = mNumberChannelDescriptions
        self.mChannelDescriptions = mChannelDescriptions
    }
}

/// The channel count a tag carries (its low 16 bits).
///
/// - Parameter inLayoutTag: A layout tag, such as ``kAudioChannelLayoutTag_Stereo``.
/// - Returns: The count; 0 for ``kAudioChannelLayoutTag_UseChannelDescriptions`` and
///   ``kAudioChannelLayoutTag_UseChannelBitmap``, whose layouts give their channels elsewhere.
public func AudioChannelLayoutTag_GetNumberOfChannels(_ inLayoutTag: AudioChannelLayoutTag) -> UInt32 { inLayoutTag & 0xFFFF }

private func tag(_ index: UInt32, _ channels: UInt32) -> AudioChannelLayoutTag { index << 16 | channels }

/// The layout is given by its channel descriptions.
public var kAudioChannelLayoutTag_UseChannelDescriptions: AudioChannelLayoutTag { 0 }
/// The layout is given by its bitmap.
public var kAudioChannelLayoutTag_UseChannelBitmap: AudioChannelLayoutTag { 1 << 16 }
/// One channel.
public var kAudioChannelLayoutTag_Mono: AudioChannelLayoutTag { tag(100, 1) }
/// Left, right.
public var kAudioChannelLayoutTag_Stereo: AudioChannelLayoutTag { tag(101, 2) }
/// Left, right, for headphones.
public var kAudioChannelLayoutTag_StereoHeadphones: AudioChannelLayoutTag { tag(102, 2) }
/// Left, right, left surround, right surround.
public var kAudioChannelLayoutTag_Quadraphonic: AudioChannelLayoutTag { tag(108, 4) }
/// The MPEG mono layout (the same as mono).
public var kAudioChannelLayoutTag_MPEG_1_0: AudioChannelLayoutTag { kAudioChannelLayoutTag_Mono }
/// The MPEG stereo layout (the same as stereo).
public var kAudioChannelLayoutTag_MPEG_2_0: AudioChannelLayoutTag { kAudioChannelLayoutTag_Stereo }
/// L R C.
public var kAudioChannelLayoutTag_MPEG_3_0_A: AudioChannelLayoutTag { tag(113, 3) }
/// L R C Cs.
public var kAudioChannelLayoutTag_MPEG_4_0_A: AudioChannelLayoutTag { tag(115, 4) }
/// L R C Ls Rs.
public var kAudioChannelLayoutTag_MPEG_5_0_A: AudioChannelLayoutTag { tag(117, 5) }
/// L R C LFE Ls Rs.
public var kAudioChannelLayoutTag_MPEG_5_1_A: AudioChannelLayoutTag { tag(121, 6) }
/// L R C LFE Ls Rs Cs.
public var kAudioChannelLayoutTag_MPEG_6_1_A: AudioChannelLayoutTag { tag(125, 7) }
/// L R C LFE Ls Rs Lc Rc.
public var kAudioChannelLayoutTag_MPEG_7_1_A: AudioChannelLayoutTag { tag(126, 8) }
/// L R C LFE Ls Rs Rls Rrs.
public var kAudioChannelLayoutTag_MPEG_7_1_C: AudioChannelLayoutTag { tag(128, 8) }
/// Channels in no named order, the first to the N-th; OR the channel count into it
/// (`kAudioChannelLayoutTag_DiscreteInOrder | 6`).
public var kAudioChannelLayoutTag_DiscreteInOrder: AudioChannelLayoutTag { 147 << 16 }
/// A layout of unknown channels; OR the channel count into it.
public var kAudioChannelLayoutTag_Unknown: AudioChannelLayoutTag { 0xFFFF_0000 }
/// L R C LFE Rls Rrs Ls Rs: WAVE's (and FFmpeg's) 7.1 order.
public var kAudioChannelLayoutTag_WAVE_7_1: AudioChannelLayoutTag { tag(188, 8) }
