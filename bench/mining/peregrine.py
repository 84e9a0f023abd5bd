"""Peregrine (pdclab/peregrine) as a peer of `ocgraph mine`: its input made from an ocgraph
graph, its `count` run with a thread count, its counts in `ocgraph.MOTIF_NAMES` order.

The bench does not build Peregrine: build it outside the repository as docs/benchmarks.md (Peers)
says (`make count convert_data` in its source tree, with its bundled TBB; its prebuilt `.gch`
headers are not needed) and pass that directory as `--peregrine DIR`. `bin/count` loads
`tbb2020/lib/intel64/gcc4.8/libtbb.so.2`, so that directory goes on LD_LIBRARY_PATH.
"""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np

# Motif classes by sorted degree sequence, in the order of `ocgraph mine motifs` (MOTIF_NAMES).
MOTIF_ORDER = {
    3: [(1, 1, 2), (2, 2, 2)],
    4: [(1, 1, 1, 3), (1, 1, 2, 2), (1, 2, 2, 3), (2, 2, 2, 2), (2, 2, 3, 3), (3, 3, 3, 3)],
}


def missing(pdir: str) -> str | None:
    """Why the Peregrine build at `pdir` cannot be used, or None when it can."""
    for tool in ("count", "convert_data"):
        if not os.access(os.path.join(pdir, "bin", tool), os.X_OK):
            return f"{pdir}/bin/{tool} not found: build Peregrine as docs/benchmarks.md (Peers) says"
    return None


def _env(pdir: str) -> dict:
    lib = os.path.join(pdir, "tbb2020", "lib", "intel64", "gcc4.8")
    return {**os.environ, "LD_LIBRARY_PATH": lib + ":" + os.environ.get("LD_LIBRARY_PATH", "")}


def prepare(pdir: str, bin_path: str, graph: str, work: str) -> str:
    """Peregrine's converted input for the ocgraph graph at `graph` (made once under `work`):
    each undirected edge once as `u v` (no loops), then `convert_data`."""
    out = os.path.join(work, os.path.basename(graph) + ".peregrine")
    if os.path.exists(os.path.join(out, "data.bin")):
        return out
    raw = os.path.join(work, os.path.basename(graph) + ".u32")
    subprocess.run([bin_path, "export", graph, raw], check=True, capture_output=True)
    e = np.fromfile(raw, dtype=np.uint32).reshape(-1, 2)
    os.remove(raw)
    e = e[e[:, 0] != e[:, 1]]
    key = np.unique(np.minimum(e[:, 0], e[:, 1]).astype(np.uint64) << 32 | np.maximum(e[:, 0], e[:, 1]))
    el = os.path.join(work, os.path.basename(graph) + ".peregrine.txt")
    with open(el, "w") as f:
        for chunk in np.array_split(key, max(1, len(key) // 1_000_000)):
            f.write("".join(f"{k >> 32} {k & 0xFFFFFFFF}\n" for k in chunk.tolist()))
    os.makedirs(out, exist_ok=True)
    subprocess.run(
        [os.path.join(pdir, "bin", "convert_data"), el, out], check=True, capture_output=True, env=_env(pdir)
    )
    os.remove(el)
    return out


def _degrees(pattern: str) -> tuple[int, ...]:
    """Sorted degree sequence of a Peregrine pattern string (`[1-2](1~3)[2-3]`: edges in
    brackets, anti-edges in parentheses)."""
    deg: dict[int, int] = {}
    for a, b in re.findall(r"\[(\d+)-(\d+)\]", pattern):
        deg[int(a)] = deg.get(int(a), 0) + 1
        deg[int(b)] = deg.get(int(b), 0) + 1
    return tuple(sorted(deg.values()))


def count(pdir: str, data: str, task: str, threads: int, timeout: float) -> dict:
    """Runs `bin/count` for `task` (cliqueK or motifS); `secs` is the matching time Peregrine
    prints (loading excluded), `count` a list as `ocgraph mine` prints it."""
    what = f"{task[6:]}-clique" if task.startswith("clique") else f"{task[5:]}-motifs"
    cmd = [os.path.join(pdir, "bin", "count"), data, what, str(threads)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env(pdir))
    except subprocess.TimeoutExpired:
        return {"secs": None, "count": None, "note": f"timeout (>{timeout:g} s)"}
    if r.returncode != 0:
        return {"secs": None, "count": None, "note": f"failed: {r.stderr.strip()[-200:]}"}
    secs = float(re.search(r"finished after ([\d.e+-]+)s", r.stdout, re.I).group(1))
    found = {p: int(c) for p, c in re.findall(r"^([\[(][^:]*): (\d+)$", r.stdout, re.M)}
    if task.startswith("clique"):
        counts = [sum(found.values())]
    else:
        by_deg = {_degrees(p): c for p, c in found.items()}
        counts = [by_deg.get(d, 0) for d in MOTIF_ORDER[int(task[5:])]]
    return {"secs": secs, "count": counts, "note": ""}
