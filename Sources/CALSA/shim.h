#ifndef AVOCET_CALSA_SHIM_H
#define AVOCET_CALSA_SHIM_H
#include <alsa/asoundlib.h>

// ALSA prints its own errors on stderr unless told not to; Avocet reports them itself, once.
static void avocet_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void avocet_alsa_silence(void) {
    snd_lib_error_set_handler(avocet_alsa_quiet);
}
#endif
