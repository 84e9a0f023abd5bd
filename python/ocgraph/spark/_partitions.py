"""Design B: each Spark partition owns a source range of the graph and runs numpy and
ocgraph's Rust kernels on it inside ``mapInArrow``; Spark shuffles only the messages between
partitions.

A superstep is one ``repartition(N, key)`` + ``mapInArrow`` over rows of
``(key, pid, kind, data, x, y)``: one *state* row per partition (its vertices' values), *message*
rows (values for vertices of another partition, combined per target partition) and *stat*
rows (partial sums the driver adds up). ``key`` is chosen per partition so that Spark's hash
partitioning sends the rows of partition ``p`` to Spark partition ``p``. Inside a partition,
each superstep propagates to a local fixpoint (BFS, SSSP, WCC), so the number of supersteps
follows the number of partition crossings rather than the diameter.

The partition's arcs are read from the Parquet dataset by the Python worker, once per worker
process (Spark reuses Python workers), and kept in :data:`_CACHE` under the dataset's export
token (see :func:`ocgraph.spark.export_parquet`), so a dataset written again at the same path is
read again; a worker that has not seen the partition before reads it again, so a retried or
moved task gives the same answer.
"""

from __future__ import annotations

import pickle
import secrets
import tempfile
from typing import Any, Callable

import numpy as np

from . import _dataset

__all__ = [
    "Explode",
    "Layout",
    "bfs_sssp",
    "pagerank",
    "path_columns",
    "rank_columns",
    "triangle_count",
    "wcc",
    "wcc_columns",
]

SCHEMA = "key long, pid int, kind byte, data binary, x double, y double"
STATE, MSG, STAT = 0, 1, 2
_I64_MAX = np.iinfo(np.int64).max

# Per-worker cache of partition structures: (dataset path, export token, bounds, pid, name) ->
# value. Entries of a path under another token (an older export) are dropped on first use of
# the new one.
_CACHE: dict[tuple, Any] = {}


class Layout:
    """Which vertex range and which dataset parts each of the ``N`` partitions owns, and the
    key that routes rows to it. Small and picklable: shipped with every superstep.

    ``token`` identifies the export read: the dataset's ``token``, or for datasets whose
    metadata has none, a random one per layout (nothing cached is then shared between
    layouts)."""

    def __init__(self, path: str, meta: dict, partitions: int, keys: list[int]):
        parts = len(meta["bounds"]) - 1
        self.path = path
        self.token = str(meta.get("token") or secrets.token_hex(16))
        self.n = int(meta["num_vertices"])
        self.directed = bool(meta["directed"])
        self.weighted = bool(meta["weighted"])
        self.cuts = np.linspace(0, parts, partitions + 1).round().astype(np.int64)
        self.vb = np.asarray(meta["bounds"], dtype=np.int64)[self.cuts]
        self.keys = list(keys)

    @property
    def partitions(self) -> int:
        return len(self.keys)

    def owner(self, v: np.ndarray) -> np.ndarray:
        """The partition owning each vertex of ``v``."""
        return np.searchsorted(self.vb, v, side="right") - 1

    def cached(self, pid: int, name: str, build: Callable[[], Any]) -> Any:
        """``build()`` once per worker process for this export of the dataset, partitioning
        and ``pid``."""
        k = (self.path, self.token, tuple(self.vb.tolist()), pid, name)
        if k not in _CACHE:
            for stale in [c for c in _CACHE if c[0] == self.path and c[1] != self.token]:
                del _CACHE[stale]
            _CACHE[k] = build()
        return _CACHE[k]

    def arcs(self, pid: int, kind: str = "edges") -> dict[str, np.ndarray]:
        """The partition's arcs of ``kind`` (``edges`` by source, ``in_edges`` by destination)."""

        def load():
            first = "src" if kind == "edges" else "dst"
            second = "dst" if kind == "edges" else "src"
            cols = [first, second] + (["weight"] if self.weighted else [])
            got = [
                _dataset.read_part(self.path, kind, p, cols)
                for p in range(self.cuts[pid], self.cuts[pid + 1])
            ]
            out = {c: np.concatenate([g[c] for g in got]) for c in cols}
            lo, hi = self.vb[pid], self.vb[pid + 1]
            key = out.pop(first)
            outside = (key < lo) | (key >= hi)
            if outside.any():
                bad = int(key[outside][0])
                raise _dataset.FormatError(
                    f"{self.path}/{kind}: {first} {bad} lies outside its parts' vertex range {lo}..{hi - 1}"
                )
            other = out[second]
            if len(other) and (other.min() < 0 or other.max() >= self.n):
                bad = int(other.min() if other.min() < 0 else other.max())
                raise _dataset.FormatError(
                    f"{self.path}/{kind}: {second} {bad} lies outside the vertices 0..{self.n - 1}"
                )
            if np.any(key[1:] < key[:-1]):
                # Rows rewritten in another order (by a Spark job, say): the CSR needs them by
                # `first`; the order within a vertex's arcs does not matter.
                order = np.argsort(key, kind="stable")
                key, out = key[order], {c: v[order] for c, v in out.items()}
            counts = np.bincount(key - lo, minlength=hi - lo)
            out["indptr"] = np.concatenate([[0], np.cumsum(counts)])
            return out

        return self.cached(pid, kind, load)


