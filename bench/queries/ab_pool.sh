#!/bin/bash
# A/B of ocgraph builds or prefetch modes: interleaved runs of one workload, post-cold time and I/O.
#
# usage: [BACKEND=mmap [OWN=bytes|auto] [MARGIN=bytes]] bench/queries/ab_pool.sh GRAPH WORKLOAD REPS NAME=BINARY:MODE ...
#
# Memory = 10% of GRAPH's files (as bench/queries/run.py). Each of the REPS rounds runs every
# NAME=BINARY:MODE once, in the order given (a fresh process: an empty pool). With BACKEND=mmap
# each run is on the mmap backend under memcap --drop-caches (a cold page cache; $OCGRAPH_MEMCAP
# names memcap, default ../shared/tools/memcap; the script stops if memcap cannot cap) at that
# memory plus OWN bytes (default 1.25 MiB: the process's heap and kernel memory, 0.85-1.3 MB in
# hand-run cgroups on road-usroads and cnr-2000), with --lock-reserve 0, while lock_text.py
# holds the binary's and its libraries' pages locked outside the cgroup: the page cache under
# the cap then holds the graph's pages alone, about 10% of them. OWN=auto measures it per NAME
# instead: one probe run at memory + the workload's size + 2 MiB through own_memory.sh (the
# peak of the process's anonymous and kernel memory, sampled from outside) plus MARGIN
# (default 64 KiB: the 10 ms samples miss the process's start, where caps without it were
# OOM-killed on ca-AstroPh), so that every mode's page cache gets the same memory + MARGIN,
# however much heap its prefetcher takes. Prints one line per run: round, name, mode,
# post-cold seconds (t(N) - t(N/10), as run.py), demand misses (pool) or major faults (mmap),
# background loads issued and first used (pool), user and system CPU seconds of the process.
set -euo pipefail
G=$1; W=$2; R=$3; shift 3
BACKEND=${BACKEND:-pool}
OWN=${OWN:-1310720}
MEMCAP=${OCGRAPH_MEMCAP:-$(dirname "$0")/../../../shared/tools/memcap}
M=$(python3 -c "import os,sys; d=sys.argv[1]; print(sum(os.path.getsize(os.path.join(d,f)) for f in os.listdir(d) if f!='manifest')//10)" "$G")
T=$(mktemp)
LOCKER=
trap 'rm -f "$T"; [ -z "$LOCKER" ] || kill "$LOCKER"' EXIT
echo "# $G, $W, $BACKEND, memory $M bytes"
# Sets cmd to the query run of binary $1 with prefetch mode $2.
query_cmd() {
  cmd=("$1" query "$G" --workload "$W" --backend "$BACKEND" --memory "$M" --prefetch "$2" --json)
  if [ "$BACKEND" = mmap ]; then cmd+=(--lock-reserve 0); fi
}
declare -A CAP
if [ "$BACKEND" = mmap ]; then
  mapfile -t files < <(for v in "$@"; do rest=${v#*=}; bin=$(realpath "${rest%:*}"); echo "$bin"
    ldd "$bin" | grep -o '/[^ ]*'; done | sort -u)
  python3 "$(dirname "$0")/lock_text.py" "${files[@]}" > "$T" &
  LOCKER=$!
  until [ -s "$T" ]; do kill -0 "$LOCKER" || exit 1; sleep 0.1; done
  for v in "$@"; do
    name=${v%%=*}; rest=${v#*=}; own=$OWN
    if [ "$OWN" = auto ]; then
      query_cmd "${rest%:*}" "${rest##*:}"
      "$(dirname "$0")/own_memory.sh" "$MEMCAP" $((M + $(stat -c %s "$W") + (2 << 20))) "${cmd[@]}" 2> "$T" \
        > /dev/null || { echo "probe of $name failed:"; cat "$T"; exit 1; }
      own=$(( $(awk '$1 == "own_memory_bytes" {print $2}' "$T") + ${MARGIN:-65536} ))
    fi
    CAP[$name]=$((M + own))
    echo "# mmap: $name cap ${CAP[$name]} bytes (memory + own $own), text locked outside the cgroup"
  done
fi
for r in $(seq "$R"); do
  for v in "$@"; do
    name=${v%%=*}; rest=${v#*=}; mode=${rest##*:}
    query_cmd "${rest%:*}" "$mode"
    if [ "$BACKEND" = mmap ]; then cmd=("$MEMCAP" --drop-caches "${CAP[$name]}" -- "${cmd[@]}"); fi
    /usr/bin/time -f "%U %S" -o "$T" "${cmd[@]}" 2>/dev/null | tail -1 | python3 -c "
import json, sys
out = sys.stdin.read()
if not out.strip():
    sys.exit(print(sys.argv[2], sys.argv[3], sys.argv[4], 'FAILED (no report: killed under the cap?)'))
d = json.loads(out); io = d['io']; pr = d['progress']
n, t = pr[-1]; before = [tt for nn, tt in pr if nn <= n // 10]; pc = t - (before[-1] if before else 0)
u, s = open(sys.argv[1]).read().split()
miss = io['misses'] if io['backend'] == 'pool' else io['major_faults']
print(sys.argv[2], sys.argv[3], sys.argv[4], 'postcold %.3f' % pc, 'misses', miss,
      'loads', io['prefetches_issued'], io['prefetches_used'], 'user', u, 'sys', s)" "$T" "$r" "$name" "$mode" || true
  done
done
