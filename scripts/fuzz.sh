#!/usr/bin/env bash
# Fuzzes Avocet's public API with libFuzzer: the targets of Tools/Fuzz (avocet-fuzz), built with
# `-sanitize=fuzzer,address` into .build-fuzz (or AVOCET_FUZZ_BUILD).
#
#     bash scripts/fuzz.sh open|thumbnail|loader|reader|audio|player|export [SECONDS]   one target, 1800 s unless told
#     bash scripts/fuzz.sh all [SECONDS]                      each target in turn
#     bash scripts/fuzz.sh --ci                               the brief form CI runs: each target 60 s
#
# Every run first replays the committed regression inputs (Fixtures/fuzz/TARGET), then fuzzes from a
# corpus kept in .build-fuzz/corpus/TARGET, seeded from the fixtures. An input that crashes or hangs
# (over 30 s) is written to .build-fuzz/artifacts/TARGET/ and the script fails; commit it under
# Fixtures/fuzz/TARGET/ with the fix, so that the test suite (FuzzRegressionTests) replays it.
#
# libFuzzer's runtime brings a `main` of its own, and SwiftPM defines the executable's `main` too, hence
# --allow-multiple-definition; either one runs libFuzzer's driver (Tools/Fuzz/main.swift). Leak
# checking is LeakSanitizer's job (scripts/sanitizers.sh leak): here it would report the Swift
# runtime's caches.
set -euo pipefail
cd "$(dirname "$0")/.."
# Another build folder (AVOCET_FUZZ_BUILD) lets a new build fuzz while an older one still runs.
build="${AVOCET_FUZZ_BUILD:-.build-fuzz}"
mode="${1:-all}"
seconds="${2:-1800}"
targets=(open thumbnail loader reader audio player export)
case "$mode" in
  --ci) seconds=60 ;;
  all) ;;
  open|thumbnail|loader|reader|audio|player|export) targets=("$mode") ;;
  *) echo "usage: $0 open|thumbnail|loader|reader|audio|player|export|all [SECONDS] | --ci" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh ffmpeg
swift build --product avocet-fuzz --build-path "$build" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DAVOCET_FUZZ \
  -Xlinker --allow-multiple-definition 2>&1 | grep -v "Cannot export local symbol" || true
fuzzer="$build/debug/avocet-fuzz"
[ -x "$fuzzer" ] || { echo "fuzz.sh: the build failed" >&2; exit 1; }
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
# libFuzzer reports crashes itself; Swift's backtracer, which reads memory ASan guards, would only add noise.
export SWIFT_BACKTRACE="enable=no"

