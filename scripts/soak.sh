#!/usr/bin/env bash
# The soak: 10,000 asset loads, 1,000 thumbnail requests and 100 exports at once, from files, a flaky
# loopback HTTP server and resource loader delegates with random faults, with random cancellation
# (Tools/Soak, avocet-soak). Fails on a crash, a hang, a failure that is not an AVError (or is AVError.unknown), descriptors or
# threads left behind, or memory that keeps growing; prints the outcomes and the samples.
#
#     bash scripts/soak.sh [avocet-soak arguments]    release build; the full counts, and 10 minutes at least
#     bash scripts/soak.sh --ci                       the short form CI runs (debug build, about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh ffmpeg
if [ "${1:-}" = "--ci" ]; then
  shift
  swift build --product avocet-soak
  soak=.build/debug/avocet-soak
  set -- --loads 1000 --thumbnails 100 --exports 5 --seconds 30 "$@"
else
  swift build -c release --product avocet-soak
  soak=.build/release/avocet-soak
fi
status=0
"$soak" "$@" || status=$?
if [ "$status" -gt 1 ] && [ "$status" -ne 2 ]; then
  echo "soak.sh: avocet-soak ended with status $status (a crash or a signal)" >&2
fi
exit "$status"
