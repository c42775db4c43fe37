#!/usr/bin/env python3
"""avtool thumbnail and thumbnails against the ffmpeg command on the same jobs, in one run, as ratios.

    python3 Benchmarks/thumbnails.py [--runs N] [--no-build] [FILE ...]

Builds avtool in release mode (unless --no-build), makes the benchmark corpus when missing
(Benchmarks/make-corpus.py: 1080p H.264 MP4 and HEVC MOV), then for each file, at T = 63% of its
duration (whole processes, median of N runs; below 1 means avtool is faster):
  default  `avtool thumbnail F --at T -o a.png` (Apple's default tolerances: the nearest keyframe)
           vs  `ffmpeg -ss T -i F -frames:v 1 f.png`
  exact    `avtool thumbnail F --at T --exact -o a.png` (the picture showing at T)  vs  the same ffmpeg
  strip    one `avtool thumbnails F --count 100 --max-size 160x0 -o DIR --format jpeg` (images(for:),
           one decoder, default tolerances), and with --exact,  vs  100 runs of
           `ffmpeg -ss t -i F -frames:v 1 -vf scale=160:-1 DIR/i.jpg` at the same times (once: slow)
Peak resident memory per process comes from wait4. Not a test: run it on demand.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import measure, prepare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Benchmarks", "out", "corpus")


def duration(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", path],
                         check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["format"]["duration"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    avtool = prepare(ROOT, build=not args.no_build)
    files = args.files or [os.path.join(CORPUS, name) for name in ("movie.mp4", "iphone.mov")]
    if not all(os.path.exists(f) for f in files):
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "make-corpus.py")], check=True)
    print(f"machine: {os.cpu_count()} cores; median of {args.runs} runs; ratio = avtool / ffmpeg (below 1: avtool faster)")
    with tempfile.TemporaryDirectory() as tmp:
        a, f = os.path.join(tmp, "a.png"), os.path.join(tmp, "f.png")
        for path in files:
            name = os.path.basename(path)
            at = round(duration(path) * 0.63, 3)
            ff = [["ffmpeg", "-v", "error", "-y", "-ss", str(at), "-i", path, "-frames:v", "1", f]]
            ff_time, ff_rss = measure(ff, args.runs)
            for mode, extra in (("default", []), ("exact", ["--exact"])):
                av = [[avtool, "thumbnail", path, "--at", str(at), "-o", a] + extra]
                av_time, av_rss = measure(av, args.runs)
                print(f"{name:12} one thumbnail {mode:7} at {at:6.3f} s: avtool {av_time * 1000:7.1f} ms {av_rss // 1024:4d} MiB"
                      f"   ffmpeg {ff_time * 1000:7.1f} ms {ff_rss // 1024:4d} MiB   ratio {av_time / ff_time:.2f}")
            length = duration(path)
            times = [length * (i + 0.5) / 100 for i in range(100)]
            strip = os.path.join(tmp, "strip")
            ff_strip = [["ffmpeg", "-v", "error", "-y", "-ss", f"{t:.4f}", "-i", path, "-frames:v", "1",
                                 "-vf", "scale=160:-1", os.path.join(tmp, f"s{i}.jpg")] for i, t in enumerate(times)]
            ff_strip_time, _ = measure(ff_strip, 1)
            for mode, extra in (("default", []), ("exact", ["--exact"])):
                av_strip = [[avtool, "thumbnails", path, "--count", "100", "--max-size", "160x0", "--format", "jpeg",
                                     "-o", strip] + extra]
                av_strip_time, av_strip_rss = measure(av_strip, max(1, args.runs // 2))
                print(f"{name:12} 100-picture strip {mode:7}: avtool {av_strip_time * 1000:7.1f} ms {av_strip_rss // 1024:4d} MiB"
                      f"   100 ffmpeg runs {ff_strip_time * 1000:8.1f} ms   avtool {ff_strip_time / av_strip_time:5.1f}x faster")


if __name__ == "__main__":
    main()
