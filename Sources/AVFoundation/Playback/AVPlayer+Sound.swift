internal import MediaEngine
import Dispatch
import Foundation

// The player's sound: the renderer made on first use, its gain, and its device failing.
extension AVPlayer {
    /// The device the player's sound goes to, instead of the configured one: a name, and an ALSA
    /// configuration defining it (Avocet's tests use a file device). Set before playing.
    package var audioDevice: (name: String, configuration: String?)? {
        get { snapshot.audioDevice }
        set { change { $0.audioDevice = newValue } }
    }

    /// The item time being heard now, on a device that keeps time (nil otherwise, or when not playing).
    package var audioHeardTime: CMTime? {
        snapshot.audio?.heardTime(atHost: CMClock.hostTimeClock.time.seconds).map { CMTime(seconds: $0, preferredTimescale: 90_000) }
    }

    /// Frames of sound written to the device so far.
    package var audioFramesWritten: Int { snapshot.audio?.framesWritten.load(ordering: .relaxed) ?? 0 }

    /// Starts the sound from the current time when playing an item with an enabled audio track; stops
    /// it otherwise. The renderer (and the device) is made the first time.
    func updateSound() {
        let s = snapshot
        let playing = s.machine.timeControlStatus == .playing
        let audible = s.item?.snapshot.tracks.contains { $0.isEnabled && $0.assetTrack?.mediaType == .audio } ?? false
        guard playing, audible, let item = s.item else {
            s.audio?.stop()
            return
        }
        var audio = s.audio
        if audio == nil && !s.audioTried {
            audio = AudioRenderer(device: s.audioDevice, clock: { [weak self] in self?.currentTime() ?? .zero },
                                  failed: { [weak self] error in self?.soundDidFail(error) })
            change { $0.audio = audio; $0.audioTried = true }
        }
        audio?.setGain(s.isMuted ? 0 : s.volume)
        audio?.play(item, from: currentTime(), rate: s.machine.rate)
    }

    /// The sound device failed for good: the player can no longer play (``status``
    /// ``Status-swift.enum/failed``, ``error`` an ``AVError/Code-swift.enum/mediaServicesWereReset``
    /// naming the device's failure, paused; seeks and prerolls waiting hear false). As on Apple's
    /// platforms, make a new player to play again (its device is opened afresh). Called on the
    /// renderer's thread; Avocet's tests call it to stand for a device that fails.
    package func soundDidFail(_ failure: any Error) {
        let error = AVError(.mediaServicesWereReset, userInfo: [
            NSLocalizedDescriptionKey: "The sound device stopped working: \(failure.localizedDescription)",
            NSUnderlyingErrorKey: failure as NSError,
        ])
        guard let (oldStatus, oldRate, interrupted) = change({ $0.machine.fail(error) }) else { return }
        AVPlayer.unfinished(interrupted)
        keyValueObservers.didSet("error", from: (nil as (any Error)?) as Any, to: (error as (any Error)?) as Any)
        keyValueObservers.didChange("status", from: oldStatus, to: Status.failed)
        if oldRate != 0 {
            keyValueObservers.didChange("rate", from: oldRate, to: Float(0))
            NotificationCenter.default.post(name: AVPlayer.rateDidChangeNotification, object: self)
        }
        refreshPlayback()
    }

    func updateGain() {
        let s = snapshot
        s.audio?.setGain(s.isMuted ? 0 : s.volume)
    }
}
