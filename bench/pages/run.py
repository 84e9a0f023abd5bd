#!/usr/bin/env python3
"""Page-layer benchmark: buffer pool vs mmap at 10%/25%/100% of the graph size.

Usage: bench/pages/run.py [--graph DIR | --scale S] [--reads K] [--threads T] [--policy NAME]
                          [--page-sizes 4096,16384] [--scan-rounds R] [--small] [--no-build]

Without --graph, generates a Kronecker graph (edge factor 16, seed 1) of the given scale
(default 22) with the `ocgraph` CLI. Measures the disk's sequential read bandwidth with
`dd iflag=direct` on a file of the graph's size, then runs examples/pagebench.rs:
the cold scans run in R rounds (default 5) of every scan configuration with a dd read between
any two scans, and each scan is reported as the round with the median share of the mean of the
dd bandwidths measured just before and just after it (the disk of a VM varies by +-30% between
minutes); then
  scan   cold for_each_in_range over all vertices (MB/s of offsets + neighbours),
  random K random neighbour lists, cold and (at 100%) warm (reads/s),
for the pool (capacity = the memory size; once per page size) and for mmap under
`../shared/tools/memcap --drop-caches SIZE` (or $OCGRAPH_MEMCAP) (uncapped, flagged, if memcap fails; the
cgroup's peak usage it reports is recorded as max_usage_bytes, to show the cap held).
The warm pool runs also open the graph with mmap in the same process and alternate pool and
mmap rounds (`--against-mmap --repeat R`), so the cached-read ratio compares both under the same
machine load (wall-clock and CPU-time ratios of the fastest rounds). Scan throughput counts open +
scan (what a user waits for). The script also times the first touch of fresh anonymous memory
of the graph's size (as the pool's frames are), which bounds a pool's first scan, and, for
reference, 2 threads of O_DIRECT reads into one reused 1 MiB buffer (as dd's) and into a ring of
10% of the graph (as a 10% pool's frames). The pool puts its frames on reserved huge pages
when the system has them (`vm.nr_hugepages`); the script prints the reservation and, per row,
`hugetlb_mb`, the run's memory on them.
Prints a table and writes bench/out/pages.csv.

--small (what `make bench` passes): scale 14, 2000 random reads, 100K warm reads, one scan round
and one warm round (each unless given), mmap without memcap (a cap of 10% of so small a graph is
below the process's own pages, and mmap would thrash), written to bench/out/pages_small.csv: a
smoke run, its numbers are mostly fixed costs. The CLI is $OCGRAPH_BIN when set (not built then), else the
release build; --no-build runs the binaries already built (examples/pagebench too).
"""

import argparse
import csv
import json
import mmap
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
MEMCAP = os.environ.get("OCGRAPH_MEMCAP", os.path.join(ROOT, "..", "shared", "tools", "memcap"))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def ocgraph_bin():
    return os.environ.get("OCGRAPH_BIN") or os.path.join(TARGET, "release", "ocgraph")


def build():
    if not os.environ.get("OCGRAPH_BIN"):
        sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-cli"], cwd=ROOT)
    sh(["cargo", "build", "--release", "-q", "-p", "ocgraph-core", "--example", "pagebench"], cwd=ROOT)


def graph_bytes(graph):
    return sum(os.path.getsize(os.path.join(graph, f)) for f in ("out.offsets", "out.neighbors"))


def write_dd_file(size, where):
    """A fresh file of `size` bytes (rounded down to MiB) in directory `where`, synced."""
    path = os.path.join(where, "ddfile")
    sh(["dd", "if=/dev/zero", f"of={path}", "bs=1M", f"count={max(1, size >> 20)}", "conv=fsync"])
    return path


def disk_seq_mbps(path):
    """Sequential O_DIRECT read bandwidth of `path` (dd, 1 MiB blocks)."""
    out = sh(["dd", f"if={path}", "of=/dev/null", "bs=1M", "iflag=direct"]).stderr
    m = re.search(r"(\d+) bytes .* copied, ([\d.]+) s", out)
    return int(m.group(1)) / 1e6 / float(m.group(2))


