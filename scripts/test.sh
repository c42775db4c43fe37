#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
# ffmpeg: ffprobe reads exported files back in the export tests, and ffmpeg decodes reference pictures.
# xvfb, xauth, x11-apps: `avtool play --video` is tested in a virtual X server, screenshot by xwd.
bash scripts/install-deps.sh ffmpeg xvfb xauth x11-apps
swift test
