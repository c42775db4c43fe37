#!/usr/bin/env python3
"""Inspect + read every packet of a ~50 MB file: by path, and through a resource loader delegate that
serves it from disk, in both delegate modes, side by side, in one run.

    python3 Benchmarks/resource_loader.py [--scratch-path DIR] [--no-build] [--rounds N] [--repeat N]
                                          [--target R] [--judge MODES] [FILE ...]

Makes the test files in Benchmarks/out/ when missing: rl-50mb.mp4, 60 s of 1280x720 H.264 + AAC,
45-55 MB, moov first (`-movflags +faststart`); and the same streams remuxed with `-c copy` into
rl-50mb-moov-at-end.mp4 (no faststart: the moov box follows the media data), rl-50mb.mkv (Matroska)
and rl-50mb-fragmented.mp4 (`-movflags frag_keyframe+empty_moov+default_base_moof`). Only the last two
make `load(.totalSampleDataLength)` read every packet: for an MP4 with a full sample index Avocet
answers it from the index, so on the first two files the "full read" is the header parse alone (the
"read MB" column shows what each mode read). Then it builds
`swift build -c release --product avocet-rl-bench [--scratch-path DIR]` (Benchmarks/ResourceLoader),
then for each file runs each mode in a process of its own, interleaved (the order rotates each round):
  file      AVURLAsset(url: fileURL): Avocet reads the file itself
  network   custom-scheme URL, a delegate reading each requested range from disk (pread on its serial
            queue), isEntireLengthAvailableOnDemand = false: 2 MiB read-ahead requests, bounded cache
  ondemand  the same delegate with isEntireLengthAvailableOnDemand = true: 1 MiB requests when needed, a 4 MiB cache
Each process does --repeat repetitions (default 5), each on a new asset: load(.duration) (time to the
first loaded property), load(.tracks), then load(.totalSampleDataLength) of every track (the packet
scan where the header does not give it, which reads every packet once), and reports its medians. The table gives, per mode,
the median over rounds of those per-process medians: first property ms, total ms (inspect + full read),
MB/s (file bytes / total, MB = 10^6 bytes), throughput as a ratio of the file path's, bytes the
process read (rchar), bytes the delegate was asked for (MB, per repetition; in all and before the first
property loaded), its requests, and peak RSS (VmHWM) in MiB. The delegate
modes also check that the duration and the total sample data bytes equal the file path's.

Exits 1 when the throughput of the modes in --judge (default: ondemand, the mode of a delegate that
serves from disk, as seed 002 recommends for local media; `--judge network,ondemand` for both) is
below --target (default 0.80) of the file path's on any file where the file path read every byte (the files where the run is a full read; on the others the
ratio compares header-parse times of a few milliseconds and is shown, not judged), or when a delegate
mode disagrees with the file path. Not a test: run it on demand.
"""
import argparse
import os
import shlex
import statistics
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
FASTSTART = os.path.join(OUT, "rl-50mb.mp4")
MOOV_AT_END = os.path.join(OUT, "rl-50mb-moov-at-end.mp4")
MATROSKA = os.path.join(OUT, "rl-50mb.mkv")
FRAGMENTED = os.path.join(OUT, "rl-50mb-fragmented.mp4")
# Remuxes of FASTSTART: path -> extra ffmpeg output options.
REMUXES = {
    MOOV_AT_END: [],
    MATROSKA: [],
    FRAGMENTED: ["-movflags", "frag_keyframe+empty_moov+default_base_moof"],
}
MODES = ("file", "network", "ondemand")
MIN_BYTES, MAX_BYTES = 45_000_000, 55_000_000


def output(cmd):
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def encode_command(path, video_kbps):
    return ["ffmpeg", "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", f"{video_kbps}k",
            "-maxrate", f"{video_kbps}k", "-bufsize", f"{2 * video_kbps}k",
            "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", path]


def layout(path):
    """A few words on the file's structure."""
    if not path.endswith((".mp4", ".m4v", ".m4a", ".mov")):
        return os.path.splitext(path)[1].lstrip(".") or "?"
    boxes = [b for b in top_level_boxes(path) if b in ("moov", "mdat", "moof")]
    if "moof" in boxes:
        return f"fragmented MP4, {boxes.count('moof')} fragments"
    return "MP4, moov before mdat" if boxes[:1] == ["moov"] else "MP4, moov after mdat"


