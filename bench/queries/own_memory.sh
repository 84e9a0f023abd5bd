#!/bin/bash
# Runs COMMAND under memcap at CAP bytes and prints to stderr, as "own_memory_bytes N", the peak
# of what its memory cgroup charges besides the page cache: anonymous memory (memory.stat rss)
# plus kernel memory (memory.kmem.usage_in_bytes), summed at each sample (every 10 ms) taken
# from outside the cgroup. `ab_pool.sh` with OWN=auto runs it once per mode to size that mode's
# cap (memory + the mode's own memory), so that every mode's page cache gets at least the
# memory, however much heap its prefetcher takes. Needs cgroup v1 (as memcap on this machine).
#
# usage: bench/queries/own_memory.sh MEMCAP CAP COMMAND [ARG...]
set -uo pipefail
memcap=$1; cap=$2; shift 2
rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
base=/sys/fs/cgroup/memory${rel%/}
[ -r "$base/memory.kmem.usage_in_bytes" ] \
  || { echo "own_memory.sh: no cgroup v1 kernel-memory accounting at $base" >&2; exit 3; }
"$memcap" --drop-caches "$cap" -- "$@" &
pid=$!
cg=$base/memcap-$pid
peak=0
while kill -0 "$pid" 2>/dev/null; do
  if [ -r "$cg/memory.stat" ]; then
    rss=0
    while read -r k v; do [ "$k" = rss ] && rss=$v; done < "$cg/memory.stat" 2> /dev/null
    read -r kmem < "$cg/memory.kmem.usage_in_bytes" 2> /dev/null || kmem=0
    [ $((rss + kmem)) -gt "$peak" ] && peak=$((rss + kmem))
  fi
  sleep 0.01
done
wait "$pid"
code=$?
echo "own_memory_bytes $peak" >&2
exit $code