def ring_read_mbps(path, ring, block=1 << 20, threads=2):
    """MB/s of `threads` threads reading `path` with O_DIRECT in `block`-byte blocks (handed out
    in file order) into a ring of `ring` bytes of fresh memory: with `ring` = `block` every read
    lands in the same buffer, as dd's; with `ring` = a pool's size they land all over it, as a
    pool's reads do (on this VM the second is slower)."""
    size = os.path.getsize(path) // block * block
    ring = max(block, ring // block * block)
    buf = mmap.mmap(-1, ring)
    for i in range(0, ring, 4096):
        buf[i] = 1
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    nxt = iter(range(0, size, block))
    lock = threading.Lock()

    def work():
        view = memoryview(buf)
        while True:
            with lock:
                off = next(nxt, None)
            if off is None:
                return
            at = off % ring
            os.preadv(fd, [view[at : at + block]], off)

    t = time.perf_counter()
    pool = [threading.Thread(target=work) for _ in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    secs = time.perf_counter() - t
    os.close(fd)
    buf.close()
    return size / 1e6 / secs


def touch_mbps(size):
    """MB/s at which fresh anonymous memory (transparent huge pages, as the pool's frames) is
    first written: the OS zeroes every page on first touch."""
    t = time.perf_counter()
    m = mmap.mmap(-1, size)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE)
    for i in range(0, size, 4096):
        m[i] = 1
    secs = time.perf_counter() - t
    m.close()
    return size / 1e6 / secs


def memcap_usage(stderr):
    """The peak cgroup usage memcap prints as a JSON line on stderr ("" if absent)."""
    for line in reversed(stderr.strip().splitlines()):
        try:
            return json.loads(line).get("max_usage_bytes", "")
        except (ValueError, AttributeError):
            continue
    return ""


def pagebench(graph, backend, memory, mode, args, warm=False, page_size=4096):
    """Runs pagebench; returns (result JSON, note, memcap peak usage or "")."""
    cmd = [
        os.path.join(TARGET, "release", "examples", "pagebench"),
        graph,
        "--backend",
        backend,
        "--memory",
        str(memory),
        "--mode",
        mode,
        "--policy",
        args.policy,
        "--page-size",
        str(page_size),
        "--reads",
        str(args.warm_reads if warm else args.reads),
        "--threads",
        str(args.threads),
    ]
    if warm:
        cmd.append("--warm")
        if backend == "pool":
            cmd += ["--against-mmap", "--repeat", str(args.repeat)]
    note = ""
    if backend == "mmap" and not warm and args.small:
        # A cap of 10% of a small graph is below the process's own pages: it would thrash.
        note = "uncapped (--small)"
    elif backend == "mmap" and not warm:  # the warm comparison is "whole graph cached": no cap
        capped = [MEMCAP, "--drop-caches", str(memory), "--", *cmd]
        r = subprocess.run(capped, text=True, capture_output=True)
        if r.returncode == 0 and r.stdout.strip():
            return json.loads(r.stdout.strip().splitlines()[-1]), note, memcap_usage(r.stderr)
        note = "memcap failed, uncapped"
        print(f"  ({note}: {r.stderr.strip()[:200]})", file=sys.stderr)
    r = sh(cmd)
    return json.loads(r.stdout.strip().splitlines()[-1]), note, ""


def reserved_huge_pages():
    """`(total, free)` reserved huge pages of the system, from /proc/meminfo (0 where absent)."""
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            info[k] = v.split()[0] if v.split() else "0"
    return int(info.get("HugePages_Total", 0)), int(info.get("HugePages_Free", 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", help="existing graph directory")
    ap.add_argument("--scale", type=int, help="Kronecker scale when generating (default 22; --small: 14)")
    ap.add_argument("--reads", type=int, help="random neighbour-list reads (default 20000; --small: 2000)")
    ap.add_argument(
        "--warm-reads",
        type=int,
        help="random reads in the cached (warm) comparison; long enough to time reliably "
        "(default 2000000; --small: 100000)",
    )
    ap.add_argument(
        "--repeat", type=int, help="alternated pool/mmap rounds when warm (default 3; --small: 1)"
    )
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--scan-rounds",
        type=int,
        help="rounds of every cold scan, dd between scans (median reported; default 5; --small: 1)",
    )
    ap.add_argument("--policy", default="clock")
    ap.add_argument("--page-sizes", default="4096,16384", help="pool page sizes, comma-separated")
    ap.add_argument(
        "--small",
        action="store_true",
        help="a small, fast run for `make bench`: the --small defaults above, mmap uncapped, "
        "output pages_small.csv",
    )
    ap.add_argument("--no-build", action="store_true", help="run the binaries already built")
    args = ap.parse_args()
    defaults = {  # option: (full run, --small)
        "scale": (22, 14),
        "reads": (20000, 2000),
        "warm_reads": (2_000_000, 100_000),
        "repeat": (3, 1),
        "scan_rounds": (5, 1),
    }
    for k, (full, small) in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, small if args.small else full)

    if not args.no_build:
        build()
    out_dir = os.path.join(ROOT, "bench", "out")
    os.makedirs(out_dir, exist_ok=True)
    graph = args.graph
    if not graph:
        graph = os.path.join(out_dir, f"kron{args.scale}")
        if not os.path.exists(os.path.join(graph, "manifest")):
            print(f"generating {graph} ...", file=sys.stderr)
            sh(
                [
                    ocgraph_bin(),
                    "generate",
                    "kronecker",
                    "--scale",
                    str(args.scale),
                    "--edge-factor",
                    "16",
                    "--seed",
                    "1",
                    graph,
                ]
            )
    size = graph_bytes(graph)
    huge_total, huge_free = reserved_huge_pages()
    touch = touch_mbps(size)
    fracs = (0.10, 0.25, 1.00)
    configs = [("pool", int(p)) for p in args.page_sizes.split(",")] + [("mmap", 4096)]

    # Cold scans: `--scan-rounds` rounds of every scan configuration, with a dd read between
    # any two scans, so that each scan is compared with the disk bandwidth measured just before
    # and just after it (their mean).
    scans = {}
    disks = []
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(graph))) as d:
        ddfile = write_dd_file(size, d)
        # Reference only (the target stays dd): O_DIRECT into one reused 1 MiB buffer and into
        # a ring of 10% of the graph, alternated, medians of 3.
        rings = {1 << 20: [], int(size * 0.10): []}
        for _ in range(3):
            for r in rings:
                rings[r].append(ring_read_mbps(ddfile, r))
        ring_small, ring_pool = (sorted(v)[1] for v in rings.values())
        disks.append(disk_seq_mbps(ddfile))
        for rnd in range(args.scan_rounds):
            print(f"round {rnd + 1}: dd {disks[-1]:.0f} MB/s", file=sys.stderr)
            for frac in fracs:
                memory = max(1 << 20, int(size * frac))
                for backend, page_size in configs:
                    res, note, usage = pagebench(graph, backend, memory, "scan", args, False, page_size)
                    disks.append(disk_seq_mbps(ddfile))
                    disk = (disks[-2] + disks[-1]) / 2
                    pct = 100 * size / 1e6 / (res["open_seconds"] + res["seconds"]) / disk
                    scans.setdefault((frac, backend, page_size), []).append((pct, res, note, usage))
    disk = sorted(disks)[len(disks) // 2]
    print(
        f"graph {graph}: {size / 1e6:.1f} MB (out.offsets + out.neighbors); "
        f"disk sequential O_DIRECT read {disk:.0f} MB/s (median of {len(disks)}); "
        f"fresh memory first touch {touch:.0f} MB/s",
        file=sys.stderr,
    )

    rows = []
    for frac in fracs:
        memory = max(1 << 20, int(size * frac))
        for backend, page_size in configs:
            runs = [("scan", False), ("random", False)] + ([("random", True)] if frac == 1.0 else [])
            for mode, warm in runs:
                pct, rounds = "", ""
                if mode == "scan":
                    # The round with the median share of the disk bandwidth.
                    ordered = sorted(scans[(frac, backend, page_size)], key=lambda t: t[0])
                    pct, res, note, usage = ordered[len(ordered) // 2]
                    pct = round(pct, 1)
                    rounds = " ".join(f"{t[0]:.0f}" for t in scans[(frac, backend, page_size)])
                else:
                    res, note, usage = pagebench(graph, backend, memory, mode, args, warm, page_size)
                s = res["stats"]
                rows.append(
                    {
                        "mode": mode + (" warm" if warm else ""),
                        "backend": backend,
                        "page_size": page_size if backend == "pool" else "",
                        "max_usage_bytes": usage,
                        "memory": f"{int(frac * 100)}%",
                        "memory_bytes": memory,
                        "open_seconds": round(res["open_seconds"], 4),
                        "seconds": round(res["seconds"], 4),
                        "throughput": round(res["throughput"], 1),
                        "unit": res["unit"],
                        "hit_ratio": round(s["hit_ratio"], 4),
                        "bytes_read": s["bytes_read"],
                        "sequential_ratio": round(s["sequential_ratio"], 4),
                        # open + scan, against the dds just before and after it (median round)
                        "pct_of_disk": pct,
                        "pct_rounds": rounds,
                        "vs_mmap": round(res["ratio"], 3) if "ratio" in res else "",
                        "cpu_vs_mmap": round(res["cpu_ratio"], 3) if "cpu_ratio" in res else "",
                        "major_faults": s["major_faults"],
                        "hugetlb_mb": round(res.get("hugetlb_bytes", 0) / 1e6, 1),
                        "note": note,
                    }
                )
                print(f"  {rows[-1]}", file=sys.stderr)

    cols = [
        "mode",
        "backend",
        "page_size",
        "memory",
        "open_seconds",
        "seconds",
        "throughput",
        "unit",
        "pct_of_disk",
        "pct_rounds",
        "vs_mmap",
        "cpu_vs_mmap",
        "hit_ratio",
        "bytes_read",
        "sequential_ratio",
        "major_faults",
        "hugetlb_mb",
        "max_usage_bytes",
        "note",
    ]
    print(
        f"disk sequential read (dd iflag=direct): {disk:.0f} MB/s; fresh memory first touch: "
        f"{touch:.0f} MB/s; graph {size / 1e6:.1f} MB"
    )
    print(
        f"reserved huge pages (vm.nr_hugepages): {huge_total} ({huge_free} free at the start); the pool's "
        "frames use them when enough are free"
    )
    print(
        f"reference, 2 threads of O_DIRECT 1 MiB reads: into one 1 MiB buffer {ring_small:.0f} MB/s, "
        f"into a ring of 10% of the graph {ring_pool:.0f} MB/s (medians of 3, alternated)"
    )
    print("  ".join(f"{c:>14}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]!s:>14}" for c in cols))
    path = os.path.join(out_dir, "pages_small.csv" if args.small else "pages.csv")
    with open(path, "w", newline="") as f:
        fields = [
            "memory_bytes",
            "disk_mbps",
            "touch_mbps",
            "ring1m_mbps",
            "ring10_mbps",
            "huge_pages_reserved",
            *cols,
        ]
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow(
                {
                    **{c: r[c] for c in cols},
                    "memory_bytes": r["memory_bytes"],
                    "disk_mbps": round(disk, 1),
                    "touch_mbps": round(touch, 1),
                    "ring1m_mbps": round(ring_small, 1),
                    "ring10_mbps": round(ring_pool, 1),
                    "huge_pages_reserved": huge_total,
                }
            )
    print(f"wrote {path}")
    for r in rows:
        if r["mode"] == "random warm" and r["backend"] == "pool":
            verdict = "MET" if r["vs_mmap"] <= 1.5 else "MISSED"
            print(
                f"target {verdict}: cached random reads, pool {r['page_size']} B pages = {r['vs_mmap']:.2f}x "
                f"mmap in the same process (<= 1.5x; CPU time {r['cpu_vs_mmap']:.2f}x)"
            )
    for r in rows:
        if r["mode"] == "scan" and r["backend"] == "pool":
            verdict = "MET" if r["pct_of_disk"] >= 80 else "MISSED"
            print(
                f"target {verdict}: pool scan at {r['memory']}, {r['page_size']} B pages = "
                f"{r['pct_of_disk']}% of disk bandwidth, open + scan (>= 80%; median of rounds "
                f"{r['pct_rounds']})"
            )


if __name__ == "__main__":
    main()
