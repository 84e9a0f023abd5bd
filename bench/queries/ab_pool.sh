#!/bin/bash
# A/B of ocgraph builds on the pool: interleaved runs of one workload, post-cold time and I/O.
#
# usage: bench/queries/ab_pool.sh GRAPH WORKLOAD REPS NAME=BINARY:MODE ...
#
# Memory = 10% of GRAPH's files (as bench/queries/run.py). Each of the REPS rounds runs every
# NAME=BINARY:MODE once, in the order given (a fresh process: an empty pool). Prints one line
# per run: round, name, mode, post-cold seconds (t(N) - t(N/10), as run.py), demand misses,
# background loads issued and first used, user and system CPU seconds of the process.
set -euo pipefail
G=$1; W=$2; R=$3; shift 3
M=$(python3 -c "import os,sys; d=sys.argv[1]; print(sum(os.path.getsize(os.path.join(d,f)) for f in os.listdir(d) if f!='manifest')//10)" "$G")
T=$(mktemp)
trap 'rm -f "$T"' EXIT
echo "# $G, $W, memory $M bytes"
for r in $(seq "$R"); do
  for v in "$@"; do
    name=${v%%=*}; rest=${v#*=}; bin=${rest%:*}; mode=${rest##*:}
    /usr/bin/time -f "%U %S" -o "$T" "$bin" query "$G" --workload "$W" --backend pool --memory "$M" \
        --prefetch "$mode" --json 2>/dev/null | tail -1 | python3 -c "
import json, sys
d = json.loads(sys.stdin.read()); io = d['io']; pr = d['progress']
n, t = pr[-1]; before = [tt for nn, tt in pr if nn <= n // 10]; pc = t - (before[-1] if before else 0)
u, s = open(sys.argv[1]).read().split()
print(sys.argv[2], sys.argv[3], sys.argv[4], 'postcold %.3f' % pc, 'misses', io['misses'],
      'loads', io['prefetches_issued'], io['prefetches_used'], 'user', u, 'sys', s)" "$T" "$r" "$name" "$mode"
  done
done
