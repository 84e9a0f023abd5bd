#!/usr/bin/env python3
"""Pattern-mining benchmark: k-clique counts and motif censuses with `ocgraph mine`, in memory
(mmap, page cache warm) and through a buffer pool of 10% of the graph, side by side with
Peregrine and python-igraph in the same run; and incremental watching of a triangle and a
4-clique (`ocgraph stream --watch`) over a stream of updates, against recounting.

Usage: bench/mining/run.py [--small] [--graphs astro,cnr,kron18,kron20] [--tasks clique4,...]
                           [--threads 2] [--timeout 300] [--igraph-timeout 60] [--no-igraph]
                           [--peregrine DIR] [--stream 1000000] [--stream-graph kron20]
                           [--pattern-updates 4-clique=100000] [--mixes 50/50,100/0]
                           [--batches 1,1000] [--modes inline,background]
                           [--stream-timeout 1200] [--work DIR] [--out DIR]

Graphs (made once under --work, default bench/out/mining-work): astro = data/ca-AstroPh
(--undirected --dedup --relabel), cnr = data/cnr-2000 (directed; the miners use its undirected
view), kronS = `ocgraph generate kronecker --scale S --edge-factor 16 --seed 1`. --small:
astro and kron12, 4-/5-cliques and both censuses, a 3,000-update stream on kron12, igraph
capped at 10 s (for `make bench`).

Each ocgraph row is one `ocgraph mine ... --threads T --stats` process: `secs` is the kernel
time it prints (graph opening excluded), `wall` the whole command. igraph loads the edge list
`ocgraph export` wrote (load time excluded) and runs `cliques(k, k)` or `motifs_randesu(size)`,
capped by --igraph-timeout ("timeout"). Peregrine (--peregrine DIR, a build of pdclab/peregrine
made outside the repository as docs/benchmarks.md (Peers) says: `make count convert_data`; this
script does not build it and says so when it is missing) gets each graph's undirected simple
edge list through its `convert_data` (made once under --work) and runs `bin/count G 4-clique T`
or `bin/count G 3-motifs T` with the same thread count; its `secs` is the matching time it
prints (loading excluded). Ratio columns are peer time / ocgraph time (above 1: ocgraph
faster). Every peer count is checked against ocgraph's ("ok"/"DIFF"); a DIFF is printed as a
COUNT MISMATCH and the script exits with status 1.

Incremental: per mix of --mixes, `ocgraph workload updates --mix M --seed 1` makes the stream
(50/50: half additions of random pairs, half removals of existing edges; 100/0: additions
only); per mix, batch size and watch (none, triangle, 4-clique) a fresh copy of the graph runs
`ocgraph stream --batch-size B --durability none [--watch P]` over --stream updates, or fewer
for the patterns --pattern-updates names (`4-clique=100000`: its stream is the first 100,000
updates of the same file); updates/s is over the whole stream, p50/p99 the batch latency
(update plus watch: a single update's latency with batch 1). Per mode of --modes, a watch
runs in line (`inline`: the update call, then the watch) or on a thread of its own
(`background`: `stream --background`, the watch of one batch overlapping the update of the
next; the latency then runs from a batch's update to the end of its watch). "recount" is one static `ocgraph
mine cliques` of the pattern on the graph (capped by --timeout), the cost per batch of
recounting instead. --label-changes K (default 10; 0: not) adds the watch `labelled-triangle`:
a triangle with labels 0 and 1 on two vertices and a wildcard third, on a copy of the graph with
stored labels drawn from 0..3 (`ocgraph labels set`), over the same updates with a line `L v
label` (random vertex and label) after every K of them; its "modified" column counts the
matches whose labels changed in place, and "updates" counts the label changes too.

Output: tables, mining.csv and mining.json in --out (default bench/out).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

import peregrine

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.environ.get("OCGRAPH_BIN", os.path.join(TARGET, "release", "ocgraph"))
OUT = os.path.join(ROOT, "bench", "out")
TASKS = ["clique4", "clique5", "clique6", "motif3", "motif4"]
# Watched patterns of the incremental run and their clique size (for the recount).
WATCHED = {"triangle": 3, "4-clique": 4}
# The labelled watch (--label-changes): a triangle with labels 0 and 1 on two of its vertices,
# the third a wildcard, over data labels drawn from 0..LABELS-1.
LABELLED_TRIANGLE = "0 1\n1 2\n2 0\nlabel 0 0\nlabel 1 1\n"
LABELS = 4

IGRAPH_SCRIPT = r"""
import json, sys, time
import igraph as ig
path, task = sys.argv[1], sys.argv[2]
h = ig.Graph.Read_Edgelist(path, directed=False).simplify()
t = time.perf_counter()
if task.startswith("clique"):
    k = int(task[6:])
    count = [len(h.cliques(k, k))]
