/// How an `AudioSampleReader` decodes its stream.
package enum AudioDecoding: Sendable, Equatable {
    /// One decoder, on the reader's thread: what a player wants (it reads a little at a time, and its
    /// seeks are many).
    case oneDecoder
    /// An MP3 or Opus stream cut into segments of `seconds` (nil: the codec's, 10 s or 20 s), decoded
    /// at once on the engine's compute threads, each from `prerollSeconds` before it (nil: what the
    /// codec needs), and checked at its seams (`SegmentedAudioDecoder`): the same samples as one
    /// decoder, sooner on several cores, for 5% (MP3) to 12% (Opus) more CPU and up to three
    /// segments' sound in memory. Other codecs decode as `.oneDecoder`. What a reader of whole files
    /// wants (`AVAudioFile`).
    case segmented(seconds: Double? = nil, prerollSeconds: Double? = nil)
}
