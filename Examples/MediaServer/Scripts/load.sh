#!/usr/bin/env bash
# Load test of the media server on loopback: builds the release server, starts it with a media
# directory of Avocet's fixtures, and runs wrk against POST /inspect (a small fixture's bytes, posted
# by a wrk Lua script) and GET /thumbnail, printing requests/s, p99 latency and the server's RSS
# (VmRSS from /proc/PID/status) before, during (the highest sample) and after each run; each route
# runs twice, so that one can see memory level off rather than grow.
#
# Usage (from anywhere):  bash Examples/MediaServer/Scripts/load.sh [--cluster]
# --cluster: two instances sharing one PostgreSQL (Scripts/postgres.sh) and one storage directory,
# behind nginx (Debian's nginx-light) as the load balancer; each route is run against one instance
# (through nginx too, so that both sides pay for the proxy), then through nginx to both, in the same
# run (RSS is then the sum of both instances).
# Settings by environment: DURATION (20s), THREADS (2), CONNECTIONS (8), PORT (18090; the cluster
# uses the next three ports too, and 55434 for PostgreSQL), FIXTURE (frames-h264.mp4, 7.9 KB),
# MAX_MEDIA_WORK (4).
# Only 127.0.0.1 is ever contacted; every run is bounded by DURATION; the servers are stopped at the end.
set -euo pipefail
cluster=false
[ "${1:-}" = "--cluster" ] && cluster=true

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"       # Examples/MediaServer
repo="$(cd "$here/../.." && pwd)"                              # the Avocet repository
duration="${DURATION:-20s}"
threads="${THREADS:-2}"
connections="${CONNECTIONS:-8}"
port="${PORT:-18090}"
fixture="${FIXTURE:-frames-h264.mp4}"
max_media_work="${MAX_MEDIA_WORK:-4}"

packages=(wrk curl)
$cluster && packages+=(nginx-light)
bash "$repo/scripts/install-deps.sh" "${packages[@]}" >/dev/null

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

chmod 755 "$work"   # the postgres user (when run as root) reaches its cluster inside
pids=()
sampler=""
cleanup() {
    if [ -n "$sampler" ]; then kill "$sampler" 2>/dev/null || true; fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    if $cluster; then bash "$here/Scripts/postgres.sh" stop "$work/postgres" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# One instance on PORT (with the database when there is one); waits for its /health.
start_server() {
    local port="$1"; shift
    "$bin" --host 127.0.0.1 --port "$port" --upload-dir "$work/uploads" --media-dir "$work/media" \
        --max-stored-uploads 200 --max-media-work "$max_media_work" "$@" >"$work/server-$port.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do
        if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then break; fi
        sleep 0.1
    done
    curl -sf "http://127.0.0.1:$port/health" >/dev/null || { echo "the server did not start:"; cat "$work/server-$port.log"; exit 1; }
}

if $cluster; then
    url="$(bash "$here/Scripts/postgres.sh" start "$work/postgres" 55434)"
    start_server "$port" --database-url "$url" --instance-name one --export-dir "$work/exports"
    start_server $((port + 1)) --database-url "$url" --instance-name two --export-dir "$work/exports"
    mkdir -p "$work/nginx"
    cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    client_max_body_size 100m;
    client_body_buffer_size 1m;
    upstream both { least_conn; server 127.0.0.1:$port; server 127.0.0.1:$((port + 1)); keepalive 32; }
    upstream alone { server 127.0.0.1:$port; keepalive 32; }
    server {
        listen 127.0.0.1:$((port + 2));
        location / { proxy_pass http://both; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
    server {
        listen 127.0.0.1:$((port + 3));
        location / { proxy_pass http://alone; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
NGINX
    nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off; user root;' &
    pids+=($!)
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$((port + 2))/health" >/dev/null 2>&1 && break; sleep 0.1; done
    servers=("${pids[0]}" "${pids[1]}")
else
    start_server "$port"
    servers=("${pids[0]}")
fi

rss() {   # KiB, every instance together
    local total=0 pid
    for pid in "${servers[@]}"; do total=$((total + $(awk '/VmRSS/ { print $2 }' "/proc/$pid/status"))); done
    echo "$total"
}

# One wrk run with RSS samples every half second while it lasts; prints one summary line.
run() {
    local name="$1"; shift
    local before after peak rps p99 errors load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    before="$(rss)"
    : >"$work/rss.samples"
    ( while kill -0 "${servers[0]}" 2>/dev/null; do rss >>"$work/rss.samples"; sleep 0.5; done ) &
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
if $cluster; then
    # The same routes against one instance, then through nginx to both; the pair's runs repeated
    # to show whether memory keeps growing or has levelled off.
    alone="http://127.0.0.1:$((port + 3))"; both="http://127.0.0.1:$((port + 2))"
    run inspect-one -s "$work/inspect.lua" "$alone/inspect"
    run inspect-two -s "$work/inspect.lua" "$both/inspect"
    run thumb-one "$alone/thumbnail?url=$fixture&t=1&w=160"
    run thumb-two "$both/thumbnail?url=$fixture&t=1&w=160"
    run inspect-two -s "$work/inspect.lua" "$both/inspect"
    run thumb-two "$both/thumbnail?url=$fixture&t=1&w=160"
else
    # Each route twice: the second run shows whether memory keeps growing or has levelled off.
    run inspect -s "$work/inspect.lua" "http://127.0.0.1:$port/inspect"
    run thumbnail "http://127.0.0.1:$port/thumbnail?url=$fixture&t=1&w=160"
    run inspect-2 -s "$work/inspect.lua" "http://127.0.0.1:$port/inspect"
    run thumbnail-2 "http://127.0.0.1:$port/thumbnail?url=$fixture&t=1&w=160"
fi

echo
echo "== summary ($fixture, $(nproc) cores, wrk -t$threads -c$connections -d$duration; $($cluster && echo 'RSS: both instances together; ')uploads kept: $(ls "$work/uploads" | wc -l))"
cat "$work/summary"
