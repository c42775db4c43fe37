#!/usr/bin/env python3
"""Avocet's asset load against FFmpeg's own header parse, pinned to one core, in one run, on the same files.

    python3 Benchmarks/header_parse.py [--scratch-path DIR] [--no-build] [--rounds N] [--seconds S]
                                       [--concurrency N] [--core C] [--per-file] [FILE ...]

Contestants, each cycling through the files for S seconds per round (after a short warm-up in the
same process), pinned with `taskset -c C` (core 0 by default):
  avocet     `try await asset.load(.duration, .tracks, .commonMetadata)` on a new AVURLAsset each time,
             N loads in flight (default 8, avocet-bench's default; all its threads share the one core)
             -- Benchmarks/LoadThroughput (`avocet-bench`), built with
             `swift build -c release --product avocet-bench [--scratch-path DIR]`
  find       avformat_open_input + avformat_find_stream_info + avformat_close_input, one file at a time
  open       avformat_open_input + avformat_close_input alone
`find` and `open` are Benchmarks/ffmpeg_open.c, compiled into Benchmarks/out/ with
`cc -O2 ... $(pkg-config --cflags --libs libavformat libavutil)`; files are opened by path with
default options and FFmpeg's log is silenced.

Rounds interleave the contestants (the order rotates each round) so machine noise falls on all of
them alike; the table gives each one's median rate and the ratios avocet/find (the target is >= 3)
and avocet/open. FILEs default to the media fixtures (Fixtures/facts.json entries not marked "bad").
--per-file then measures every file on its own (shorter rounds: --per-file-rounds, --per-file-seconds)
to show which files are slow for Avocet against FFmpeg. A failed load or open is counted and
reported, never folded into a rate silently. Not a test: run it on demand.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
C_SOURCE = os.path.join(ROOT, "Benchmarks", "ffmpeg_open.c")
C_BINARY = os.path.join(OUT, "ffmpeg_open")
# Both benchmarks print `loads|opens N in T s: R ... (..., E failures)`.
RESULT = re.compile(r"^(?:loads|opens) (\d+) in ([0-9.]+) s: .*?(\d+) failures\)\s*$", re.MULTILINE)
NAMES = {
    "avocet": "Avocet `load(.duration, .tracks, .commonMetadata)`, new AVURLAsset each time",
    "find": "FFmpeg `avformat_open_input` + `avformat_find_stream_info` + `avformat_close_input`",
    "open": "FFmpeg `avformat_open_input` + `avformat_close_input`",
}
CONTESTANTS = ("avocet", "find", "open")


def media_fixtures():
    with open(os.path.join(ROOT, "Fixtures", "facts.json"), encoding="utf-8") as f:
        facts = json.load(f)
    return [os.path.join(ROOT, "Fixtures", fx["name"]) for fx in facts["fixtures"] if "bad" not in fx]


def output(cmd):
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def build(args):
    """Builds avocet-bench (release) and ffmpeg_open; returns the path of avocet-bench."""
    swift = ["swift", "build", "-c", "release"]
    if args.scratch_path:
        swift += ["--scratch-path", args.scratch_path]
    if not args.no_build:
        print(f"building: {shlex.join(swift + ['--product', 'avocet-bench'])}", file=sys.stderr)
        subprocess.run(swift + ["--product", "avocet-bench"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bench = os.path.join(output(swift + ["--show-bin-path"]), "avocet-bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"no avocet-bench at {bench}; build it or drop --no-build")

    flags = shlex.split(output(["pkg-config", "--cflags", "--libs", "libavformat", "libavutil"]))
    os.makedirs(OUT, exist_ok=True)
    cc = ["cc", "-O2", "-o", C_BINARY, C_SOURCE, *flags]
    print(f"building: {shlex.join(cc)}", file=sys.stderr)
    subprocess.run(cc, cwd=ROOT, check=True)
    return bench


def command(contestant, bench, files, args, seconds, warmup):
    pin = ["taskset", "-c", str(args.core)]
    if contestant == "avocet":
        return pin + [bench, "--seconds", str(seconds), "--warmup", str(warmup),
                      "--concurrency", str(args.concurrency), *files]
    return pin + [C_BINARY, contestant, "--seconds", str(seconds), "--warmup", str(warmup), *files]


def measure_once(cmd):
    """Runs one benchmark process; returns (successes per second, failures, stderr text)."""
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    match = RESULT.search(proc.stdout)
    if proc.returncode not in (0, 1) or not match:
        sys.exit(f"failed ({proc.returncode}): {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}")
    done, elapsed, failures = int(match[1]), float(match[2]), int(match[3])
    return done / elapsed, failures, proc.stderr.strip()


def measure(bench, files, args, rounds, seconds, warmup):
    """Interleaved rounds; returns {contestant: [rates]}, and failure counts and messages."""
    rates = {c: [] for c in CONTESTANTS}
    failures = {c: 0 for c in CONTESTANTS}
    messages = set()
    for r in range(rounds):
        order = CONTESTANTS[r % 3:] + CONTESTANTS[:r % 3]
        for contestant in order:
            rate, failed, stderr = measure_once(command(contestant, bench, files, args, seconds, warmup))
            rates[contestant].append(rate)
            failures[contestant] += failed
            if stderr:
                messages.update(f"{contestant}: {line}" for line in stderr.splitlines())
    return rates, failures, messages


def ratio(a, b):
    """a / b as text, or a dash when b is zero (every load of a file failed)."""
    return f"{a / b:.2f}" if b else "–"


def micros(rate):
    return f"{1e6 / rate:.0f}" if rate else "–"


def git_state():
    try:
        head = output(["git", "rev-parse", "--short", "HEAD"])
        dirty = output(["git", "status", "--porcelain", "--", "Sources", "Package.swift"])
        return f"{head}{' + uncommitted changes in Sources/ or Package.swift' if dirty else ''}"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", help="media files (default: the 13 media fixtures)")
    parser.add_argument("--scratch-path", help="passed to swift build (default: SwiftPM's .build)")
    parser.add_argument("--no-build", action="store_true", help="use the avocet-bench already built")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2, help="per contestant per round")
    parser.add_argument("--warmup", type=float, default=0.3, help="seconds of warm-up in each process")
    parser.add_argument("--concurrency", type=int, default=8, help="avocet-bench loads in flight")
    parser.add_argument("--core", type=int, default=0, help="the core taskset pins every contestant to")
    parser.add_argument("--per-file", action="store_true", help="also measure each file on its own")
    parser.add_argument("--per-file-rounds", type=int, default=3)
    parser.add_argument("--per-file-seconds", type=float, default=0.5)
    args = parser.parse_args()

    if not shutil.which("taskset"):
        sys.exit("taskset not found (util-linux)")
    files = [os.path.abspath(f) for f in args.files] or media_fixtures()
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        sys.exit(f"not files: {' '.join(missing)}")
    bench = build(args)

    estimate = args.rounds * 3 * (args.seconds + args.warmup + 0.2)
    if args.per_file:
        estimate += len(files) * args.per_file_rounds * 3 * (args.per_file_seconds + 0.3)
    print(f"measuring, about {estimate:.0f} s ...", file=sys.stderr)
    started, load_before = time.time(), os.getloadavg()[0]

    rates, failures, messages = measure(bench, files, args, args.rounds, args.seconds, args.warmup)
    median = {c: statistics.median(rates[c]) for c in CONTESTANTS}

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="utf-8")
                if line.startswith("model name")), "unknown CPU")
    print(f"## Header parse on one core (`taskset -c {args.core}`)\n")
    print(f"{len(files)} files, {args.rounds} interleaved rounds of {args.seconds:g} s per contestant, median; "
          f"Avocet with {args.concurrency} loads in flight; libavformat {output(['pkg-config', '--modversion', 'libavformat'])}; "
          f"commit {git_state()}; {cpu}, {os.cpu_count()} cores; "
          f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after (other work on the core "
          f"shows as a wide min – max).\n")
    print("| contestant | loads/s (median) | min – max | µs per load | failed loads |")
    print("|---|---:|---:|---:|---:|")
    for c in CONTESTANTS:
        print(f"| {NAMES[c]} | {median[c]:.1f} | {min(rates[c]):.1f} – {max(rates[c]):.1f} | {micros(median[c])} | {failures[c]} |")
    print()
    print("| ratio | value |")
    print("|---|---:|")
    target = "met" if median["find"] and median["avocet"] >= 3 * median["find"] else "not met"
    print(f"| Avocet / (open + find_stream_info) | **{ratio(median['avocet'], median['find'])}** (target ≥ 3: {target}) |")
    print(f"| Avocet / (open alone) | **{ratio(median['avocet'], median['open'])}** |")

    if args.per_file:
        print(f"\n### Per file ({args.per_file_rounds} interleaved rounds of {args.per_file_seconds:g} s each, median)\n")
        print("| file | Avocet loads/s | open+find/s | open/s | Avocet / find | Avocet / open "
              "| Avocet µs | find µs | open µs |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for f in files:
            r, failed, msgs = measure(bench, [f], args, args.per_file_rounds, args.per_file_seconds, 0.1)
            for c in CONTESTANTS:
                failures[c] += failed[c]
            messages |= msgs
            m = {c: statistics.median(r[c]) for c in CONTESTANTS}
            print(f"| {os.path.relpath(f, ROOT) if f.startswith(ROOT) else f} | {m['avocet']:.0f} | {m['find']:.0f} "
                  f"| {m['open']:.0f} | {ratio(m['avocet'], m['find'])} | {ratio(m['avocet'], m['open'])} "
                  f"| {micros(m['avocet'])} | {micros(m['find'])} | {micros(m['open'])} |", flush=True)

    if any(failures.values()):
        print(f"\n**Failures** (counted out of the rates): "
              + ", ".join(f"{c} {n}" for c, n in failures.items()))
        for message in sorted(messages):
            print(f"- {message}")
    print(f"\navocet-bench: {bench}\n(measured in {time.time() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
