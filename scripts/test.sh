#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift test