else:
    size = int(task[5:])
    count = [0 if c != c else int(c) for c in h.motifs_randesu(size=size)]
print(json.dumps({"secs": time.perf_counter() - t, "count": count}))
"""


def sh(cmd: list[str], timeout: float | None = None) -> tuple[str, float]:
    """Runs `cmd`, returns (stdout, wall seconds); raises TimeoutExpired past `timeout`."""
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout, time.perf_counter() - t


def graph_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def prepare(name: str, work: str) -> str:
    path = os.path.join(work, name)
    if os.path.exists(path):
        return path
    if name == "astro":
        sh(
            [
                BIN,
                "import",
                os.path.join(ROOT, "data", "ca-AstroPh.txt.gz"),
                path,
                "--undirected",
                "--dedup",
                "--relabel",
                "--quiet",
            ]
        )
    elif name == "cnr":
        sh([BIN, "import", os.path.join(ROOT, "data", "cnr-2000.el.gz"), path, "--quiet"])
    elif name.startswith("kron"):
        sh(
            [
                BIN,
                "generate",
                "kronecker",
                "--scale",
                name[4:],
                "--edge-factor",
                "16",
                "--seed",
                "1",
                "--quiet",
                path,
            ]
        )
    else:
        raise SystemExit(f"unknown graph {name}")
    return path


def mine_cmd(task: str, path: str) -> list[str]:
    if task.startswith("pattern:"):
        return [BIN, "mine", "pattern", path, "--pattern", task[8:]]
    if task.startswith("clique"):
        return [BIN, "mine", "cliques", path, "--k", task[6:]]
    return [BIN, "mine", "motifs", path, "--size", task[5:]]


def parse_counts(out: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^[\w-]+: (\d+)$", out, re.M)]


def run_ocgraph(task: str, path: str, config: str, threads: int, timeout: float) -> dict:
    cmd = [*mine_cmd(task, path), "--threads", str(threads), "--stats", "--quiet"]
    if config == "pool10":
        cmd += ["--backend", "pool", "--memory", str(max(graph_bytes(path) // 10, 1 << 20))]
    try:
        out, wall = sh(cmd, timeout)
    except subprocess.TimeoutExpired:
        return {"secs": None, "wall": None, "count": None, "note": f"timeout (>{timeout:g} s)"}
    secs = float(re.search(r"^mine \w+: ([\d.]+) s", out, re.M).group(1))
    return {"secs": secs, "wall": wall, "count": parse_counts(out), "note": ""}


def run_igraph(task: str, path: str, work: str, timeout: float) -> dict:
    el = os.path.join(work, os.path.basename(path) + ".txt")
    if not os.path.exists(el):
        sh([BIN, "export", path, el])
    try:
        out, _ = sh([sys.executable, "-c", IGRAPH_SCRIPT, el, task], timeout)
    except subprocess.TimeoutExpired:
        return {"secs": None, "count": None, "note": f"timeout (>{timeout:g} s)"}
    r = json.loads(out)
    count = r["count"]
    if task.startswith("motif"):
        count = igraph_to_names(count, int(task[5:]))
    return {"secs": r["secs"], "count": count, "note": ""}


def igraph_to_names(counts: list[int], size: int) -> list[int]:
    """igraph's isoclass counts in `ocgraph.MOTIF_NAMES` order (classes told by degrees)."""
    import igraph as ig

    by_deg = {tuple(sorted(ig.Graph.Isoclass(size, c).degree())): n for c, n in enumerate(counts)}
    return [by_deg.get(d, 0) for d in peregrine.MOTIF_ORDER[size]]


