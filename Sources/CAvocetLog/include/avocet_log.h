#ifndef AVOCET_LOG_H
#define AVOCET_LOG_H

// FFmpeg's log callback for Avocet. FFmpeg calls its callback for every message at every level, with
// a va_list Swift cannot take, so this is C, and cheap. While a thread runs an Avocet operation
// (between avocet_log_capture_begin and _end), error-level messages are kept in that thread's buffer
// for the error Avocet throws, and the rest are dropped unless verbose logging was asked for. So are
// the messages of FFmpeg's own threads working on Avocet's codec contexts (marked by
// avocet_log_codec_tag). Messages from any other thread or context (a host application's own FFmpeg
// use) go to FFmpeg's default callback, under the host's own log level: Avocet never changes it.
// Only MediaEngine uses this.

/// Installs the callback (once is enough; calling again only updates `verbose`).
void avocet_install_log_callback(int verbose);

/// Starts capturing on this thread; returns whether it was capturing already (nested operations).
int avocet_log_capture_begin(void);

/// Ends the capture begun by the matching begin, given what it returned.
void avocet_log_capture_end(int outer);

/// Copies this thread's last error-level message in the current capture ("" when none) into `out`.
void avocet_log_copy_last_error(char *out, int size);

/// The value Avocet stores in the `opaque` field of each codec context it makes, so that the messages
/// of FFmpeg's own threads working on it (frame-threaded decoders, encoders) are known for Avocet's.
void *avocet_log_codec_tag(void);

#endif
