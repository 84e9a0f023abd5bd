"""Type stub of the native extension module (see the ``ocgraph`` package for documentation)."""

from typing import Any

import numpy as np
import numpy.typing as npt

Size = int | str

__version__: str

class Graph:
    def __new__(
        cls,
        path: str,
        backend: str = "mmap",
        memory: Size = ...,
        policy: str = "clock",
        page_size: Size = ...,
        advice: str = "normal",
    ) -> Graph: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_arcs(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def packed(self) -> bool: ...
    @property
    def path(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def out_degree(self, v: int) -> int: ...
    def in_degree(self, v: int) -> int: ...
    def out_degrees(self) -> npt.NDArray[np.int64]: ...
    def in_degrees(self) -> npt.NDArray[np.int64]: ...
    def neighbors(self, v: int) -> npt.NDArray[np.uint32]: ...
    def in_neighbors(self, v: int) -> npt.NDArray[np.uint32]: ...
    def edge_weights(self, v: int) -> npt.NDArray[np.float32]: ...
    def original_id(self, v: int) -> int | str: ...
    def original_ids(self) -> np.ndarray | list[str]: ...
    def vertex(self, original_id: int | str) -> int | None: ...
    def io_stats(self) -> dict[str, Any]: ...
    def reset_io_stats(self) -> None: ...
    def _csr(
        self,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint32], npt.NDArray[np.float32] | None]: ...
    def _csr_range(
        self, start: int, end: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint32], npt.NDArray[np.float32] | None]: ...

class EdgeBuilder:
    def __init__(
        self,
        path: str,
        directed: bool,
        weighted: bool,
        dedup: bool,
        drop_self_loops: bool,
        memory: Size,
        overwrite: bool,
        source: str,
    ) -> None: ...
    def push(
        self,
        src: npt.NDArray[np.uint32],
        dst: npt.NDArray[np.uint32],
        weights: npt.NDArray[np.float32] | None = None,
    ) -> None: ...
    def reserve_vertices(self, n: int) -> None: ...
    def finish(self, original_ids: npt.NDArray[np.uint64] | list[str] | None = None) -> dict[str, int]: ...
    def abort(self) -> None: ...

def _from_edges(
    path: str,
    src: npt.NDArray[np.uint32],
    dst: npt.NDArray[np.uint32],
    weights: npt.NDArray[np.float32] | None,
    num_vertices: int,
    directed: bool,
    dedup: bool,
    drop_self_loops: bool,
    memory: Size,
    overwrite: bool,
) -> dict[str, Any]: ...
def _import_edges(
    input: str,
    out: str,
    format: str,
    relabel: str | None,
    directed: bool,
    weighted: bool,
    dedup: bool,
    drop_self_loops: bool,
    memory: Size,
    overwrite: bool,
    num_vertices: int | None,
    allow_sparse_ids: bool,
    labels: str | None = None,
) -> dict[str, Any]: ...
def _sparse_ids_problem(num_vertices: int, edges: int, directed: bool) -> str | None: ...
def _pack(graph: str, out: str, overwrite: bool) -> tuple[int, int, int]: ...
def _reorder(graph: str, out: str, memory: Size, overwrite: bool) -> int: ...
def _set_labels(graph: str, labels: np.ndarray | None = None, file: str | None = None) -> int: ...
def _remove_labels(graph: str) -> bool: ...
def _vertex_labels(g: Graph) -> np.ndarray | None: ...
def _build_grid(
    graph: str, cells_per_side: int | None, memory: Size, compress: str
) -> tuple[int, int, int, int, int]: ...
def _compress(graph: str, block_size: Size) -> tuple[int, int, int]: ...
def _remove_compressed(graph: str) -> bool: ...
def _generate(
    kind: str,
    out: str,
    scale: int | None,
    edge_factor: int,
    n: int | None,
    m: int | None,
    p: float | None,
    rows: int | None,
    cols: int | None,
    seed: int,
    directed: bool,
    weighted: bool,
    dedup: bool,
    memory: Size,
    overwrite: bool,
) -> dict[str, int]: ...
def _bfs(
    g: Graph, source: int, threads: int | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def _sssp(g: Graph, source: int, threads: int | None = None) -> npt.NDArray[np.float64]: ...
def _wcc(g: Graph, threads: int | None = None, layout: str = "auto") -> npt.NDArray[np.uint32]: ...
def _spmv(
    g: Graph, x: npt.NDArray[np.float64], threads: int | None = None, layout: str = "auto"
) -> npt.NDArray[np.float64]: ...
def _pagerank(
    g: Graph,
    damping: float,
    max_iter: int,
    tol: float,
    personalization: npt.NDArray[np.float64] | None,
    weight: bool,
    method: str,
    threads: int | None = None,
    layout: str = "auto",
) -> tuple[npt.NDArray[np.float64], int, bool]: ...
def _triangle_count(g: Graph, threads: int | None = None) -> int: ...
def _diameter_estimate(
    g: Graph, start: int, sweeps: int, threads: int | None = None
) -> tuple[int, int, int]: ...
def _k_hop(g: Graph, v: int, k: int, threads: int | None = None) -> npt.NDArray[np.uint32]: ...
def _friends_of_friends(g: Graph, v: int, threads: int | None = None) -> npt.NDArray[np.uint32]: ...
def _shortest_path(g: Graph, s: int, t: int, threads: int | None = None) -> list[int] | None: ...
def _count_cliques(g: Graph, k: int, threads: int | None = None) -> int: ...
def _list_cliques(g: Graph, k: int, threads: int | None = None) -> npt.NDArray[np.uint32]: ...
def _motifs(
    g: Graph, size: int, directed: bool, threads: int | None = None
) -> tuple[list[str], npt.NDArray[np.uint64]]: ...
def _match(
    g: Graph,
    name: str | None,
    edges: list[tuple[int, int]] | None,
    pattern_labels: list[int | None] | None,
    induced: bool,
    labels: npt.NDArray[np.uint32] | None,
    listing: bool,
    threads: int | None = None,
) -> tuple[int, npt.NDArray[np.uint32] | None]: ...

class Snapshot: ...

def _snapshot(g: Graph) -> Snapshot: ...

class Watch:
    def __init__(
        self,
        name: str | None = None,
        edges: list[tuple[int, int]] | None = None,
        pattern_labels: list[int | None] | None = None,
        induced: bool = False,
        labels: npt.NDArray[np.uint32] | None = None,
    ) -> None: ...
    @property
    def k(self) -> int: ...
    def _update(
        self,
        before: Snapshot,
        after: Snapshot,
        src: npt.NDArray[np.int64],
        dst: npt.NDArray[np.int64],
        vertices: npt.NDArray[np.int64] | None = None,
        labels: npt.NDArray[np.uint32] | None = None,
    ) -> None: ...
    def _changes(
        self,
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...

def _workload(
    g: Graph, kind: str, out: str, count: int, seed: int = 1, alpha: float = 0.1, queue: int = 1000
) -> int: ...
def _query(
    g: Graph, workload: str, prefetch: str = "none", clients: int = 1
) -> tuple[str, list[list[int] | None]]: ...
