// FFmpeg's bare packet loop, the yardstick for Avocet's stored samples (avocet-read-bench stored): the
// file opened by path (no avformat_find_stream_info, which an MP4 header makes needless), then
// av_read_frame until the end, each packet counted and unreferenced. Nothing is copied or decoded.
// With `video` or `audio`, every other stream is discarded (AVDISCARD_ALL), as each of Avocet's track
// outputs reads its own track through a demuxer of its own.
//
//     cc -O2 -o Benchmarks/out/ffmpeg_read Benchmarks/ffmpeg_read.c $(pkg-config --cflags --libs libavformat libavcodec libavutil)
//     Benchmarks/out/ffmpeg_read FILE [video|audio]
//
// Prints one JSON line: packets (all streams), videoPackets and audioPackets (the first video and audio
// streams, as avocet-read-bench stored reads them), bytes (of those two streams) and seconds (from
// opening the file to its end). Benchmarks/reading.py builds and runs it.
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "video") != 0 && strcmp(argv[2], "audio") != 0)) {
        fprintf(stderr, "usage: ffmpeg_read FILE [video|audio]\n");
        return 2;
    }
    av_log_set_level(AV_LOG_ERROR);
    double start = now();
    AVFormatContext *format = NULL;
    int rc = avformat_open_input(&format, argv[1], NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "ffmpeg_read: cannot open %s: %s\n", argv[1], av_err2str(rc));
        return 1;
    }
    int video = -1, audio = -1;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        enum AVMediaType type = format->streams[i]->codecpar->codec_type;
        if (type == AVMEDIA_TYPE_VIDEO && video < 0) video = (int)i;
        if (type == AVMEDIA_TYPE_AUDIO && audio < 0) audio = (int)i;
    }
    if (argc == 3) {
        int kept = strcmp(argv[2], "video") == 0 ? video : audio;
        for (unsigned i = 0; i < format->nb_streams; i++) {
            if ((int)i != kept) format->streams[i]->discard = AVDISCARD_ALL;
        }
    }
    AVPacket *packet = av_packet_alloc();
    long packets = 0, videoPackets = 0, audioPackets = 0;
    long long bytes = 0;
    while ((rc = av_read_frame(format, packet)) >= 0) {
        packets++;
        if (packet->stream_index == video || packet->stream_index == audio) {
            if (packet->stream_index == video) videoPackets++; else audioPackets++;
            bytes += packet->size;
        }
        av_packet_unref(packet);
    }
    if (rc != AVERROR_EOF) {
        fprintf(stderr, "ffmpeg_read: %s: %s\n", argv[1], av_err2str(rc));
        return 1;
    }
    av_packet_free(&packet);
    avformat_close_input(&format);
    printf("{\"audioPackets\": %ld, \"bytes\": %lld, \"packets\": %ld, \"seconds\": %.6f, \"videoPackets\": %ld}\n",
           audioPackets, bytes, packets, now() - start, videoPackets);
    return 0;
}