def top_level_boxes(path):
    """The MP4's top-level box types, in order."""
    boxes = []
    with open(path, "rb") as f:
        size_total = os.fstat(f.fileno()).st_size
        offset = 0
        while offset + 8 <= size_total:
            f.seek(offset)
            size, kind = struct.unpack(">I4s", f.read(8))
            if size == 1:
                size = struct.unpack(">Q", f.read(8))[0]
            elif size == 0:
                size = size_total - offset
            boxes.append(kind.decode("latin-1"))
            if size < 8:
                break
            offset += size
    return boxes


def make_files():
    """Encodes the faststart file (retrying with a scaled bitrate until it is 45-55 MB) and remuxes the
    other variants from it, each only when missing. Prints the commands."""
    os.makedirs(OUT, exist_ok=True)
    if not os.path.isfile(FASTSTART):
        kbps = 6000
        for _ in range(4):
            partial = FASTSTART + ".part.mp4"
            cmd = encode_command(partial, kbps)
            print(f"making: {shlex.join(cmd)}", file=sys.stderr)
            subprocess.run(cmd, check=True)
            size = os.path.getsize(partial)
            if MIN_BYTES <= size <= MAX_BYTES:
                os.replace(partial, FASTSTART)
                break
            print(f"  {size / 1e6:.1f} MB: outside 45-55 MB, again", file=sys.stderr)
            kbps = max(500, int(kbps * 50e6 / size))
        else:
            sys.exit(f"could not make a 45-55 MB file (last {size / 1e6:.1f} MB)")
    for path, options in REMUXES.items():
        if os.path.isfile(path):
            continue
        partial = path + ".part" + os.path.splitext(path)[1]
        cmd = ["ffmpeg", "-v", "error", "-y", "-i", FASTSTART, "-map", "0", "-c", "copy", *options, partial]
        print(f"making: {shlex.join(cmd)}", file=sys.stderr)
        subprocess.run(cmd, check=True)
        os.replace(partial, path)


