#!/usr/bin/env python3
"""AVAudioFile and AVAudioConverter against FFmpeg, PyAV and libsndfile on the same files, in one run, as ratios.

    python3 Benchmarks/audio.py [--minutes N] [--quick] [--runs N] [--no-build] [--only transcode,read,memory]

Builds avocet-audio-bench in release mode (unless --no-build; see Benchmarks/Audio/main.swift), makes a
virtualenv with PyAV, numpy and soundfile in Benchmarks/out/venv (PyAV's wheel bundles its own FFmpeg,
soundfile's its own libsndfile), makes its files in Benchmarks/out/corpus when missing (a speech-like
stereo 44.1 kHz signal: two sines and pink noise, their loudness swinging 3 and 4 times a second), then
(whole processes, runs interleaved, median of N; ratio = Avocet / other, below 1 means Avocet is faster; the
ratio of CPU times is printed beside, steadier than wall time on a shared machine):
  transcode  N minutes (60 by default: the issue's hour) of AAC (128 kb/s, .m4a), MP3 (128 kb/s) and Opus
             (64 kb/s, .opus) each to 16 kHz mono Float32 in 1-second buffers: `avocet-audio-bench
             transcode F` (AVAudioFile + AVAudioConverter's input-block convert, the samples written to
             standard output, here /dev/null) vs `ffmpeg -i F -ar 16000 -ac 1 -f f32le -` (> /dev/null)
             and vs PyAV decoding with an av.AudioResampler to mono 16 kHz flt (numpy arrays, counted).
             Goals: at most 0.8 of ffmpeg's time, at most 0.5 of PyAV's. `transcode --discard` (the
             samples counted, not written) is timed beside them.
  read       min(N, 10) minutes of 16-bit WAV and of FLAC (44.1 kHz stereo) read into 1-second
             deinterleaved Float32 buffers and summed: `avocet-audio-bench read F` vs soundfile
             (libsndfile) reading blocks of 1 second as float32 and summing. Goal: at least soundfile's
             rate (frames a second), judged in-process (from opening the file to the last block: the
             Python interpreter's start and imports are left out, which would favour Avocet); the whole
             processes' times are shown beside.
  memory     peak resident memory of `transcode --discard` on 1 minute and on N minutes of each codec,
             and of ffmpeg on the same: flat with length (bounded by the 1-second buffers).
--quick: a CI form of a few seconds (12-second files, one run). --only runs some of the sections.
Peak resident memory per process comes from wait4. Not a test: run it on demand.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import CORPUS, OUT, goal, release_product, row, together  # noqa: E402

RATE = 44100
# The lossy codecs of the transcode goal: file extension, ffmpeg's encoder options.
CODECS = {
    "m4a": ("AAC 128 kb/s", ["-c:a", "aac", "-b:a", "128k"]),
    "mp3": ("MP3 128 kb/s", ["-c:a", "libmp3lame", "-b:a", "128k"]),
    "opus": ("Opus 64 kb/s", ["-c:a", "libopus", "-b:a", "64k"]),
}
# The lossless files of the read goal.
LOSSLESS = {
    "wav": ("16-bit WAV", ["-c:a", "pcm_s16le"]),
    "flac": ("FLAC (16-bit)", ["-c:a", "flac", "-sample_fmt", "s16"]),
}

PYAV = """
import json, sys, time
start = time.perf_counter()
import av
with av.open(sys.argv[1]) as container:
    stream = container.streams.audio[0]
    resampler = av.AudioResampler(format="flt", layout="mono", rate=16000)
    frames = 0
    for frame in container.decode(stream):
        for out in resampler.resample(frame):
            frames += out.to_ndarray().shape[-1]
    for out in resampler.resample(None):
        frames += out.to_ndarray().shape[-1]
print(json.dumps({"frames": frames, "seconds": time.perf_counter() - start, "pyav": av.__version__,
                  "ffmpeg": av.ffmpeg_version_info}))
"""

SOUNDFILE = """
import json, sys, time
import numpy, soundfile
start = time.perf_counter()
frames, total = 0, 0.0
with soundfile.SoundFile(sys.argv[1]) as f:
    rate = f.samplerate
    for block in f.blocks(blocksize=rate, dtype="float32"):
        frames += block.shape[0]
        total += float(numpy.sum(block, dtype=numpy.float64))
print(json.dumps({"frames": frames, "sum": total, "seconds": time.perf_counter() - start,
                  "soundfile": soundfile.__version__, "libsndfile": soundfile.__libsndfile_version__}))
