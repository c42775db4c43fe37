#!/usr/bin/env python3
"""Playback figures, side by side with FFmpeg's players on the same file, in one run.

    python3 Benchmarks/playback.py [--no-build] [--seconds S] [--runs N]

Builds avtool and avocet-play-bench in release mode (unless --no-build), makes
Benchmarks/out/corpus/play-1080p.mp4 when missing (60 s of 1080p30 H.264 + AAC), starts a virtual X
server (Xvfb, 1920x1080), then runs each of these N times (3 by default), interleaved, and gives each
run's ratio and their median (this machine's CPU time for one process varies by up to a fifth):
  cpu    CPU time (user + system, from wait4) of playing the file to its end with pictures in a
         window: `avtool play FILE --video` (1280x720 window, sound to ALSA's null device) against
         `ffplay -autoexit -x 1280 -y 720 FILE` (SDL's dummy sound driver), and, without a window,
         `ffmpeg -re -i FILE -f null -` (decoding both streams at the file's pace). Ratios below 1
         mean avtool used less.
  drift  `avocet-play-bench drift FILE S` (S: --seconds, 60 by default): how far the sound written and
         the pictures handed out strayed from the player's clock over the file, and its CPU time (a
         consumer taking BGRA pictures at the display rate, 60 Hz, no window, sound to ALSA's null
         device) against `ffmpeg -re`'s; then
         the same consumer taking 420v pictures (the decoder's 4:2:0, bi-planar: no colour conversion,
         as `ffmpeg -f null` converts none)
  seek   ten seeks to seeded random times, exact (zero tolerances) and wide (the default ones), until the
         picture there is handed out: `avocet-play-bench seek` against Benchmarks/ffmpeg_seek.c (FFmpeg's
         C API doing the same seek, decode and BGRA conversion), medians and their ratio
  memory with --memory-minutes M (not by default: it plays in real time): the file looped M times by
         stream copy (Benchmarks/out/corpus/play-1080p-Mmin.mp4), played to its end with its window,
         resident memory sampled every 5 s: at one minute, at the end, the peak, and the growth between
Not a test: run it on demand.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import capture, compile_ffmpeg_tool, prepare, release_product, usage  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
MOVIE = os.path.join(OUT, "corpus", "play-1080p.mp4")


def make_movie():
    os.makedirs(os.path.dirname(MOVIE), exist_ok=True)
    print("making", MOVIE, "(60 s of 1080p30; a minute or two on 2 cores)", flush=True)
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=60",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "128k", MOVIE], check=True)


def cpu(cmd, env):
    """CPU seconds (user + system), wall seconds and peak resident MiB of one process."""
    wall, used = usage(cmd, env)
    return used.ru_utime + used.ru_stime, wall, used.ru_maxrss / 1024


def memory(avtool, minutes, env):
    """Plays the movie looped `minutes` times with its window, sampling the resident memory."""
    long = os.path.join(OUT, "corpus", f"play-1080p-{minutes}min.mp4")
    if not os.path.exists(long):
        print("making", long, "(stream copy)", flush=True)
        subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-stream_loop", str(minutes - 1),
                        "-i", MOVIE, "-c", "copy", long], check=True)
    print(f"memory (playing {minutes} min of 1080p30 with its window; resident MiB)", flush=True)
    proc = subprocess.Popen([avtool, "play", long, "--video"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env)
    start, samples = time.monotonic(), []
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as status:
                kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            samples.append((time.monotonic() - start, kib / 1024))
        except (OSError, StopIteration):
            pass
        time.sleep(5)
    if proc.returncode != 0 or not samples:
        sys.exit(f"failed: avtool play {long} --video")
    at_minute = next((mib for t, mib in samples if t >= 60), samples[-1][1])
    end, peak = samples[-1][1], max(mib for _, mib in samples)
    print(f"  after 1 min {at_minute:7.1f}   at the end {end:7.1f}   peak {peak:7.1f}   growth {end - at_minute:+.1f}")


def values(output):
    found = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2:
            found[parts[0]] = parts[1]
    return found


def spread(ratios):
    """Each run's ratio, then their median."""
    return f"{', '.join(f'{r:.2f}' for r in ratios)}   median {statistics.median(ratios):.2f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--memory-minutes", type=int, default=0)
    parser.add_argument("--only-memory", action="store_true")
    args = parser.parse_args()
    for tool in ["Xvfb", "ffplay"]:
        if shutil.which(tool) is None:
            subprocess.run(["bash", os.path.join(ROOT, "scripts", "install-deps.sh"), "xvfb", "ffmpeg"], check=True)
    avtool = prepare(ROOT, not args.no_build)
    bench = release_product("avocet-play-bench", build=not args.no_build)
    # Into Benchmarks/out/, made first (a fresh clone has none).
    seeker = compile_ffmpeg_tool("ffmpeg_seek", ["libavformat", "libavcodec", "libswscale", "libavutil"])
    if not os.path.exists(MOVIE):
        make_movie()

    display = ":97"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    if args.memory_minutes > 0:
        try:
            memory(avtool, args.memory_minutes, dict(os.environ, DISPLAY=display, AVOCET_AUDIO_DEVICE="null"))
        finally:
            if args.only_memory:
                xvfb.terminate()
                xvfb.wait()
        if args.only_memory:
            return
    env = dict(os.environ, DISPLAY=display, AVOCET_AUDIO_DEVICE="null", SDL_AUDIODRIVER="dummy")
    window_cmd = [avtool, "play", MOVIE, "--video"]
    ffplay_cmd = ["ffplay", "-hide_banner", "-loglevel", "error", "-autoexit", "-x", "1280", "-y", "720", MOVIE]
    headless_cmd = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-re", "-i", MOVIE, "-f", "null", "-"]
    ratios = {"window/ffmpeg": [], "window/ffplay": [], "bgra/ffmpeg": [], "420v/ffmpeg": []}
    drifts = []
    try:
        print(f"cpu ({args.runs} interleaved runs of each; the file played to its end; CPU seconds, wall seconds)", flush=True)
        for run in range(args.runs):
            ours, ours_wall, ours_rss = cpu(window_cmd, env)
            theirs, theirs_wall, theirs_rss = cpu(ffplay_cmd, env)
            headless, headless_wall, headless_rss = cpu(headless_cmd, env)
            # Consumers taking pictures at the display rate without a window (sound to a null device):
            # BGRA, then 420v (the decoder's 4:2:0, bi-planar: no colour conversion).
            _, used, output = capture([bench, "drift", MOVIE, str(args.seconds)], env)
            bgra, drift = used.ru_utime + used.ru_stime, values(output)
            _, used, output = capture([bench, "drift", MOVIE, str(args.seconds), "420v"], env)
            native_cpu, native = used.ru_utime + used.ru_stime, values(output)
            drifts += [drift, native]
            print(f"  run {run + 1}: avtool play --video {ours:6.2f} s CPU in {ours_wall:6.2f} s (peak {ours_rss:6.1f} MiB);"
                  f" ffplay {theirs:6.2f} s in {theirs_wall:6.2f} s (peak {theirs_rss:6.1f} MiB);"
                  f" ffmpeg -re -f null {headless:6.2f} s in {headless_wall:6.2f} s (peak {headless_rss:6.1f} MiB);"
                  f" BGRA consumer {bgra:6.2f} s; 420v consumer {native_cpu:6.2f} s", flush=True)
            for key in ["played", "pixelFormat", "pictures", "expectedPictures", "pictureLagMaxMs", "soundLeadMinMs", "soundLeadMaxMs", "driftMs"]:
                print(f"    {key:18} {drift.get(key)}   {native.get(key)}")
            ratios["window/ffmpeg"].append(ours / headless)
            ratios["window/ffplay"].append(ours / theirs)
            if args.seconds >= 60:
                ratios["bgra/ffmpeg"].append(bgra / headless)
                ratios["420v/ffmpeg"].append(native_cpu / headless)
    finally:
        xvfb.terminate()
        xvfb.wait()
    print("ratios (each run's, then the median)")
    for key, found in ratios.items():
        if found:
            print(f"  {key:14} {spread(found)}")
    print(f"  drift          largest {max(float(d.get('driftMs', 'nan')) for d in drifts):.1f} ms over {len(drifts)} runs")

    rng = random.Random(10)
    times = [f"{rng.uniform(1, 59):.3f}" for _ in range(10)]
    print(f"seek (ten seeded times, {args.runs} interleaved runs; median ms until the picture is handed out)")
    seeks = {"exact": [], "wide": []}
    for run in range(args.runs):
        ours = values(subprocess.run([bench, "seek", MOVIE, *times], check=True, capture_output=True, text=True).stdout)
        theirs = values(subprocess.run([seeker, MOVIE, *times], check=True, capture_output=True, text=True).stdout)
        for kind in ["exact", "wide"]:
            a, b = float(ours[f"{kind}MsMedian"]), float(theirs[f"{kind}MsMedian"])
            seeks[kind].append(a / b)
            print(f"  run {run + 1} {kind:6} avocet {a:7.1f} ms   FFmpeg C API {b:7.1f} ms   ratio {a / b:.2f}")
    for kind, found in seeks.items():
        print(f"  {kind:6} ratios {spread(found)}")


if __name__ == "__main__":
    main()
