"""ocgraph: graphs larger than memory on one machine, from Python.

Open a graph built with the ``ocgraph`` CLI or with :func:`import_edges` / :func:`from_edges`
/ :func:`generate`::

    import ocgraph
    with ocgraph.open("graphs/twitter", backend="pool", memory="2GiB") as g:
        print(g.num_vertices, g.num_edges)
        print(g.neighbors(0))

pandas, Arrow and Parquet: :func:`from_pandas`, :func:`from_arrow`, :func:`from_parquet` in,
:meth:`Graph.to_pandas`, :meth:`Graph.to_arrow`, :meth:`Graph.to_series` out (needs pyarrow).

Vertex ids are ``0 .. num_vertices - 1``; arrays come back as numpy arrays. Every error the
engine raises is an :class:`ocgraph.Error` (see :mod:`ocgraph._errors` for the hierarchy). A
lone argument of the wrong Python type (a float where one vertex id goes, as in
``g.neighbors(1.5)``) raises ``TypeError``, as Python functions do; arrays of ids or weights
whose values cannot be ids or weights (``g.add_edges([1.5], [2])``, and update calls given a lone
float) raise :class:`InvalidArgumentError`. Long-running calls release the GIL.
"""

from __future__ import annotations

from ._arrow import from_arrow, from_pandas, from_parquet
from ._build import (
    build_grid,
    check,
    compress,
    from_edges,
    generate,
    import_edges,
    index_hubs,
    pack,
    pack_lists,
    remove_compressed,
    remove_grid,
    remove_hubs,
    remove_labels,
    remove_packed_lists,
    reorder,
    set_labels,
)
from ._errors import (
    Error,
    FormatError,
    InputError,
    InvalidArgumentError,
    OcgraphIOError,
    OcgraphMemoryError,
    VertexError,
)
from ._graph import Graph, open
from ._mine import MOTIF_NAMES, NO_LABEL, Watch
from ._ocgraph import __version__
from ._query import workload

__all__ = [
    "MOTIF_NAMES",
    "NO_LABEL",
    "Error",
    "FormatError",
    "Graph",
    "InputError",
    "InvalidArgumentError",
    "OcgraphIOError",
    "OcgraphMemoryError",
    "VertexError",
    "Watch",
    "__version__",
    "build_grid",
    "check",
    "compress",
    "from_arrow",
    "from_edges",
    "from_pandas",
    "from_parquet",
    "generate",
    "import_edges",
    "index_hubs",
    "open",
    "pack",
    "pack_lists",
    "remove_compressed",
    "remove_grid",
    "remove_hubs",
    "remove_labels",
    "remove_packed_lists",
    "reorder",
    "set_labels",
    "workload",
]