def stream(
    path: str,
    work: str,
    updates: int,
    per_pattern: dict[str, int],
    mixes: list[str],
    batches: list[int],
    threads: int,
    timeouts: tuple[float, float],
    label_every: int,
    modes: list[str],
) -> list[dict]:
    """`ocgraph stream --watch` per mix, batch size and watched pattern (and none), each on a
    fresh copy of the graph, over `updates` updates (`per_pattern[p]` for the patterns it
    names: a prefix of the same stream); then one static recount per pattern for comparison.
    `timeouts`: (each stream run, each recount). With `label_every` > 0, also the labelled
    triangle (`LABELLED_TRIANGLE`) on a copy of the graph with random stored labels, over the
    same updates with a label change (`L v label`) after every `label_every` of them."""
    rows = []
    copy = os.path.join(work, "stream-copy")
    patterns = ["none", *WATCHED]
    if label_every:
        n = int(json.loads(sh([BIN, "info", path, "--json"])[0])["vertices"])
        labelled, pattern_file = labelled_graph(path, work, n)
        patterns.append("labelled-triangle")
    for mix in mixes:
        ups = os.path.join(work, f"{os.path.basename(path)}.updates{updates}.mix{mix.replace('/', '-')}.txt")
        if not os.path.exists(ups):
            cmd = [BIN, "workload", "updates", path, "--count", str(updates), "--mix", mix]
            sh([*cmd, "--seed", "1", "--out", ups])
        with open(ups) as f:
            lines = f.readlines()
        for batch in batches:
            for pattern, mode in [(p, m) for p in patterns for m in (["inline"] if p == "none" else modes)]:
                count = min(per_pattern.get(pattern, updates), updates)
                part = os.path.join(work, "stream-part.txt")
                with open(part, "w") as f:
                    if pattern == "labelled-triangle":
                        f.writelines(with_label_changes(lines[:count], label_every, n))
                        count += count // label_every
                    else:
                        f.writelines(lines[:count])
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(labelled if pattern == "labelled-triangle" else path, copy)
                report = os.path.join(work, "stream.json")
                cmd = [BIN, "stream", copy, "--updates", part, "--batch-size", str(batch)]
                cmd += ["--durability", "none", "--no-save", "--json", report]
                if pattern != "none":
                    cmd += ["--watch", pattern_file if pattern == "labelled-triangle" else pattern]
                if mode == "background":
                    cmd.append("--background")
                row = {
                    "mix": mix,
                    "pattern": pattern,
                    "mode": mode,
                    "batch": batch,
                    "updates": count,
                    "note": "",
                }
                try:
                    sh(cmd, timeouts[0])
                except subprocess.TimeoutExpired:
                    rows.append({**row, "note": f"timeout (>{timeouts[0]:g} s)"})
                    continue
                with open(report) as f:
                    r = json.load(f)
                rows.append(
                    {
                        **row,
                        "updates_per_s": r["updates_per_sec"],
                        "p50_us": r["p50_us"],
                        "p99_us": r["p99_us"],
                        "added": r.get("watch_added"),
                        "removed": r.get("watch_removed"),
                        "modified": r.get("watch_modified"),
                        "watch_secs": r.get("watch_secs"),
                    }
                )
                print(
                    f"  {mix} batch {batch} {pattern} {mode}: {r['updates_per_sec']:.0f} updates/s",
                    file=sys.stderr,
                )
    shutil.rmtree(copy, ignore_errors=True)
    recounts = {p: run_ocgraph(f"clique{k}", path, "mmap", threads, timeouts[1]) for p, k in WATCHED.items()}
    if label_every:
        recounts["labelled-triangle"] = run_ocgraph(
            f"pattern:{pattern_file}", labelled, "mmap", threads, timeouts[1]
        )
    for row in rows:
        if row["pattern"] in recounts:
            row["recount_secs"], row["recount_note"] = (
                recounts[row["pattern"]]["secs"],
                recounts[row["pattern"]]["note"],
            )
    return rows