"""


def speech(seconds):
    """ffmpeg's inputs and filter graph for `seconds` of the speech-like stereo signal: a 180 Hz and a
    1250 Hz sine with pink noise of its own on each side, swung in loudness 4 (left) and 3 (right) times
    a second, as syllables are; fixed seeds, so every file of a length holds the same sound."""
    inputs = []
    for source in (f"sine=f=180:r={RATE}:d={seconds}", f"sine=f=1250:r={RATE}:d={seconds}",
                   f"anoisesrc=c=pink:r={RATE}:a=0.5:seed=1:d={seconds}", f"anoisesrc=c=pink:r={RATE}:a=0.5:seed=2:d={seconds}"):
        inputs += ["-f", "lavfi", "-i", source]
    graph = ("[0][1]amix=inputs=2,asplit[t1][t2];[t1][2]amix=inputs=2,tremolo=f=4:d=0.7[l];"
             "[t2][3]amix=inputs=2,tremolo=f=3:d=0.7[r];[l][r]join=inputs=2:channel_layout=stereo,volume=3[out]")
    return inputs + ["-filter_complex", graph, "-map", "[out]"]


def label(minutes):
    return f"{minutes:g}min"


def corpus_file(minutes, ext, options):
    """Benchmarks/out/corpus/speech-Mmin.EXT, made when missing."""
    os.makedirs(CORPUS, exist_ok=True)
    path = os.path.join(CORPUS, f"speech-{label(minutes)}.{ext}")
    if not os.path.exists(path):
        print(f"making {path}", flush=True)
        part = os.path.join(CORPUS, f"speech-{label(minutes)}.part.{ext}")
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + speech(round(minutes * 60, 3)) +
                       options + [part], check=True)
        os.replace(part, path)
    return path


def venv_python():
    """Benchmarks/out/venv's python, with PyAV, numpy and soundfile installed (made when missing)."""
    venv = os.path.join(OUT, "venv")
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        print("making", venv, flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    if subprocess.run([python, "-c", "import av, numpy, soundfile"], capture_output=True).returncode != 0:
        print("pip install av numpy soundfile into", venv, flush=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "av", "numpy", "soundfile"], check=True)
    return python


def ffmpeg_frames(path):
    """The frames `ffmpeg -i F -ar 16000 -ac 1 -f f32le -` writes (counted, untimed)."""
    proc = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-ar", "16000", "-ac", "1", "-f", "f32le", "-"],
                            stdout=subprocess.PIPE)
    size = 0
    while chunk := proc.stdout.read(1 << 20):
        size += len(chunk)
    if proc.wait() != 0:
        sys.exit(f"ffmpeg failed on {path}")
    return size // 4


TABLE = []  # markdown rows of the goals, printed at the end
MEMORY = []  # markdown rows of peak memory against length


def transcode(bench, python, minutes, runs):
    print(f"transcode: {minutes:g} minutes of each codec to 16 kHz mono Float32, 1-second buffers", flush=True)
    for ext, (what, options) in CODECS.items():
        path = corpus_file(minutes, ext, options)
        r = together([("avocet", [bench, "transcode", path], False),
                       ("discard", [bench, "transcode", "--discard", path], True),
                       ("ffmpeg", ["ffmpeg", "-v", "error", "-i", path, "-ar", "16000", "-ac", "1", "-f", "f32le", "-"], False),
                       ("pyav", [python, "-c", PYAV, path], True)], runs)
        (aw, ac, ar, _), (dw, dc, dr, do), (fw, fc, fr, _), (pw, pc, pr, po) = r["avocet"], r["discard"], r["ffmpeg"], r["pyav"]
        ff = ffmpeg_frames(path)
        print(f"  {what}: {os.path.basename(path)}; frames out: Avocet {do['frames']}, ffmpeg {ff}, PyAV {po['frames']}", flush=True)
        row("avocet-audio-bench transcode (> /dev/null)", aw, ac, ar)
        row("avocet-audio-bench transcode --discard", dw, dc, dr, f"   in-process {do['seconds']:.3f} s")
        row("ffmpeg -ar 16000 -ac 1 -f f32le - (> /dev/null)", fw, fc, fr,
            f"   ratio {aw / fw:.2f} (cpu {ac / fc:.2f})  {goal(aw <= 0.8 * fw)} (at most 0.8)")
        row(f"PyAV {po['pyav']} + AudioResampler (FFmpeg {po['ffmpeg']})", pw, pc, pr,
            f"   ratio {aw / pw:.2f} (cpu {ac / pc:.2f})  {goal(aw <= 0.5 * pw)} (at most 0.5)")
        TABLE.append(f"| {minutes:g} min of {what} to 16 kHz mono Float32 (Avocet {do['frames']:,} frames, ffmpeg {ff:,}, "
                     f"PyAV {po['frames']:,}): `transcode F` vs `ffmpeg -i F -ar 16000 -ac 1 -f f32le -` "
                     f"| {aw:.2f} s | {fw:.2f} s | **{aw / fw:.2f}** (CPU {ac / fc:.2f}) | at most 0.8: **{'met' if aw <= 0.8 * fw else 'missed'}** "
                     f"| {ar:.0f} MiB | {fr:.0f} MiB |")
        TABLE.append(f"| the same vs PyAV {po['pyav']}, `av.AudioResampler(format=\"flt\", layout=\"mono\", rate=16000)` "
                     f"| {aw:.2f} s | {pw:.2f} s | **{aw / pw:.2f}** (CPU {ac / pc:.2f}) | at most 0.5: **{'met' if aw <= 0.5 * pw else 'missed'}** "
                     f"| {ar:.0f} MiB | {pr:.0f} MiB |")


