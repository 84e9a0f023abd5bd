#!/usr/bin/env python3
"""Layouts benchmark: CSR, compressed CSR, packed CSR, grid and compressed grid (and `auto`) under a buffer pool of
5%, 10%, 25% and 100% of the CSR size, against GridGraph (page cache and memory cgroup) and GAPBS
(in memory), side by side in one run; plus the grid build time against GridGraph's preprocess.

Usage: bench/layouts/run.py [--scales 22,23 | --quick | --small] [--budgets 5,10,25,100]
                            [--kernels pr20,wcc,spmv,bfs] [--layouts csr,ccsr,packed,grid,cgrid,rgrid,hubs,auto]
                            [--trials 2] [--rounds 1] [--threads 2] [--work DIR] [--ocgraph BIN]
                            [--gapbs DIR] [--gridgraph DIR] [--memcap PATH] [--timeout 400]
                            [--block-size 16KiB] [--prepare-only] [--retime-builds] [--name NAME]

Run it niced on a shared machine (`nice -n 10 python3 bench/layouts/run.py ...`); --quick (scale
16, budgets 10% and 100%, at most 2 trials; --small is the same, for `make bench`) is a smoke
test of the whole pipeline, about 30 s on 2 cores. The ocgraph binary is --ocgraph, else
$OCGRAPH_BIN, else TARGET/release/ocgraph.

Graphs (cached in --work, default bench/out/layouts-work; everything below is reused when
present): kronS = `ocgraph generate kronecker --scale S --edge-factor 16 --seed 1` (Graph500
parameters, undirected, as bench/algos), then
  kronS         `ocgraph layout pack kronS` (packed CSR, bit-packed gaps, beside the plain
                lists: the packed rows read them with --layout packed; auto may; older builds
                without it get kronS-packed = `ocgraph pack kronS kronS-packed` instead),
  kronS-ccsr    hard links to the files of kronS (its manifest is replaced, not written in
                place), then `ocgraph layout compress kronS-ccsr --block-size B` (--block-size,
                default 16KiB; remade when the block size differs from the recorded one): the
                CSR with LZ4-compressed copies of its lists, which the pool reads and decodes
                into its frames (compressed CSR),
  kronS.lz4     a `cp -r` of the plain kronS made before its grid is built, then
                `ocgraph layout grid kronS.lz4 --compress lz4` (the compressed grid),
  kronS.runs    likewise, `ocgraph layout grid kronS.runs --compress runs` (the grid of runs),
  kronS         `ocgraph layout grid kronS` (the plain grid, inside the CSR graph),
with --threads N --quiet (and --cells-per-side P, --memory M when --grid-cells, --build-memory
are given). Wall times of generate, pack and both grid builds are recorded in WORK/builds.json
(so a later run that reuses the graphs still reports them; `layout compress` too); --retime-builds rebuilds both grids
in place, and GridGraph's grids (re-exporting their input), to time them again side by side on
a quiet machine. --prepare-only makes all the inputs (these, GAPBS's and GridGraph's below) and
stops, so that a later measuring run starts at once.

ocgraph rows: `ocgraph run ALGO G --layout L --backend pool --memory B --trials T --threads N
--stats`, ALGO = pagerank (pr20: --tol 0 --max-iter 20, --method only when --pr-method is
given), wcc, spmv, bfs (--source S, S = a vertex of maximal degree, the same S for every
system). Layouts: csr (kronS, --layout csr), ccsr (kronS-ccsr, --layout csr), packed
(kronS, --layout packed), grid (kronS, --layout grid), cgrid (kronS.lz4, --layout grid), rgrid (kronS.runs, --layout grid), hubs
(kronS with its hub index, `ocgraph layout hubs`: --layout hubs, bfs and wcc only), auto
(kronS, --layout auto: the plain or packed lists or the plain grid, the CLI's choice; its
"layout: L (...)" line, or a "layout" field of --stats, says which ran: layout_ran in the CSV,
and in the note of auto rows).
The grid serves pagerank, wcc and spmv only, the hub index bfs and wcc: other kernels are not run
on them.
The budget B is a percentage of the CSR size (out.offsets + out.neighbors of the plain kronS, the
same bytes for every layout); 100% is that size plus 8 MB, so that the CSR fits whole, and its
rows first run untimed trials for --warmup seconds (`--warmup-secs`, so their trials find the
pool warm and their statistics leave out the load). `secs` is the best trial ("min" of the run's
summary line), `e2e` the wall time of the whole command, `MB/trial` the pool's bytes_read
(--stats) divided by the trials. When the CLI has no --layout yet (older build), the csr and
packed rows run without it and the grid, cgrid and auto rows are skipped with a note; likewise
spmv rows when the CLI has no spmv and grid builds when it has no `layout` subcommand.

GAPBS (--gapbs DIR: a build of github.com/sbeamer/gapbs with bfs, pr, cc and converter; not part
of this repository, see docs/benchmarks.md, Peers, for building it): kronS is exported as text once
(`ocgraph export`, which lists each undirected edge once) and converted with `converter -s` to
WORK/kronS.gapbs.sg. Kernels run with OMP_NUM_THREADS=--threads and -n --trials: pr20 = `pr -i
20 -t 0` (GAPBS's pr is a Gauss-Seidel pull; ocgraph's default is Jacobi: the same 20 sweeps
over the edges), wcc = `cc` (Afforest), bfs = `bfs -r S`. `secs` = its best "Trial Time", bytes
read "-" (in memory). GAPBS has no SpMV: its spmv row is "-".

GridGraph (--gridgraph DIR: a build of github.com/thu-pacman/GridGraph with bin/preprocess,
bin/pagerank, bin/wcc, bin/bfs, bin/spmv; not part of this repository, see PEERS.md). Its input
is binary u32 (src, dst) pairs listing both directions: `ocgraph export kronS --format bin32`
writes each undirected edge once, so this script appends every pair reversed (WORK/kronS.sym.u32),
then times `preprocess -i kronS.sym.u32 -o WORK/kronS.gg -v N -p P -t 0` (P = --gg-partitions,
default 8 as in PEERS.md). Its spmv needs a weighted grid (it asserts edge type 1): the same from
`--format bin32w` records (u32 src, u32 dst, f32 weight 1.0), `-t 1`, into WORK/kronS.ggw. The
preprocess wall time (and the time it prints itself, "it takes X seconds to generate edge grid")
is recorded in WORK/builds.json; the symmetrised inputs are deleted afterwards unless
--keep-inputs. Preprocess writes every edge three times (block-I-J files, then their copies in
`row` and `column` order); the engine only stats the block files, so they are then made sparse
at the same size (a third of the disk back; --gg-keep-blocks keeps them).
  Commands (what its sources read): `bin/pagerank DIR ITER MEM_GB`, `bin/wcc DIR MEM_GB`, `bin/bfs
DIR START MEM_GB`, `bin/spmv DIR X MEM_GB` (spmv's usage line says `spmv DIR MEM_GB` but it reads
the memory from the third argument, so X is a placeholder). MEM_GB is parsed with atol and
multiplied by 2^30: whole GiB only, 8 when absent. It is GridGraph's own memory budget: edges are
read with O_DIRECT when the edge bytes of the active rows exceed it and through the page cache
(buffered pread) otherwise, and the vertex arrays (BigVector: files in DIR, mmap'ed MAP_SHARED,
page cache) are processed in windows of partitions sized so that they take 80% of it. It always
allocates 24 MiB I/O buffers per hardware thread (memset, resident) and uses every hardware
thread (std::thread::hardware_concurrency(); no option). It prints per kernel: pagerank "degree
calculation used X seconds" then "ITER iterations of pagerank took X seconds" (X includes the
degree pass); wcc one line per iteration then "C components found in X seconds" (after the
label init); bfs one line per iteration then "discovered D vertices from S in X seconds."; spmv
"spmv took X seconds"; all with two decimals. `secs` is that X (best of --trials runs),
`e2e` the wall time of the process (graph open included). Bytes read are the process's rchar
(/proc/PID/io of a wrapping shell, which accumulates its reaped child): every byte returned by
read/pread (edge blocks and vertex-window loads; mmap faults are not counted), and the note
gives read_bytes (from the block device) when non-zero.
  gridgraph-pc: MEM_GB = --gg-pc-memory (default 8: buffered I/O, vertex arrays whole), one
untimed warm run, then --trials runs: the graph in the page cache.
  gridgraph-cg@B%: MEM_GB = max(1, ceil(B / 2^30)) (it cannot express less than 1 GiB), run
under `memcap CAP -- timeout ...` (/work/shared/tools/memcap: a memory cgroup counting the page
cache; --memcap or $OCGRAPH_MEMCAP) with CAP = B + 48 bytes per vertex (--gg-vertex-bytes: its
vertex arrays, as bench/algos allows the mmap backend; ocgraph's own arrays are outside its pool
budget too) + 24 MiB per hardware thread (its fixed I/O buffers) + 32 MiB (binary, heap).
Before each run the grid directory's pages are dropped from the page cache (fsync +
posix_fadvise DONTNEED on its files only: no machine-wide drop_caches), so that they are
charged to the cgroup when read again. memcap's peak usage is in peak_bytes. When memcap
fails, the cg rows run uncapped and say so.
  Every GridGraph run has a --timeout (default 400 s; `timeout -k 5`): "timeout" in the note.

Output, per (scale, kernel), a table: config (layout@budget, gapbs, gridgraph-pc,
gridgraph-cg@budget), secs, e2e, MB read per trial, xGAPBS (secs / GAPBS secs) and xGG-pc (secs
/ GridGraph page-cache secs); then per scale the build table (grid, compressed grid and pack
against GridGraph's preprocess) and the targets of the issue as ratios with their goals:
PageRank-20 and WCC at 10% against GridGraph in page cache (speed-up, goal >= 5) and against
GAPBS (goal <= 1.2); grid build against preprocess; BFS and PageRank-20 at 100% against GAPBS
(goal <= 1.1); BFS at 10% against GAPBS (goal <= 2); auto against the best layout of each
(kernel, budget) (goal <= 1.1). Each target is given for the best layout and for auto. Files:
bench/layouts/results/NAME.csv (every row) and NAME.json (rows, builds, targets, notes, peers),
NAME = layouts (--name), rewritten after every row; NAME.png when matplotlib is importable.
--quick writes bench/out/NAME.* instead (git-ignored), NAME = layouts_quick.
  --rounds R runs each kernel's ocgraph rows R times in turn (every layout and budget, then
again) and keeps each row's fastest run: rows compared with each other, such as auto against
the layout it chose, then see the same drift of a shared machine.
"""

