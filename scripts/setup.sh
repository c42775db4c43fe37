#!/usr/bin/env bash
# First run on a fresh Debian 12 machine with Swift 6: install what is missing, build, and inspect a
# bundled fixture with avtool.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build
.build/debug/avtool inspect Fixtures/av.mp4