def read(bench, python, minutes, runs):
    print(f"read: {minutes:g} minutes of 44.1 kHz stereo into 1-second Float32 buffers, summed", flush=True)
    for ext, (what, options) in LOSSLESS.items():
        path = corpus_file(minutes, ext, options)
        r = together([("avocet", [bench, "read", path], True), ("soundfile", [python, "-c", SOUNDFILE, path], True)], runs)
        (aw, ac, ar, ao), (sw, sc, sr, so) = r["avocet"], r["soundfile"]
        if ao["frames"] != so["frames"]:
            print(f"  FRAMES DIFFER: Avocet {ao['frames']}, soundfile {so['frames']}", flush=True)
        if abs(ao["sum"] - so["sum"]) > 0.01 + 1e-7 * ao["frames"]:
            print(f"  SUMS DIFFER: Avocet {ao['sum']}, soundfile {so['sum']}", flush=True)
        rate, other = ao["frames"] / ao["seconds"], so["frames"] / so["seconds"]
        print(f"  {what}: {os.path.basename(path)}, {ao['frames']} frames, sums {ao['sum']:.4f} / {so['sum']:.4f}", flush=True)
        row("avocet-audio-bench read", aw, ac, ar, f"   in-process {ao['seconds'] * 1000:7.1f} ms  {rate / 1e6:7.1f} M frames/s")
        row(f"soundfile {so['soundfile']} (libsndfile {so['libsndfile']})", sw, sc, sr,
            f"   in-process {so['seconds'] * 1000:7.1f} ms  {other / 1e6:7.1f} M frames/s   rate ratio {rate / other:.2f}"
            f"  {goal(rate >= other)} (at least 1)")
        TABLE.append(f"| {minutes:g} min of {what} into 1-second Float32 buffers, summed: `read F` vs soundfile "
                     f"`blocks(blocksize=44100, dtype=\"float32\")` | {ao['seconds'] * 1000:.0f} ms in-process ({aw:.2f} s whole) "
                     f"| {so['seconds'] * 1000:.0f} ms ({sw:.2f} s) | rate **{rate / other:.2f}** (whole process {sw / aw:.2f}) "
                     f"| at least 1: **{'met' if rate >= other else 'missed'}** | {ar:.0f} MiB | {sr:.0f} MiB |")


def memory(bench, minutes, runs):
    short = min(1, minutes / 2)
    print(f"memory: peak RSS, {short:g} vs {minutes:g} minutes ({runs} run(s) each)", flush=True)

    def ffmpeg(path):
        return ["ffmpeg", "-v", "error", "-i", path, "-ar", "16000", "-ac", "1", "-f", "f32le", "-"]

    def avocet(path):
        return [bench, "transcode", "--discard", path]

    for ext, (what, options) in CODECS.items():
        a, b = corpus_file(short, ext, options), corpus_file(minutes, ext, options)
        for name, command in (("avocet", avocet), ("ffmpeg", ffmpeg)):
            r = together([("short", command(a), False), ("long", command(b), False)], runs)
            (sw, _, sr, _), (lw, _, lr, _) = r["short"], r["long"]
            print(f"  {what:13} {name:7} {short:g} min {sr:6.1f} MiB ({sw:6.2f} s)   {minutes:g} min {lr:6.1f} MiB ({lw:6.2f} s)"
                  f"   growth {lr - sr:5.1f} MiB", flush=True)
            MEMORY.append(f"| {what} | {'`transcode --discard`' if name == 'avocet' else 'ffmpeg'} | {sr:.1f} MiB | {lr:.1f} MiB "
                          f"| {lr - sr:.1f} MiB |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=60, help="length of the transcode files (the goals are for 60)")
    parser.add_argument("--quick", action="store_true", help="12-second files, one run: a CI check of a few seconds")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--only", default="transcode,read,memory", help="comma-separated sections to run")
    args = parser.parse_args()
    if args.quick:
        args.minutes, args.runs = 0.2, 1
    if args.minutes <= 0 or args.runs <= 0:
        sys.exit("--minutes and --runs must be positive")
    bench = release_product("avocet-audio-bench", build=not args.no_build)
    python = venv_python()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; median of {args.runs} interleaved runs;"
          f" ratio = Avocet / other (below 1: Avocet faster)", flush=True)
    sections = set(args.only.split(","))
    if "transcode" in sections:
        transcode(bench, python, args.minutes, args.runs)
    if "read" in sections:
        read(bench, python, min(args.minutes, 10), args.runs)
    if "memory" in sections:
        memory(bench, args.minutes, 1 if args.quick else min(args.runs, 3))
    if TABLE:
        print("\n| job | Avocet | other | ratio | goal | peak RSS Avocet | peak RSS other |\n|---|---:|---:|---:|---|---:|---:|")
        print("\n".join(TABLE))
    if MEMORY:
        short = min(1, args.minutes / 2)
        print(f"\n| codec | process | {short:g} min | {args.minutes:g} min | growth |\n|---|---|---:|---:|---:|")
        print("\n".join(MEMORY))


if __name__ == "__main__":
    main()
