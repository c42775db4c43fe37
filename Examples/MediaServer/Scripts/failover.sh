#!/usr/bin/env bash
# Fault test of the shared job queue, on loopback only: two media-server instances over one
# PostgreSQL and one storage directory.
#
#   1. JOBS exports (50) are submitted, alternately to each instance; while they run, one instance is
#      killed with SIGKILL. Every job must end completed exactly once: its output valid (ffprobe: a
#      video stream, the duration asked), one output file per job, no partial file left, and the jobs
#      the dead instance held taken again by the survivor (attempts 2).
#   2. RESTART_JOBS more (20) are submitted to the survivor and PostgreSQL is restarted while they run:
#      the instance reconnects and every job still completes.
#
# Usage (from anywhere):  bash Examples/MediaServer/Scripts/failover.sh [--debug]
# --debug uses the debug build that `swift test` leaves (CI's short form); the default builds release.
# Settings by environment: JOBS (50), RESTART_JOBS (20), LEASE (3 s), TIMEOUT (300 s for each phase).
# Prints one line per check and "failover: PASS" at the end; exits 1 on the first failure. Every wait
# has a deadline; the instances and the PostgreSQL cluster are stopped at the end whatever happens.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"       # Examples/MediaServer
repo="$(cd "$here/../.." && pwd)"
jobs="${JOBS:-50}"
restart_jobs="${RESTART_JOBS:-20}"
lease="${LEASE:-3}"
timeout="${TIMEOUT:-300}"
config=release
[ "${1:-}" = "--debug" ] && config=debug

work="$(mktemp -d "${TMPDIR:-/tmp}/media-server-failover.XXXXXX")"
chmod 755 "$work"   # the postgres user (when run as root) reaches its cluster inside
pgdir="$work/postgres"
pgport=55433
ports=(18191 18192)
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  bash "$here/Scripts/postgres.sh" stop "$pgdir" || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "failover: FAIL: $*" >&2; exit 1; }

bash "$repo/scripts/install-deps.sh" ffmpeg curl >/dev/null
if [ "$config" = release ]; then
  echo "== building the release server"
  swift build -c release --product media-server --package-path "$here" 2>&1 | grep -E "error|Compiling media|Build complete" || true
fi
server="$here/.build/$config/media-server"
[ -x "$server" ] || fail "no $server (build it, or run swift test first for --debug)"

echo "== PostgreSQL on 127.0.0.1:$pgport"
url="$(bash "$here/Scripts/postgres.sh" start "$pgdir" "$pgport")"
psql_() { psql "$url" -Atq -c "$1"; }

# A 12-second 640x360 movie with sound, so that an export runs long enough to be killed mid-way.
mkdir -p "$work/media" "$work/storage"
ffmpeg -v error -f lavfi -i testsrc2=size=640x360:rate=30:duration=12 -f lavfi -i sine=frequency=440:duration=12 \
  -c:v libx264 -preset veryfast -g 30 -c:a aac -shortest "$work/media/long.mp4"

start_instance() {
  local index="$1"
  "$server" --port "${ports[$index]}" --database-url "$url" --job-lease "$lease" --max-exports 2 \
    --instance-name "instance-$index" --upload-dir "$work/storage/uploads" --export-dir "$work/storage/exports" \
    --media-dir "$work/media" --no-remote > "$work/instance-$index.log" 2>&1 &
  pids[$index]=$!
  disown "${pids[$index]}"   # its SIGKILL is the test, not news
  local deadline=$((SECONDS + 60))
  until curl -sf "http://127.0.0.1:${ports[$index]}/health" >/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "instance $index did not start (log: $(tail -5 "$work/instance-$index.log"))"
    kill -0 "${pids[$index]}" 2>/dev/null || fail "instance $index exited: $(tail -5 "$work/instance-$index.log")"
    sleep 0.2
  done
}

submit() {  # PORT -> job id
  curl -sf -d '{"source": "long.mp4", "preset": "AVAssetExportPresetLowQuality", "from": 1, "to": 9}' \
    "http://127.0.0.1:$1/export" | sed -n 's/.*"id":"\([0-9a-f-]*\)".*/\1/p'
}

wait_all_finished() {  # COUNT
  local deadline=$((SECONDS + timeout))
  while [ "$(psql_ "SELECT count(*) FROM media_jobs WHERE state IN ('completed','failed','cancelled')")" -lt "$1" ]; do
    [ $SECONDS -lt $deadline ] || fail "after ${timeout}s: $(psql_ "SELECT state || ' ' || count(*) FROM media_jobs GROUP BY state" | tr '\n' ' ')"
    sleep 0.5
  done
}

