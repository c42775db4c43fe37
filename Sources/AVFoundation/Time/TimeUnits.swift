// Darwin's time-unit constants, which Apple's AVFoundation code uses with CMTime
// (`CMTimeScale(NSEC_PER_SEC)`). Linux's Dispatch does not export them; Avocet does.
/// Nanoseconds in a second (1,000,000,000).
public var NSEC_PER_SEC: UInt64 { 1_000_000_000 }
/// Nanoseconds in a millisecond (1,000,000).
public var NSEC_PER_MSEC: UInt64 { 1_000_000 }
/// Nanoseconds in a microsecond (1,000).
public var NSEC_PER_USEC: UInt64 { 1_000 }
/// Microseconds in a second (1,000,000).
public var USEC_PER_SEC: UInt64 { 1_000_000 }
