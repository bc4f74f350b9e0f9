#!/usr/bin/env bash
# Run one workflow command in this directory at a time: `workflow/exclusive.sh CONFIG CMD...`.
#
# A second run started while one is going is refused at once with the first one's pid and how to
# wait for it, instead of reaching Snakemake's own lock (whose advice, --unlock, would let two runs
# write the same files). Holding this lock also proves that no other run is active, so a lock that
# Snakemake left behind when it was killed hard is stale and is removed here (--unlock), and
# outputs it marked incomplete are rerun (rerun-incomplete in the profiles).
set -euo pipefail
config=$1
shift
mkdir -p .snakemake
lock=.snakemake/run.lock
exec 9>>"$lock"
if ! flock --nonblock 9; then
    holder=$(cat .snakemake/run.pid 2>/dev/null || echo unknown)
    echo "Another run is using this directory (pid $holder: $(ps -o args= -p "$holder" 2>/dev/null || echo 'not found')).
Nothing was started. Wait for it to end (flock $lock true), or stop it (kill $holder), then run
the same make command again with CONFIG=$config: it resumes where the runs stopped." >&2
    exit 75
fi
echo $$ >.snakemake/run.pid
if [ -d .snakemake/locks ] && [ -n "$(ls -A .snakemake/locks 2>/dev/null)" ]; then
    echo "Removing the lock of an earlier run that was killed (no other run holds $lock)." >&2
    "$1" --unlock --configfile "$config" >/dev/null 2>&1 || true
fi
exec "$@"
