import Foundation
internal import Locking

/// An audio format: Core Audio's stream description, with a channel layout where the channels need one
/// (more than two), and the conveniences of Apple's class for the common linear PCM formats. Made in
/// memory; immutable but for ``magicCookie``.
open class AVAudioFormat: NSObject, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: the description and layout are written once, in init; the cookie sits behind
    // a lock.
    private let stream: UnsafeMutablePointer<AudioStreamBasicDescription>
    private let layout: AVAudioChannelLayout?
    private let cookie = Locked<Data?>(nil)

    private init(description asbd: AudioStreamBasicDescription, layout: AVAudioChannelLayout?) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: asbd)
        self.layout = layout
        super.init()
    }

    deinit {
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The standard format, deinterleaved native-endian 32-bit float, at `sampleRate` with `channels`
    /// channels.
    ///
    /// - Parameters:
    ///   - sampleRate: Frames per second.
    ///   - channels: 1 or 2: more channels need a layout
    ///     (``init(standardFormatWithSampleRate:channelLayout:)``).
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// The standard format (deinterleaved 32-bit float) at `sampleRate`, with `layout`'s channels.
    ///
    /// - Parameters:
    ///   - sampleRate: Frames per second.
    ///   - layout: The channel layout, which gives the channel count.
    public convenience init(standardFormatWithSampleRate sampleRate: Double, channelLayout layout: AVAudioChannelLayout) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, interleaved: false, channelLayout: layout)
    }

    /// Linear PCM of a common sample format.
    ///
    /// - Parameters:
    ///   - format: The sample format; ``AVAudioCommonFormat/otherFormat`` gives nil.
    ///   - sampleRate: Frames per second; a negative or non-finite rate gives nil.
    ///   - channels: 1 or 2 (more channels need a layout: nil).
    ///   - interleaved: Whether the channels' samples alternate in one buffer, or each channel has a
    ///     buffer of its own.
    public convenience init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) {
        guard (1...2).contains(channels), let asbd = AVAudioFormat.description(format, sampleRate: sampleRate, channels: channels,
                                                                             interleaved: interleaved) else { return nil }
        self.init(description: asbd, layout: nil)
    }

    /// Linear PCM of a common sample format with `layout`'s channels. Apple's raises an exception for
    /// ``AVAudioCommonFormat/otherFormat`` or a bad rate; Avocet's makes 32-bit float at rate 0 then.
    ///
    /// - Parameters:
    ///   - format: The sample format.
    ///   - sampleRate: Frames per second.
    ///   - interleaved: Whether the channels' samples alternate in one buffer.
    ///   - layout: The channel layout, which gives the channel count.
    public convenience init(commonFormat format: AVAudioCommonFormat, sampleRate: Double, interleaved: Bool, channelLayout layout: AVAudioChannelLayout) {
        let asbd = AVAudioFormat.description(format, sampleRate: sampleRate, channels: layout.channelCount, interleaved: interleaved)
            ?? AVAudioFormat.description(.pcmFormatFloat32, sampleRate: 0, channels: layout.channelCount, interleaved: interleaved)
            ?? AudioStreamBasicDescription()
        self.init(description: asbd, layout: layout)
    }

    /// The format a settings dictionary describes (the keys of `AVAudioSettings`: ``AVFormatIDKey``,
    /// ``AVSampleRateKey``, ``AVNumberOfChannelsKey``, ``AVChannelLayoutKey`` and, for linear PCM, the
    /// `AVLinearPCM` keys; others are ignored). Linear PCM is the default format; its bit depth defaults
    /// to 16 (32 for floats) and is rounded up to whole bytes.
    ///
    /// - Parameter settings: The settings.
    /// - Returns: nil without a positive sample rate and channel count, for more than two channels
    ///   without a layout, a layout of another channel count, or a linear PCM depth other than 8 to 32
    ///   bits for integers or 32 or 64 for floats.
    public convenience init?(settings: [String: Any]) {
        guard let rate = AVAudioFormat.value(settings[AVSampleRateKey]), rate > 0, rate.isFinite,
              let channelNumber = AVAudioFormat.value(settings[AVNumberOfChannelsKey]), channelNumber >= 1, channelNumber <= 1024,
              channelNumber == channelNumber.rounded() else { return nil }
        let channels = UInt32(channelNumber)
        var layout: AVAudioChannelLayout?
        if let data = settings[AVChannelLayoutKey] as? Data {
            guard let made = AVAudioChannelLayout(data: data), made.channelCount == channels else { return nil }
            layout = made
        }
        guard channels <= 2 || layout != nil else { return nil }
        let formatID = AVAudioFormat.value(settings[AVFormatIDKey]).flatMap { UInt32(exactly: $0) } ?? kAudioFormatLinearPCM
        var asbd = AudioStreamBasicDescription()
        if formatID == kAudioFormatLinearPCM {
            let isFloat = AVAudioFormat.boolean(settings[AVLinearPCMIsFloatKey]) ?? false
            var bits = isFloat ? 32 : 16
            if let requested = AVAudioFormat.value(settings[AVLinearPCMBitDepthKey]) {
                // A depth that is not a number of 1 to 64 bits (NaN, infinite, huge) is refused, not trapped on.
                guard let whole = Int(exactly: requested.rounded(.up)), (1...64).contains(whole) else { return nil }
                bits = (whole + 7) / 8 * 8
            }
            guard isFloat ? bits == 32 || bits == 64 : (8...32).contains(bits) else { return nil }
            let bigEndian = AVAudioFormat.boolean(settings[AVLinearPCMIsBigEndianKey]) ?? false
            let nonInterleaved = AVAudioFormat.boolean(settings[AVLinearPCMIsNonInterleaved]) ?? false
            guard let pcm = AudioStreamBasicDescription.linearPCM(sampleRate: rate, channels: channels, bits: UInt32(bits), isFloat: isFloat,
                                                                  isBigEndian: bigEndian, isNonInterleaved: nonInterleaved) else { return nil }
            asbd = pcm
        } else {
            asbd.mSampleRate = rate
            asbd.mFormatID = formatID
            asbd.mChannelsPerFrame = channels
            asbd.mFramesPerPacket = AVAudioFormat.framesPerPacket(formatID)
        }
        self.init(description: asbd, layout: layout)
    }

    /// The format `asbd` describes.
    ///
    /// - Parameter asbd: A stream description; more than two channels need a layout: nil.
    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>) {
        self.init(streamDescription: asbd, channelLayout: nil)
    }

    /// The format `asbd` describes, with `layout`'s channels.
    ///
    /// - Parameters:
    ///   - asbd: A stream description.
    ///   - layout: The channel layout; nil only for one or two channels (mono or stereo assumed).
    /// - Returns: nil without channels, for more than two without a layout, or a layout of another
    ///   channel count.
    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>, channelLayout layout: AVAudioChannelLayout?) {
        let d = asbd.pointee
        guard d.mChannelsPerFrame >= 1, d.mSampleRate >= 0, d.mSampleRate.isFinite else { return nil }
        if let layout { guard layout.channelCount == d.mChannelsPerFrame else { return nil } } else if d.mChannelsPerFrame > 2 { return nil }
        self.init(description: d, layout: layout)
    }

    /// The format of an audio format description (its stream description and magic cookie).
    ///
    /// - Parameter formatDescription: An audio format description, such as a track's.
    public convenience init(cmAudioFormatDescription formatDescription: CMAudioFormatDescription) {
        self.init(description: formatDescription.audioStreamBasicDescription ?? AudioStreamBasicDescription(), layout: nil)
        magicCookie = formatDescription.magicCookie
    }

    // MARK: - Coding

    /// Formats decode only as formats (secure coding).
    public static var supportsSecureCoding: Bool { true }

    /// Writes the stream description's fields, the layout's bytes and the magic cookie (Avocet's own
    /// keys: Apple's archive format is not published, so archives do not cross between the two).
    open func encode(with coder: NSCoder) {
        let d = stream.pointee
        coder.encode(d.mSampleRate, forKey: "sampleRate")
        for (key, value) in [("formatID", d.mFormatID), ("formatFlags", d.mFormatFlags), ("bytesPerPacket", d.mBytesPerPacket),
                             ("framesPerPacket", d.mFramesPerPacket), ("bytesPerFrame", d.mBytesPerFrame),
                             ("channelsPerFrame", d.mChannelsPerFrame), ("bitsPerChannel", d.mBitsPerChannel)] {
            coder.encode(Int64(value), forKey: key)
        }
        if let layout { coder.encode(Data(bytes: layout.layout, count: layout.byteCount) as NSData, forKey: "channelLayout") }
        if let cookie = magicCookie { coder.encode(cookie as NSData, forKey: "magicCookie") }
    }

    /// The format ``encode(with:)`` wrote; nil for an archive that does not describe one (fields out of
    /// range, no channels, a layout of another channel count).
    public required convenience init?(coder: NSCoder) {
        func field(_ key: String) -> UInt32? { UInt32(exactly: coder.decodeInt64(forKey: key)) }
        guard let formatID = field("formatID"), let flags = field("formatFlags"), let bytesPerPacket = field("bytesPerPacket"),
              let framesPerPacket = field("framesPerPacket"), let bytesPerFrame = field("bytesPerFrame"),
              let channels = field("channelsPerFrame"), let bits = field("bitsPerChannel") else { return nil }
        var d = AudioStreamBasicDescription(mSampleRate: coder.decodeDouble(forKey: "sampleRate"), mFormatID: formatID, mFormatFlags: flags,
                                            mBytesPerPacket: bytesPerPacket, mFramesPerPacket: framesPerPacket, mBytesPerFrame: bytesPerFrame,
                                            mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
        // Only keys that are there are decoded: asking for a missing one fails the whole decoding.
        let layout = coder.containsValue(forKey: "channelLayout")
            ? (coder.decodeObject(of: NSData.self, forKey: "channelLayout") as Data?).flatMap(AVAudioChannelLayout.init(data:)) : nil
        guard let made = withUnsafePointer(to: &d, { AVAudioFormat(streamDescription: $0, channelLayout: layout) }) else { return nil }
        self.init(description: d, layout: made.channelLayout)
        if coder.containsValue(forKey: "magicCookie") { magicCookie = coder.decodeObject(of: NSData.self, forKey: "magicCookie") as Data? }
    }

    // MARK: - Properties

    /// The stream description; valid as long as the format lives.
    open var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(stream) }
    /// Frames per second.
    open var sampleRate: Double { stream.pointee.mSampleRate }
    /// The number of channels.
    open var channelCount: AVAudioChannelCount { stream.pointee.mChannelsPerFrame }
    /// The channel layout; nil where none was given (one or two channels need none).
    open var channelLayout: AVAudioChannelLayout? { layout }

    /// The common format of the samples; ``AVAudioCommonFormat/otherFormat`` for compressed audio and
    /// linear PCM that is not native-endian, packed float or signed integer of 16, 32 or 64 bits.
    open var commonFormat: AVAudioCommonFormat { AVAudioFormat.commonFormat(of: stream.pointee) }

    /// Whether the channels' samples alternate in one buffer (false when each channel has its own).
    open var isInterleaved: Bool { stream.pointee.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 }

    /// Whether this is the standard format: deinterleaved native-endian 32-bit float.
    open var isStandard: Bool { commonFormat == .pcmFormatFloat32 && !isInterleaved }

    /// The format as a settings dictionary (``AVFormatIDKey``, ``AVSampleRateKey``,
    /// ``AVNumberOfChannelsKey``, the layout under ``AVChannelLayoutKey``, and the `AVLinearPCM` keys for
    /// linear PCM), as ``init(settings:)`` takes it.
    open var settings: [String: Any] {
        let d = stream.pointee
        var result: [String: Any] = [AVFormatIDKey: NSNumber(value: d.mFormatID), AVSampleRateKey: NSNumber(value: d.mSampleRate),
                                     AVNumberOfChannelsKey: NSNumber(value: d.mChannelsPerFrame)]
        if d.mFormatID == kAudioFormatLinearPCM {
            result[AVLinearPCMBitDepthKey] = NSNumber(value: d.mBitsPerChannel)
            result[AVLinearPCMIsFloatKey] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsFloat != 0)
            result[AVLinearPCMIsBigEndianKey] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0)
            result[AVLinearPCMIsNonInterleaved] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)
        }
        if let layout { result[AVChannelLayoutKey] = Data(bytes: layout.layout, count: layout.byteCount) }
        return result
    }

    /// The format as an audio format description (with the magic cookie).
    open var formatDescription: CMAudioFormatDescription {
        let d = stream.pointee
        return CMFormatDescription(mediaType: .audio, mediaSubType: .init(rawValue: d.mFormatID), audioStreamBasicDescription: d,
                                   magicCookie: magicCookie)
    }

    /// The codec's setup bytes (an AAC decoder configuration, ...); nil for none.
    open var magicCookie: Data? {
        get { cookie.withLock { $0 } }
        set { cookie.withLock { $0 = newValue } }
    }

    /// Whether `object` is a format of the same stream description and, beyond two channels, the same
    /// layout.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioFormat else { return false }
        if other === self { return true }
        guard other.stream.pointee == stream.pointee else { return false }
        return channelCount <= 2 || other.layout == layout
    }

    /// Consistent with ``isEqual(_:)``.
    open override var hash: Int { stream.pointee.hashValue }

    /// The rate, channels, interleaving and common format.
    open override var description: String {
        let d = stream.pointee
        let kind = commonFormat == .otherFormat ? d.mFormatID.fourCharString : "\(commonFormat)"
        return "<AVAudioFormat \(d.mSampleRate) Hz, \(d.mChannelsPerFrame) ch, \(kind), \(isInterleaved ? "interleaved" : "deinterleaved")>"
    }

    // MARK: - Helpers

    /// The stream description of linear PCM in `format`; nil for ``AVAudioCommonFormat/otherFormat`` or
    /// a negative or non-finite rate.
    static func description(_ format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) -> AudioStreamBasicDescription? {
        guard sampleRate >= 0, sampleRate.isFinite, channels >= 1 else { return nil }
        let (bits, isFloat): (UInt32, Bool)
        switch format {
        case .pcmFormatFloat32: (bits, isFloat) = (32, true)
        case .pcmFormatFloat64: (bits, isFloat) = (64, true)
        case .pcmFormatInt16: (bits, isFloat) = (16, false)
        case .pcmFormatInt32: (bits, isFloat) = (32, false)
        case .otherFormat: return nil
        }
        return .linearPCM(sampleRate: sampleRate, channels: channels, bits: bits, isFloat: isFloat, isBigEndian: false,
                          isNonInterleaved: !interleaved)
    }

    static func commonFormat(of d: AudioStreamBasicDescription) -> AVAudioCommonFormat {
        guard d.mFormatID == kAudioFormatLinearPCM, d.mFormatFlags & kAudioFormatFlagIsBigEndian == 0, d.mFramesPerPacket == 1 else { return .otherFormat }
        let isFloat = d.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let isSigned = d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0
        let perChannel = d.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0 ? d.mBytesPerFrame : d.mBytesPerFrame / max(1, d.mChannelsPerFrame)
        // Packed: each sample fills its bytes.
        guard perChannel * 8 == d.mBitsPerChannel else { return .otherFormat }
        switch (isFloat, isSigned, d.mBitsPerChannel) {
        case (true, _, 32): return .pcmFormatFloat32
        case (true, _, 64): return .pcmFormatFloat64
        case (false, true, 16): return .pcmFormatInt16
        case (false, true, 32): return .pcmFormatInt32
        default: return .otherFormat
        }
    }

    /// Frames in one packet of a compressed format, as Core Audio states them; 0 where they vary.
    static func framesPerPacket(_ format: AudioFormatID) -> UInt32 {
        switch format {
        case kAudioFormatMPEG4AAC: return 1024
        case kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2: return 2048
        case kAudioFormatMPEGLayer3, kAudioFormatMPEGLayer2: return 1152
        case kAudioFormatMPEGLayer1: return 384
        case kAudioFormatAppleLossless: return 4096
        case kAudioFormatAC3, kAudioFormatEnhancedAC3: return 1536
        case kAudioFormatOpus: return 960
        default: return 0
        }
    }

    /// A settings value as a number (see `SettingsValue`); nil when absent or not a number.
    static func value(_ value: Any?) -> Double? { value.flatMap(SettingsValue.number) }

    /// A settings value as a Boolean (see `SettingsValue`); nil when absent or neither.
    static func boolean(_ value: Any?) -> Bool? { value.flatMap(SettingsValue.flag) }
}
