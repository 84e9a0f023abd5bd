"""Shared helpers for the ocgraph Python tests: random edge lists, an independent reference
CSR computed with numpy, and opening a graph with every page backend."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

import ocgraph

DATA = Path(__file__).resolve().parents[2] / "data"

# A pool far smaller than the test graphs, so that pages are evicted and re-read.
POOL_OPTS = {"backend": "pool", "memory": "64KiB", "page_size": "4KiB", "policy": "clock"}
# For the real graphs in data/: still far below their size, but fewer re-reads.
REAL_POOL_MEMORY = "1MiB"
BACKENDS = ["mmap", "pool"]


def open_with(path, backend: str, memory: str | None = None) -> ocgraph.Graph:
    """Opens ``path`` with ``backend`` ("mmap" or a tiny "pool" of ``memory`` bytes)."""
    opts = dict(POOL_OPTS, memory=memory or POOL_OPTS["memory"]) if backend == "pool" else {"backend": "mmap"}
    try:
        return ocgraph.open(path, **opts)
    except ocgraph.InvalidArgumentError as e:
        if "not built yet" in str(e):
            pytest.skip("the pool backend is not in this build yet")
        raise


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli, reflected), as the graph format's checksums."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def restamp(graph, name: str) -> None:
    """Writes the checksum of the data file ``name`` of the graph directory ``graph`` into its
    manifest (docs/design.md, "manifest"), as if the file had been written damaged: the damage
    then passes open's checksum pass, as it does on a graph too large to be checked whole on
    open, and the tests reach the checks of the reads and kernels."""
    path = Path(graph) / "manifest"
    raw = path.read_bytes()
    (length,) = struct.unpack_from("<I", raw, 12)
    body = json.loads(raw[24 : 24 + length])
    body["files"][name]["crc32c"] = crc32c((Path(graph) / name).read_bytes())
    text = json.dumps(body).encode()
    path.write_bytes(raw[:12] + struct.pack("<II", len(text), crc32c(text)) + raw[20:24] + text)


def random_edges(rng: np.random.Generator, n: int, m: int, weighted: bool = False):
    """``m`` random edges on ``n`` vertices (duplicates and self-loops included)."""
    src = rng.integers(0, n, size=m)
    dst = rng.integers(0, n, size=m)
    w = rng.integers(1, 10, size=m).astype(np.float32) if weighted else None
    return src, dst, w


def reference_arcs(src, dst, w, directed: bool, dedup: bool, drop_self_loops: bool):
    """The stored arcs ``(u, v, weight)`` sorted by ``(u, v, weight)``, computed independently
    of ocgraph: undirected edges are stored in both directions (self-loops once); dedup keeps the
    smallest weight of each edge (undirected: in either direction)."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    w = np.ones(len(src)) if w is None else np.asarray(w, dtype=np.float64)
    if drop_self_loops:
        keep = src != dst
        src, dst, w = src[keep], dst[keep], w[keep]
    if not directed:
        lo, hi = np.minimum(src, dst), np.maximum(src, dst)
        src, dst = lo, hi
    if dedup:
        order = np.lexsort((w, dst, src))
        src, dst, w = src[order], dst[order], w[order]
        first = np.ones(len(src), dtype=bool)
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        src, dst, w = src[first], dst[first], w[first]
    if not directed:
        loop = src == dst
        src, dst, w = (
            np.concatenate([src, dst[~loop]]),
            np.concatenate([dst, src[~loop]]),
            np.concatenate([w, w[~loop]]),
        )
    order = np.lexsort((w, dst, src))
    return src[order], dst[order], w[order]


def graph_arcs(g: ocgraph.Graph):
    """The arcs of ``g`` read vertex by vertex through ``neighbors``/``edge_weights``, sorted
    like :func:`reference_arcs`."""
    us, vs, ws = [], [], []
    for u in range(g.num_vertices):
        nb = g.neighbors(u)
        assert np.all(np.diff(nb.astype(np.int64)) >= 0), f"neighbours of {u} not sorted"
        us.append(np.full(len(nb), u, dtype=np.int64))
        vs.append(nb.astype(np.int64))
        ws.append(g.edge_weights(u).astype(np.float64))
    u, v, w = (np.concatenate(x) if x else np.zeros(0) for x in (us, vs, ws))
    order = np.lexsort((w, v, u))
    return u[order], v[order], w[order]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """Each page backend in turn."""
    return request.param