def _route(layout: Layout, gids: np.ndarray, *values: np.ndarray) -> dict[int, tuple]:
    """Splits messages ``(gids, values...)`` by the partition owning each gid."""
    if len(gids) == 0:
        return {}
    order = np.argsort(gids, kind="stable")
    gids = gids[order]
    values = tuple(v[order] for v in values)
    cuts = np.searchsorted(gids, layout.vb)
    return {
        q: (gids[cuts[q] : cuts[q + 1]], *(v[cuts[q] : cuts[q + 1]] for v in values))
        for q in range(layout.partitions)
        if cuts[q + 1] > cuts[q]
    }


def _ranges(starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The concatenated index ranges ``starts[i] .. starts[i] + lens[i]`` and the ``i`` of each."""
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return offsets + np.arange(int(lens.sum())), np.repeat(np.arange(len(starts)), lens)


def _arc_positions(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the arcs of local vertices ``rows`` and the row of each."""
    pos, i = _ranges(indptr[rows], indptr[rows + 1] - indptr[rows])
    return pos, rows[i]


class _Step:
    """The ``mapInArrow`` function of one superstep: groups the rows by partition and calls
    ``kernel(layout, pid, state, messages, params)`` for each, which returns
    ``(new_state, {target_pid: message}, (x, y))``."""

    def __init__(self, layout: Layout, kernel: Callable, params: dict):
        self.layout, self.kernel, self.params = layout, kernel, params

    def __call__(self, batches):
        import pyarrow as pa

        batches = list(batches)
        if not batches:
            return
        t = pa.Table.from_batches(batches)
        schema = t.schema
        pids = t.column("pid").to_numpy()
        kinds = t.column("kind").to_numpy()
        data = t.column("data").to_pylist()
        out: dict[str, list] = {c: [] for c in ("key", "pid", "kind", "data", "x", "y")}

        def emit(pid, kind, payload, x=0.0, y=0.0):
            out["key"].append(self.layout.keys[pid])
            out["pid"].append(pid)
            out["kind"].append(kind)
            out["data"].append(payload)
            out["x"].append(float(x))
            out["y"].append(float(y))

        for pid in np.unique(pids).tolist():
            rows = np.flatnonzero(pids == pid)
            state = [data[i] for i in rows if kinds[i] == STATE]
            msgs = [pickle.loads(data[i]) for i in rows if kinds[i] == MSG]
            state = pickle.loads(state[0]) if state and state[0] is not None else None
            new_state, messages, (x, y) = self.kernel(self.layout, pid, state, msgs, self.params)
            emit(pid, STATE, pickle.dumps(new_state, protocol=5))
            for q, m in messages.items():
                emit(q, MSG, pickle.dumps(m, protocol=5))
            emit(pid, STAT, None, x, y)
        yield pa.RecordBatch.from_pydict(out, schema=schema)


class _Driver:
    """Runs supersteps of one kernel and keeps the last one's rows (its lineage cut)."""

    def __init__(self, sg: Any, layout: Layout):
        from pyspark.sql import functions as F

        self.sg, self.layout, self.F = sg, layout, F
        rows = [(k, p, STATE, None, 0.0, 0.0) for p, k in enumerate(layout.keys)]
        self.df = sg.spark.createDataFrame(rows, SCHEMA)
        self.checkpoints: set = set()

    def step(self, kernel: Callable, params: dict) -> tuple[float, float]:
        """One superstep; returns the sums of the partitions' stats."""
        F = self.F
        self.sg._superstep()
        jsc = self.sg.spark.sparkContext._jsc
        before = set(jsc.getPersistentRDDs().keySet())
        nxt = (
            self.df.where(F.col("kind") != STAT)
            .repartition(self.layout.partitions, "key")
            .mapInArrow(_Step(self.layout, kernel, params), SCHEMA)
            .localCheckpoint(eager=True)
        )
        persisted = jsc.getPersistentRDDs()
        for rdd_id in self.checkpoints:  # the previous superstep's rows are consumed
            if persisted.containsKey(rdd_id):
                persisted.get(rdd_id).unpersist(False)
        self.checkpoints = set(persisted.keySet()) - before
        self.df = nxt
        stats = nxt.where(F.col("kind") == STAT).select("x", "y").collect()
        return float(sum(r.x for r in stats)), float(sum(r.y for r in stats))

    def states(self) -> list[tuple[int, Any]]:
        """``(pid, state)`` of every partition, collected to the driver."""
        rows = self.df.where(self.F.col("kind") == STATE).select("pid", "data").collect()
        return sorted((r.pid, pickle.loads(r.data)) for r in rows)


class Explode:
    """The ``mapInArrow`` function turning state rows into one row per vertex:
    ``rows(lo, state)`` gives the columns of a partition whose first vertex is ``lo``."""

    def __init__(self, layout: Layout, rows: Callable):
        self.layout, self.rows = layout, rows

    def __call__(self, batches):
        import pyarrow as pa

        for batch in batches:
            for pid, data in zip(batch.column("pid").to_pylist(), batch.column("data").to_pylist()):
                yield pa.RecordBatch.from_pydict(self.rows(int(self.layout.vb[pid]), pickle.loads(data)))


def _path_rows(lo: int, state) -> dict:
    dist, parent, _sent = state
    reached = np.flatnonzero(np.isfinite(dist))
    return {"id": reached + lo, "dist": dist[reached], "parent": parent[reached]}


def _depth_rows(lo: int, state) -> dict:
    r = _path_rows(lo, state)
    return {"id": r["id"], "depth": r["dist"].astype(np.int64), "parent": r["parent"]}


def path_columns(value: str) -> tuple[str, Callable]:
    """Schema and row function of BFS (``value="depth"``) or SSSP (``"dist"``) states."""
    if value == "depth":
        return "id long, depth long, parent long", _depth_rows
    return "id long, dist double, parent long", _path_rows


def _wcc_rows(lo: int, state) -> dict:
    return {"id": np.arange(lo, lo + len(state[0])), "label": state[0]}


def wcc_columns() -> tuple[str, Callable]:
    """Schema and row function of WCC states."""
    return "id long, label long", _wcc_rows


def _rank_rows(lo: int, x) -> dict:
    return {"id": np.arange(lo, lo + len(x)), "rank": x}


def rank_columns() -> tuple[str, Callable]:
    """Schema and row function of PageRank states."""
    return "id long, rank double", _rank_rows


# ----- PageRank -------------------------------------------------------------------------------


def _pr_structure(layout: Layout, pid: int, use_weights: bool):
    def build():
        a = layout.arcs(pid)
        deg = np.diff(a["indptr"])
        w = a["weight"].astype(np.float64) if use_weights else np.ones(len(a["dst"]))
        out_w = np.bincount(np.repeat(np.arange(len(deg)), deg), weights=w, minlength=len(deg))
        udst, inv = np.unique(a["dst"], return_inverse=True)
        return deg, w, out_w, udst, inv

    return layout.cached(pid, f"pr{int(use_weights)}", build)


def _pr_kernel(layout: Layout, pid: int, x_old, msgs, params):
    lo, hi = layout.vb[pid], layout.vb[pid + 1]
    h = hi - lo
    deg, w, out_w, udst, inv = _pr_structure(layout, pid, params["weight"])
    pers = params["personalization"]
    p = np.full(h, 1.0 / layout.n) if pers is None else pers.value[lo:hi]
    if x_old is None:
        x, err = np.full(h, 1.0 / layout.n), 0.0
    else:
        c = np.zeros(h)
        for ids, vals in msgs:
            c += np.bincount(ids - lo, weights=vals, minlength=h)
        d = params["damping"]
        x = d * (c + params["dangling"] * p) + (1 - d) * p
        err = float(np.abs(x - x_old).sum())
    share = np.divide(x, out_w, out=np.zeros(h), where=out_w > 0)
    sums = np.bincount(inv, weights=np.repeat(share, deg) * w, minlength=len(udst))
    return x, _route(layout, udst, sums), (err, float(x[out_w == 0].sum()))


def pagerank(sg: Any, layout: Layout, damping, max_iter, tol, personalization, weight) -> np.ndarray:
    """networkx's power iteration, the same iterates; one superstep per iteration."""
    bc = None if personalization is None else sg.spark.sparkContext.broadcast(personalization)
    params = {"damping": damping, "personalization": bc, "weight": bool(weight and layout.weighted)}
    d = _Driver(sg, layout)
    _, dangling = d.step(_pr_kernel, dict(params, dangling=0.0))
    for _ in range(max_iter):
        err, dangling_next = d.step(_pr_kernel, dict(params, dangling=dangling))
        dangling = dangling_next
        if err < layout.n * tol:
            break
    return d


# ----- BFS and SSSP: label-correcting, to a local fixpoint per superstep -----------------------


def _path_structure(layout: Layout, pid: int, unit: bool):
    def build():
        a = layout.arcs(pid)
        lo, hi = layout.vb[pid], layout.vb[pid + 1]
        dst = a["dst"]
        remote = (dst < lo) | (dst >= hi)
        ghosts, ginv = np.unique(dst[remote], return_inverse=True)
        lidx = dst - lo
        lidx[remote] = (hi - lo) + ginv
        w = np.ones(len(dst)) if unit or not layout.weighted else a["weight"].astype(np.float64)
        return a["indptr"], lidx, w, ghosts

    return layout.cached(pid, f"path{int(unit)}", build)


def _relax(dist, parent, tgt, cand, par) -> np.ndarray:
    """Lowers ``dist[tgt]`` to ``cand`` where smaller (parent ``par``); returns the improved
    vertices."""
    new = dist.copy()
    np.minimum.at(new, tgt, cand)
    improved = new < dist
    sel = improved[tgt] & (cand == new[tgt])
    parent[tgt[sel]] = par[sel]
    dist[:] = new
    return np.flatnonzero(improved)


def _path_kernel(layout: Layout, pid: int, state, msgs, params):
    lo, hi = layout.vb[pid], layout.vb[pid + 1]
    h = hi - lo
    indptr, lidx, w, ghosts = _path_structure(layout, pid, params["unit"])
    if state is None:
        dist, parent, sent = np.full(h, np.inf), np.full(h, -1, np.int64), np.full(len(ghosts), np.inf)
        s = params["source"]
        active = np.zeros(0, np.int64)
        if lo <= s < hi:
            dist[s - lo], parent[s - lo], active = 0.0, s, np.array([s - lo])
    else:
        dist, parent, sent = state
        dist, parent = dist.copy(), parent.copy()
        active = np.zeros(0, np.int64)
        for gids, d, par in msgs:
            active = np.union1d(active, _relax(dist, parent, gids - lo, d, par))
    dl = np.concatenate([dist, sent])
    pl = np.concatenate([parent, np.full(len(ghosts), -1, np.int64)])
    while len(active):
        pos, rows = _arc_positions(indptr, active)
        improved = _relax(dl, pl, lidx[pos], dl[rows] + w[pos], rows + lo)
        active = improved[improved < h]
    better = np.flatnonzero(dl[h:] < sent)
    messages = _route(layout, ghosts[better], dl[h + better], pl[h + better])
    return (dl[:h], pl[:h], dl[h:]), messages, (float(len(better)), 0.0)


def bfs_sssp(sg: Any, layout: Layout, source: int, unit: bool) -> Any:
    """Distances (``unit``: hops) and parents from ``source``; stops after a superstep that
    sends no message."""
    d = _Driver(sg, layout)
    params = {"source": int(source), "unit": unit}
    while d.step(_path_kernel, params)[0] > 0:
        pass
    return d


# ----- WCC: min-label over the partition's components (ocgraph's Rust WCC), per superstep ----


def _wcc_structure(layout: Layout, pid: int):
    """The components of the partition's edges (to its own vertices and to ghosts): the
    component of each owned vertex and of each ghost, the ghosts, and each component's smallest
    vertex id. A partition without vertices (and so without arcs) has empty arrays."""

    def build():
        from .._build import from_edges

        lo, hi = layout.vb[pid], layout.vb[pid + 1]
        h = hi - lo
        if h == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty, empty, empty
        a = layout.arcs(pid)
        u = np.repeat(np.arange(lo, hi), np.diff(a["indptr"]))
        v = a["dst"]
        if layout.directed:
            b = layout.arcs(pid, "in_edges")
            u = np.concatenate([u, np.repeat(np.arange(lo, hi), np.diff(b["indptr"]))])
            v = np.concatenate([v, b["src"]])
        remote = (v < lo) | (v >= hi)
        ghosts, ginv = np.unique(v[remote], return_inverse=True)
        lv = v - lo
        lv[remote] = h + ginv
        with tempfile.TemporaryDirectory(prefix="ocgraph-wcc-") as tmp:
            g = from_edges(u - lo, lv, f"{tmp}/g", num_vertices=h + len(ghosts), directed=False)
            label = g.wcc(threads=1).astype(np.int64)
            g.close()
        _, comp = np.unique(label, return_inverse=True)
        base = np.full(comp.max() + 1 if len(comp) else 0, _I64_MAX)
        np.minimum.at(base, comp, np.concatenate([np.arange(lo, hi), ghosts]))
        return comp[:h], comp[h:], ghosts, base

    return layout.cached(pid, "wcc", build)


def _wcc_kernel(layout: Layout, pid: int, state, msgs, params):
    lo = layout.vb[pid]
    comp_own, comp_ghost, ghosts, base = _wcc_structure(layout, pid)
    if state is None:
        prev, cmin = np.full(len(base), _I64_MAX), base.copy()
    else:
        label, prev = state
        label = label.copy()
        for gids, labels in msgs:
            np.minimum.at(label, gids - lo, labels)
        cmin = prev.copy()
        np.minimum.at(cmin, comp_own, label)
    changed = np.flatnonzero((cmin < prev)[comp_ghost])
    messages = _route(layout, ghosts[changed], cmin[comp_ghost[changed]])
    return (cmin[comp_own], cmin), messages, (float(len(changed)), 0.0)


def wcc(sg: Any, layout: Layout) -> Any:
    """Component labels (smallest vertex id); stops after a superstep that sends no message."""
    d = _Driver(sg, layout)
    while d.step(_wcc_kernel, {})[0] > 0:
        pass
    return d


# ----- triangles: forward lists of the neighbours' owners, then counting per partition --------


def _rank(layout: Layout) -> np.ndarray:
    """A total order on the vertices: by stored out-degree, then id."""

    def build():
        deg = _dataset.read_out_degrees(layout.path)
        rank = np.empty(layout.n, np.int64)
        rank[np.lexsort((np.arange(layout.n), deg))] = np.arange(layout.n)
        return rank

    return layout.cached(-1, "rank", build)


def _tc_structure(layout: Layout, pid: int):
    """The partition's simple undirected edges ``(u, v)``, ``u`` owned, sorted and unique."""

    def build():
        lo, hi = layout.vb[pid], layout.vb[pid + 1]
        a = layout.arcs(pid)
        u = np.repeat(np.arange(lo, hi), np.diff(a["indptr"]))
        v = a["dst"]
        if layout.directed:
            b = layout.arcs(pid, "in_edges")
            u = np.concatenate([u, np.repeat(np.arange(lo, hi), np.diff(b["indptr"]))])
            v = np.concatenate([v, b["src"]])
        keep = u != v
        key = np.unique(u[keep].astype(np.uint64) * np.uint64(layout.n) + v[keep].astype(np.uint64))
        n = np.uint64(layout.n)
        return (key // n).astype(np.int64), (key % n).astype(np.int64)

    return layout.cached(pid, "tc", build)


def _tc_kernel(layout: Layout, pid: int, state, msgs, params):
    u, v = _tc_structure(layout, pid)
    rank = _rank(layout)
    fwd = rank[u] < rank[v]
    fu, fv = u[fwd], v[fwd]
    if state is None:
        # Send N+(x) of each owned x to the owners of x's lower-ranked neighbours.
        back = ~fwd
        need = np.unique(
            layout.owner(v[back]).astype(np.uint64) * np.uint64(layout.n) + u[back].astype(np.uint64)
        )
        messages = {}
        owners, xs = (
            (need // np.uint64(layout.n)).astype(np.int64),
            (need % np.uint64(layout.n)).astype(np.int64),
        )
        for q in np.unique(owners).tolist():
            if q != pid:
                sel = np.isin(fu, xs[owners == q])
                messages[q] = (fu[sel], fv[sel])
        return (), messages, (0.0, 0.0)
    lists_u = np.concatenate([fu, *(m[0] for m in msgs)])
    lists_w = np.concatenate([fv, *(m[1] for m in msgs)])
    order = np.lexsort((lists_w, lists_u))
    lists_u, lists_w = lists_u[order], lists_w[order]
    heads, starts = np.unique(lists_u, return_index=True)
    ends = np.append(starts[1:], len(lists_u))
    n = np.uint64(layout.n)
    own_keys = fu.astype(np.uint64) * n + fv.astype(np.uint64)  # sorted: u and v come sorted
    at = np.searchsorted(heads, fv)
    found = (
        (at < len(heads)) & (heads[np.minimum(at, len(heads) - 1)] == fv) if len(heads) else np.zeros(0, bool)
    )
    a_u, a_at = fu[found], at[found]
    lens = ends[a_at] - starts[a_at]
    # Wedges u -> x -> w for every forward edge (u, x) of an owned u, in chunks of about 4M;
    # a wedge is a triangle when (u, w) is an owned forward edge too.
    total, chunk, i, cum = 0, 1 << 22, 0, np.cumsum(lens)
    while i < len(a_u) and len(own_keys):
        j = max(i + 1, int(np.searchsorted(cum, (cum[i - 1] if i else 0) + chunk)))
        pos, rows = _ranges(starts[a_at[i:j]], lens[i:j])
        keys = a_u[i:j][rows].astype(np.uint64) * n + lists_w[pos].astype(np.uint64)
        hit = np.minimum(np.searchsorted(own_keys, keys), len(own_keys) - 1)
        total += int(np.count_nonzero(own_keys[hit] == keys))
        i = j
    return (), {}, (float(total), 0.0)


def triangle_count(sg: Any, layout: Layout) -> int:
    """Two supersteps: forward lists to the partitions that need them, then the count."""
    d = _Driver(sg, layout)
    d.step(_tc_kernel, {})
    return round(d.step(_tc_kernel, {})[0])
