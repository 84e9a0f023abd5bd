#!/usr/bin/env bash
# Import throughput benchmark: R-MAT scale SCALE (default 22 = kron22, 67M edges), binary and
# text inputs, undirected (symmetrised), with 4 GiB and 256 MiB budgets. Prints a table and
# writes ingest_bench.csv (input,budget,edges,arcs,runs,seconds,input_edges_per_s,peak_rss_mb).
# Usage: crates/ocgraph-core/examples/ingest_bench.sh [SCALE] [WORKDIR]
set -euo pipefail
SCALE=${1:-22}
WORK=${2:-/tmp/ocgraph-ingest-bench}
CSV="$PWD/ingest_bench.csv"
cd "$(dirname "$0")/../../.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release -q -p ocgraph-core --example ingest_bench
BIN="$TARGET/release/examples/ingest_bench"
mkdir -p "$WORK"
[ -f "$WORK/kron.bin" ] || "$BIN" gen "$SCALE" "$WORK"
EDGES=$(( $(stat -c %s "$WORK/kron.bin") / 8 ))
echo "input,budget,edges,arcs,runs,seconds,input_edges_per_s,peak_rss_mb" > "$CSV"
for input in kron.bin kron.txt; do
  for budget in 4GiB 256MiB; do
    row=$(/usr/bin/time -f "%M" -o "$WORK/rss" "$BIN" run "$WORK/$input" "$WORK/graph" "$budget" 2>/dev/null)
    secs=$(echo "$row" | cut -d, -f6)
    rate=$(awk -v e="$EDGES" -v s="$secs" 'BEGIN { printf "%.0f", e / s }')
    rss=$(( $(cat "$WORK/rss") / 1024 ))
    echo "$(echo "$row" | cut -d, -f1-6),$rate,$rss" >> "$CSV"
  done
done
rm -rf "$WORK/graph"
column -s, -t "$CSV"