def labelled_graph(path: str, work: str, n: int) -> tuple[str, str]:
    """A copy of `path` (`n` vertices) whose vertices carry stored labels drawn uniformly from
    0..3 (seed 1), made once under `work`, and the labelled triangle's pattern file."""
    labelled = os.path.join(work, os.path.basename(path) + "-labelled")
    pattern_file = os.path.join(work, "labelled-triangle.txt")
    with open(pattern_file, "w") as f:
        f.write(LABELLED_TRIANGLE)
    if not os.path.exists(labelled):
        rng = random.Random(1)
        labels = os.path.join(work, "labels.txt")
        with open(labels, "w") as f:
            f.writelines(f"{v} {rng.randrange(LABELS)}\n" for v in range(n))
        shutil.copytree(path, labelled + ".tmp")
        sh([BIN, "labels", "set", labelled + ".tmp", labels])
        os.rename(labelled + ".tmp", labelled)
    return labelled, pattern_file


def with_label_changes(lines: list[str], every: int, n: int) -> list[str]:
    """`lines` with a line `L v label` (random vertex of `n`, random label of 0..3, seed 2) after
    every `every` of them."""
    rng = random.Random(2)
    out = []
    for i, line in enumerate(lines, 1):
        out.append(line)
        if i % every == 0:
            out.append(f"L {rng.randrange(n)} {rng.randrange(LABELS)}\n")
    return out


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(peer: dict | None, ours: float | None, cap: float) -> str:
    """How many times faster ocgraph ran than `peer` (">Nx" when the peer timed out)."""
    if peer is None or not ours:
        return ""
    if peer["secs"]:
        return f"{peer['secs'] / ours:.2f}x"
    # A timed-out peer took over `cap`: a lower bound, unless ocgraph took longer than that.
    return f">{cap / ours:.1f}x" if peer["note"].startswith("timeout") and cap > ours else ""


def check(peer: dict, ours: list[int] | None) -> str:
    """ "ok" when the peer's counts equal ocgraph's, "DIFF" when not, "" when either is missing."""
    if not peer["count"] or not ours:
        return ""
    return "ok" if peer["count"] == ours else "DIFF"


