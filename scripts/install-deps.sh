#!/usr/bin/env bash
# Installs the Debian packages Avocet builds against, when any is missing (apt-get update first).
# Uses sudo when not run as root. Extra package names may be passed as arguments (e.g. ffmpeg).
set -euo pipefail
# libasound2-dev: ALSA, the audio device the player plays to (its null and file devices need no sound card).
# libsdl2-dev: SDL2, for the window of `avtool play --video` (avtool alone links it).
# libcurl4 and ca-certificates: FoundationNetworking (URLSession, used for http and https assets) loads
# libcurl at run time and checks servers against the system's certificates.
packages=(libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libasound2-dev libsdl2-dev pkg-config libcurl4 ca-certificates "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing missing packages: ${missing[*]}"
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
run env DEBIAN_FRONTEND=noninteractive apt-get update -q
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
