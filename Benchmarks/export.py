#!/usr/bin/env python3
"""avtool splice and export against the ffmpeg command on the same jobs, in one run, as ratios.

    python3 Benchmarks/export.py [--runs N] [--no-build] [--skip-long]

Builds avtool in release mode (unless --no-build), makes the corpus when missing
(Benchmarks/make-corpus.py: movie.mp4 is 10 s of 1080p30 H.264 + AAC; long.mp4, made here, is
10 minutes of 640x360 H.264 + AAC), then (whole processes, median of N runs; below 1 means avtool
is faster):
  splice    `avtool splice movie.mp4 movie.mp4 movie.mp4 -o out.mp4` (passthrough: stream copy)
            vs `ffmpeg -f concat -safe 0 -i list.txt -c copy out.mp4` (the concat demuxer)
  720p      `avtool export movie.mp4 --preset 1280x720 -o out.mp4` (libx264 crf 23 preset medium, AAC 128k)
            vs `ffmpeg -i movie.mp4 -vf scale=1280:720 -c:v libx264 -crf 23 -preset medium -c:a aac -b:a 128k`
  long      peak resident memory exporting the 10-minute file: passthrough, and re-encoded with the
            640x480 preset (once each; with the same ffmpeg jobs for comparison)
Peak resident memory per process comes from wait4. Not a test: run it on demand.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import measure, prepare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Benchmarks", "out", "corpus")


def make_long(path):
    print("making", path, "(10 minutes of 640x360; a few minutes on 2 cores)", flush=True)
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=600",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=600",
                    "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-b:a", "96k", path], check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--skip-long", action="store_true")
    args = parser.parse_args()
    avtool = prepare(ROOT, build=not args.no_build)
    movie = os.path.join(CORPUS, "movie.mp4")
    if not os.path.exists(movie):
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "make-corpus.py")], check=True)
    long = os.path.join(CORPUS, "long.mp4")
    if not args.skip_long and not os.path.exists(long):
        make_long(long)
    print(f"machine: {os.cpu_count()} cores; median of {args.runs} runs; ratio = avtool / ffmpeg (below 1: avtool faster)")
    with tempfile.TemporaryDirectory() as tmp:
        a, f = os.path.join(tmp, "a.mp4"), os.path.join(tmp, "f.mp4")

        def fresh(cmd, out):
            # Each run writes a new file: remove the last one first (both tools refuse or overwrite).
            return [["rm", "-f", out], cmd]

        listing = os.path.join(tmp, "list.txt")
        with open(listing, "w") as handle:
            handle.write("".join(f"file '{movie}'\n" for _ in range(3)))
        av = fresh([avtool, "splice", movie, movie, movie, "-o", a], a)
        ff = fresh(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing, "-c", "copy", f], f)
        av_time, av_rss = measure(av, args.runs)
        ff_time, ff_rss = measure(ff, args.runs)
        print(f"splice 3 x 10 s 1080p (stream copy): avtool {av_time * 1000:7.1f} ms {av_rss // 1024:4d} MiB"
              f"   ffmpeg concat {ff_time * 1000:7.1f} ms {ff_rss // 1024:4d} MiB   ratio {av_time / ff_time:.2f}")

        encode_runs = max(1, args.runs // 2)
        av = fresh([avtool, "export", movie, "--preset", "1280x720", "-o", a], a)
        ff = fresh(["ffmpeg", "-v", "error", "-y", "-i", movie, "-vf", "scale=1280:720", "-c:v", "libx264", "-crf", "23",
                    "-preset", "medium", "-c:a", "aac", "-b:a", "128k", f], f)
        av_time, av_rss = measure(av, encode_runs)
        ff_time, ff_rss = measure(ff, encode_runs)
        print(f"10 s 1080p -> 1280x720 (libx264 crf 23 medium, AAC 128k): avtool {av_time:6.2f} s {av_rss // 1024:4d} MiB"
              f"   ffmpeg {ff_time:6.2f} s {ff_rss // 1024:4d} MiB   ratio {av_time / ff_time:.2f}")

        if not args.skip_long:
            for label, avcmd, ffcmd in (
                ("passthrough", [avtool, "export", long, "--preset", "passthrough", "-o", a],
                 ["ffmpeg", "-v", "error", "-y", "-i", long, "-c", "copy", f]),
                ("640x480 encode", [avtool, "export", long, "--preset", "640x480", "-o", a],
                 ["ffmpeg", "-v", "error", "-y", "-i", long, "-c:v", "libx264", "-crf", "23", "-preset", "medium",
                  "-c:a", "aac", "-b:a", "128k", f]),
            ):
                av_time, av_rss = measure(fresh(avcmd, a), 1)
                ff_time, ff_rss = measure(fresh(ffcmd, f), 1)
                print(f"10-minute 640x360 export, {label:14}: avtool {av_time:7.2f} s peak {av_rss // 1024:4d} MiB"
                      f"   ffmpeg {ff_time:7.2f} s peak {ff_rss // 1024:4d} MiB   ratio {av_time / ff_time:.2f}")


if __name__ == "__main__":
    main()
