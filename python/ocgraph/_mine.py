"""Pattern mining behind :class:`ocgraph.Graph`'s ``count_cliques``, ``list_cliques``,
``motifs``, ``match``, ``count_matches`` and ``watch`` (see ``docs/mining.md``).

Every miner reads the undirected simple view of the graph (directions ignored, self-loops and
duplicate edges dropped); ``motifs(3, directed=True)`` is the directed triad census.
"""

from __future__ import annotations

import operator
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import _ocgraph
from ._args import flag_arg, is_na, shown, unmasked
from ._errors import InvalidArgumentError

__all__ = ["MOTIF_NAMES", "NO_LABEL", "Watch"]

#: Class names of ``Graph.motifs(size, directed)``, in the order of its counts.
MOTIF_NAMES: dict[tuple[int, bool], tuple[str, ...]] = {
    (3, False): ("wedge", "triangle"),
    (4, False): ("3-star", "4-path", "tailed-triangle", "4-cycle", "diamond", "4-clique"),
    (3, True): (
        "003", "012", "102", "021D", "021U", "021C", "111D", "111U",
        "030T", "030C", "201", "120D", "120U", "120C", "210", "300",
    ),
}  # fmt: skip


class Changes(tuple):
    """What :meth:`Watch.changes` returns: the pair ``(added, removed)`` (so ``added, removed =
    w.changes()`` works), with the fields ``added``, ``removed`` and ``modified``, each a
    ``(count, k)`` uint32 array."""

    modified: np.ndarray

    def __new__(cls, added: np.ndarray, removed: np.ndarray, modified: np.ndarray) -> Changes:
        out = super().__new__(cls, (added, removed))
        out.modified = modified
        return out

    @property
    def added(self) -> np.ndarray:
        """Matches present now and not at the previous call."""
        return self[0]

    @property
    def removed(self) -> np.ndarray:
        """Matches present at the previous call and not now."""
        return self[1]


class Watch(_ocgraph.Watch):
    """A pattern watched on a graph (from :meth:`ocgraph.Graph.watch`).

    Each update of the graph (``add_edges``, ``remove_edges``, ``remove_vertices``,
    ``set_vertex_labels``) records the matches it made appear and disappear and, for a
    labelled pattern, those it left in place with other labels; :meth:`changes` returns them
    netted over the batches since its last call, and starts afresh. A match is a row of data
    vertices in pattern-vertex order.
    """

    def __new__(
        cls,
        name: str | None = None,
        edges: Any = None,
        pattern_labels: Any = None,
        induced: bool = False,
        labels: Any = None,
    ) -> Watch:
        # The arguments as `Graph.watch` checks them, so that a direct construction is refused
        # with the same errors.
        name, edges, pattern_labels = pattern_args(name if edges is None else edges, pattern_labels)
        return super().__new__(
            cls, name, edges, pattern_labels, flag_arg("induced", induced), data_labels(labels)
        )

    def changes(self) -> Changes:
        """The matches present now and not at the last call (``added``), present then and not
        now (``removed``) and, for a labelled pattern, present at both with a data vertex whose
        label differs (``modified``), as ``(count, k)`` uint32 arrays with rows in increasing
        order: a match that appeared and disappeared again in between is in none of them.
        Unpacks as ``added, removed``."""
        return Changes(*self._changes())


def pattern_args(pattern: Any, pattern_labels: Any) -> tuple[str | None, list | None, list | None]:
    """(name, edges, labels) for the native calls from a pattern name, edge list or graph."""
    if _is_graph_object(pattern):
        pattern, pattern_labels = _graph_pattern(pattern, pattern_labels)
    if isinstance(pattern, str):
        # A named pattern's vertices are numbered as docs/mining.md lists them.
        return pattern, None, _labels_of(pattern_labels, _named_size(pattern))
    edges = unmasked("pattern", pattern)
    if edges.size and edges.dtype.kind not in "iu":
        raise InvalidArgumentError(f"pattern edges must be pairs of integers, got dtype {edges.dtype}")
    if edges.ndim != 2 or edges.shape[1] != 2 or len(edges) == 0:
        raise InvalidArgumentError(f"a pattern is a name or a list of (a, b) edges, got shape {edges.shape}")
    if edges.min() < 0 or edges.max() >= MAX_PATTERN_VERTICES:
        raise InvalidArgumentError(
            f"pattern vertices are 0 .. k-1 (patterns have at most {MAX_PATTERN_VERTICES} vertices), "
            f"got {edges.min() if edges.min() < 0 else edges.max()}"
        )
    return None, [(int(a), int(b)) for a, b in edges], _labels_of(pattern_labels, int(edges.max()) + 1)


