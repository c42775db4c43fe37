internal import CALSA
import Foundation

/// The one owner of an ALSA playback device (`snd_pcm_t`): 32-bit float stereo at 48 kHz, interleaved,
/// about a fifth of a second of buffer. `write` blocks until the device takes the samples (a real
/// device takes them at its pace; the null and file devices at once), so call it on a thread of the
/// engine's own, never on Swift's cooperative pool. One caller at a time. Opening blocks every signal on
/// the calling thread (see `init`): open it on a thread of its own.
package final class AudioDevice {
    private var pcm: OpaquePointer?
    package let name: String
    /// Whether the device plays at a pace of its own (a sound card, PulseAudio), so that what it has
    /// played is a clock; ALSA's null and file devices take samples as fast as they come.
    package private(set) var keepsTime = false
    package static let rate: Int32 = 48_000
    package static let channels: Int32 = 2

    /// Opens the device `name` ("default", "null", a "hw:..." name, or one `configuration` defines in
    /// ALSA's configuration syntax). Throws when it cannot be opened or set up (no sound card).
    package init(name: String, configuration: String? = nil) throws {
        self.name = name
        avocet_alsa_silence()
        // Threads a plugin starts (PulseAudio's client starts one) inherit this thread's signal mask.
        // With every signal blocked they never take one meant for the program: a SIGCHLD taken by
        // such a thread is lost to Foundation's `Process`, whose children then are never reaped.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        var device: OpaquePointer?
        var rc: Int32
        if let configuration {
            var top: OpaquePointer?
            rc = snd_config_top(&top)
            guard rc >= 0, let top else { throw AudioDevice.failure(rc, "read the configuration", name) }
            defer { snd_config_delete(top) }
            var input: OpaquePointer?
            rc = configuration.withCString { text in snd_input_buffer_open(&input, text, strlen(text)) }
            guard rc >= 0, let input else { throw AudioDevice.failure(rc, "read the configuration", name) }
            rc = snd_config_load(top, input)
            snd_input_close(input)
            guard rc >= 0 else { throw AudioDevice.failure(rc, "read the configuration", name) }
            rc = snd_pcm_open_lconf(&device, name, SND_PCM_STREAM_PLAYBACK, 0, top)
        } else {
            rc = snd_pcm_open(&device, name, SND_PCM_STREAM_PLAYBACK, 0)
        }
        guard rc >= 0, let device else { throw AudioDevice.failure(rc, "open", name) }
        pcm = device
        rc = snd_pcm_set_params(device, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(AudioDevice.channels),
                                UInt32(AudioDevice.rate), 1, 200_000)
        guard rc >= 0 else { throw AudioDevice.failure(rc, "set up", name) }
        let type = snd_pcm_type(device)
        keepsTime = type != SND_PCM_TYPE_NULL && type != SND_PCM_TYPE_FILE
    }

    /// Frames written but not yet played (0 when the device cannot say).
    package func pendingFrames() -> Int {
        guard let pcm else { return 0 }
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &delay) >= 0 else { return 0 }
        return max(0, Int(delay))
    }

    deinit {
        if let pcm { snd_pcm_close(pcm) }
    }

    private static func failure(_ rc: Int32, _ operation: String, _ name: String) -> MediaEngineError {
        MediaEngineError(.failed, source: "audio device \(name)", operation: operation, reason: String(cString: snd_strerror(rc)))
    }

    /// Plays interleaved stereo samples; blocks while the device's buffer is full. Recovers from an
    /// underrun (the device ran dry while playback paused or stalled).
    package func write(_ samples: [Float]) throws {
        guard let pcm else { return }
        var offset = 0
        let frames = samples.count / Int(AudioDevice.channels)
        while offset < frames {
            let written = samples.withUnsafeBufferPointer { buffer in
                snd_pcm_writei(pcm, buffer.baseAddress.map { $0 + offset * Int(AudioDevice.channels) }, snd_pcm_uframes_t(frames - offset))
            }
            if written < 0 {
                let rc = snd_pcm_recover(pcm, Int32(clamping: written), 1)
                if rc < 0 { throw AudioDevice.failure(rc, "play", name) }
                continue
            }
            offset += Int(written)
        }
    }

    /// Stops at once, dropping what the device still holds, ready to play again.
    package func drop() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }
}
