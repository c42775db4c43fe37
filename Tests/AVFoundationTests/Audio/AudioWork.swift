import Testing

/// The suites whose tests decode, convert and encode sound synchronously (audio files, the converter
/// on the fixtures, the real-code shapes), one test at a time: a synchronous test holds a thread of
/// Swift's cooperative pool (two on the project's machine) for as long as it works, and several at
/// once starved the other suites' waits on a busy machine (players not ready within 10 s).
@Suite("Audio work, one test at a time", .serialized)
struct AudioWork {}