def _labels_of(given: Any, k: int | None) -> list | None:
    """The labels of the ``k`` pattern vertices from ``pattern_labels`` (a list, or a mapping
    from pattern vertex to label); None for wildcards only, the unlabelled pattern on graphs
    with or without labels. A list of another length is refused here, before a graph without
    labels would be blamed (natively for a name that is no pattern's, ``k`` None)."""
    if given is None:
        return None
    if isinstance(given, Mapping):
        given = [] if k is None else _in_order(given, range(k), f"a pattern vertex (0 .. {k - 1})")
    labels = [_pattern_label(x) for x in given]
    if k is not None and len(labels) != k:
        raise InvalidArgumentError(f"the pattern has {k} vertices but {len(labels)} labels were given")
    return None if len(labels) == k and all(x is None for x in labels) else labels


def _in_order(given: Mapping, keys: Any, what: str) -> list:
    """The values of the ``pattern_labels`` mapping ``given`` in the order of ``keys`` (None for
    a key it lacks); a key of ``given`` not among ``keys`` (``what`` names them) is refused."""
    stray = [key for key in given if key not in keys]
    if stray:
        raise InvalidArgumentError(f"pattern_labels names {shown(stray[0])}, not {what}")
    return [given.get(key) for key in keys]


def _is_graph_object(pattern: Any) -> bool:
    """Whether ``pattern`` is a graph object such as a networkx ``Graph``: it has ``nodes`` and
    ``edges`` (iterating one yields its nodes, not edges)."""
    if isinstance(pattern, (str, np.ndarray)):
        return False
    return hasattr(pattern, "nodes") and hasattr(pattern, "edges")


def _graph_pattern(pattern: Any, pattern_labels: Any) -> tuple[list[tuple[int, int]], Any]:
    """The edge list and labels of a graph object used as a pattern: its nodes become pattern
    vertices 0..k-1 in the order ``pattern.nodes`` lists them; the labels are
    ``pattern_labels`` (a list in that order, or a mapping from node to label) or else the
    node attribute ``label`` (a node without a label is a wildcard)."""
    is_directed = getattr(pattern, "is_directed", None)
    if callable(is_directed) and is_directed():
        # Matched as undirected, a directed 3-cycle would match any triangle.
        raise InvalidArgumentError(
            "a directed pattern graph: patterns are undirected (the miners read the undirected view "
            "of the graph); pass pattern.to_undirected()"
        )
    nodes = list(pattern.nodes)
    if not 2 <= len(nodes) <= MAX_PATTERN_VERTICES:
        raise InvalidArgumentError(
            f"a pattern graph has 2 to {MAX_PATTERN_VERTICES} vertices, this one has {len(nodes)}"
        )
    index = {node: i for i, node in enumerate(nodes)}
    edges = [(index[a], index[b]) for a, b, *_ in pattern.edges]
    touched = {v for edge in edges for v in edge}
    lonely = [node for node in nodes if index[node] not in touched]
    if lonely:
        raise InvalidArgumentError(f"pattern vertex {shown(lonely[0])} has no edge (patterns are connected)")
    if isinstance(pattern_labels, Mapping):
        pattern_labels = _in_order(pattern_labels, nodes, "a node of the pattern graph")
    if pattern_labels is None and hasattr(pattern.nodes, "data"):
        found = [attrs.get("label") for _node, attrs in pattern.nodes(data=True)]
        if any(x is not None for x in found):
            pattern_labels = found
    return edges, pattern_labels


def _named_size(name: str) -> int | None:
    """The vertex count of the pattern named ``name`` (docs/mining.md), or None for a name that
    is not one (the native call refuses it)."""
    fixed = {"triangle": 3, "wedge": 3, "diamond": 4, "tailed-triangle": 4}
    k, _, kind = name.partition("-")
    # ASCII digits only (`int` refuses others that `isdigit` takes), and only sizes a pattern
    # can have: the native call refuses the rest by name.
    if kind in ("clique", "cycle", "path", "star") and k.isascii() and k.isdigit():
        return int(k) if 2 <= int(k) <= MAX_PATTERN_VERTICES else None
    return fixed.get(name)


def _pattern_label(x: Any) -> int | None:
    """A pattern vertex's label: an int, or None (also an Arrow null or pandas' NA) or -1 for a
    wildcard. A bool is refused, as in the data's labels."""
    if type(x).__module__.startswith("pyarrow"):
        x = x.as_py()
    bad = InvalidArgumentError(f"pattern label {shown(x)} is not an integer in 0 .. 2**32 - 2 (or None / -1)")
    if x is None or is_na(x):
        return None
    if isinstance(x, (bool, np.bool_)):
        raise bad
    try:
        v = operator.index(x)
    except TypeError:
        raise bad from None
    if v == -1:
        return None
    if not 0 <= v < NO_LABEL:
        raise bad
    return v


#: The label of a vertex that has none (no pattern label matches it).
NO_LABEL = 2**32 - 1

#: The most vertices a pattern has (the engine's ``MAX_PATTERN_VERTICES``).
MAX_PATTERN_VERTICES = 8


