#!/usr/bin/env python3
"""Writing movies with AVAssetWriter against FFmpeg on the same frames, in one run, as ratios.

    python3 Benchmarks/writing.py [--runs N] [--no-build] [--only h264,segments,memory]

Builds avocet-write-bench in release mode (unless --no-build; see Benchmarks/Writing/main.swift), makes
its input in Benchmarks/out/corpus when missing, then (whole processes, runs interleaved, median of N;
ratio = Avocet / ffmpeg, below 1 means Avocet is faster):
  h264      writing-1080p.bgra (120 pictures of 1080p testsrc2 as raw 32BGRA, about 1 GB) on standard
            input, encoded to an MP4 at 8 Mb/s with a keyframe every 60 pictures:
            `avocet-write-bench file 1920 1080 30 8000000 OUT < F` (pixel buffers from the adaptor's
            pool, appended from requestMediaDataWhenReady) vs `ffmpeg -f rawvideo -pix_fmt bgra
            -s 1920x1080 -r 30 -i - -c:v libx264 -b:v 8M -g 60 -pix_fmt yuv420p OUT < F`. Both run
            libx264 with its defaults (the same options string, checked). Goal: at most 1.05.
  segments  the HLS segmenter's memory: 640x360 pictures drawn in-process (bars with noise, 2 Mb/s),
            6 s segments handed to the delegate (`avocet-write-bench segments`) against the same
            pictures written to one file (`file`), for 40 s and for 120 s of video: the difference in
            peak resident memory is what the segmenter holds. Goal: below two segments' worth (twice
            the largest segment) and not growing with length.
  memory    peak resident memory writing 10 minutes and 2 hours of drawn 320x240 pictures at 5
            frames a second to one MP4 (a few minutes): flat with length, beside ffmpeg writing
            testsrc2 the same way (FFmpeg's MP4 muxer keeps an index entry per sample, as Avocet's
            file does; the growth both show is that index).
--only runs some of the sections (all three by default).
Peak resident memory per process comes from wait4. Not a test: run it on demand.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import CORPUS, OUT, goal, release_product, row, together  # noqa: E402

WRITTEN = os.path.join(OUT, "written")




def x264_options(path):
    """The options string libx264 writes into its stream (SEI), sorted, for comparing two encodes."""
    with open(path, "rb") as f:
        found = re.search(rb"options: ([ -~]+)", f.read(1 << 20))
    return sorted(found.group(1).split()) if found else None


def frames_file():
    path = os.path.join(CORPUS, "writing-1080p.bgra")
    if not os.path.exists(path):
        os.makedirs(CORPUS, exist_ok=True)
        print(f"making {path} (120 pictures of 1080p testsrc2 as raw BGRA, about 1 GB)", flush=True)
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                        "-i", "testsrc2=size=1920x1080:rate=30", "-frames:v", "120", "-pix_fmt", "bgra",
                        "-f", "rawvideo", path + ".part"], check=True)
        os.replace(path + ".part", path)
    return path


def h264(bench, runs):
    frames = frames_file()
    print(f"h264: {os.path.basename(frames)} (120 pictures, 1080p BGRA) to H.264 at 8 Mb/s in an MP4", flush=True)
    ours, theirs = os.path.join(WRITTEN, "avocet.mp4"), os.path.join(WRITTEN, "ffmpeg.mp4")
    r = together([("avocet", [bench, "file", "1920", "1080", "30", "8000000", ours], True, frames),
                  ("ffmpeg", ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", "1920x1080", "-r", "30",
                              "-i", "-", "-c:v", "libx264", "-b:v", "8M", "-g", "60", "-pix_fmt", "yuv420p", theirs], False, frames)],
                 runs)
    (aw, ac, ar, ao), (fw, fc, fr, _) = r["avocet"], r["ffmpeg"]
    if ao["frames"] != 120:
        sys.exit(f"Avocet wrote {ao['frames']} pictures, not 120")
    if x264_options(ours) is None or x264_options(ours) != x264_options(theirs):
        sys.exit(f"libx264 ran with other options:\n  Avocet {x264_options(ours)}\n  ffmpeg {x264_options(theirs)}")
    row(f"avocet-write-bench file ({ao['frames']} pictures)", aw, ac, ar,
        f"   {ao['frames'] / aw:5.1f} fps   in-process {ao['seconds']:.3f} s   {os.path.getsize(ours) / 1e6:.2f} MB", width=52)
    row("ffmpeg -f rawvideo -i - -c:v libx264", fw, fc, fr,
        f"   ratio {aw / fw:.2f}  {goal(aw <= 1.05 * fw)} (at most 1.05)   {os.path.getsize(theirs) / 1e6:.2f} MB", width=52)


def segments(bench, runs):
    print("segments: 640x360 at 2 Mb/s, 6 s segments to the delegate vs one file; peak RSS", flush=True)
    for seconds in (40, 120):
        count = str(seconds * 30)
        common = ["640", "360", "30", "2000000"]
        r = together([("segments", [bench, "segments"] + common + [os.path.join(WRITTEN, f"segments-{seconds}"), count], True),
                      ("file", [bench, "file"] + common + [os.path.join(WRITTEN, f"file-{seconds}.mp4"), count], True)], runs)
        (sw, _, sr, so), (fw, _, fr, _) = r["segments"], r["file"]
        held, limit = sr - fr, 2 * so["largestSegment"] / 2 ** 20
        print(f"  {seconds:4} s: {so['segments']:3} segments, largest {so['largestSegment'] / 2 ** 20:5.2f} MiB;"
              f" peak RSS segments {sr:6.1f} MiB ({sw:6.2f} s), file {fr:6.1f} MiB ({fw:6.2f} s);"
              f" segmenter holds {held:5.2f} MiB  {goal(held < limit)} (below {limit:.2f} MiB)", flush=True)


def memory(bench, runs):
    print("memory: peak RSS writing 320x240 at 5 fps to one MP4, 10 minutes vs 2 hours", flush=True)
    for name, make in (("avocet-write-bench", lambda s, out: [bench, "file", "320", "240", "5", "300000", out, str(s * 5)]),
                       ("ffmpeg testsrc2 -c:v libx264", lambda s, out: [
                           "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=320x240:rate=5:duration={s}",
                           "-c:v", "libx264", "-b:v", "300k", "-g", "10", "-pix_fmt", "yuv420p", out])):
        keep = name.startswith("avocet")
        r = together([("ten", make(600, os.path.join(WRITTEN, "ten.mp4")), keep),
                      ("two", make(7200, os.path.join(WRITTEN, "two.mp4")), keep)], runs)
        (tw, _, tr, _), (ww, _, wr, _) = r["ten"], r["two"]
        print(f"  {name:30} 10 min {tr:6.1f} MiB ({tw:6.2f} s)   2 h {wr:6.1f} MiB ({ww:7.2f} s)   2 h - 10 min {wr - tr:5.1f} MiB",
              flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--only", default="h264,segments,memory", help="comma-separated sections to run")
    args = parser.parse_args()
    bench = release_product("avocet-write-bench", build=not args.no_build)
    os.makedirs(WRITTEN, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; median of {args.runs} interleaved runs"
          f" (one for segments and memory); ratio = Avocet / ffmpeg (below 1: Avocet faster)")
    sections = set(args.only.split(","))
    if "h264" in sections:
        h264(bench, args.runs)
    if "segments" in sections:
        segments(bench, 1)
    if "memory" in sections:
        memory(bench, 1)


if __name__ == "__main__":
    main()
