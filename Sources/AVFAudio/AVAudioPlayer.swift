import Dispatch
import Foundation
internal import Locking
import Synchronization

/// Plays sound from a local file or from bytes in memory, with volume, pan, rate, loops and level
/// meters; several players play at once, and ``play(atTime:)`` starts them together.
///
/// Any format FFmpeg decodes plays (WAV, AIFF, CAF, MP3, AAC and ALAC in MP4, FLAC, Ogg Vorbis and
/// Opus, the audio of a movie...). The sound goes to the same ALSA device AVPlayer uses (the one
/// `AVOCET_AUDIO_DEVICE` names, else ALSA's "default") as 48 kHz stereo; where no device opens
/// (servers, CI) the player plays on the host clock alone, silently, and its time, loops, end,
/// meters and delegate behave as with sound.
///
/// The initializers read the file's header on the calling thread. Everything else returns at once:
/// the decoding and the device's blocking writes run on a thread the player starts when it prepares
/// or plays, which ends when it stops, plays to its end, or is released (releasing a player stops its
/// sound, as on Apple's platforms). The delegate is called on a serial queue of the player's own (see
/// ``AVAudioPlayerDelegate``). Every property may be read and set from any thread.
open class AVAudioPlayer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the playing state lives in the renderer, behind its lock; `delegateLock`
    // guards the delegate; the rest is immutable.
    private let media: AudioPlayerMedia
    private let renderer: AudioPlayerRenderer
    private let delegateLock = Locked()
    private weak var storedDelegate: (any AVAudioPlayerDelegate)?
    private let delegateQueue = DispatchQueue(label: "avocet.audioplayer.delegate")

    /// The URL the player was made from; nil for a player made from data.
    public let url: URL?
    /// The bytes the player was made from; nil for a player made from a URL.
    public let data: Data?

    /// A player of the local file at `url`. Reads the file's header on the calling thread.
    ///
    /// - Parameter url: A file URL.
    /// - Throws: An `NSError` in `NSOSStatusErrorDomain` with Audio File Services' code: -43
    ///   (`kAudioFileFileNotFoundError`) for a missing file or a URL that is not a file's, -54 for a
    ///   file that may not be read, 1954115647 ('typ?', `kAudioFileUnsupportedFileTypeError`) for
    ///   bytes that are not media or media without sound, 1718449215 ('fmt?') for sound this FFmpeg
    ///   cannot decode, 1685348671 ('dta?', `kAudioFileInvalidFileError`) for a damaged file.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, fileTypeHint: nil)
    }

    /// A player of the local file at `url`, its type hinted. Reads the file's header on the calling
    /// thread.
    ///
    /// - Parameters:
    ///   - url: A file URL.
    ///   - utiString: The file's type (`AVFileType.mp3.rawValue`...). Avocet does not need it: FFmpeg
    ///     recognises the format by its bytes, whatever the name says; it is accepted and ignored.
    /// - Throws: As ``init(contentsOf:)``.
    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        guard url.isFileURL else {
            throw AudioError.make(AudioError.fileNotFound, "\(url) is not a local file: the audio player plays files and data",
                                  failedCall: "AudioFileOpenURL", domain: NSOSStatusErrorDomain)
        }
        media = try AudioPlayerMedia(.file(url.path))
        renderer = AudioPlayerRenderer(media: media)
        self.url = url
        self.data = nil
        super.init()
        listen()
    }

    /// A player of the audio file whose bytes `data` holds (a whole file: WAV, MP3, M4A...), read
    /// from memory. Reads the header on the calling thread.
    ///
    /// - Parameter data: The file's bytes.
    /// - Throws: An `NSError` in `NSOSStatusErrorDomain`: 'typ?' (1954115647) for bytes that are not
    ///   media (empty data among them) or media without sound, 'fmt?' for sound this FFmpeg cannot
    ///   decode, 'dta?' for damaged media.
    public convenience init(data: Data) throws {
        try self.init(data: data, fileTypeHint: nil)
    }

    /// A player of the audio file whose bytes `data` holds, its type hinted. Reads the header on the
    /// calling thread.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - utiString: The file's type; accepted and ignored (FFmpeg recognises the format by its bytes).
    /// - Throws: As ``init(data:)``.
    public init(data: Data, fileTypeHint utiString: String?) throws {
        media = try AudioPlayerMedia(.data(data))
        renderer = AudioPlayerRenderer(media: media)
        self.url = nil
        self.data = data
        super.init()
        listen()
    }

    deinit {
        renderer.shutDown()
    }

    private func listen() {
        renderer.setEvents { [weak self] event in self?.deliver(event) }
    }

    /// Hands `event` to the delegate on the delegate queue.
    private func deliver(_ event: AudioPlayerRenderer.Event) {
        delegateQueue.async { [weak self] in
            guard let self, let delegate = self.delegate else { return }
            switch event {
            case .finished(let flag): delegate.audioPlayerDidFinishPlaying(self, successfully: flag)
            case .decodeError(let error): delegate.audioPlayerDecodeErrorDidOccur(self, error: error)
            }
        }
    }

    // MARK: - Playing

    /// Gets ready to play: starts the player's thread, which opens the audio device and the decoder.
    /// Returns at once; the work runs on that thread. ``play()`` prepares too; preparing first only
    /// makes the start sooner. Preparing again does nothing.
    ///
    /// - Returns: True (a device that does not open is no failure: the player then plays on the host
    ///   clock).
    @discardableResult
    open func prepareToPlay() -> Bool {
        renderer.prepare()
        return true
    }

    /// Starts playing from ``currentTime``, or goes on after ``pause()``. Returns at once: the player's
    /// thread plays (preparing first when needed). Playing an already playing player does nothing.
    ///
    /// - Returns: True.
    @discardableResult
    open func play() -> Bool {
        renderer.play(at: nil)
    }

    /// Starts playing at a time of the device's clock (``deviceCurrentTime``): several players given
    /// the same time start together. Returns at once; until that time ``isPlaying`` is true and
    /// ``currentTime`` stays where playing starts. A time already past starts playing at once (Apple
    /// asks for a later time and does not say what an earlier one does).
    ///
    /// - Parameter time: Seconds of ``deviceCurrentTime``'s clock.
    /// - Returns: False for a time that is not a finite number, or when the player already plays (the
    ///   time cannot be honoured); true otherwise.
    @discardableResult
    open func play(atTime time: TimeInterval) -> Bool {
        guard time.isFinite else { return false }
        return renderer.play(at: time)
    }

    /// Pauses: the sound stops at once and ``currentTime`` stays where it stopped; ``play()`` goes on
    /// from there. The device and decoder stay ready. Returns at once.
    open func pause() {
        renderer.pause()
    }

    /// Stops playing and undoes ``prepareToPlay()``: the player's thread ends and lets the device go.
    /// ``currentTime`` stays where the sound stopped (set it to 0 to start over), as Apple's does. The
    /// delegate is not told. Returns at once.
    open func stop() {
        renderer.stop()
    }

    /// Whether the player plays: true from ``play()`` (or ``play(atTime:)``, while it waits for its
    /// time) until ``pause()``, ``stop()``, the end or a decoding error.
    open var isPlaying: Bool { renderer.isPlaying }

    // MARK: - Time

    /// Where the sound is, in seconds from the start: what is being heard while playing (on the host
    /// clock where there is no device), else where playing starts. Setting it seeks, at once, also
    /// while playing; a time outside 0 to ``duration`` is taken as the nearest end of it, and one that is
    /// not a number is ignored. Back to 0 after playing to the end. Reading and setting never block.
    open var currentTime: TimeInterval {
        get { renderer.currentTime(at: AudioPlayerRenderer.now()) }
        set { renderer.seek(to: newValue) }
    }

    /// The sound's length in seconds, as the file's header states it (FFmpeg's estimate where it does
    /// not). Read once, when the player was made.
    open var duration: TimeInterval { media.duration }

    /// The device clock ``play(atTime:)`` takes, in seconds: the host clock (`CMClock.hostTimeClock`),
    /// shared by every player in the process and always running. Apple's is the output device's and
    /// goes back to 0 when no player uses the device; Avocet's never goes back.
    open var deviceCurrentTime: TimeInterval { AudioPlayerRenderer.now() }

    // MARK: - Sound

    /// The volume, 0 (silent) to 1 (as recorded), a gain on every sample played; values outside are
    /// taken as the nearest end, and one that is not a number is ignored. While a fade runs, the volume
    /// reached so far. Takes effect within a block (21 ms) of what is written next.
    open var volume: Float {
        get { renderer.volume }
        set {
            guard newValue.isFinite else { return }
            renderer.volume = min(1, max(0, newValue))
        }
    }

    /// Fades the volume from where it is to `volume` over `duration` seconds (linearly, sample by
    /// sample); 0 or less sets it at once. Returns at once.
    ///
    /// - Parameters:
    ///   - volume: The volume to reach, 0 to 1 (outside: the nearest end; not a number: ignored).
    ///   - duration: The fade's seconds.
    open func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) {
        guard volume.isFinite else { return }
        renderer.fadeVolume(to: min(1, max(0, volume)), over: duration.isFinite ? max(0, duration) : 0)
    }

    /// The stereo position, -1 (left only) to 1 (right only), 0 centred (the default); values outside
    /// are taken as the nearest end, and one that is not a number is ignored. A balance: turning one
    /// way turns the other side down (at 0.5 to the right, the left plays at half), the near side stays
    /// as recorded; a mono file plays on both sides. Apple does not document its pan law.
    open var pan: Float {
        get { renderer.pan }
        set {
            guard newValue.isFinite else { return }
            renderer.pan = min(1, max(-1, newValue))
        }
    }

    /// Whether ``rate`` applies. Apple asks for it before ``prepareToPlay()``; Avocet's applies it
    /// whenever it is set (a playing player goes on at the new rate).
    open var enableRate: Bool {
        get { renderer.enableRate }
        set { renderer.enableRate = newValue }
    }

    /// The playback rate, 0.5 (half speed) to 2 (double), 1 by default; used only with ``enableRate``.
    /// Values outside are kept and played as the nearest end; one that is not a number is ignored. A
    /// playing player goes on at the new rate from where it is.
    ///
    /// The pitch stays, as Apple's does: the sound is time-stretched (WSOLA, on the player's thread,
    /// about a tenth of a core at most); a rate of 1 plays the samples untouched.
    open var rate: Float {
        get { renderer.rate }
        set {
            guard newValue.isFinite else { return }
            renderer.rate = newValue
        }
    }

    /// How many times the sound plays again after the first: 0 plays it once (the default), 1 twice,
    /// and a negative number loops until ``stop()`` or ``pause()``. Read at each end, so it may be
    /// changed while playing.
    open var numberOfLoops: Int {
        get { renderer.numberOfLoops }
        set { renderer.numberOfLoops = newValue }
    }

    // MARK: - The sound's facts

    /// The channels of the sound in the file.
    open var numberOfChannels: Int { Int(media.channels) }

    /// The sound's format as the file stores it (``AVAudioFormat/settings`` of it): the format ID (linear
    /// PCM, MPEG-4 AAC, MPEG Layer 3...), the sample rate and channels, and for linear PCM its bits,
    /// float and byte order.
    open var settings: [String: Any] { media.format.settings }

    /// The sound's format as the file stores it.
    open var format: AVAudioFormat { media.format }

    // MARK: - Metering

    /// Whether the player measures the levels of what it plays (off by default; it costs a pass over
    /// the samples). Measured on the sound as decoded, before volume and pan, per channel of the file.
    open var isMeteringEnabled: Bool {
        get { renderer.isMeteringEnabled }
        set { renderer.isMeteringEnabled = newValue }
    }

    /// Works out the levels ``averagePower(forChannel:)`` and ``peakPower(forChannel:)`` give: those of
    /// the sound heard over the last tenth of a second (nothing heard: -160). Does nothing unless
    /// ``isMeteringEnabled``. Cheap; never blocks.
    open func updateMeters() {
        renderer.updateMeters()
    }

    /// The average power of a channel as of the last ``updateMeters()``, in dBFS: the mean of the
    /// squared samples in decibels, from -160 (silence) to 0 (a full-scale square wave); a sine of
    /// amplitude 0.5 is about -9 dB. Apple does not document its averaging; this is the plain mean over
    /// the tenth of a second.
    ///
    /// - Parameter channelNumber: The channel, from 0 (mono, or left).
    /// - Returns: The level; -160 for a channel the sound lacks or with metering off.
    open func averagePower(forChannel channelNumber: Int) -> Float {
        renderer.levels(channelNumber).average
    }

    /// The peak power of a channel as of the last ``updateMeters()``, in dBFS: the largest sample's
    /// magnitude over the tenth of a second in decibels, from -160 to 0 (a sine of amplitude 0.5 is
    /// about -6 dB).
    ///
    /// - Parameter channelNumber: The channel, from 0 (mono, or left).
    /// - Returns: The level; -160 for a channel the sound lacks or with metering off.
    open func peakPower(forChannel channelNumber: Int) -> Float {
        renderer.levels(channelNumber).peak
    }

    // MARK: - Delegate

    /// Told when the player finishes or meets a decoding error, on the player's delegate queue (see
    /// ``AVAudioPlayerDelegate``). Held weakly.
    open var delegate: (any AVAudioPlayerDelegate)? {
        get { delegateLock.withLock { storedDelegate } }
        set { delegateLock.withLock { storedDelegate = newValue } }
    }

    // MARK: - Avocet

    /// The audio device to use instead of the configured one (Avocet's tests: ALSA's null or file
    /// devices): a name and, for a device defined on the spot, its ALSA configuration. Takes effect
    /// when the player's thread next starts (at the next prepare or play after a stop or the end).
    package var audioDevice: (name: String, configuration: String?)? {
        get { renderer.device }
        set { renderer.device = newValue }
    }

    /// Frames of the device's rate this player has played (written, or paced on the host clock).
    package var audioFramesWritten: Int { renderer.framesWritten }

    /// Counts this player's threads alive; the count outlives the player (it holds the player's
    /// renderer, not the player), so a test can see the thread end once the player is gone.
    package var liveThreadCounter: @Sendable () -> Int {
        let renderer = renderer
        return { renderer.liveThreads.load(ordering: .relaxed) }
    }
}
