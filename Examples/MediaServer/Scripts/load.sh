#!/usr/bin/env bash
# Load test of the media server on loopback: builds the release server, starts it with a media
# directory of Avocet's fixtures, and runs wrk against POST /inspect (a small fixture's bytes, posted
# by a wrk Lua script) and GET /thumbnail, printing requests/s, p99 latency and the server's RSS
# (VmRSS from /proc/PID/status) before, during (the highest sample) and after each run; each route
# runs twice, so that one can see memory level off rather than grow.
#
# Usage (from anywhere):  bash Examples/MediaServer/Scripts/load.sh
# Settings by environment: DURATION (20s), THREADS (2), CONNECTIONS (8), PORT (18090),
# FIXTURE (frames-h264.mp4, 7.9 KB), MAX_MEDIA_WORK (4).
# Only 127.0.0.1 is ever contacted; every run is bounded by DURATION; the server is stopped at the end.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"       # Examples/MediaServer
repo="$(cd "$here/../.." && pwd)"                              # the Avocet repository
duration="${DURATION:-20s}"
threads="${THREADS:-2}"
connections="${CONNECTIONS:-8}"
port="${PORT:-18090}"
fixture="${FIXTURE:-frames-h264.mp4}"
max_media_work="${MAX_MEDIA_WORK:-4}"

if ! command -v wrk >/dev/null 2>&1; then
    echo "== installing wrk (Debian package)"
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get install -y wrk >/dev/null 2>&1 || { $sudo_cmd apt-get update >/dev/null && $sudo_cmd apt-get install -y wrk >/dev/null; }
fi

echo "== building the release server"
# Retried: in a working tree others are editing, SwiftPM stops when a source changes mid-build.
for attempt in 1 2 3; do
    if (cd "$here" && swift build -c release --product media-server >"/tmp/media-server-build.log" 2>&1); then break; fi
    if [ "$attempt" = 3 ]; then tail -20 /tmp/media-server-build.log; exit 1; fi
    sleep 5
done
tail -1 /tmp/media-server-build.log
bin="$(cd "$here" && swift build -c release --show-bin-path)/media-server"

work="$(mktemp -d /tmp/media-server-load.XXXXXX)"
mkdir -p "$work/media"
cp "$repo/Fixtures/$fixture" "$repo/Fixtures/av.mp4" "$work/media/"
cat > "$work/inspect.lua" <<EOF
-- Posts the fixture's bytes to /inspect on every request.
local file = assert(io.open("$repo/Fixtures/$fixture", "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/octet-stream"
EOF

"$bin" --host 127.0.0.1 --port "$port" --upload-dir "$work/uploads" --media-dir "$work/media" \
    --max-stored-uploads 200 --max-media-work "$max_media_work" >"$work/server.log" 2>&1 &
server=$!
sampler=""
cleanup() {
    if [ -n "$sampler" ]; then kill "$sampler" 2>/dev/null || true; fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
    if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then break; fi
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || { echo "the server did not start:"; cat "$work/server.log"; exit 1; }

rss() { awk '/VmRSS/ { print $2 }' "/proc/$server/status"; }   # KiB

# One wrk run with RSS samples every half second while it lasts; prints one summary line.
run() {
    local name="$1"; shift
    local before after peak rps p99 errors load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    before="$(rss)"
    : >"$work/rss.samples"
    ( while kill -0 "$server" 2>/dev/null; do rss >>"$work/rss.samples"; sleep 0.5; done ) &
    sampler=$!
    echo "== $name: wrk -t$threads -c$connections -d$duration --latency $*"
    wrk -t"$threads" -c"$connections" -d"$duration" --latency "$@" | tee "$work/$name.wrk"
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    sampler=""
    sleep 1
    after="$(rss)"
    peak="$(sort -n "$work/rss.samples" | tail -1)"
    rps="$(awk '/^Requests\/sec:/ { print $2 }' "$work/$name.wrk")"
    p99="$(awk '$1 == "99%" { print $2 }' "$work/$name.wrk")"
    errors="$(awk '/Non-2xx or 3xx responses:/ { print $5 }' "$work/$name.wrk")"
    printf '%-11s %8s req/s   p99 %9s   non-2xx %4s   RSS before %6d KiB, peak during %6d KiB, after %6d KiB   (load avg before: %s)\n' \
        "$name" "$rps" "$p99" "${errors:-0}" "$before" "$peak" "$after" "$load" >>"$work/summary"
}

: >"$work/summary"
# Each route twice: the second run shows whether memory keeps growing or has levelled off.
run inspect -s "$work/inspect.lua" "http://127.0.0.1:$port/inspect"
run thumbnail "http://127.0.0.1:$port/thumbnail?url=$fixture&t=1&w=160"
run inspect-2 -s "$work/inspect.lua" "http://127.0.0.1:$port/inspect"
run thumbnail-2 "http://127.0.0.1:$port/thumbnail?url=$fixture&t=1&w=160"

echo
echo "== summary ($fixture, $(nproc) cores, wrk -t$threads -c$connections -d$duration; uploads kept: $(ls "$work/uploads" | wc -l))"
cat "$work/summary"
