#!/usr/bin/env bash
# Runs the whole suite N times in a row (default 3) beside two busy processes (`yes > /dev/null`
# twice, ended on exit whatever happens), as a loaded machine or CI runner would: a test that waits on
# time instead of an event, or has a bound too tight, fails here first. Builds first, so the runs
# leave out build time. Prints each run's result and its failing tests, keeps every run's log in a
# temporary directory (printed), and ends with `stress-tests: N passed, M failed`; exits non-zero if
# any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
case "$runs" in ''|*[!0-9]*) echo "usage: $0 [RUNS]" >&2; exit 2 ;; esac

swift build --build-tests || exit 1

logs="$(mktemp -d "${TMPDIR:-/tmp}/avocet-stress-tests.XXXXXX")"
busy=()
suite=""
stop_busy() {
  [ -n "$suite" ] && kill "$suite" 2>/dev/null
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null; done
  busy=()
}
trap stop_busy EXIT
trap 'stop_busy; exit 130' INT TERM
for _ in 1 2; do
  yes > /dev/null &
  busy+=("$!")
done
echo "stress-tests: $runs runs beside two busy processes (pids ${busy[*]}); logs in $logs"

passed=0 failed=0
started=$SECONDS
for run in $(seq 1 "$runs"); do
  log="$logs/run-$run.log"
  begun=$SECONDS
  # In the background and waited for, so that an interrupt ends the run at once.
  swift test --skip-build > "$log" 2>&1 &
  suite=$!
  if wait "$suite"; then
    suite=""
    passed=$((passed + 1))
    echo "run $run: passed ($((SECONDS - begun)) s)"
  else
    suite=""
    failed=$((failed + 1))
    echo "run $run: FAILED ($((SECONDS - begun)) s), log $log"
    # Swift Testing marks a failing test, and each issue it recorded (with the line after), with ✘.
    grep -E -A1 "^✘ Test .* recorded an issue" "$log" | grep -v "^--$" | sed 's/^/    /' | head -40
    grep -E "^✘ Test .* failed after" "$log" | grep -v "^✘ Test run" | sed 's/^/    /'
    grep -q "Test run with" "$log" || { echo "    (no summary: the run crashed or hung; the log's end:)"; tail -5 "$log" | sed 's/^/    /'; }
  fi
done
echo "stress-tests: total $((SECONDS - started)) s; logs in $logs"
echo "stress-tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
