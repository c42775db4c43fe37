#include "avocet_log.h"

#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local int capturing = 0;
static _Thread_local char last_error[512];
static int verbose_logging = 0;

// The mark Avocet puts in the `opaque` field of every codec context it makes.
static char codec_tag;

void *avocet_log_codec_tag(void) { return &codec_tag; }

// Whether the message comes from one of Avocet's codec contexts, or a decoder thread's copy of one
// (FFmpeg's frame threads copy the context, `opaque` included, and log from threads of their own).
static int from_avocets_codec(void *avcl) {
    if (!avcl) return 0;
    const AVClass *cls = *(const AVClass **)avcl;
    return cls == avcodec_get_class() && ((AVCodecContext *)avcl)->opaque == &codec_tag;
}

static void avocet_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    // Debug and trace messages (a 2-hour MP4's open logs one per sample) go nowhere unless FFmpeg's
    // own level asks for them.
    if (level > AV_LOG_VERBOSE && level > av_log_get_level()) return;
    if (!capturing) {
        // On one of FFmpeg's own threads working for Avocet there is no request to tell: the
        // message goes where Avocet's go when they are not asked for (nowhere, or stderr when verbose).
        if (from_avocets_codec(avcl)) {
            if (fmt && verbose_logging && level <= AV_LOG_VERBOSE) vfprintf(stderr, fmt, vl);
            return;
        }
        av_log_default_callback(avcl, level, fmt, vl);
        return;
    }
    if (!fmt) return;
    if (level <= AV_LOG_ERROR) {
        va_list copy;
        va_copy(copy, vl);
        char line[sizeof last_error];
        int n = vsnprintf(line, sizeof line, fmt, copy);
        va_end(copy);
        // Keep the last line that says something (FFmpeg logs some messages in pieces).
        for (int i = 0; i < n && i < (int)sizeof line - 1; i++) {
            if ((unsigned char)line[i] > ' ') {
                memcpy(last_error, line, sizeof line);
                break;
            }
        }
    }
    if (verbose_logging && level <= AV_LOG_VERBOSE) vfprintf(stderr, fmt, vl);
}

void avocet_install_log_callback(int verbose) {
    verbose_logging = verbose;
    av_log_set_callback(avocet_log_callback);
}

int avocet_log_capture_begin(void) {
    int outer = capturing;
    if (!outer) last_error[0] = 0;
    capturing = 1;
    return outer;
}

void avocet_log_capture_end(int outer) { capturing = outer; }

void avocet_log_copy_last_error(char *out, int size) {
    if (size <= 0) return;
    size_t n = strnlen(last_error, sizeof last_error - 1);
    if (n > (size_t)size - 1) n = (size_t)size - 1;
    memcpy(out, last_error, n);
    out[n] = 0;
}