import argparse
import array
import csv
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
RESULTS = os.path.join(HERE, "results")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from graph_files import max_degree_vertex  # noqa: E402

MEMCAPS = [
    os.environ.get("OCGRAPH_MEMCAP"),
    os.path.join(ROOT, "..", "shared", "tools", "memcap"),
    os.path.join(ROOT, "..", "..", "shared", "tools", "memcap"),  # a worktree under /work/wt
]

KERNELS = ["pr20", "wcc", "spmv", "bfs"]
LAYOUTS = ["csr", "ccsr", "packed", "grid", "cgrid", "rgrid", "hubs", "auto"]
# The grids stored with a codec: layout -> (--compress, copy suffix, builds key).
CODEC_GRIDS = {"cgrid": ("lz4", ".lz4", "ocgraph_grid_lz4"), "rgrid": ("runs", ".runs", "ocgraph_grid_runs")}
# Layouts that serve only some kernels (the others are not run on them).
KERNELS_OF = {
    "hubs": ("bfs", "wcc"),
    "grid": ("pr20", "wcc", "spmv"),
    "cgrid": ("pr20", "wcc", "spmv"),
    "rgrid": ("pr20", "wcc", "spmv"),
}
ALGO = {"pr20": "pagerank", "wcc": "wcc", "spmv": "spmv", "bfs": "bfs"}
GAPBS_BIN = {"pr20": "pr", "wcc": "cc", "bfs": "bfs"}
GG_BIN = {"pr20": "pagerank", "wcc": "wcc", "spmv": "spmv", "bfs": "bfs"}
GG_TIME = {
    "pr20": r"iterations of pagerank took ([\d.]+) seconds",
    "wcc": r"components found in ([\d.]+) seconds",
    "bfs": r"vertices from \d+ in ([\d.]+) seconds",
    "spmv": r"spmv took ([\d.]+) seconds",
}
MIB = 1 << 20
GIB = 1 << 30
IO_WRAP = '"$@"; rc=$?; cat /proc/$$/io >&2; exit $rc'

NOTES = []


