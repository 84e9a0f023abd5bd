#!/usr/bin/env python3
"""What one 4 KiB direct read costs on this machine: reads per second and CPU per read.

Usage: bench/pages/direct_reads.py FILE [--reads N] [--threads 1,2,4] [--busy 0,1] [--rounds 2]
                                    [--csv OUT]

Reads N random 4 KiB pages of FILE with O_DIRECT (`preadv` into one aligned buffer per thread),
split among T threads, for each T in --threads, --rounds times in turn (the disk of a VM varies
between minutes: compare rows of one round). Prints per run the reads per second and the
process's system and user CPU per read (`getrusage`; Python's own work is in the user time).
The system CPU per read says how much of a read's latency is the guest kernel's work, which a
prefetcher on another thread only moves to another core. With --busy B, B other processes spin
on the CPU during the run (as a busy advisor thread would): where the cores share a physical
core or a host, that slows the reads. Writes CSV rows
`round,busy,threads,reads,secs,reads_per_s,sys_us_per_read,user_us_per_read`.
"""

import argparse
import csv
import mmap
import os
import random
import resource
import subprocess
import sys
import threading
import time

PAGE = 4096


def reader(path, pages, n, seed):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, PAGE)
    rng = random.Random(seed)
    try:
        for _ in range(n):
            os.preadv(fd, [buf], rng.randrange(pages) * PAGE)
    finally:
        os.close(fd)


def run(path, pages, reads, threads, seed):
    """Returns (seconds, system CPU seconds, user CPU seconds) of `reads` reads on `threads`."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    ts = [
        threading.Thread(target=reader, args=(path, pages, reads // threads, seed + i))
        for i in range(threads)
    ]
    t = time.perf_counter()
    for x in ts:
        x.start()
    for x in ts:
        x.join()
    secs = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_SELF)
    return secs, after.ru_stime - before.ru_stime, after.ru_utime - before.ru_utime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="file to read (at least one page)")
    ap.add_argument("--reads", type=int, default=40_000)
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--busy", default="0", help="spinning processes beside the readers (comma-separated)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--csv", help="write rows here")
    a = ap.parse_args()
    pages = os.path.getsize(a.file) // PAGE
    if pages == 0:
        raise SystemExit(f"{a.file}: smaller than one page")
    rows = []
    print(f"{a.file}: {pages} pages; {a.reads} random 4 KiB O_DIRECT reads per run")
    print(f"{'round':>5} {'busy':>4} {'threads':>7} {'reads/s':>9} {'sys us/read':>11} {'user us/read':>12}")
    runs = [
        (b, t) for b in (int(x) for x in a.busy.split(",")) for t in (int(x) for x in a.threads.split(","))
    ]
    for r in range(a.rounds):
        for b, t in runs:
            n = a.reads // t * t
            spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(b)]
            try:
                secs, sys_s, user_s = run(a.file, pages, n, t, seed=1000 * r + 17 * t)
            finally:
                for p in spinners:
                    p.kill()
                    p.wait()
            row = {
                "round": r + 1,
                "busy": b,
                "threads": t,
                "reads": n,
                "secs": round(secs, 4),
                "reads_per_s": round(n / secs),
                "sys_us_per_read": round(sys_s / n * 1e6, 2),
                "user_us_per_read": round(user_s / n * 1e6, 2),
            }
            rows.append(row)
            print(
                f"{row['round']:>5} {b:>4} {t:>7} {row['reads_per_s']:>9} {row['sys_us_per_read']:>11} "
                f"{row['user_us_per_read']:>12}",
                flush=True,
            )
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {a.csv}")


if __name__ == "__main__":
    main()
