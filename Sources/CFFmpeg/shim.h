#ifndef AVOCET_CFFMPEG_SHIM_H
#define AVOCET_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

// Function-like macros do not import into Swift; these inline functions carry their values.
static inline int avocet_averror_eof(void) { return AVERROR_EOF; }
static inline int avocet_averror_exit(void) { return AVERROR_EXIT; }
static inline int avocet_averror_eio(void) { return AVERROR(EIO); }
static inline int avocet_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int avocet_averror_einval(void) { return AVERROR(EINVAL); }
static inline int avocet_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int avocet_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int avocet_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int avocet_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int64_t avocet_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int avocet_seek_size(void) { return AVSEEK_SIZE; }
static inline int avocet_error_max_string_size(void) { return AV_ERROR_MAX_STRING_SIZE; }


#include <stdio.h>
#include <stdarg.h>

// FFmpeg's log callback is variadic (va_list), which Swift cannot implement; this one formats the line
// and hands it to a plain Swift function. Only MediaEngine imports this header.
typedef void (*avocet_log_sink)(int level, const char *message);
static avocet_log_sink avocet_current_log_sink = 0;

static inline void avocet_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    (void)avcl;
    if (!avocet_current_log_sink || !fmt) return;
    if (level > AV_LOG_ERROR && level > av_log_get_level()) return;
    char line[1024];
    vsnprintf(line, sizeof line, fmt, vl);
    avocet_current_log_sink(level, line);
}

static inline void avocet_install_log_sink(avocet_log_sink sink) {
    avocet_current_log_sink = sink;
    av_log_set_callback(avocet_log_callback);
}

#endif