def build(args):
    swift = ["swift", "build", "-c", "release"]
    if args.scratch_path:
        swift += ["--scratch-path", args.scratch_path]
    if not args.no_build:
        cmd = swift + ["--product", "avocet-rl-bench"]
        print(f"building: {shlex.join(cmd)}", file=sys.stderr)
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bench = os.path.join(output(swift + ["--show-bin-path"]), "avocet-rl-bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"no avocet-rl-bench at {bench}; build it or drop --no-build")
    return bench


def run_once(cmd):
    """One process; returns its key/value lines as a dict. Any failure ends the script."""
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAILED (status {proc.returncode}): {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}")
    values = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    return values


def measure(bench, path, args):
    """Interleaved rounds; returns {mode: [result dicts, one per process]}."""
    results = {m: [] for m in MODES}
    for r in range(args.rounds):
        for mode in MODES[r % 3:] + MODES[:r % 3]:
            results[mode].append(run_once([bench, mode, path, "--repeat", str(args.repeat)]))
    return results


def med(rows, key):
    return statistics.median(float(row[key]) for row in rows)


def git_state():
    try:
        head = output(["git", "rev-parse", "--short", "HEAD"])
        dirty = output(["git", "status", "--porcelain", "--", "Sources", "Package.swift"]).splitlines()
        if not dirty:
            return head
        sources = sum(1 for line in dirty if " Sources/" in line)
        package = any(line.endswith("Package.swift") for line in dirty)
        parts = ([f"{sources} changed files in Sources/"] if sources else []) + (["Package.swift"] if package else [])
        return f"{head} + uncommitted changes ({', '.join(parts)})"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def report(bench, path, results, args):
    """Prints one file's table; returns the list of problems (target missed, wrong answers)."""
    problems = []
    size = int(results["file"][0]["bytes"])
    name = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
    # A full read: the file path read (nearly) every byte. Else the run was a header parse only.
    full = med(results["file"], "bytesRead") >= 0.9 * size
    what = "every packet read" if full else "header only: no packet read, ratio not judged"
    print(f"\n### {name} ({size / 1e6:.1f} MB, {layout(path)}; {what})\n")
    print("| mode | first property ms | total ms | min – max | MB/s | ratio to file | read MB | requested MB "
          "| requests | requested before first property MB | peak RSS MiB | matches file |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    file_rate = size / 1e6 / (med(results["file"], "totalMs") / 1e3)
    for mode in MODES:
        rows = results[mode]
        total = med(rows, "totalMs")
        rate = size / 1e6 / (total / 1e3)
        ratio = rate / file_rate
        totals = [float(row["totalMs"]) for row in rows]
        if mode == "file":
            requested = requests = before = matches = "–"
        else:
            requested = f"{med(rows, 'bytesRequested') / 1e6:.1f}"
            requests = f"{med(rows, 'requests'):.0f}"
            before = f"{med(rows, 'firstPropertyBytesRequested') / 1e6:.2f}"
            answers = {row.get("matchesFile") for row in rows}
            matches = "yes" if answers == {"true"} else "NO"
            if matches != "yes":
                problems.append(f"{name}: {mode} disagrees with the file path (duration or sample data bytes)")
            if full and ratio < args.target and mode in args.judge.split(","):
                problems.append(f"{name}: {mode} throughput is {ratio:.2f} of the file path's, below the target {args.target:.2f}")
        print(f"| {mode} | {med(rows, 'firstPropertyMs'):.1f} | {total:.1f} | {min(totals):.1f} – {max(totals):.1f} "
              f"| {rate:.1f} | **{ratio:.2f}** | {med(rows, 'bytesRead') / 1e6:.1f} | {requested} | {requests} | {before} "
              f"| {med(rows, 'peakRSSKiB') / 1024:.1f} | {matches} |")
    print(f"\nCommands ({args.rounds} interleaved rounds, each a process of its own):")
    for mode in MODES:
        print(f"    {shlex.join([os.path.relpath(bench, ROOT), mode, name, '--repeat', str(args.repeat)])}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", help="media files (default: the four generated 50 MB files)")
    parser.add_argument("--scratch-path", help="passed to swift build (default: SwiftPM's .build)")
    parser.add_argument("--no-build", action="store_true", help="use the avocet-rl-bench already built")
    parser.add_argument("--rounds", type=int, default=3, help="processes per mode, interleaved")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions (new assets) in each process")
    parser.add_argument("--target", type=float, default=0.80, help="least throughput ratio to the file path")
    parser.add_argument("--judge", default="ondemand", help="comma-separated modes held to --target (network, ondemand)")
    args = parser.parse_args()

    started = time.time()
    if args.files:
        files = [os.path.abspath(f) for f in args.files]
    else:
        make_files()
        files = [FASTSTART, MOOV_AT_END, MATROSKA, FRAGMENTED]
    bench = build(args)
    # Warm the page cache (every mode reads the same bytes) and the binary once.
    for path in files:
        run_once([bench, "file", path, "--repeat", "1"])

    measuring, load_before = time.time(), os.getloadavg()[0]
    if load_before > 1.5:
        print(f"note: load average {load_before:.1f} before measuring: other work shares the cores", file=sys.stderr)
    all_results = {path: measure(bench, path, args) for path in files}

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="utf-8")
                if line.startswith("model name")), "unknown CPU")
    print("## Inspect + read every packet: file path vs resource loader delegate serving from disk\n")
    print(f"Per mode: median over {args.rounds} interleaved processes of each process's median over "
          f"{args.repeat} new assets. Total = load(.duration) + load(.tracks) + load(.totalSampleDataLength) "
          f"of every track. MB = 10^6 bytes; requested MB is per asset. libavformat "
          f"{output(['pkg-config', '--modversion', 'libavformat'])}; commit {git_state()}; {cpu}, "
          f"{os.cpu_count()} cores; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after "
          f"(other work on the cores shows as a wide min – max).")
    problems = []
    for path in files:
        problems += report(bench, path, all_results[path], args)
    print(f"\nMeasured in {time.time() - measuring:.0f} s ({time.time() - started:.0f} s with making, building and warming).")
    if problems:
        print("\n**TARGET NOT MET**" if any("target" in p for p in problems) else "\n**WRONG ANSWERS**")
        for p in problems:
            print(f"- {p}")
        sys.exit(1)
    print(f"\nTarget met: {args.judge} throughput ≥ {args.target:.2f} of the file path's on every file read in full.")


if __name__ == "__main__":
    main()