check_outputs() {  # COUNT
  local states
  states="$(psql_ "SELECT state || ' ' || count(*) FROM media_jobs GROUP BY state ORDER BY state" | tr '\n' ' ')"
  [ "$states" = "completed $1 " ] || fail "every job completed, once: $states"
  local files partials
  files="$(find "$work/storage/exports" -maxdepth 1 -name '*.mp4' ! -name '.*' | wc -l)"
  [ "$files" -eq "$1" ] || fail "$files output files for $1 jobs"
  partials="$(find "$work/storage/exports" -maxdepth 1 -name '.*partial*' | wc -l)"
  [ "$partials" -eq 0 ] || fail "$partials partial files left"
  local id bad=0
  for id in $(psql_ "SELECT id FROM media_jobs"); do
    local duration
    duration="$(ffprobe -v error -select_streams v:0 -show_entries format=duration -of csv=p=0 "$work/storage/exports/$id.mp4" || echo 0)"
    awk -v d="$duration" 'BEGIN { exit !(d > 7.8 && d < 8.2) }' || { echo "  $id: duration $duration" >&2; bad=$((bad + 1)); }
  done
  [ "$bad" -eq 0 ] || fail "$bad outputs are not the 8 s asked"
  echo "   $1 jobs completed once each; $files outputs, each valid and 8 s long; no partial file"
}

echo "== two instances ($config build), lease ${lease}s, 2 exports each at once"
start_instance 0
start_instance 1

echo "== phase 1: $jobs exports submitted to both; instance 0 killed with SIGKILL while it works"
for i in $(seq 1 "$jobs"); do
  id="$(submit "${ports[$((i % 2))]}")"
  [ -n "$id" ] || fail "submission $i was refused"
done
deadline=$((SECONDS + 60))
until [ "$(psql_ "SELECT count(*) FROM media_jobs WHERE state = 'running' AND lease_owner = 'instance-0'")" -ge 1 ] \
   && [ "$(psql_ "SELECT count(*) FROM media_jobs WHERE state = 'completed'")" -ge 4 ]; do
  [ $SECONDS -lt $deadline ] || fail "instance 0 never ran jobs"
  sleep 0.1
done
held="$(psql_ "SELECT id FROM media_jobs WHERE state = 'running' AND lease_owner = 'instance-0'" | sort)"
kill -9 "${pids[0]}"
echo "   killed instance 0 holding $(echo "$held" | wc -l) running job(s); $(psql_ "SELECT count(*) FROM media_jobs WHERE state = 'completed'") completed so far"
wait_all_finished "$jobs"
check_outputs "$jobs"
for id in $held; do
  [ "$(psql_ "SELECT attempts || ' ' || state FROM media_jobs WHERE id = '$id'")" = "2 completed" ] \
    || fail "job $id held by the dead instance: $(psql_ "SELECT attempts || ' ' || state FROM media_jobs WHERE id = '$id'")"
done
echo "   the jobs the dead instance held were taken again by the survivor (attempts 2)"
status="$(curl -s "http://127.0.0.1:${ports[1]}/jobs/$(echo "$held" | head -1)")"
echo "$status" | grep -q '"status":"completed"' || fail "GET /jobs on the survivor: $status"

echo "== phase 2: $restart_jobs exports; PostgreSQL restarted while they run"
for i in $(seq 1 "$restart_jobs"); do
  [ -n "$(submit "${ports[1]}")" ] || fail "submission $i of phase 2 was refused"
done
deadline=$((SECONDS + 30))   # the restart must find jobs running
until [ "$(psql_ "SELECT count(*) FROM media_jobs WHERE state = 'running'")" -ge 1 ]; do
  [ $SECONDS -lt $deadline ] || fail "no job of phase 2 ever ran"
  sleep 0.1
done
running="$(psql_ "SELECT count(*) FROM media_jobs WHERE state = 'running'")"
bash "$here/Scripts/postgres.sh" restart "$pgdir" >/dev/null
echo "   restarted PostgreSQL with $running job(s) running"
wait_all_finished $((jobs + restart_jobs))
check_outputs $((jobs + restart_jobs))
kill -0 "${pids[1]}" 2>/dev/null || fail "the survivor exited"
echo "failover: PASS"