def note(text):
    if text not in NOTES:
        NOTES.append(text)
        print("note: " + text, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def run(cmd, timeout, env=None):
    """Runs cmd in its own session; kills the whole group on timeout. (rc|None, out, err, wall)."""
    t = time.perf_counter()
    p = subprocess.Popen(
        cmd, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True
    )
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = None
    return rc, out, err, time.perf_counter() - t


def last_line(text):
    lines = [ln for ln in text.replace("\r", "\n").splitlines() if ln.strip()]
    return lines[-1][:100] if lines else "?"


# ---------------------------------------------------------------------------------------------
# Work dir: graphs, peers' inputs and recorded build times


def load_builds(work):
    path = os.path.join(work, "builds.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def save_builds(work, builds, name):
    """Writes builds[name] into WORK/builds.json (merged: runs of other scales may share it)."""
    path = os.path.join(work, "builds.json")
    disk = load_builds(work)
    disk[name] = builds[name]
    with open(path + f".{os.getpid()}.part", "w") as f:
        json.dump(disk, f, indent=1, sort_keys=True)
    os.replace(path + f".{os.getpid()}.part", path)


def manifest_info(exe, graph):
    info = sh([exe, "info", graph]).stdout

    def get(k):
        return re.search(rf"^{k}\s+(\S+)", info, re.M).group(1)

    return {"n": int(get("vertices")), "edges": int(get("edges")), "arcs": int(get("arcs"))}


def csr_bytes(graph):
    files = ("out.offsets", "out.neighbors", "out.weights", "in.offsets", "in.neighbors", "in.weights")
    return sum(
        os.path.getsize(os.path.join(graph, f)) for f in files if os.path.exists(os.path.join(graph, f))
    )


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for dp, _, fs in os.walk(path):
        total += sum(os.path.getsize(os.path.join(dp, f)) for f in fs)
    return total


def timed(cmd, what):
    t = time.perf_counter()
    p = subprocess.run(cmd, text=True, capture_output=True)
    secs = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{what} failed: {' '.join(cmd)}: {last_line(p.stderr + p.stdout)}")
    return secs, p.stdout + p.stderr


def cli_caps(exe):
    """What this ocgraph build offers: run --layout, run spmv, the layout subcommand."""
    run_help = sh([exe, "run", "--help"]).stdout
    layout = subprocess.run([exe, "layout", "--help"], capture_output=True, text=True)
    return {
        "layout_flag": "--layout" in run_help,
        "spmv": re.search(r"^\s*- spmv", run_help, re.M) is not None,
        "layout_cmd": layout.returncode == 0,
        "layout_pack": layout.returncode == 0 and "remove-pack" in layout.stdout,
        "layout_hubs": layout.returncode == 0 and "remove-hubs" in layout.stdout,
    }


def prepare_ocgraph(args, exe, caps, scale, builds):
    """Generates kronS and its packed and grid copies (once); returns the graph paths by layout."""
    name = f"kron{scale}"
    b = builds.setdefault(name, {})
    g = os.path.join(args.work, name)
    if not os.path.exists(os.path.join(g, "manifest")):
        cmd = [exe, "generate", "kronecker", "--scale", str(scale), "--edge-factor", "16", "--seed", "1"]
        cmd += ["--quiet", "--force", "--memory", "4GiB", g]
        b["generate"] = {"secs": timed(cmd, "generate")[0], "cmd": " ".join(cmd[1:])}
        for k in (
            "ocgraph_grid",
            "ocgraph_grid_lz4",
            "ocgraph_grid_runs",
            "ocgraph_pack",
            "ocgraph_pack_copy",
            "ocgraph_hubs",
            "ocgraph_compress",
        ):
            b.pop(k, None)
        for d in (g + "-packed", g + ".lz4", g + ".runs", g + "-ccsr"):  # copies of an older kronS
            shutil.rmtree(d, ignore_errors=True)
        save_builds(args.work, builds, name)
    paths = {"csr": g, "auto": g, "grid": g}
    packed = g + "-packed"
    if caps["layout_pack"] and ("packed" in args.layouts or "auto" in args.layouts):
        # Packed copies beside the plain lists: the packed rows read them (`--layout packed`),
        # and auto may.
        if "ocgraph_pack_copy" not in b:
            cmd = [exe, "layout", "pack", g, "--quiet"]
            secs, out = timed(cmd, "layout pack")
            b["ocgraph_pack_copy"] = {"secs": secs, "cmd": " ".join(cmd[1:]), "output": out.strip()[-300:]}
            save_builds(args.work, builds, name)
        paths["packed"] = g
    elif "packed" in args.layouts:
        if not os.path.exists(os.path.join(packed, "manifest")) or "ocgraph_pack" not in b:
            cmd = [exe, "pack", g, packed, "--force"]
            b["ocgraph_pack"] = {
                "secs": timed(cmd, "pack")[0],
                "cmd": " ".join(cmd[1:]),
                "bytes": csr_bytes_any(packed),
            }
            save_builds(args.work, builds, name)
        paths["packed"] = packed
    if caps["layout_hubs"] and ("hubs" in args.layouts or "auto" in args.layouts):
        # The hub index beside the lists: the hubs rows read it (`--layout hubs`), and auto may.
        if "ocgraph_hubs" not in b or args.retime_builds:
            cmd = [exe, "layout", "hubs", g, "--quiet"]
            secs, out = timed(cmd, "layout hubs")
            b["ocgraph_hubs"] = {"secs": secs, "cmd": " ".join(cmd[1:]), "output": out.strip()[-300:]}
            save_builds(args.work, builds, name)
        paths["hubs"] = g
    ccsr = g + "-ccsr"
    if "ccsr" in args.layouts:
        made = b.get("ocgraph_compress", {})
        if args.retime_builds or made.get("block_size") != args.block_size or not os.path.exists(ccsr):
            link_files(g, ccsr)
            cmd = [exe, "layout", "compress", ccsr, "--block-size", args.block_size]
            cmd += ["--threads", str(args.threads), "--quiet"]
            secs, out = timed(cmd, "layout compress")
            stored = sum(
                os.path.getsize(os.path.join(ccsr, f)) for f in os.listdir(ccsr) if f.endswith(".lz4")
            )
            b["ocgraph_compress"] = {
                "secs": secs,
                "cmd": " ".join(cmd[1:]),
                "output": out.strip()[-300:],
                "bytes": stored,
                "block_size": args.block_size,
            }
            save_builds(args.work, builds, name)
        paths["ccsr"] = ccsr
    want_grid = any(x in args.layouts for x in ("grid", "cgrid", "rgrid", "auto"))
    if want_grid and not caps["layout_cmd"]:
        note("this ocgraph has no `layout` subcommand: no grid built, grid/cgrid/rgrid/auto rows skipped")
        return paths
    extra = []
    if args.grid_cells:
        extra += ["--cells-per-side", str(args.grid_cells)]
    if args.build_memory:
        extra += ["--memory", args.build_memory]
    if args.retime_builds:
        b.pop("ocgraph_grid", None)
        for _, _, key in CODEC_GRIDS.values():
            b.pop(key, None)  # `layout grid` replaces a graph's grid: rebuilt in place
    for layout, (codec, suffix, key) in CODEC_GRIDS.items():
        copy = g + suffix
        if layout in args.layouts and key not in b:
            if not os.path.exists(os.path.join(copy, "manifest")):
                if "ocgraph_grid" in b:
                    note(f"{name}{suffix} copied from {name} after its plain grid was built (then replaced)")
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(g, copy)
            if not build_grid(args, exe, copy, codec, extra, builds, key, name):
                shutil.rmtree(copy, ignore_errors=True)
        if layout in args.layouts and key in b:
            paths[layout] = copy
    if ("grid" in args.layouts or "auto" in args.layouts) and "ocgraph_grid" not in b:
        build_grid(args, exe, g, "none", extra, builds, "ocgraph_grid", name)
    if "ocgraph_grid" not in b:
        paths.pop("grid")
        paths.pop("auto")
    return paths


def link_files(src, dst):
    """A fresh directory `dst` holding hard links to the files of `src` (subdirectories left out)."""
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for f in os.listdir(src):
        if os.path.isfile(os.path.join(src, f)):
            os.link(os.path.join(src, f), os.path.join(dst, f))


def build_grid(args, exe, graph, compress, extra, builds, key, name):
    """`ocgraph layout grid GRAPH --compress C`, timed into builds[name][key]; False on failure."""
    cmd = [exe, "layout", "grid", graph, "--compress", compress, "--threads", str(args.threads), "--quiet"]
    cmd += extra
    try:
        secs, out = timed(cmd, "layout grid")
    except RuntimeError as e:
        note(f"{name}: {e}: its rows are skipped")
        return False
    builds[name][key] = {
        "secs": secs,
        "cmd": " ".join(cmd[1:]),
        "output": out.strip()[-300:],
        "bytes": dir_bytes(graph) - csr_bytes(graph),
    }
    save_builds(args.work, builds, name)
    return True


def csr_bytes_any(graph):
    """Bytes of a graph directory's files (a packed copy's lists have other names)."""
    return sum(os.path.getsize(os.path.join(graph, f)) for f in os.listdir(graph) if f != "manifest")


def prepare_gapbs(args, exe, scale):
    name = f"kron{scale}"
    out = os.path.join(args.work, name + ".gapbs.sg")
    if not os.path.exists(out):
        text = os.path.join(args.work, name + ".gapbs.el")
        sh([exe, "export", os.path.join(args.work, name), text])
        # -s symmetrises (the export lists an undirected edge once).
        sh([os.path.join(args.gapbs, "converter"), "-f", text, "-s", "-b", out + ".part"])
        os.replace(out + ".part", out)
        os.remove(text)
    return out


def symmetrise(src, dst, words):
    """Writes src's records (`words` u32 each, (src, dst, ...)) and each one reversed to dst."""
    chunk = words * 4 * MIB
    with open(src, "rb") as f, open(dst + ".part", "wb") as g:
        while True:
            data = f.read(chunk)
            if not data:
                break
            a = array.array("I")
            a.frombytes(data)
            s = array.array("I", a)
            s[0::words] = a[1::words]
            s[1::words] = a[0::words]
            g.write(data)
            s.tofile(g)
    os.replace(dst + ".part", dst)


def gg_meta(grid):
    try:
        with open(os.path.join(grid, "meta")) as f:
            t, v, e, p = f.read().split()
        return {"edge_type": int(t), "vertices": int(v), "edges": int(e), "partitions": int(p)}
    except (OSError, ValueError):
        return None


def hollow_blocks(grid):
    """Makes GridGraph's block-I-J files sparse, keeping their sizes: once preprocess has copied
    them into `row` and `column`, its engine only stats them (Graph::init's fsize)."""
    for f in os.listdir(grid):
        path = os.path.join(grid, f)
        if f.startswith("block-") and os.stat(path).st_blocks > 0:
            size = os.path.getsize(path)
            os.truncate(path, 0)
            os.truncate(path, size)


def prepare_gridgraph(args, exe, scale, info, builds, weighted):
    """GridGraph's grid of kronS (weighted: the -t 1 copy for spmv), preprocessed once and timed."""
    name = f"kron{scale}"
    key = "gridgraph_preprocess_w" if weighted else "gridgraph_preprocess"
    grid = os.path.join(args.work, name + (".ggw" if weighted else ".gg"))
    meta = gg_meta(grid)
    want = {
        "edge_type": int(weighted),
        "vertices": info["n"],
        "edges": 2 * info["edges"],
        "partitions": args.gg_partitions,
    }
    b = builds.setdefault(name, {})
    if meta == want and key in b and not args.retime_builds:
        if not args.gg_keep_blocks:
            hollow_blocks(grid)
        return grid
    fmt, ext, words = ("bin32w", ".u32w", 3) if weighted else ("bin32", ".u32", 2)
    one = os.path.join(args.work, name + ".one" + ext)
    sym = os.path.join(args.work, name + ".sym" + ext)
    if not os.path.exists(sym):
        sh([exe, "export", os.path.join(args.work, name), one, "--format", fmt])
        symmetrise(one, sym, words)
        os.remove(one)
    cmd = [
        os.path.join(args.gridgraph, "bin", "preprocess"),
        "-i",
        sym,
        "-o",
        grid,
        "-v",
        str(info["n"]),
        "-p",
        str(args.gg_partitions),
        "-t",
        str(int(weighted)),
    ]
    secs, out = timed(cmd, "GridGraph preprocess")
    said = re.search(r"it takes ([\d.]+) seconds to generate edge grid", out)
    b[key] = {
        "secs": secs,
        "reported_secs": float(said.group(1)) if said else None,
        "cmd": " ".join(cmd[1:]),
        "input_bytes": os.path.getsize(sym),
        "bytes": dir_bytes(grid),
    }
    save_builds(args.work, builds, name)
    if gg_meta(grid) != want:
        note(f"{grid}: meta {gg_meta(grid)} differs from the expected {want}")
    if not args.keep_inputs:
        os.remove(sym)
    if not args.gg_keep_blocks:
        hollow_blocks(grid)
    return grid


# ---------------------------------------------------------------------------------------------
# Runs


def budget_bytes(csr, pct):
    return csr + 8 * MIB if pct >= 100 else max(int(csr * pct / 100), 256 << 10)


def run_ocgraph(args, exe, caps, graph, layout, kernel, pct, budget, source):
    if kernel == "spmv" and not caps["spmv"]:
        return {"secs": None, "note": "this ocgraph has no `run spmv`"}
    if layout in ("grid", "cgrid", "rgrid", "auto") and not caps["layout_flag"]:
        return {"secs": None, "note": "this ocgraph has no `run --layout`"}
    cmd = [
        exe,
        "run",
        ALGO[kernel],
        graph,
        "--threads",
        str(args.threads),
        "--trials",
        str(args.trials),
        "--stats",
        "--backend",
        "pool",
        "--memory",
        str(budget),
    ]
    if caps["layout_flag"]:
        packed = "packed" if caps["layout_pack"] else "csr"  # older builds: the packed graph's lists
        cmd += [
            "--layout",
            {"packed": packed, "ccsr": "csr", "cgrid": "grid", "rgrid": "grid"}.get(layout, layout),
        ]
    if kernel == "pr20":
        cmd += ["--tol", "0", "--max-iter", "20"]
        if args.pr_method:
            cmd += ["--method", args.pr_method]
    if kernel == "bfs":
        cmd += ["--source", str(source)]
    if pct >= 100 and args.warmup > 0:
        cmd += ["--warmup-secs", str(args.warmup)]
    rc, out, err, wall = run(cmd, args.timeout)
    if rc is None:
        return {"secs": None, "e2e": wall, "note": f"timeout after {args.timeout} s"}
    if rc != 0:
        return {"secs": None, "e2e": wall, "note": "failed: " + last_line(err or out)}
    m = re.search(r"mean ([\d.]+) s, min ([\d.]+) s", out)
    stats = {}
    for ln in (out + "\n" + err).splitlines():
        if ln.startswith("{"):
            try:
                j = json.loads(ln)
            except ValueError:
                continue
            if "bytes_read" in j:
                stats = j
    notes = []
    if not caps["layout_flag"]:
        notes.append("no --layout (CLI default)")
    said = re.search(r"^layout: ([\w +]+?) \(", out + "\n" + err, re.M)
    ran = stats.get("layout") or (said.group(1) if said else None)
    if layout == "auto" and ran:
        notes.append(f"auto ran {ran}")
    iters = re.search(r"^pagerank: (\d+) iterations", out, re.M)
    if iters and iters.group(1) != "20":
        notes.append(f"{iters.group(1)} iterations")
    total = stats.get("bytes_read")
    return {
        "secs": float(m.group(2)) if m else None,
        "mean": float(m.group(1)) if m else None,
        "e2e": wall,
        "bytes_read": None if total is None else total / args.trials,
        "bytes_read_total": total,
        "hit_ratio": stats.get("hit_ratio"),
        "layout_ran": ran,
        "note": "; ".join(notes) if m else "no timing line: " + last_line(out),
    }


def faster(r, kept):
    """Whether run `r` timed faster than the `kept` one (a run without a time never is)."""
    return r.get("secs") is not None and (kept.get("secs") is None or r["secs"] < kept["secs"])


def run_gapbs(args, kernel, sg, source):
    if kernel not in GAPBS_BIN:
        return {"secs": None, "note": "GAPBS has no SpMV"}
    cmd = [os.path.join(args.gapbs, GAPBS_BIN[kernel]), "-f", sg, "-n", str(args.trials)]
    cmd += {"pr20": ["-i", "20", "-t", "0"], "bfs": ["-r", str(source)]}.get(kernel, [])
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    rc, out, err, wall = run(cmd, args.timeout, env)
    if rc is None:
        return {"secs": None, "e2e": wall, "note": f"timeout after {args.timeout} s"}
    trials = [float(x) for x in re.findall(r"^Trial Time:\s+([\d.]+)", out, re.M)]
    if rc != 0 or not trials:
        return {"secs": None, "e2e": wall, "note": "failed: " + last_line(out + err)}
    avg = re.search(r"^Average Time:\s+([\d.]+)", out, re.M)
    read = re.search(r"^Read Time:\s+([\d.]+)", out, re.M)
    return {
        "secs": min(trials),
        "mean": float(avg.group(1)) if avg else None,
        "e2e": wall,
        "load_secs": float(read.group(1)) if read else None,
        "note": " ".join(cmd[1:][2:]),
    }


def evict(path):
    """Drops a directory's pages from the page cache (dirty ones written first)."""
    for f in os.listdir(path):
        fd = os.open(os.path.join(path, f), os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def warm(path):
    """Reads a graph directory once, so that the page cache holds it (as after generating it)."""
    for dp, _, fs in os.walk(path):
        for f in fs:
            with open(os.path.join(dp, f), "rb") as fh:
                while fh.read(16 * MIB):
                    pass


def gg_once(args, kernel, grid, source, mem_gb, cap=None):
    bin_ = os.path.join(args.gridgraph, "bin", GG_BIN[kernel])
    cmd = {
        "pr20": [bin_, grid, "20", str(mem_gb)],
        "wcc": [bin_, grid, str(mem_gb)],
        "bfs": [bin_, grid, str(source), str(mem_gb)],
        # spmv reads its memory budget from argv[3] (its usage line says argv[2]).
        "spmv": [bin_, grid, "0", str(mem_gb)],
    }[kernel]
    cmd = ["timeout", "-k", "5", str(args.timeout), "sh", "-c", IO_WRAP, "sh", *cmd]
    if cap is not None:
        cmd = [args.memcap, str(cap), "--", *cmd]
    rc, out, err, wall = run(cmd, args.timeout + 60)
    io = {k: int(v) for k, v in re.findall(r"^(rchar|read_bytes): (\d+)", err, re.M)}
    cg = {}
    for ln in err.splitlines():
        if ln.startswith('{"limit_bytes"'):
            cg = json.loads(ln)
    r = {
        "e2e": wall,
        "bytes_read": io.get("rchar"),
        "storage_read_bytes": io.get("read_bytes"),
        "peak_bytes": cg.get("max_usage_bytes"),
        "secs": None,
        "note": "",
    }
    if rc is None or rc == 124:
        r["note"] = f"timeout after {args.timeout} s"
    elif rc != 0:
        r["note"] = f"exit {rc}" + (" (killed: out of memory in the cgroup?)" if rc in (137, -9) else "")
        r["note"] += ": " + last_line(out + err.split("rchar:")[0])
    else:
        m = re.search(GG_TIME[kernel], out)
        r["secs"] = float(m.group(1)) if m else None
        if not m:
            r["note"] = "no timing line: " + last_line(out)
    return r


def run_gridgraph(args, kernel, grid, source, n, pct=None, budget=None, capped=True):
    """gridgraph-pc (pct None: warm run, then trials) or gridgraph-cg at budget bytes."""
    if pct is None:
        mem_gb, cap = args.gg_pc_memory, None
        first = gg_once(args, kernel, grid, source, mem_gb)  # warm-up, untimed
        if first["secs"] is None:
            return {**first, "gg_memory_gb": mem_gb}
    else:
        mem_gb = max(1, math.ceil(budget / GIB))
        cap = budget + args.gg_vertex_bytes * n + (os.cpu_count() or 1) * 24 * MIB + 32 * MIB
    runs = []
    for _ in range(args.trials):
        if cap is not None:
            evict(grid)
        r = gg_once(args, kernel, grid, source, mem_gb, cap if capped else None)
        runs.append(r)
        if r["secs"] is None:
            break
    ok = [r for r in runs if r["secs"] is not None]
    best = min(ok, key=lambda r: r["secs"]) if ok else runs[-1]
    notes = [best["note"]] if best["note"] else []
    if best.get("storage_read_bytes"):
        notes.append(f"{best['storage_read_bytes'] / 1e6:.0f} MB from the device")
    if cap is None:
        notes.append(f"mem {mem_gb} GiB, warm")
    else:
        notes.append(
            f"mem {mem_gb} GiB, cap {cap / MIB:.0f} MiB" + ("" if capped else " NOT applied (no memcap)")
        )
    return {
        **best,
        "mean": sum(r["secs"] for r in ok) / len(ok) if ok else None,
        "gg_memory_gb": mem_gb,
        "cap_bytes": cap if capped else None,
        "note": "; ".join(notes),
    }


# ---------------------------------------------------------------------------------------------
# Output

FIELDS = [
    "graph",
    "kernel",
    "system",
    "config",
    "layout",
    "budget_pct",
    "budget_bytes",
    "secs",
    "mean",
    "e2e",
    "bytes_read",
    "bytes_read_total",
    "storage_read_bytes",
    "hit_ratio",
    "layout_ran",
    "load_secs",
    "gg_memory_gb",
    "cap_bytes",
    "peak_bytes",
    "x_gapbs",
    "x_gg_pc",
    "note",
]


def ref(rows, graph, kernel, config):
    return next(
        (
            r["secs"]
            for r in rows
            if (r["graph"], r["kernel"], r["config"]) == (graph, kernel, config) and r.get("secs")
        ),
        None,
    )


def add_ratios(rows):
    for r in rows:
        g = ref(rows, r["graph"], r["kernel"], "gapbs")
        p = ref(rows, r["graph"], r["kernel"], "gridgraph-pc")
        s = r.get("secs")
        r["x_gapbs"] = s / g if s is not None and g and r["config"] != "gapbs" else None
        r["x_gg_pc"] = s / p if s is not None and p and r["config"] != "gridgraph-pc" else None


def fmt(x, spec):
    return format("-", ">" + spec.split(".")[0]) if x is None else format(x, spec)


def print_table(rows, graph, kernel):
    sel = [r for r in rows if r["graph"] == graph and r["kernel"] == kernel]
    print(f"\n{graph} {kernel}")
    print(f"  {'config':<18} {'secs':>9} {'e2e_s':>8} {'MB/trial':>9} {'xGAPBS':>7} {'xGG-pc':>7}  note")
    for r in sel:
        mb = None if r.get("bytes_read") is None else r["bytes_read"] / 1e6
        print(
            f"  {r['config']:<18} {fmt(r.get('secs'), '9.4f')} {fmt(r.get('e2e'), '8.2f')} {fmt(mb, '9.1f')} "
            f"{fmt(r.get('x_gapbs'), '7.2f')} {fmt(r.get('x_gg_pc'), '7.2f')}  {r.get('note') or ''}",
            flush=True,
        )


def build_rows(builds, graph):
    b = builds.get(graph, {})
    pre = b.get("gridgraph_preprocess", {}).get("secs")
    out = []
    for key, what in (
        ("ocgraph_grid", "ocgraph layout grid"),
        ("ocgraph_grid_lz4", "ocgraph layout grid lz4"),
        ("ocgraph_grid_runs", "ocgraph layout grid runs"),
        ("ocgraph_pack", "ocgraph pack"),
        ("ocgraph_pack_copy", "ocgraph layout pack"),
        ("ocgraph_hubs", "ocgraph layout hubs"),
        ("ocgraph_compress", "ocgraph layout compress"),
        ("gridgraph_preprocess", "GridGraph preprocess -t 0"),
        ("gridgraph_preprocess_w", "GridGraph preprocess -t 1"),
    ):
        if key in b:
            s = b[key]["secs"]
            out.append(
                {
                    "graph": graph,
                    "build": what,
                    "secs": s,
                    "bytes": b[key].get("bytes"),
                    "x_preprocess": s / pre if pre and key.startswith("ocgraph") else None,
                    "reported_secs": b[key].get("reported_secs"),
                }
            )
    return out


def print_builds(brows):
    if not brows:
        return
    print(f"\n{brows[0]['graph']} builds (wall; recorded in builds.json when made)")
    print(f"  {'build':<28} {'secs':>8} {'MB':>8} {'xPreproc':>8}")
    for r in brows:
        extra = f"  (it says {r['reported_secs']:.2f} s)" if r.get("reported_secs") is not None else ""
        mb = None if r.get("bytes") is None else r["bytes"] / 1e6
        print(
            f"  {r['build']:<28} {r['secs']:8.2f} {fmt(mb, '8.1f')} {fmt(r['x_preprocess'], '8.2f')}{extra}"
        )


def targets(rows, builds, graph, args):
    """The issue's targets as ratios (value, goal, met) for the best layout and for auto."""
    out = []
    mine = [r for r in rows if r["graph"] == graph and r["system"] == "ocgraph" and r.get("secs")]
    fixed = [x for x in args.layouts if x != "auto"]

    def pick(kernel, pct):
        cand = [r for r in mine if r["kernel"] == kernel and r["budget_pct"] == pct]
        best = min((r for r in cand if r["layout"] in fixed), key=lambda r: r["secs"], default=None)
        auto = next((r for r in cand if r["layout"] == "auto"), None)
        return [x for x in (best, auto) if x]

    def add(what, r, value, goal, cmp):
        if value is None:
            return
        met = value >= goal if cmp == ">=" else value <= goal
        out.append(
            {
                "graph": graph,
                "target": what,
                "config": r["config"] if r else "-",
                "value": value,
                "goal": f"{cmp} {goal}",
                "met": met,
            }
        )

    for kernel in ("pr20", "wcc"):
        for r in pick(kernel, 10):
            p = ref(rows, graph, kernel, "gridgraph-pc")
            g = ref(rows, graph, kernel, "gapbs")
            add(f"{kernel} @10%: GridGraph-pc / ocgraph (speed-up)", r, p / r["secs"] if p else None, 5, ">=")
            add(f"{kernel} @10%: ocgraph / GAPBS", r, r["secs"] / g if g else None, 1.2, "<=")
    b = builds.get(graph, {})
    pre = b.get("gridgraph_preprocess", {}).get("secs")
    for key in ("ocgraph_grid", "ocgraph_grid_lz4", "ocgraph_grid_runs"):
        if key in b and pre:
            add(
                f"{key.replace('ocgraph_', '')} build / GridGraph preprocess",
                None,
                b[key]["secs"] / pre,
                1.0,
                "<=",
            )
    for kernel, pct, goal in (("bfs", 100, 1.1), ("pr20", 100, 1.1), ("bfs", 10, 2.0)):
        g = ref(rows, graph, kernel, "gapbs")
        for r in pick(kernel, pct):
            add(f"{kernel} @{pct}%: ocgraph / GAPBS", r, r["secs"] / g if g else None, goal, "<=")
    for kernel in args.kernels:
        for pct in args.budgets:
            both = pick(kernel, pct)
            if len(both) == 2 and both[1]["layout"] == "auto":
                add(
                    f"{kernel} @{pct}%: auto / best layout ({both[0]['layout']})",
                    both[1],
                    both[1]["secs"] / both[0]["secs"],
                    1.1,
                    "<=",
                )
    for t in out:
        if t["config"] == "-":
            t["config"] = "grid build"
    return out


def print_targets(ts):
    if not ts:
        return
    print(f"\n{ts[0]['graph']} targets")
    for t in ts:
        print(
            f"  {t['target']:<52} {t['config']:<14} {t['value']:7.2f}  goal {t['goal']:<6} "
            f"{'met' if t['met'] else 'MISSED'}"
        )


def write_outputs(args, rows, builds, all_targets, peers, final=False):
    os.makedirs(args.results, exist_ok=True)
    add_ratios(rows)
    stem = os.path.join(args.results, args.name)
    with open(stem + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    doc = {
        "args": {k: v for k, v in vars(args).items()},
        "peers": peers,
        "notes": NOTES,
        "builds": {g: builds.get(g, {}) for g in dict.fromkeys(r["graph"] for r in rows)},
        "targets": all_targets,
        "rows": rows,
    }
    with open(stem + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    if not final:
        return
    print(f"\nwrote {stem}.csv and {stem}.json")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not importable: no chart")
        return
    panels = list(dict.fromkeys((r["graph"], r["kernel"]) for r in rows))
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 3.0 * len(panels)), squeeze=False)
    for ax, (g, k) in zip(axes[:, 0], panels):
        sel = [r for r in rows if (r["graph"], r["kernel"]) == (g, k) and r.get("secs")]
        colors = {"ocgraph": "tab:blue", "gapbs": "black", "gridgraph": "tab:red"}
        ax.bar(range(len(sel)), [r["secs"] for r in sel], color=[colors[r["system"]] for r in sel])
        ax.set_xticks(range(len(sel)), [r["config"] for r in sel], rotation=60, fontsize=7, ha="right")
        ax.set_yscale("log")
        ax.set_title(f"{g} {k}")
        ax.set_ylabel("seconds (best)")
    fig.tight_layout()
    fig.savefig(stem + ".png", dpi=100)
    print(f"wrote {stem}.png")


# ---------------------------------------------------------------------------------------------


def peer_missing(dir_, needed, what):
    if not dir_:
        note(f"{what} not given: its rows are skipped")
        return True
    missing = [x for x in needed if not os.access(os.path.join(dir_, x), os.X_OK)]
    if missing:
        note(f"{what} at {dir_} lacks {', '.join(missing)}: its rows are skipped")
        return True
    return False


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scales", default="22,23")
    ap.add_argument(
        "--quick",
        "--small",
        action="store_true",
        help="scale 16, budgets 10,100, at most 2 trials, output in bench/out "
        "(--small: the same, for `make bench`)",
    )
    ap.add_argument("--budgets", default="5,10,25,100", help="pool sizes, %% of the CSR size")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--block-size", default="16KiB", help="block size of the compressed CSR (ccsr)")
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every ocgraph row this many times, the rows of a kernel taken in turn; keep each "
        "row's fastest (alternating cancels the shared machine's drift between rows)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "layouts-work"))
    ap.add_argument(
        "--ocgraph",
        default=os.environ.get("OCGRAPH_BIN"),
        help="ocgraph binary (default: $OCGRAPH_BIN, else TARGET/release/ocgraph)",
    )
    ap.add_argument("--gapbs", help="GAPBS build dir (bfs, pr, cc, converter)")
    ap.add_argument("--gridgraph", help="GridGraph build dir (bin/preprocess, bin/pagerank, ...)")
    ap.add_argument("--memcap", help="memcap script (default $OCGRAPH_MEMCAP or ../shared/tools/memcap)")
    ap.add_argument("--timeout", type=int, default=400, help="seconds per run")
    ap.add_argument("--warmup", type=float, default=2.0, help="untimed seconds before the 100%% rows")
    ap.add_argument("--pr-method", help="ocgraph pagerank --method (default: the CLI's)")
    ap.add_argument("--grid-cells", type=int, help="layout grid --cells-per-side")
    ap.add_argument("--build-memory", help="layout grid --memory")
    ap.add_argument("--gg-partitions", type=int, default=8, help="GridGraph preprocess -p")
    ap.add_argument("--gg-pc-memory", type=int, default=8, help="GridGraph's GB argument in page cache")
    ap.add_argument("--gg-vertex-bytes", type=int, default=48, help="cgroup allowance per vertex, GridGraph")
    ap.add_argument(
        "--gg-keep-blocks", action="store_true", help="keep GridGraph's block files whole (not sparse)"
    )
    ap.add_argument("--keep-inputs", action="store_true", help="keep GridGraph's symmetrised edge files")
    ap.add_argument(
        "--retime-builds",
        action="store_true",
        help="rebuild (and time) the ocgraph grids and GridGraph's grids even when cached",
    )
    ap.add_argument(
        "--prepare-only",
        action="store_true",
        help="only make the inputs (graphs, copies, grids, peers' inputs) and record build times",
    )
    ap.add_argument(
        "--name",
        help="output stem in bench/layouts/results (default layouts; --quick: bench/out/layouts_quick)",
    )
    args = ap.parse_args()
    if args.quick:
        args.scales, args.trials, args.warmup = "16", min(args.trials, 2), min(args.warmup, 0.5)
        if args.budgets == "5,10,25,100":
            args.budgets = "10,100"
    args.name = args.name or ("layouts_quick" if args.quick else "layouts")
    # Smoke runs stay out of the committed results.
    args.results = os.path.join(ROOT, "bench", "out") if args.quick else RESULTS
    args.scales = [int(s) for s in str(args.scales).split(",") if s]
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    args.budgets = [float(b) if "." in b else int(b) for b in args.budgets.split(",") if b]
    args.kernels = [k for k in args.kernels.split(",") if k]
    args.layouts = [x for x in args.layouts.split(",") if x]
    for k in args.kernels:
        if k not in KERNELS:
            ap.error(f"unknown kernel {k} (one of {', '.join(KERNELS)})")
    for x in args.layouts:
        if x not in LAYOUTS:
            ap.error(f"unknown layout {x} (one of {', '.join(LAYOUTS)})")
    exe = args.ocgraph or os.path.join(TARGET, "release", "ocgraph")
    if not os.access(exe, os.X_OK):
        sys.exit(f"no ocgraph binary at {exe}: `cargo build --release -p ocgraph-cli` or pass --ocgraph BIN")
    args.ocgraph = exe = os.path.abspath(exe)
    os.makedirs(args.work, exist_ok=True)
    args.work = os.path.abspath(args.work)
    if args.gapbs:
        args.gapbs = os.path.abspath(args.gapbs)
    if args.gridgraph:
        args.gridgraph = os.path.abspath(args.gridgraph)
    no_gapbs = peer_missing(args.gapbs, ["converter", "bfs", "pr", "cc"], "GAPBS (--gapbs)")
    gg_need = ["bin/preprocess"] + [f"bin/{GG_BIN[k]}" for k in args.kernels]
    no_gg = peer_missing(args.gridgraph, gg_need, "GridGraph (--gridgraph)")
    args.memcap = args.memcap or next((m for m in MEMCAPS if m and os.access(m, os.X_OK)), None)
    capped = False
    if not no_gg:
        capped = (
            bool(args.memcap)
            and subprocess.run([args.memcap, "64M", "--", "true"], capture_output=True).returncode == 0
        )
        if not capped:
            note(f"memcap ({args.memcap}) failed or missing: gridgraph-cg rows ran WITHOUT a memory cap")
        if (os.cpu_count() or 1) != args.threads:
            note(
                f"GridGraph uses all {os.cpu_count()} hardware threads (no option), --threads is {args.threads}"
            )
    caps = cli_caps(exe)
    if not caps["layout_flag"]:
        note("this ocgraph's `run` has no --layout: csr/packed rows ran with the CLI's default layout")
    peers = {
        "gapbs": None if no_gapbs else args.gapbs,
        "gridgraph": None if no_gg else args.gridgraph,
        "memcap": args.memcap if capped else None,
        "ocgraph": exe,
        "ocgraph_caps": caps,
    }

    builds = load_builds(args.work)
    rows, ts_all = [], []
    for scale in args.scales:
        graph = f"kron{scale}"
        paths = prepare_ocgraph(args, exe, caps, scale, builds)
        info = manifest_info(exe, paths["csr"])
        csr = csr_bytes(paths["csr"])
        source = max_degree_vertex(paths["csr"], info["n"])
        sg = None if no_gapbs else prepare_gapbs(args, exe, scale)
        grids = {}
        if not no_gg:
            grids["plain"] = prepare_gridgraph(args, exe, scale, info, builds, False)
            if "spmv" in args.kernels:
                grids["weighted"] = prepare_gridgraph(args, exe, scale, info, builds, True)
        print(
            f"\n{graph}: {info['n']} vertices, {info['arcs']} arcs, CSR {csr / 1e6:.1f} MB, source {source}",
            flush=True,
        )
        if args.prepare_only:
            print_builds(build_rows(builds, graph))
            continue
        for d in dict.fromkeys(paths.values()):
            warm(d)

        def add(row, graph=graph):
            rows.append({"graph": graph, **row})
            r = rows[-1]
            mb = None if r.get("bytes_read") is None else r["bytes_read"] / 1e6
            print(
                f"  {graph} {r['kernel']:<5} {r['config']:<18} {fmt(r.get('secs'), '9.4f')} s "
                f"{fmt(mb, '9.1f')} MB/trial  {r.get('note') or ''}",
                flush=True,
            )
            write_outputs(args, rows, builds, ts_all, peers)

        for kernel in args.kernels:
            if sg:
                add(
                    {
                        "kernel": kernel,
                        "system": "gapbs",
                        "config": "gapbs",
                        **run_gapbs(args, kernel, sg, source),
                    }
                )
            gg = grids.get("weighted" if kernel == "spmv" else "plain")
            if gg:
                add(
                    {
                        "kernel": kernel,
                        "system": "gridgraph",
                        "config": "gridgraph-pc",
                        **run_gridgraph(args, kernel, gg, source, info["n"]),
                    }
                )
            best = {}
            for rnd in range(args.rounds):
                for layout in args.layouts:
                    if layout not in paths or kernel not in KERNELS_OF.get(layout, (kernel,)):
                        continue
                    for pct in args.budgets:
                        b = budget_bytes(csr, pct)
                        r = run_ocgraph(args, exe, caps, paths[layout], layout, kernel, pct, b, source)
                        if args.rounds > 1:
                            print(
                                f"  round {rnd + 1}: {kernel} {layout}@{pct}% {fmt(r.get('secs'), '9.4f')} s"
                            )
                        kept = best.get((layout, pct))
                        if kept is None or faster(r, kept):
                            best[(layout, pct)] = {**r, "rounds": args.rounds}
            for (layout, pct), r in best.items():
                add(
                    {
                        "kernel": kernel,
                        "system": "ocgraph",
                        "config": f"{layout}@{pct}%",
                        "layout": layout,
                        "budget_pct": pct,
                        "budget_bytes": budget_bytes(csr, pct),
                        **r,
                    }
                )
            if gg:
                for pct in args.budgets:
                    b = budget_bytes(csr, pct)
                    add(
                        {
                            "kernel": kernel,
                            "system": "gridgraph",
                            "config": f"gridgraph-cg@{pct}%",
                            "budget_pct": pct,
                            "budget_bytes": b,
                            **run_gridgraph(args, kernel, gg, source, info["n"], pct, b, capped),
                        }
                    )
            add_ratios(rows)
            print_table(rows, graph, kernel)
        brows = build_rows(builds, graph)
        print_builds(brows)
        ts = targets(rows, builds, graph, args)
        ts_all.extend(ts)
        print_targets(ts)
        write_outputs(args, rows, builds, ts_all, peers)
    print("\nnotes:")
    for n in NOTES:
        print("  " + n)
    if args.prepare_only:
        return
    write_outputs(args, rows, builds, ts_all, peers, final=True)


if __name__ == "__main__":
    main()
