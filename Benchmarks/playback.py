#!/usr/bin/env python3
"""Playback figures, side by side with FFmpeg's players on the same file, in one run.

    python3 Benchmarks/playback.py [--no-build] [--seconds S]

Builds avtool and avocet-play-bench in release mode (unless --no-build), makes
Benchmarks/out/corpus/play-1080p.mp4 when missing (60 s of 1080p30 H.264 + AAC), starts a virtual X
server (Xvfb, 1920x1080), then:
  cpu    CPU time (user + system, from wait4) of playing the file to its end with pictures in a
         window: `avtool play FILE --video` (1280x720 window, sound to ALSA's null device) against
         `ffplay -autoexit -x 1280 -y 720 FILE` (SDL's dummy sound driver), and, without a window,
         `ffmpeg -re -i FILE -f null -` (decoding both streams at the file's pace). Ratios below 1
         mean avtool used less.
  drift  `avocet-play-bench drift FILE S` (S: --seconds, 60 by default): how far the sound written and
         the pictures handed out strayed from the player's clock over the file, and its CPU time (a
         consumer taking BGRA pictures at the display rate, no window) against `ffmpeg -re`'s; then
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--seconds", type=float, default=60)
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
    try:
        env = dict(os.environ, DISPLAY=display, AVOCET_AUDIO_DEVICE="null", SDL_AUDIODRIVER="dummy")
        print("cpu (playing the 60 s file to its end; CPU seconds, wall seconds)", flush=True)
        ours, ours_wall, ours_rss = cpu([avtool, "play", MOVIE, "--video"], env)
        theirs, theirs_wall, theirs_rss = cpu(["ffplay", "-hide_banner", "-loglevel", "error", "-autoexit", "-x", "1280", "-y", "720", MOVIE], env)
        headless, headless_wall, headless_rss = cpu(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-re", "-i", MOVIE, "-f", "null", "-"], env)
        print(f"  avtool play --video       {ours:7.2f} s CPU in {ours_wall:6.2f} s   peak {ours_rss:6.1f} MiB")
        print(f"  ffplay (1280x720 window)  {theirs:7.2f} s CPU in {theirs_wall:6.2f} s   peak {theirs_rss:6.1f} MiB   ratio {ours / theirs:.2f}")
        print(f"  ffmpeg -re -f null        {headless:7.2f} s CPU in {headless_wall:6.2f} s   peak {headless_rss:6.1f} MiB   ratio {ours / headless:.2f}")
    finally:
        xvfb.terminate()
        xvfb.wait()

    print(f"drift ({args.seconds:g} s of the file)", flush=True)
    _, used, output = capture([bench, "drift", MOVIE, str(args.seconds)])
    drift = values(output)
    for key in ["played", "pictures", "expectedPictures", "pictureLagMaxMs", "soundLeadMinMs", "soundLeadMaxMs", "driftMs"]:
        print(f"  {key:18} {drift.get(key)}")
    consumer = used.ru_utime + used.ru_stime
    # The drift run is a consumer taking BGRA pictures at the display rate without a window (and the
    # sound to a null device): against ffmpeg -re decoding both streams at the file's pace.
    if args.seconds >= 60:
        print(f"  consumer CPU       {consumer:.2f} s, ffmpeg -re -f null {headless:.2f} s: ratio {consumer / headless:.2f}")
    _, used, output = capture([bench, "drift", MOVIE, str(args.seconds), "420v"])
    native = values(output)
    print(f"  420v consumer      pictures {native.get('pictures')} of {native.get('expectedPictures')} ({native.get('pixelFormat')}), drift {native.get('driftMs')} ms")
    consumer = used.ru_utime + used.ru_stime
    if args.seconds >= 60:
        print(f"  420v consumer CPU  {consumer:.2f} s, ffmpeg -re -f null {headless:.2f} s: ratio {consumer / headless:.2f}")

    rng = random.Random(10)
    times = [f"{rng.uniform(1, 59):.3f}" for _ in range(10)]
    ours = values(subprocess.run([bench, "seek", MOVIE, *times], check=True, capture_output=True, text=True).stdout)
    theirs = values(subprocess.run([seeker, MOVIE, *times], check=True, capture_output=True, text=True).stdout)
    print("seek (ten seeded times; median ms until the picture is handed out)")
    for kind in ["exact", "wide"]:
        a, b = float(ours[f"{kind}MsMedian"]), float(theirs[f"{kind}MsMedian"])
        print(f"  {kind:6} avocet {a:7.1f} ms   FFmpeg C API {b:7.1f} ms   ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
