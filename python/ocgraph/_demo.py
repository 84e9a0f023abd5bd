"""The Python half of ``make demo``: opens the demo graphs and runs a few algorithms.

Usage: ``python -m ocgraph._demo DEMO_DIR`` where DEMO_DIR holds ``kron16`` and ``astro``
(written by the CLI steps of ``make demo``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

import ocgraph


def _timed(label: str, f):
    t = time.perf_counter()
    r = f()
    print(f"  {label:<34} {time.perf_counter() - t:8.3f} s")
    return r


def main(demo_dir: str) -> None:
    """Runs the demo on the graphs in ``demo_dir``."""
    d = Path(demo_dir)
    with ocgraph.open(d / "astro") as g:
        print(g)
        depth = _timed("bfs from vertex 0", lambda: g.bfs(0))
        reached = depth >= 0
        print(f"    reached {reached.sum()} vertices, max depth {depth.max()}")
        pr = _timed("pagerank", g.pagerank)
        top = np.argsort(pr)[::-1][:5]
        print("    top-5 authors (original SNAP id: score):")
        for v in top:
            print(f"      {g.original_id(int(v))}: {pr[v]:.5f}")
        tri = _timed("triangle count", g.triangle_count)
        print(f"    {tri} triangles")
    with ocgraph.open(d / "kron16", backend="pool", memory="16MiB") as g:
        print(g, "(buffer pool, 16 MiB)")
        labels = _timed("weakly connected components", g.wcc)
        print(f"    {len(np.unique(labels))} components")
        pr = _timed("pagerank", g.pagerank)
        print(f"    max score {pr.max():.6f}, sum {pr.sum():.6f}")
        stats = g.io_stats()
        print(
            f"    pool: {stats['page_requests']} page requests, hit ratio {stats['hit_ratio']:.3f}, "
            f"{stats['bytes_read'] / 2**20:.1f} MiB read"
        )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ocgraph._demo DEMO_DIR")
    main(sys.argv[1])
