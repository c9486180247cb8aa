#!/usr/bin/env bash
# Measures what README "Backups" reports: how long pg_dump and pg_restore take for a database of
# this service holding N million telemetry points (the table that dominates its size), made with
# generate_series in a scratch database of the machine's PostgreSQL, which it drops at the end.
# Usage: scripts/backup-restore-timing.sh [MILLIONS=5] [JOBS=2]
# Needs the psql/pg_dump/pg_restore client of the server's major version and a built CLI
# (`npm run cli -- db:migrate` migrates the scratch database).
set -euo pipefail
cd "$(dirname "$0")/.."
millions="${1:-5}"
jobs="${2:-2}"
admin="${TEST_POSTGRES_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
name="cc_backup_$(date +%s)_$$"
source_url="${admin%/*}/${name}"
restored_url="${admin%/*}/${name}_restored"
dump="$(mktemp -d /var/tmp/coldchain-backup.XXXXXX)"
cleanup() {
  psql -q "$admin" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" -c "DROP DATABASE IF EXISTS \"${name}_restored\" WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$dump"
}
trap cleanup EXIT
# Runs a command (its output discarded) and prints how many seconds it took.
seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null; awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

psql -q "$admin" -c "CREATE DATABASE \"$name\"" -c "CREATE DATABASE \"${name}_restored\""
DATABASE_URL="$source_url" npm run --silent cli -- db:migrate >/dev/null
devices=1000
per_device=$(( millions * 1000000 / devices ))
# One point a minute per device, ending now: monthly partitions as ingestion would create them.
fill=$(seconds psql -q "$source_url" -v ON_ERROR_STOP=1 <<SQL
SELECT telemetry_ensure_partition(m) FROM generate_series(date_trunc('month', now() - interval '${per_device} minutes'), now(), interval '1 month') AS m;
INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
SELECT d.id, d.id, date_trunc('minute', now()) - make_interval(mins => i), 38.4 + random(), 27.1 + random(), 2 + 6 * random(), 40 + 20 * random(), 0, 0, 100 - i * 0.0001
FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, ${devices})) AS d, generate_series(1, ${per_device}) AS i;
ANALYZE telemetry_points;
SQL
)
size=$(psql -qtA "$source_url" -c "SELECT pg_size_pretty(pg_database_size(current_database()))")
points=$(psql -qtA "$source_url" -c "SELECT count(*) FROM telemetry_points")
dump_s=$(seconds pg_dump -Fd -j "$jobs" -f "$dump/dump" "$source_url")
dump_size=$(du -sh "$dump/dump" | cut -f1)
restore_s=$(seconds pg_restore -j "$jobs" --no-owner -d "$restored_url" "$dump/dump")
restored=$(psql -qtA "$restored_url" -c "SELECT count(*) FROM telemetry_points")
[ "$restored" = "$points" ] || { echo "restore has $restored points, the source $points" >&2; exit 1; }
printf 'points %s, database %s, fill %.0f s | pg_dump -Fd -j %s: %.0f s, %s | pg_restore -j %s: %.0f s (%s points back) | %s cores, load %s\n' \
  "$points" "$size" "$fill" "$jobs" "$dump_s" "$dump_size" "$jobs" "$restore_s" "$restored" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