def static(args, pdir: str | None) -> list[dict]:
    """The static rows: per graph and task, the peers once (in memory), ocgraph per config;
    ratio columns are peer time / ocgraph time (above 1: ocgraph faster)."""
    rows = []
    configs = args.configs.split(",")
    print(
        f"{'graph':8} {'task':8} {'system':9} {'config':7} {'secs':>9} {'wall':>8}"
        f" {'vs igraph':>10} {'vs peregr':>10}  count"
    )
    for name in filter(None, args.graphs.split(",")):
        path = prepare(name, args.work)
        pdata = peregrine.prepare(pdir, BIN, path, args.work) if pdir else None
        for task in args.tasks.split(","):
            ig = None if args.no_igraph else run_igraph(task, path, args.work, args.igraph_timeout)
            pg = peregrine.count(pdir, pdata, task, args.threads, args.timeout) if pdir else None
            ours = None
            for config in configs:
                r = run_ocgraph(task, path, config, args.threads, args.timeout)
                ours = ours or r["count"]
                row = dict(
                    graph=name,
                    task=task,
                    system="ocgraph",
                    config=config,
                    **r,
                    speedup=ratio(ig, r["secs"], args.igraph_timeout),
                    vs_peregrine=ratio(pg, r["secs"], args.timeout),
                )
                rows.append(row)
                print(
                    f"{name:8} {task:8} {'ocgraph':9} {config:7} {fmt(r['secs']):>9} {fmt(r['wall']):>8}"
                    f" {row['speedup']:>10} {row['vs_peregrine']:>10}  {r['count'] or r['note']}"
                )
            for system, peer in (("igraph", ig), ("peregrine", pg)):
                if peer is None:
                    continue
                peer.update(graph=name, task=task, system=system, config="mem", wall=None)
                peer["check"] = check(peer, ours)
                rows.append(peer)
                shown = peer["note"] or f"{peer['count']} {peer['check']}"
                print(
                    f"{name:8} {task:8} {system:9} {'mem':7} {fmt(peer['secs']):>9} {'':>8} {'':>10} {'':>10}  {shown}"
                )
                if peer["check"] == "DIFF":
                    print(f"COUNT MISMATCH: {system} {peer['count']} != ocgraph {ours}", file=sys.stderr)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--graphs", default="astro,cnr,kron18,kron20")
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--configs", default="mmap,pool10")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--igraph-timeout", type=float, default=60)
    ap.add_argument("--no-igraph", action="store_true")
    ap.add_argument(
        "--peregrine", metavar="DIR", help="a build of pdclab/peregrine (see docs/benchmarks.md, Peers)"
    )
    ap.add_argument("--stream", type=int, default=1_000_000, help="updates in the incremental run (0: none)")
    ap.add_argument("--stream-graph", default="kron20")
    ap.add_argument(
        "--pattern-updates",
        default="",
        help="fewer updates for some watched patterns, e.g. 4-clique=100000 (a prefix of the stream)",
    )
    ap.add_argument("--mixes", default="50/50,100/0", help="additions/removals mixes of the incremental run")
    ap.add_argument("--batches", default="1,1000", help="batch sizes of the incremental run")
    ap.add_argument("--modes", default="inline,background", help="how watches run: inline, background")
    ap.add_argument("--stream-timeout", type=float, default=1200)
    ap.add_argument(
        "--label-changes",
        type=int,
        default=10,
        metavar="K",
        help="also watch a labelled triangle over the stream with a label change after every K updates (0: not)",
    )
    ap.add_argument("--work", default=os.path.join(OUT, "mining-work"))
    ap.add_argument("--out", default=OUT, help="where mining.csv and mining.json go")
    args = ap.parse_args()
    if args.small:
        args.graphs, args.stream, args.stream_graph = "astro,kron12", 3000, "kron12"
        args.tasks, args.igraph_timeout, args.timeout = "clique4,clique5,motif3,motif4", 10, 60
    os.makedirs(args.work, exist_ok=True)
    pdir = args.peregrine
    if pdir and (why := peregrine.missing(pdir)):
        print(f"peregrine: {why}; its rows are left out", file=sys.stderr)
        pdir = None
    elif not pdir:
        print("peregrine: not given (--peregrine DIR); its rows are left out", file=sys.stderr)
    rows = static(args, pdir)
    mismatches = [r for r in rows if r.get("check") == "DIFF"]
    inc = []
    if args.stream:
        path = prepare(args.stream_graph, args.work)
        batches = [int(b) for b in args.batches.split(",")]
        per_pattern = {
            name: int(count)
            for name, count in (x.split("=") for x in filter(None, args.pattern_updates.split(",")))
        }
        mixes = args.mixes.split(",")
        timeouts = (args.stream_timeout, args.timeout)
        inc = stream(
            path,
            args.work,
            args.stream,
            per_pattern,
            mixes,
            batches,
            args.threads,
            timeouts,
            args.label_changes,
            args.modes.split(","),
        )
        print(f"\nincremental, {args.stream_graph} (mix: additions/removals %)")
        print(
            f"{'mix':6} {'watch':17} {'mode':10} {'batch':>6} {'updates':>8} {'updates/s':>10} {'p50 us':>8} {'p99 us':>9}"
            f" {'added':>9} {'removed':>10} {'modified':>9} {'watch s':>8} {'recount s':>10}"
        )
        for r in inc:
            head = f"{r['mix']:6} {r['pattern']:17} {r['mode']:10} {r['batch']:6} {r['updates']:8}"
            if r["note"]:
                print(f"{head} {r['note']}")
                continue
            recount = fmt(r.get("recount_secs")) if r.get("recount_secs") else r.get("recount_note", "")
            added = "-" if r["added"] is None else int(r["added"])
            removed = "-" if r["removed"] is None else int(r["removed"])
            modified = "-" if r.get("modified") is None else int(r["modified"])
            print(
                f"{head} {r['updates_per_s']:10.0f} {r['p50_us']:8.1f} {r['p99_us']:9.1f}"
                f" {added:>9} {removed:>10} {modified:>9} {fmt(r['watch_secs']):>8} {recount:>10}"
            )
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "mining.csv"), "w", newline="") as f:
        keys = [
            "graph",
            "task",
            "system",
            "config",
            "secs",
            "wall",
            "speedup",
            "vs_peregrine",
            "check",
            "note",
            "count",
        ]
        wr = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        wr.writeheader()
        for r in rows:
            wr.writerow({**r, "count": json.dumps(r.get("count"))})
    with open(os.path.join(args.out, "mining.json"), "w") as f:
        json.dump({"static": rows, "incremental": inc, "args": vars(args)}, f, indent=1)
    if mismatches:
        for r in mismatches:
            print(f"COUNT MISMATCH: {r['graph']} {r['task']} {r['system']}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
