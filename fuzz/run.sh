#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECS seconds, or until FUZZ_RUNS executions when that is set
# and comes first (one process, one target at a time), and prints one line per target:
# executions, executions per second, crashes. Run from the repository root: `make fuzz`.
# Limits: 10 s per input (a hang is a crash), 1 GiB per allocation and 2 GiB of RSS.
# FUZZ_SANITIZER (default address) is cargo fuzz's -s: `none` runs about twice as fast, for
# targets whose code under test is safe Rust apart from mmap (whose memory ASan does not track).
set -uo pipefail
secs=${FUZZ_SECS:-60}
targets=${FUZZ_TARGETS:-"edges_text edges_csv edges_mtx edges_gzip edges_binary manifest open_graph wal_frame wal_recovery level packed_list check_corrupt grid_cells label_file update_file workload_file trace_sim saved_result pattern name_logs"}
runs=${FUZZ_RUNS:+-runs=$FUZZ_RUNS}
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
san=${FUZZ_SANITIZER:-address}
export CARGO_TARGET_DIR="$PWD/target"
[ "$san" = address ] || CARGO_TARGET_DIR="$PWD/target-$san"
mkdir -p logs
printf '%-14s %14s %8s %8s\n' target executions exec/s crashes
for t in $targets; do
    mkdir -p "corpus/$t"
    [ -d "seeds/$t" ] && cp -n seeds/"$t"/* "corpus/$t/" 2>/dev/null || true
    before=$(find "artifacts/$t" -type f 2>/dev/null | wc -l)
    cargo fuzz run -O -a -s "$san" "$t" "corpus/$t" -- -max_total_time="$secs" $runs -timeout=10 \
        -malloc_limit_mb=1024 -rss_limit_mb=2048 -print_final_stats=1 >"logs/$t.log" 2>&1 || true
    execs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "logs/$t.log" | grep -o "[0-9]*$" | tail -1 || true)
    rate=$(grep -o "stat::average_exec_per_sec: *[0-9]*" "logs/$t.log" | grep -o "[0-9]*$" | tail -1 || true)
    after=$(find "artifacts/$t" -type f 2>/dev/null | wc -l)
    printf '%-14s %14s %8s %8s\n' "$t" "${execs:-?}" "${rate:-?}" "$((after - before))"
done
