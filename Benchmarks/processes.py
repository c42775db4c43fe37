"""Timing whole processes for the benchmark scripts: wall time and peak resident memory."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
CORPUS = os.path.join(OUT, "corpus")


def usage(cmd, env=None):
    """Wall seconds and the resource usage (wait4's: CPU time, peak RSS) of one process, output
    discarded; exits when it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, used = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode(errors='replace')}")
    return elapsed, used


def capture(cmd, env=None, keep_output=True, stdin_path=None):
    """Wall seconds, the resource usage (wait4's) and the standard output (text; empty when not kept:
    then it goes to /dev/null) of one process, run with `env` (this process's environment when None),
    its standard input read from `stdin_path` when given; exits when it fails."""
    with tempfile.TemporaryFile() as errors, open(stdin_path or os.devnull, "rb") as source:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=source, stdout=subprocess.PIPE if keep_output else subprocess.DEVNULL, stderr=errors, env=env)
        out = b""
        if keep_output:
            out = proc.stdout.read()
            proc.stdout.close()
        _, status, used = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            sys.exit(f"failed: {' '.join(cmd)}\n{errors.read().decode(errors='replace')}")
    return elapsed, used, out.decode(errors="replace")


def run(cmd):
    """Wall seconds and peak RSS (KiB) of one process, output discarded; exits when it fails."""
    elapsed, used = usage(cmd)
    return elapsed, used.ru_maxrss


def measure(commands, runs):
    """Median total wall time of running `commands` one after another, and their largest peak RSS."""
    totals, peak = [], 0
    for _ in range(runs):
        total = 0.0
        for cmd in commands:
            seconds, rss = run(cmd)
            total += seconds
            peak = max(peak, rss)
        totals.append(total)
    return statistics.median(totals), peak


def prepare(root, build):
    """Installs the ffmpeg command when missing, builds avtool in release mode unless told not to, and
    returns avtool's path."""
    import shutil
    if shutil.which("ffmpeg") is None:
        subprocess.run(["bash", os.path.join(root, "scripts", "install-deps.sh"), "ffmpeg"], check=True)
    if build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "avtool"], cwd=root, check=True)
    return os.path.join(root, ".build", "release", "avtool")


def together(jobs, runs):
    """Runs each job (name, command, keep its output, and optionally a file for its standard input)
    once a round, `runs` rounds (interleaved, so every tool sees the same machine). Returns per job:
    median wall seconds, median CPU seconds, peak RSS in MiB and the last run's JSON output with its
    "seconds" replaced by the median over the runs (None for jobs whose output goes to /dev/null)."""
    walls, cpus, inside = ({job[0]: [] for job in jobs} for _ in range(3))
    peaks = {job[0]: 0 for job in jobs}
    outputs = {}
    for _ in range(runs):
        for name, cmd, keep, *stdin in jobs:
            wall, used, out = capture(cmd, keep_output=keep, stdin_path=stdin[0] if stdin else None)
            walls[name].append(wall)
            cpus[name].append(used.ru_utime + used.ru_stime)
            peaks[name] = max(peaks[name], used.ru_maxrss)
            outputs[name] = json.loads(out.strip().splitlines()[-1]) if keep else None
            if keep:
                inside[name].append(outputs[name]["seconds"])
                outputs[name]["seconds"] = statistics.median(inside[name])
    return {job[0]: (statistics.median(walls[job[0]]), statistics.median(cpus[job[0]]), peaks[job[0]] / 1024, outputs[job[0]])
            for job in jobs}


def row(label, wall, cpu, rss, extra="", width=44):
    """Prints one tool's line of a comparison: wall and CPU seconds, peak RSS in MiB, and `extra`."""
    print(f"  {label:{width}} {wall:8.3f} s  cpu {cpu:8.3f} s  {rss:6.1f} MiB{extra}", flush=True)


def goal(met):
    return "goal met" if met else "GOAL MISSED"


def release_product(product, build):
    """Installs the ffmpeg command when missing, builds the Swift product `product` in release mode
    unless told not to, and returns its path."""
    prepare(ROOT, build=False)
    if build:
        subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=ROOT, check=True)
    return os.path.join(ROOT, ".build", "release", product)


def compile_ffmpeg_tool(name, libraries):
    """Compiles Benchmarks/NAME.c against the system's FFmpeg `libraries` (pkg-config names) into
    Benchmarks/out/NAME, making the folder first; returns the binary's path."""
    os.makedirs(OUT, exist_ok=True)
    binary = os.path.join(OUT, name)
    subprocess.run(f"cc -O2 -o {binary} {os.path.join(ROOT, 'Benchmarks', name + '.c')} "
                   f"$(pkg-config --cflags --libs {' '.join(libraries)})", shell=True, check=True)
    return binary
