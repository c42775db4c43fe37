#include "avocet_log.h"

#include <libavutil/log.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local int capturing = 0;
static _Thread_local char last_error[512];
static int verbose_logging = 0;

static void avocet_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (!capturing) {
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