def data_labels(labels: Any) -> np.ndarray | None:
    """Per-vertex labels as a contiguous uint32 array (or None)."""
    if labels is None:
        return None
    arr = unmasked("labels", labels)
    if arr.size and arr.dtype.kind not in "iu":
        raise InvalidArgumentError(f"labels must be integers, got dtype {arr.dtype}")
    if arr.ndim != 1 or (arr.size and (arr.min() < 0 or arr.max() > np.iinfo(np.uint32).max)):
        raise InvalidArgumentError("labels must be a 1-D array of non-negative integers below 2**32")
    return np.ascontiguousarray(arr, dtype=np.uint32)


class _UpdateGate:
    """Orders the update batches of one graph against its watches.

    ``lock`` is held from the snapshot before a watched batch to the watches' update after it,
    so that no other batch commits in between (the watches would report its matches wrongly),
    and while watches are added or removed. Batches of a graph nothing watches run without it
    (counted in ``unwatched``); adding a watch first waits for those to end, since a watch
    reads the graph as its first batch finds it, and a batch committing later unseen would be
    missing from it for good. ``adding`` makes batches that start meanwhile take the lock, so
    that the wait ends."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.idle = threading.Condition(self.lock)
        self.unwatched = 0
        self.adding = 0


def _gate(g: Any) -> _UpdateGate:
    return g.__dict__.setdefault("_update_gate", _UpdateGate())


@contextmanager
def watch_lock(g: Any) -> Iterator[None]:
    """Holds ``g``'s watch lock (see :class:`_UpdateGate`)."""
    with _gate(g).lock:
        yield


@contextmanager
def adding_watch(g: Any) -> Iterator[None]:
    """Holds ``g``'s watch lock once no batch runs unwatched (see :class:`_UpdateGate`)."""
    gate = _gate(g)
    # A Ctrl-C between the count and its `try` would leave it counted (see `watched_update`).
    with _interrupts_deferred(), gate.lock:
        gate.adding += 1
        try:
            while gate.unwatched:
                gate.idle.wait()
            yield
        finally:
            gate.adding -= 1


class WatchedBatch:
    """One update batch of a graph, as its watches see it: ``before``, a snapshot of the graph
    before the batch (None when nothing watches the graph), and ``touched``, set by the caller
    before the batch runs: a function giving the batch's vertex pairs ``(src, dst)`` and, for
    label changes, ``(src, dst, vertices, labels)``."""

    def __init__(self, before: Any) -> None:
        self.before = before
        self.touched: Callable[[], tuple] | None = None


@contextmanager
def watched_update(g: Any) -> Iterator[WatchedBatch]:
    """Around one update batch of ``g``: yields a :class:`WatchedBatch`, holding the watch lock
    until the block ends when something watches ``g`` or a watch is being added (see
    :class:`_UpdateGate`); at the end, when the batch committed, hands it to every watch.
    Every call that logs a batch runs inside one, so that while the lock is held only this
    batch can move the graph's sequence number."""
    gate = _gate(g)
    # Ctrl-C is held back until the call ends (the native batch cannot be interrupted anyway):
    # raised between a count and its `try`, it left the count for good (a later `watch` waited
    # forever), and raised while the watches take a batch, it cut their loop.
    with _interrupts_deferred():
        # An RLock, released by the `with` whatever is raised (a closed graph's snapshot too).
        with gate.lock:
            if getattr(g, "_watches", None) or gate.adding:
                # Held from the snapshot before the batch to the watches' update after it.
                batch = WatchedBatch(_ocgraph._snapshot(g) if getattr(g, "_watches", None) else None)
                try:
                    yield batch
                finally:
                    # In `finally`: a batch that committed reaches the watches even when an
                    # exception skipped the rest of the block (one raised as the native call
                    # returned); a batch that was refused committed nothing, and the sequence
                    # says so.
                    if batch.before is not None and batch.touched is not None:
                        after = _ocgraph._snapshot(g)
                        if after.seq > batch.before.seq:
                            touched = batch.touched()
                            for w in g._watches:
                                w._update(batch.before, after, *touched)
                return
            gate.unwatched += 1
        try:
            yield WatchedBatch(None)
        finally:
            with gate.lock:
                gate.unwatched -= 1
                if not gate.unwatched:
                    gate.idle.notify_all()


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Holds back SIGINT's handler (Ctrl-C's ``KeyboardInterrupt``) until the block ends, then
    runs it for a signal that came meanwhile: the main thread only, where Python runs signal
    handlers; elsewhere, and for a handler that is not a Python function, the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        yield
        return
    came: list[tuple[int, Any]] = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if came:
            previous(*came[0])


def incident_pairs(g: Any, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(v, w)`` of every edge at each vertex of ``ids`` (both directions). Ids out
    of range are skipped: the update that follows refuses them, naming where they are."""
    src, dst = [], []
    n = g.num_vertices
    for v in ids.tolist():
        if not 0 <= v < n:
            continue
        nb = np.concatenate([g.neighbors(v), g.in_neighbors(v)]).astype(np.int64)
        src.append(np.full(len(nb), v, dtype=np.int64))
        dst.append(nb)
    if not src:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(src), np.concatenate(dst)
