// AVFAudio stands on CoreMedia's audio types (AudioStreamBasicDescription, the format IDs and flags),
// which Apple's CoreAudioTypes gives it; AVFoundation re-exports AVFAudio, as Apple's does.
@_exported import CoreMedia
