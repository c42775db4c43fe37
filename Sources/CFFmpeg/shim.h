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
static inline int avocet_averror_eperm(void) { return AVERROR(EPERM); }
static inline int avocet_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int avocet_averror_enosys(void) { return AVERROR(ENOSYS); }
static inline int avocet_averror_patchwelcome(void) { return AVERROR_PATCHWELCOME; }
static inline int avocet_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int avocet_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int avocet_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int64_t avocet_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int avocet_seek_size(void) { return AVSEEK_SIZE; }
static inline int avocet_error_max_string_size(void) { return AV_ERROR_MAX_STRING_SIZE; }

#endif