# Seeds: the media fixtures as they are (open); behind a header of settings (thumbnail: exact and
# default tolerances, a size limit, several times; reader: stored, decoded, scaled and mixed outputs
# and timed metadata (the .ts and timed-metadata.mov fixtures),
# the async sequence, cancellation, random access); the sound fixtures (Fixtures/audio and the media
# with sound) behind a header of processing formats and buffer sizes (audio); the media fixtures
# behind a header of rates, picture formats and seeks (player) or of presets, file types, time ranges
# and cancellation (export); a few delegate programs (loader).
seed() {
  local target="$1" dir="$build/corpus/$1"
  mkdir -p "$dir"
  [ -n "$(ls -A "$dir")" ] && return 0
  python3 - "$target" "$dir" <<'PY'
import os, sys
target, out = sys.argv[1], sys.argv[2]
media = [os.path.join("Fixtures", n) for n in sorted(os.listdir("Fixtures"))
         if n.rsplit(".", 1)[-1] in ("mp4", "mov", "mkv", "webm", "m4a", "mp3", "flac", "opus", "avi", "wav", "3gp", "ts")]
def write(name, data):
    with open(os.path.join(out, name), "wb") as f: f.write(data)
def behind(headers, paths, width=0):
    """Each file behind one of the headers in turn (padded with zeros to width)."""
    for i, path in enumerate(paths):
        write(os.path.basename(path), headers[i % len(headers)].ljust(width, b"\0") + open(path, "rb").read())
if target == "open":
    for path in media: write(os.path.basename(path), open(path, "rb").read())
elif target == "thumbnail":
    headers = [bytes([0, 0, 0, 0, 0, 0, 0]), bytes([1, 1, 40, 30, 2, 0, 0, 3, 232, 7, 208]),
               bytes([2 | 4, 5, 0, 0, 3, 0, 100, 1, 0, 0xFF, 0xFF, 0xFF, 0xFE]), bytes([3 | 8, 0, 16, 16, 1, 0, 50, 0, 0])]
    behind(headers, media, 16)
elif target == "reader":
    headers = [bytes([0, 0, 0]), bytes([1 | 4, 5, 10]), bytes([2 | 8 | 16, 0, 0]), bytes([3 | 12, 0, 0, 20, 10]),
               bytes([32 | 1 | 4, 0, 0, 0, 0, 7]), bytes([64 | 4, 0, 10, 0, 0, 0, 3])]
    behind(headers, media, 8)
elif target == "audio":
    sounds = [os.path.join("Fixtures/audio", n) for n in sorted(os.listdir("Fixtures/audio"))
              if n.rsplit(".", 1)[-1] in ("wav", "m4a", "flac", "mp3", "ogg", "opus", "aiff", "caf", "mka", "mp4")]
    sounds += [p for p in media if os.path.basename(p) in ("tone.wav", "tagged.flac", "tagged.m4a", "tagged.mp3", "av.mp4", "multi.mkv")]
    headers = [bytes([0, 64, 0, 64]), bytes([1 | 4, 1, 128, 3]), bytes([2 | 8, 255, 255, 0]), bytes([3 | 4 | 8, 16, 17, 255])]
    behind(headers, sounds)
elif target == "export":
    headers = [bytes([0, 0, 0, 0]), bytes([1 | 8, 0, 0, 0]), bytes([2 | 16 | 64, 5, 10, 0]), bytes([3, 0, 0, 0]),
               bytes([4 | 32, 0, 0, 0]), bytes([0 | 8 | 16 | 64, 3, 0, 0])]
    behind(headers, media)
elif target == "player":
    headers = [bytes([0, 0, 0, 0]), bytes([1 | 4 | 16, 5, 0, 0]), bytes([2 | 16 | 32 | 64, 10, 3, 0]), bytes([3 | 8 | 128, 0, 0, 0]),
               bytes([4 | 64 | 128, 0, 12, 0])]
    behind(headers, media)
else:
    programs = [b"", b"\x00\x05", b"\x01\x02\x01\x00\x10\x20", b"\x02\x04\x00\x02\x01\x01", b"\x03\x00\x0a\x00\x0a",
                b"\x04\x01\x00\x01\x07\x09", b"\x05\x03\x05\x00\x0b", b"\x06\x04\x00\x00\x06\x08", b"\x07\x00\x00\x01\x02\x03\x04",
                b"\x08\x10\x00\x00\x0c\x0c\x0c", b"\x09\x00\x00\x02\x05"]
    for i, program in enumerate(programs): write("program-%02d" % i, bytes([i % 10]) + program)
PY
}

status=0
for target in "${targets[@]}"; do
  seed "$target"
  mkdir -p "$build/artifacts/$target"
  regressions=(Fixtures/fuzz/"$target"/*)
  if [ -e "${regressions[0]}" ]; then
    echo "== $target: replaying ${#regressions[@]} regression input(s)"
    AVOCET_FUZZ_TARGET="$target" "$fuzzer" -timeout=30 "${regressions[@]}" > "$build/$target-regressions.log" 2>&1 || {
      echo "== $target: a regression input fails again (log: $build/$target-regressions.log)"; status=1; }
  fi
  echo "== $target: fuzzing for $seconds s"
  if ! AVOCET_FUZZ_TARGET="$target" "$fuzzer" "$build/corpus/$target" \
      -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -max_len=160000 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$target/" 2>&1 | tee "$build/$target.log" | grep -E "^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Fatal error|stat::|ALARM" ; then
    :
  fi
  if grep -qE "ERROR: libFuzzer|SUMMARY: AddressSanitizer|Fatal error|ALARM:|deadly signal" "$build/$target.log"; then
    echo "== $target: FOUND a crash or a hang; the input is in $build/artifacts/$target/ (log: $build/$target.log)"
    # A hang the target caught itself printed every thread's stack: show the frames that name Avocet or FFmpeg.
    grep -E '^== hang|^Thread |^#[0-9]+ .*(AVFoundation|MediaEngine|CoreMedia|avcodec|avformat|pthread_cond|futex|sem_wait)' \
      "$build/$target.log" | head -120 || true
    status=1
  else
    echo "== $target: no crash or hang in $seconds s ($(grep -E '^stat::number_of_executed_units' "$build/$target.log" | awk '{print $2}') inputs)"
  fi
done
exit $status
