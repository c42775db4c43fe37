// FFmpeg's own seek-to-picture time, the yardstick for Avocet's player seeks (avocet-play-bench seek):
// the file is opened once; for each time, an exact seek (the keyframe at or before it, then decoding
// up to the picture showing at it) and a wide one (the keyframe at or before it, decoded alone), each
// ending with the picture converted to BGRA, as a player's video output hands it out.
//
//     cc -O2 -o Benchmarks/out/ffmpeg_seek Benchmarks/ffmpeg_seek.c \
//        $(pkg-config --cflags --libs libavformat libavcodec libswscale libavutil)
//     Benchmarks/out/ffmpeg_seek FILE TIME...
//
// Prints `seekN exact|wide T ms` lines and exactMsMedian / wideMsMedian. Benchmarks/playback.py runs it.
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000 + (double)ts.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n) {
    qsort(values, n, sizeof *values, compare);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: ffmpeg_seek FILE TIME...\n");
        return 2;
    }
    av_log_set_level(AV_LOG_ERROR);
    AVFormatContext *fmt = NULL;
    if (avformat_open_input(&fmt, argv[1], NULL, NULL) < 0 || avformat_find_stream_info(fmt, NULL) < 0) return 1;
    int vs = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vs < 0) return 1;
    AVStream *st = fmt->streams[vs];
    for (unsigned i = 0; i < fmt->nb_streams; i++) if ((int)i != vs) fmt->streams[i]->discard = AVDISCARD_ALL;
    const AVCodec *codec = avcodec_find_decoder(st->codecpar->codec_id);
    AVCodecContext *dec = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(dec, st->codecpar);
    if (avcodec_open2(dec, codec, NULL) < 0) return 1;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    uint8_t *bgra = malloc((size_t)dec->width * dec->height * 4);
    struct SwsContext *sws = NULL;
    int n = argc - 2;
    double *exact = calloc(n, sizeof *exact), *wide = calloc(n, sizeof *wide);
    for (int i = 0; i < n; i++) {
        double seconds = atof(argv[i + 2]);
        int64_t target = av_rescale_q((int64_t)(seconds * 1e6), AV_TIME_BASE_Q, st->time_base);
        for (int mode = 0; mode < 2; mode++) {
            double start = now_ms();
            av_seek_frame(fmt, vs, target, AVSEEK_FLAG_BACKWARD);
            avcodec_flush_buffers(dec);
            int done = 0;
            while (!done && av_read_frame(fmt, pkt) >= 0) {
                if (pkt->stream_index == vs && avcodec_send_packet(dec, pkt) >= 0) {
                    while (!done && avcodec_receive_frame(dec, frame) >= 0) {
                        int64_t pts = frame->best_effort_timestamp;
                        // Wide: the first picture; exact: the one showing at the target.
                        if (mode == 1 || pts + frame->pkt_duration > target) {
                            sws = sws_getCachedContext(sws, frame->width, frame->height, frame->format, frame->width, frame->height,
                                                       AV_PIX_FMT_BGRA, SWS_BILINEAR, NULL, NULL, NULL);
                            uint8_t *planes[4] = {bgra};
                            int strides[4] = {frame->width * 4};
                            sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
                            done = 1;
                        }
                        av_frame_unref(frame);
                    }
                }
                av_packet_unref(pkt);
            }
            double ms = now_ms() - start;
            (mode ? wide : exact)[i] = ms;
            printf("seek%d %s %.3f %.1f\n", i, mode ? "wide" : "exact", seconds, ms);
        }
    }
    printf("exactMsMedian %.1f\n", median(exact, n));
    printf("wideMsMedian %.1f\n", median(wide, n));
    return 0;
}
