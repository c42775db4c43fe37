#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer: address (AddressSanitizer: memory errors, no leak check)
# or thread (ThreadSanitizer); or checks for leaks: leak builds avocet-probe and avocet-soak with
# AddressSanitizer and runs them, with LeakSanitizer's check at exit, over every media fixture and
# committed mutant (every property, four ways) and through the soak's short form (loads, thumbnails and
# exports from files, HTTP and delegates, with faults and cancellation). The suite itself is not the
# leak check: XCTest, Swift Testing and Foundation keep allocations until exit that LeakSanitizer
# reports. Each builds into a build directory of its own (.build-SANITIZER), so the normal build stays
# as it is.
#
# `thread`: runs the tests one at a time (--no-parallel): under ThreadSanitizer the suite's many
# loopback servers and engine threads in parallel slow it so far that network timeouts fire. The
# package's lock (Sources/Locking) tells ThreadSanitizer of every hand-over (Swift's own Mutex on Linux
# waits through a futex it cannot see), and so do its continuations: with Swift 6.3 on Linux the
# runtime announces a release when a continuation resumes a task but no acquire where the task goes
# on (scripts/tsan-continuation-repro.sh shows it without Avocet), so every continuation in the
# package and its tests is a withHandOffContinuation, which adds the acquire. A continuation made
# with the standard functions is reported now and then.
#
#     bash scripts/sanitizers.sh thread [swift test arguments, e.g. --filter PlayerTests]
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-address}"
serial=()
shift || true
case "$kind" in
  address) flags=(--sanitize=address); export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
  thread) flags=(--sanitize=thread); serial=(--no-parallel) ;;
  leak) flags=(--sanitize=address); export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}" ;;
  *) echo "usage: $0 address|thread|leak [swift test arguments]" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh ffmpeg xvfb xauth x11-apps pulseaudio libasound2-plugins
# Stop at the first report, with the stacks that matter; the suite's child processes inherit these.
# The suite's time bounds and timeouts are scaled by 4 (FixtureSupport's TestTiming): a sanitizer
# slows everything. AVOCET_SANITIZER tells the memory-growth test that resident memory is the
# sanitizer allocator's.
# scripts/tsan-suppressions.txt is for reports ThreadSanitizer cannot judge, each with its reason (none today).
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan-suppressions.txt:${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="halt_on_error=1:${ASAN_OPTIONS:-}"
export AVOCET_SANITIZER="$kind"
export AVOCET_TEST_TIME_SCALE="${AVOCET_TEST_TIME_SCALE:-4}"
dir=".build-$kind"
if [ "$kind" = leak ]; then
  dir=".build-address"
  swift build --product avocet-probe "${flags[@]}" --build-path "$dir"
  swift build --product avocet-soak "${flags[@]}" --build-path "$dir"
  export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:${LSAN_OPTIONS:-}"
  export SWIFT_BACKTRACE="enable=no"
  media=$(ls Fixtures/*.{mp4,mov,mkv,webm,m4a,mp3,flac,opus,avi,wav,3gp} Fixtures/mutants/* | grep -v README)
  # shellcheck disable=SC2086
  "$dir/debug/avocet-probe" $media
  "$dir/debug/avocet-soak" --loads 1000 --thumbnails 100 --exports 5 --seconds 30
  echo "sanitizers.sh: no leaks found by LeakSanitizer in the probe or the soak"
  exit 0
fi
swift build --build-tests "${flags[@]}" --build-path "$dir"
swift test --skip-build "${serial[@]}" "${flags[@]}" --build-path "$dir" "$@"
