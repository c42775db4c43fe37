#!/usr/bin/env python3
"""Reading samples with AVAssetReader against FFmpeg on the same files, in one run, as ratios.

    python3 Benchmarks/reading.py [--runs N] [--memory-runs N] [--no-build] [--only bgra,stored,pcm16k,memory]

Builds avocet-read-bench in release mode (unless --no-build; see Benchmarks/Reading/main.swift), compiles
Benchmarks/ffmpeg_read.c into Benchmarks/out/, makes a virtualenv with PyAV and numpy in
Benchmarks/out/venv (PyAV's wheel bundles its own FFmpeg), makes its files in Benchmarks/out/corpus when
missing, then (whole processes, runs interleaved, median of N; ratio = Avocet / other, below 1 means
Avocet is faster):
  bgra    reading-1080p.mp4 (20 s of 1080p30 H.264 + AAC) decoded to 32BGRA: `avocet-read-bench bgra F`
          vs `ffmpeg -threads T -i F -an -pix_fmt bgra -f null -` and vs PyAV decoding to BGRA numpy
          arrays (thread_type AUTO, thread_count T); T is Avocet's decoder thread count, min(cores, 4).
          Goals: at most ffmpeg's time, at most half PyAV's. nv12 (420v) is timed beside it.
  stored  `avocet-read-bench stored F` (video and audio track outputs, outputSettings nil; beside it
          `stored-nocopy`, the same with alwaysCopiesSampleData false) vs
          `ffmpeg_read F` (a bare av_read_frame loop), on the 1080p file (few large packets) and on
          small-2h.mp4 (2 hours of 320x240 H.264 + AAC: half a million small packets); rate = packets
          a second, whole process and in-process. Goal: at least 0.9 of the loop's rate. For
          reference, `ffmpeg_read F video` and `F audio` (one stream each, the others discarded: how
          each of Avocet's track outputs demuxes).
  pcm16k  hour.m4a (an hour of 44.1 kHz stereo AAC, 96 kb/s) to 16 kHz mono Float32:
          `avocet-read-bench pcm16k F` vs `ffmpeg -i F -ar 16000 -ac 1 -f f32le -` (to /dev/null).
          Goal: at most 0.8 of ffmpeg's time.
  memory  peak resident memory of avocet-read-bench stored, bgra and pcm16k on small-10min.mp4 and
          small-2h.mp4 (made the same way, 2 hours; a few minutes to make): flat with length
          (--memory-runs N runs each, 1 by default). ffmpeg_read on both files beside them: what
          one MP4 demuxer's sample index grows by (Avocet opens one per output).
--only runs some of the sections (all four by default).
Peak resident memory per process comes from wait4. Not a test: run it on demand.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import CORPUS, OUT, compile_ffmpeg_tool, goal, release_product, row, together  # noqa: E402

THREADS = max(1, min(os.cpu_count() or 1, 4))  # StreamDecoder's thread_count

PYAV = """
import json, sys, time
start = time.perf_counter()
import av
path, threads = sys.argv[1], int(sys.argv[2])
with av.open(path) as container:
    stream = container.streams.video[0]
    stream.thread_type = "AUTO"
    stream.thread_count = threads
    frames = size = 0
    for frame in container.decode(stream):
        array = frame.to_ndarray(format="bgra")
        frames += 1
        size += array.nbytes
print(json.dumps({"frames": frames, "bytes": size, "seconds": time.perf_counter() - start,
                  "pyav": av.__version__, "ffmpeg": av.ffmpeg_version_info}))
