#!/usr/bin/env bash
# The long crash and fault suites, with their summary lines kept as a result file:
#   bench/robustness/run.sh            1,200 SIGKILL trials during update batches (each durability
#                                      mode in turn, some right after a compaction starts), 300
#                                      during import/reorder/pack, the failing-write trials
#                                      (prlimit, and the fault shim on the paged delta), and the
#                                      fault suite: every call of each write-path call site failed
#                                      in turn (up to 40 per site) under the LD_PRELOAD shim
#   bench/robustness/run.sh --small    the CI share (24 + 12 trials, one fault per site and kind)
# Writes bench/robustness/results/crash[-small].txt, ending with the per-call-site fault table;
# exits non-zero when a trial fails.
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
{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(git rev-parse --short HEAD) OCGRAPH_SLOW=${OCGRAPH_SLOW:-0}"
  for t in "ocgraph-core update_crash" "ocgraph-cli crash" "ocgraph-cli faults"; do
    set -- $t
    cargo test -q -p "$1" --test "$2" -- --nocapture --test-threads=1 >"$log" 2>&1 \
      || { grep -E "panicked|FAILED|error" "$log" | head -20; echo "FAILED: $t"; exit 1; }
    grep -E "trials|fault trial|test result" "$log" | grep -v "^fault site" | sed "s/^\.*//"
    if [ "$2" = faults ]; then
      # The per-call-site table: site, operation, fault kind, trials, outcomes, batches lost.
      echo
      printf '%-42s | %-6s | %-6s | %6s | %11s | %9s | %12s | %5s\n' \
        "call site" op fault trials "named file" completed "caught panic" lost
      grep "^fault site" "$log" | awk -F'|' '{
        gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4)
        n = split($6, t, " "); trials = t[n]; n = split($7, e, " "); named = e[n]
        n = split($8, c, " "); done = c[n]; n = split($9, p, " "); caught = p[n]
        n = split($11, l, " "); lost = l[n]
        printf "%-42s | %-6s | %-6s | %6s | %11s | %9s | %12s | %5s\n", $2, $3, $4, trials, named, done, caught, lost
      }'
    fi
  done
} | tee "$out"
