#!/usr/bin/env bash
# The long crash and fault suites, with their summary lines kept as a result file:
#   bench/robustness/run.sh            1,200 SIGKILL trials during update batches (each durability
#                                      mode in turn, some right after a compaction starts), 300
#                                      during import/reorder/pack, and the failing-write trials
#   bench/robustness/run.sh --small    the CI share (24 + 12 trials)
# Writes bench/robustness/results/crash[-small].txt; exits non-zero when a trial fails.
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
{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(git rev-parse --short HEAD) OCGRAPH_SLOW=${OCGRAPH_SLOW:-0}"
  for t in "ocgraph-core update_crash" "ocgraph-cli crash"; do
    set -- $t
    cargo test -q -p "$1" --test "$2" -- --nocapture --test-threads=1 2>&1 \
      | grep -E "trials|fault trial|test result" || { echo "FAILED: $t"; exit 1; }
  done
} | tee "$out"