"""


def ffmpeg(args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + args, check=True)


def small(seconds):
    """320x240 30 fps H.264 at a low rate plus 44.1 kHz stereo AAC, fast to make."""
    return ["-f", "lavfi", "-i", f"testsrc2=size=320x240:rate=30:duration={seconds}",
            "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=44100:duration={seconds},aformat=channel_layouts=stereo",
            "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "200k", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "64k"]


FILES = {
    "reading-1080p.mp4": ("20 s of 1080p30 H.264 + AAC",
                          ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=20",
                           "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=20,aformat=channel_layouts=stereo",
                           "-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-pix_fmt", "yuv420p",
                           "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"]),
    "hour.m4a": ("an hour of 44.1 kHz stereo AAC",
                 ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3600,aformat=channel_layouts=stereo",
                  "-c:a", "aac", "-b:a", "96k"]),
    "small-10min.mp4": ("10 minutes of 320x240 H.264 + AAC", small(600)),
    "small-2h.mp4": ("2 hours of 320x240 H.264 + AAC; a few minutes", small(7200)),
}


def corpus(names):
    os.makedirs(CORPUS, exist_ok=True)
    for name in names:
        path = os.path.join(CORPUS, name)
        if not os.path.exists(path):
            what, args = FILES[name]
            print(f"making {path} ({what})", flush=True)
            stem, ext = os.path.splitext(path)
            ffmpeg(args + [stem + ".part" + ext])
            os.replace(stem + ".part" + ext, path)


def venv_python():
    """Benchmarks/out/venv's python, with PyAV and numpy installed (made when missing)."""
    venv = os.path.join(OUT, "venv")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python) or subprocess.run([python, "-c", "import av, numpy"], capture_output=True).returncode != 0:
        print("making", venv, "(pip install av numpy)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "av", "numpy"], check=True)
    return python




def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memory-runs", type=int, default=1)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--only", default="bgra,stored,pcm16k,memory", help="comma-separated sections to run")
    args = parser.parse_args()
    bench = release_product("avocet-read-bench", build=not args.no_build)
    loop = compile_ffmpeg_tool("ffmpeg_read", ["libavformat", "libavcodec", "libavutil"])
    python = venv_python()
    corpus(FILES)
    movie, hour, ten, two = (os.path.join(CORPUS, n) for n in ("reading-1080p.mp4", "hour.m4a", "small-10min.mp4", "small-2h.mp4"))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; median of {args.runs} interleaved runs;"
          f" ratio = Avocet / other (below 1: Avocet faster); decoder threads T = {THREADS}")

    sections = set(args.only.split(","))

    if "bgra" in sections:
        bgra(bench, python, movie, args.runs)
    if "stored" in sections:
        for path in (movie, two):
            stored(bench, loop, path, args.runs)
    if "pcm16k" in sections:
        pcm16k(bench, hour, args.runs)
    if "memory" in sections:
        memory(bench, loop, ten, two, args.memory_runs)


def bgra(bench, python, movie, runs):
    print(f"bgra: {os.path.basename(movie)} decoded to 32BGRA", flush=True)
    r = together([("avocet", [bench, "bgra", movie], True),
                  ("avocet-nv12", [bench, "nv12", movie], True),
                  ("ffmpeg", ["ffmpeg", "-v", "error", "-threads", str(THREADS), "-i", movie, "-an", "-pix_fmt", "bgra",
                              "-f", "null", "-"], False),
                  ("pyav", [python, "-c", PYAV, movie, str(THREADS)], True)], runs)
    (aw, ac, ar, ao), (nw, nc, nr, no), (fw, fc, fr, _), (pw, pc, pr, po) = r["avocet"], r["avocet-nv12"], r["ffmpeg"], r["pyav"]
    if ao["frames"] != po["frames"]:
        sys.exit(f"frame counts differ: Avocet {ao['frames']}, PyAV {po['frames']}")
    row(f"avocet-read-bench bgra ({ao['frames']} frames)", aw, ac, ar, f"   {ao['frames'] / aw:6.1f} fps   in-process {ao['seconds']:.3f} s")
    row("avocet-read-bench nv12 (420v, for reference)", nw, nc, nr, f"   {no['frames'] / nw:6.1f} fps   in-process {no['seconds']:.3f} s")
    row(f"ffmpeg -threads {THREADS} -pix_fmt bgra -f null", fw, fc, fr, f"   ratio {aw / fw:.2f}  {goal(aw <= fw)} (at most 1)")
    row(f"PyAV {po['pyav']} (its own FFmpeg {po['ffmpeg']})", pw, pc, pr, f"   ratio {aw / pw:.2f}  {goal(aw <= pw / 2)} (at most 0.5)")



