#!/usr/bin/env python3
"""avtool inspect against ffprobe on the same files, in one run, as ratios.

    python3 Benchmarks/inspect_vs_ffprobe.py [--runs N] [--seconds S] [--no-build]

Builds avtool and avocet-bench in release mode (unless --no-build), installs ffprobe when missing,
then, on every media fixture:
  per file  `avtool inspect --json F`  vs  `ffprobe -v error -show_format -show_streams -of json F`
  batch     one `avtool inspect --json F1 ... Fn` process  vs  n ffprobe processes, one per file
  one core  in-process `load(.duration, .tracks, .commonMetadata)` per second (avocet-bench, a new
            AVURLAsset each time)  vs  ffprobe files per second, both pinned to core 0 with taskset
Reports the median wall time over N rounds, peak resident memory per process (from wait4), and
ratios (for times, below 1 means avtool is faster). Not a test: run it on demand.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import measure  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def media_fixtures():
    with open(os.path.join(ROOT, "Fixtures", "facts.json"), encoding="utf-8") as f:
        facts = json.load(f)
    return [os.path.join(ROOT, "Fixtures", fx["name"]) for fx in facts["fixtures"] if "bad" not in fx]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()

    subprocess.run(["bash", os.path.join(ROOT, "scripts", "install-deps.sh"), "ffmpeg"], check=True)
    if not args.no_build:
        for product in ("avtool", "avocet-bench"):
            subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
    avtool = os.path.join(ROOT, ".build", "release", "avtool")
    files = media_fixtures()
    ffprobe = lambda f: ["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", f]

    # Warm the page cache and both binaries once.
    measure([[avtool, "inspect", "--json", *files]] + [ffprobe(f) for f in files], 1)

    rows = []
    a, a_rss = measure([[avtool, "inspect", "--json", f] for f in files], args.runs)
    b, b_rss = measure([ffprobe(f) for f in files], args.runs)
    rows.append(("per file", len(files), a, b, a_rss, b_rss))
    a, a_rss = measure([[avtool, "inspect", "--json", *files]], args.runs)
    rows.append(("batch", len(files), a, b, a_rss, b_rss))

    print(f"avtool inspect vs ffprobe -show_format -show_streams, {len(files)} fixtures, median of {args.runs} rounds")
    print(f"{'workload':<10} {'avtool ms':>10} {'ffprobe ms':>11} {'ratio':>7} {'avtool KiB':>11} {'ffprobe KiB':>12}")
    for name, n, a, b, a_rss, b_rss in rows:
        print(f"{name:<10} {a * 1000:>10.1f} {b * 1000:>11.1f} {a / b:>7.2f} {a_rss:>11} {b_rss:>12}")

    # One core: in-process loads per second against ffprobe processes per second.
    bench = os.path.join(ROOT, ".build", "release", "avocet-bench")
    out = subprocess.run(["taskset", "-c", "0", bench, "--seconds", str(args.seconds), *files],
                         check=True, capture_output=True, text=True).stdout.strip()
    loads_per_second = float(out.split(": ")[1].split(" ")[0])
    pinned, _ = measure([["taskset", "-c", "0", *ffprobe(f)] for f in files], max(3, args.runs // 3))
    probes_per_second = len(files) / pinned
    print(f"one core: avocet {loads_per_second:.0f} loads/s ({out}); "
          f"ffprobe {probes_per_second:.1f} files/s; ratio {loads_per_second / probes_per_second:.0f}x")


if __name__ == "__main__":
    main()
