// FFmpeg's own header-parse rate, the yardstick for Avocet's `load(.duration, .tracks, .commonMetadata)`:
// how many files a second libavformat opens, cycling through the given files, one at a time.
//
//     cc -O2 -o Benchmarks/out/ffmpeg_open Benchmarks/ffmpeg_open.c $(pkg-config --cflags --libs libavformat libavutil)
//     taskset -c 0 Benchmarks/out/ffmpeg_open find --seconds 2 Fixtures/av.mp4 ...
//
// Modes, per file, with default options and the file opened by path:
//   find  avformat_open_input + avformat_find_stream_info + avformat_close_input
//   open  avformat_open_input + avformat_close_input
// Runs for --seconds S (default 3) or exactly --iterations N opens, after --warmup S (default 0.3) of
// the same work, and prints one line:
//   opens N in T s: R opens/s (F files, mode M, K streams, E failures)
// A failed open or find_stream_info counts as a failure (reported per file on stderr) and not as an
// open; the exit status is 1 when any failed. Benchmarks/header_parse.py builds and runs it.
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct counts {
    long opens, streams, failures;
};

// One open (and find_stream_info when `find`) of `path`; returns 0 or the failing FFmpeg error code.
static int open_once(const char *path, int find, struct counts *c) {
    AVFormatContext *ctx = NULL;
    int rc = avformat_open_input(&ctx, path, NULL, NULL);
    if (rc < 0) return rc;
    if (find) rc = avformat_find_stream_info(ctx, NULL);
    if (rc >= 0) c->streams += ctx->nb_streams;
    avformat_close_input(&ctx);
    return rc < 0 ? rc : 0;
}

// Cycles through `files` until `seconds` pass (or `iterations` opens, when positive).
static struct counts run(char **files, int n, int find, double seconds, long iterations, int *first_error) {
    struct counts c = {0, 0, 0};
    double deadline = now() + seconds;
    for (long i = 0; iterations > 0 ? i < iterations : now() < deadline; i++) {
        int f = (int)(i % n);
        int rc = open_once(files[f], find, &c);
        if (rc < 0) {
            c.failures++;
            if (first_error[f] == 0) first_error[f] = rc;
        } else {
            c.opens++;
        }
    }
    return c;
}

static void usage(void) {
    fprintf(stderr, "usage: ffmpeg_open find|open [--seconds S | --iterations N] [--warmup S] FILE...\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 3) usage();
    int find;
    if (strcmp(argv[1], "find") == 0) find = 1;
    else if (strcmp(argv[1], "open") == 0) find = 0;
    else usage();
    double seconds = 3, warmup = 0.3;
    long iterations = 0;
    int i = 2;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) iterations = atol(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) warmup = atof(argv[++i]);
        else if (strcmp(argv[i], "--") == 0) { i++; break; }
        else break;
    }
    char **files = argv + i;
    int n = argc - i;
    if (n <= 0) usage();
    av_log_set_level(AV_LOG_QUIET);

    int *first_error = calloc((size_t)n, sizeof *first_error);
    if (!first_error) return 1;
    if (warmup > 0) run(files, n, find, warmup, 0, first_error);   // page cache, lazy tables
    memset(first_error, 0, (size_t)n * sizeof *first_error);
    double start = now();
    struct counts c = run(files, n, find, seconds, iterations, first_error);
    double elapsed = now() - start;

    printf("opens %ld in %.3f s: %.1f opens/s (%d files, mode %s, %ld streams, %ld failures)\n",
           c.opens, elapsed, (double)c.opens / elapsed, n, find ? "find" : "open", c.streams, c.failures);
    for (int f = 0; f < n; f++) {
        if (first_error[f] != 0) {
            char message[AV_ERROR_MAX_STRING_SIZE] = {0};
            av_strerror(first_error[f], message, sizeof message);
            fprintf(stderr, "failed: %s: %s\n", files[f], message);
        }
    }
    free(first_error);
    return c.failures > 0 ? 1 : 0;
}