def stored(bench, loop, path, runs):
    print(f"stored: {os.path.basename(path)}, video and audio as stored", flush=True)
    r = together([("avocet", [bench, "stored", path], True), ("nocopy", [bench, "stored-nocopy", path], True), ("loop", [loop, path], True),
                  ("video", [loop, path, "video"], True), ("audio", [loop, path, "audio"], True)], runs)
    (aw, ac, ar, ao), (nw, nc, nr, no), (lw, lc, lr, lo) = r["avocet"], r["nocopy"], r["loop"]
    (vw, vc, _, vo), (uw, uc, _, uo) = r["video"], r["audio"]
    for o in (ao, no):
        if (o["videoBuffers"], o["audioBuffers"], o["bytes"]) != (lo["videoPackets"], lo["audioPackets"], lo["bytes"]):
            sys.exit(f"packets differ: Avocet {o}, ffmpeg_read {lo}")
    row(f"avocet-read-bench stored ({ao['buffers']} buffers)", aw, ac, ar, f"   in-process {ao['seconds'] * 1000:8.1f} ms")
    row("avocet-read-bench stored-nocopy (alwaysCopiesSampleData false)", nw, nc, nr, f"   in-process {no['seconds'] * 1000:8.1f} ms"
        f"   rate ratio {lw / nw:.2f} (in-process {lo['seconds'] / no['seconds']:.2f})")
    row("ffmpeg_read (av_read_frame loop)", lw, lc, lr, f"   in-process {lo['seconds'] * 1000:8.1f} ms"
        f"   rate ratio {lw / aw:.2f} (in-process {lo['seconds'] / ao['seconds']:.2f})  {goal(lw / aw >= 0.9)} (at least 0.9)")
    # Each track output demuxes the file for itself (the other tracks discarded): the same loop per track.
    print(f"  {'for reference: the loop per track, others discarded':44} video {vo['seconds'] * 1000:8.1f} ms (cpu {vc:6.3f} s)"
          f"   audio {uo['seconds'] * 1000:8.1f} ms (cpu {uc:6.3f} s)   in-process", flush=True)


def pcm16k(bench, hour, runs):
    print(f"pcm16k: {os.path.basename(hour)} to 16 kHz mono Float32", flush=True)
    r = together([("avocet", [bench, "pcm16k", hour], True),
                  ("ffmpeg", ["ffmpeg", "-v", "error", "-i", hour, "-ar", "16000", "-ac", "1", "-f", "f32le", "-"], False)],
                 runs)
    (aw, ac, ar, ao), (fw, fc, fr, _) = r["avocet"], r["ffmpeg"]
    row(f"avocet-read-bench pcm16k ({ao['frames']} frames)", aw, ac, ar, f"   in-process {ao['seconds']:.3f} s")
    row("ffmpeg -ar 16000 -ac 1 -f f32le - (> /dev/null)", fw, fc, fr, f"   ratio {aw / fw:.2f}  {goal(aw <= 0.8 * fw)} (at most 0.8)")



def memory(bench, loop, ten, two, runs):
    print(f"memory: peak RSS, 10 minutes vs 2 hours (320x240 H.264 + AAC; {runs} run(s) each)", flush=True)
    jobs = [(mode, [bench, mode]) for mode in ("stored", "bgra", "pcm16k")]
    # FFmpeg's MP4 demuxer keeps an index entry per sample of every track: what one demuxer grows by.
    jobs.append(("ffmpeg_read", [loop]))
    for mode, cmd in jobs:
        r = together([("ten", cmd + [ten], True), ("two", cmd + [two], True)], runs)
        (tw, tc, tr, _), (ww, wc, wr, _) = r["ten"], r["two"]
        print(f"  {mode:11} 10 min {tr:6.1f} MiB ({tw:6.2f} s)   2 h {wr:6.1f} MiB ({ww:7.2f} s)   2 h - 10 min {wr - tr:5.1f} MiB",
              flush=True)


if __name__ == "__main__":
    main()
