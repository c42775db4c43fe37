#!/usr/bin/env bash
# Runs the whole test suite, installing what is missing first: Avocet's tests, then the media server
# example's (Examples/MediaServer, its own package). With CI=true (as .ci/run has it) or --all, also
# the production checks: the suite twice more beside two busy processes (scripts/stress-tests.sh 2:
# no test may wait on time or bound it too tightly), the DocC documentation without warnings, each
# fuzz target briefly with the committed crashers replayed, the soak's short form, the media server's
# failover script (two instances over PostgreSQL, one killed mid-work, the database restarted; about
# 40 s), and the suite under AddressSanitizer and under ThreadSanitizer (one test at a time; about 11
# minutes on two cores, build included).
# With --fast, only the fast, pure tests (the *UnitTests targets, CoreMediaTests, CoreVideoTests and
# UniformTypeIdentifiersTests: values in memory, no files, processes, servers or waits), in seconds once
# built, and nothing installed:
#   swift test --filter '^(AVFoundationUnitTests|MediaEngineUnitTests|CoreMediaTests|CoreVideoTests|UniformTypeIdentifiersTests)\.'
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
  exec swift test --filter '^(AVFoundationUnitTests|MediaEngineUnitTests|CoreMediaTests|CoreVideoTests|UniformTypeIdentifiersTests)\.'
fi
# ffmpeg: ffprobe reads exported files back in the export tests, and ffmpeg decodes reference pictures.
# xvfb, xauth, x11-apps: `avtool play --video` is tested in a virtual X server, screenshot by xwd.
# pulseaudio, libasound2-plugins: a PulseAudio null sink (through ALSA's pulse plugin) is the sound
# device that keeps time in the audio clock test.
# python3: AVFoundation's constants are checked against their table (Tools/Constants).
# gdb: a fuzz target that waits too long prints every thread's stack with it.
bash scripts/install-deps.sh ffmpeg xvfb xauth x11-apps pulseaudio libasound2-plugins python3 gdb
python3 Tools/Constants/generate.py --check
swift test
# The media server's shared job queue is tested against a real PostgreSQL from Debian's packages, a
# throwaway cluster on 127.0.0.1 (Examples/MediaServer/Scripts/postgres.sh; installed when missing).
# Stopped again when this script ends, however it ends.
MEDIA_SERVER_TEST_DATABASE_URL="$(bash Examples/MediaServer/Scripts/postgres.sh start | sed 's|/media_server?|/postgres?|')"
export MEDIA_SERVER_TEST_DATABASE_URL
trap 'bash Examples/MediaServer/Scripts/postgres.sh stop' EXIT
swift test --package-path Examples/MediaServer
if [ "${CI:-}" = "true" ] || [ "${1:-}" = "--all" ]; then
  bash scripts/stress-tests.sh 2
  bash scripts/docs.sh
  bash scripts/fuzz.sh --ci
  bash scripts/soak.sh --ci
  bash Examples/MediaServer/Scripts/failover.sh --debug
  bash scripts/sanitizers.sh address
  bash scripts/sanitizers.sh thread
fi
