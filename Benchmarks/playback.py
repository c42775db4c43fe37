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
         the pictures handed out strayed from the player's clock over the file
  seek   ten seeks to seeded random times, exact (zero tolerances) and wide (the default ones), until the
         picture there is handed out: `avocet-play-bench seek` against Benchmarks/ffmpeg_seek.c (FFmpeg's
         C API doing the same seek, decode and BGRA conversion), medians and their ratio
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
from processes import compile_ffmpeg_tool, prepare, release_product, usage  # noqa: E402

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
    """CPU seconds (user + system) and wall seconds of one process."""
    wall, used = usage(cmd, env)
    return used.ru_utime + used.ru_stime, wall


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
    try:
        env = dict(os.environ, DISPLAY=display, AVOCET_AUDIO_DEVICE="null", SDL_AUDIODRIVER="dummy")
        print("cpu (playing the 60 s file to its end; CPU seconds, wall seconds)", flush=True)
        ours, ours_wall = cpu([avtool, "play", MOVIE, "--video"], env)
        theirs, theirs_wall = cpu(["ffplay", "-hide_banner", "-loglevel", "error", "-autoexit", "-x", "1280", "-y", "720", MOVIE], env)
        headless, headless_wall = cpu(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-re", "-i", MOVIE, "-f", "null", "-"], env)
        print(f"  avtool play --video       {ours:7.2f} s CPU in {ours_wall:6.2f} s")
        print(f"  ffplay (1280x720 window)  {theirs:7.2f} s CPU in {theirs_wall:6.2f} s   ratio {ours / theirs:.2f}")
        print(f"  ffmpeg -re -f null        {headless:7.2f} s CPU in {headless_wall:6.2f} s   ratio {ours / headless:.2f}")
    finally:
        xvfb.terminate()
        xvfb.wait()

    print(f"drift ({args.seconds:g} s of the file)", flush=True)
    drift = values(subprocess.run([bench, "drift", MOVIE, str(args.seconds)], check=True, capture_output=True, text=True).stdout)
    for key in ["played", "pictures", "expectedPictures", "pictureLagMaxMs", "soundLeadMinMs", "soundLeadMaxMs", "driftMs"]:
        print(f"  {key:18} {drift.get(key)}")

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
