#!/usr/bin/env python3
"""How far the grid's destination offsets could shrink: for every source and column block of a
graph's CSR, the bits that name which k of the block's 2^b vertices its k arcs reach,
log2 C(2^b, k) (a lower bound for any code that takes each source's arcs in a cell alone),
against the 16 bits a grid of runs stores per destination.

Usage: bench/layouts/grid_entropy.py GRAPH [--block-bits 16] [--json FILE]

kron22 as bench/layouts/run.py makes it: WORK/kron22 (default WORK bench/out/layouts-work).

GRAPH is an ocgraph graph directory with plain lists (out.offsets, out.neighbors, ids u32).
Prints arcs, (source, cell) runs, mean arcs per run, and destination bits per arc: stored (16)
and the bound; reads the lists in chunks of about 16M arcs (numpy, scipy's gammaln).
"""

import argparse
import json
import math
import os

import numpy as np
from scipy.special import gammaln

CHUNK = 1 << 24
# A grid cell stores every destination as a u16, whatever the block size (docs/design.md).
STORED_BITS = 16


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("--block-bits", type=int, default=16)
    ap.add_argument("--json", help="write the numbers here too")
    a = ap.parse_args()
    with open(os.path.join(a.graph, "manifest"), "rb") as f:
        raw = f.read()
    meta = json.loads(raw[24 : 24 + int.from_bytes(raw[12:16], "little")])  # docs/design.md, manifest
    n, arcs = meta["num_vertices"], meta["num_arcs"]
    if meta.get("id_width", 4) != 4 or "out.neighbors" not in meta["files"]:
        raise SystemExit(f"{a.graph}: needs plain lists with 4-byte ids")
    offsets = np.fromfile(os.path.join(a.graph, "out.offsets"), dtype=np.uint64, count=n + 1).astype(np.int64)
    neighbors = np.memmap(os.path.join(a.graph, "out.neighbors"), dtype=np.uint32, mode="r", shape=(arcs,))
    span = 1 << a.block_bits
    log_span = gammaln(span + 1.0)
    bits, runs = 0.0, 0
    # Source of every arc, chunk by chunk: the vertex whose offsets range holds the arc.
    start = 0
    carry = None  # the (key, count) of the run that a chunk's end may cut
    while start < arcs:
        end = min(arcs, start + CHUNK)
        idx = np.arange(start, end, dtype=np.int64)
        src = np.searchsorted(offsets, idx, side="right") - 1
        key = src * (n // span + 2) + (neighbors[start:end].astype(np.int64) >> a.block_bits)
        cut = np.flatnonzero(np.diff(key)) + 1
        bounds = np.concatenate(([0], cut, [len(key)]))
        counts = np.diff(bounds)
        keys = key[bounds[:-1]]
        if carry is not None and keys[0] == carry[0]:
            counts[0] += carry[1]
        elif carry is not None:
            bits, runs = add(bits, runs, np.array([carry[1]]), log_span, span)
        carry = (keys[-1], counts[-1])
        bits, runs = add(bits, runs, counts[:-1], log_span, span)
        start = end
    if carry is not None:
        bits, runs = add(bits, runs, np.array([carry[1]]), log_span, span)
    out = {
        "graph": a.graph,
        "arcs": arcs,
        "block_bits": a.block_bits,
        "runs": runs,
        "arcs_per_run": arcs / max(runs, 1),
        "stored_bits_per_arc": float(STORED_BITS),
        "bound_bits_per_arc": bits / max(arcs, 1),
    }
    print(f"{'graph':<24} {'arcs':>12} {'runs':>12} {'arcs/run':>9} {'stored bits':>12} {'bound bits':>11}")
    print(
        f"{os.path.basename(a.graph.rstrip('/')):<24} {arcs:>12,} {runs:>12,} {out['arcs_per_run']:>9.2f} "
        f"{STORED_BITS:>12.1f} {out['bound_bits_per_arc']:>11.2f}"
    )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


def add(bits, runs, counts, log_span, span):
    """Adds log2 C(span, k) for each run of k arcs."""
    k = counts.astype(np.float64)
    b = (log_span - gammaln(k + 1.0) - gammaln(span - k + 1.0)) / math.log(2.0)
    return bits + float(b.sum()), runs + len(counts)


if __name__ == "__main__":
    main()
