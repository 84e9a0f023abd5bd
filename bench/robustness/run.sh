#!/usr/bin/env bash
# The long crash and fault suites, with their summary lines kept as a result file:
#   bench/robustness/run.sh            the fault suite (every call of each write-path call site
#                                      failed in turn, up to 40 per site, under the LD_PRELOAD
#                                      shim), 300 SIGKILL trials during import/reorder/pack, then
#                                      1,200 during update batches (each durability mode in turn,
#                                      some right after a compaction starts), 600 power-loss
#                                      trials of the same stream (the powerloss shim), the
#                                      failing-write trials (prlimit, and the fault shim on the
#                                      paged delta) and 700 power-loss trials of CLI writes
#                                      (tests/python/test_powerloss.py, 100 per command)
#   bench/robustness/run.sh --small    the CI share (one fault per site and kind, 12 + 24 + 9
#                                      trials, 4 per command of the CLI's)
# Writes bench/robustness/results/crash[-small].txt as the tests run (summary lines, progress
# every 100 SIGKILL trials, and the per-call-site fault table); exits non-zero when a trial fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
name=crash
if [ "${1:-}" = "--small" ]; then
  name=crash-small
else
  export OCGRAPH_SLOW=1
fi
out=bench/robustness/results/$name.txt
mkdir -p "$(dirname "$out")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Prints the per-call-site fault table from the faults test's `fault site | ...` lines.
fault_table() {
  printf '%-42s | %-6s | %-6s | %6s | %11s | %9s | %5s\n' \
    "call site" op fault trials "named file" completed lost
  # The test harness's progress dots can precede a line: strip them before matching.
  sed 's/^\.*//' "$1" | grep "^fault site" | awk -F'|' '{
    gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4)
    n = split($6, t, " "); trials = t[n]; n = split($7, e, " "); named = e[n]
    n = split($8, c, " "); done = c[n]; n = split($10, l, " "); lost = l[n]
    printf "%-42s | %-6s | %-6s | %6s | %11s | %9s | %5s\n", $2, $3, $4, trials, named, done, lost
  }'
}

# Exits when a suite failed (status $1): its name ($2) and the log's lines matching $3 go to
# the results file.
stop_if_failed() {
  if [ "$1" != 0 ]; then
    grep -E "$3" "$log" | head -20 | tee -a "$out"
    echo "FAILED: $2" | tee -a "$out"
    exit 1
  fi
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(git rev-parse --short HEAD) OCGRAPH_SLOW=${OCGRAPH_SLOW:-0}" | tee "$out"
for t in "ocgraph-cli faults" "ocgraph-cli crash" "ocgraph-core update_crash"; do
  set -- $t
  set +o pipefail
  cargo test -q -p "$1" --test "$2" -- --nocapture --test-threads=1 2>&1 | tee "$log" \
    | grep --line-buffered -E "trials|fault trial|test result" | sed -u "s/^\.*//" \
    | grep --line-buffered -v "^fault site" | tee -a "$out"
  status=${PIPESTATUS[0]}
  set -o pipefail
  stop_if_failed "$status" "$t" "panicked|FAILED|error"
  if [ "$2" = faults ]; then
    { echo; fault_table "$log"; echo; } | tee -a "$out"
  fi
done

# The power-loss trials of the CLI's writes drive the CLI the tests above built (dev profile),
# with the venv's Python, as `make test-python` runs them.
t=tests/python/test_powerloss.py
set +o pipefail
OCGRAPH_BIN="${CARGO_TARGET_DIR:-target}/debug/ocgraph" "${VENV:-.venv}/bin/python" -m pytest -q "$t" 2>&1 \
  | tee "$log" | grep --line-buffered -E "passed|failed|skipped|SKIPPED" | tee -a "$out"
status=${PIPESTATUS[0]}
set -o pipefail
stop_if_failed "$status" "$t" "^(FAILED|E )"
