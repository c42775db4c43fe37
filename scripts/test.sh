#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
# ffmpeg: ffprobe reads exported files back in the export tests, and ffmpeg decodes reference pictures.
# xvfb, xauth, x11-apps: `avtool play --video` is tested in a virtual X server, screenshot by xwd.
# pulseaudio, libasound2-plugins: a PulseAudio null sink (through ALSA's pulse plugin) is the sound
# device that keeps time in the audio clock test.
bash scripts/install-deps.sh ffmpeg xvfb xauth x11-apps pulseaudio libasound2-plugins
swift test
