#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh ffmpeg  # ffprobe reads exported files back in the export tests
swift test
