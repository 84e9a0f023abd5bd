"""Per-vertex input vectors given by users (shared by the local and the Spark graphs)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ._args import shown, unmasked
from ._errors import InvalidArgumentError, VertexError


def by_vertex(values: Any, original_ids: Callable[[], Any], what: str, missing: float | None = None) -> Any:
    """``values`` in vertex order: a pandas ``Series`` is read by its index, the original ids
    (``original_ids()``, by vertex), not by position; anything else is returned as given.
    ``missing``: the value of a vertex the Series leaves out (``None``: it must name every
    vertex)."""
    if type(values).__name__ != "Series" or not hasattr(values, "reindex"):
        return values
    if values.hasnans:
        raise InvalidArgumentError(f"{what}: the Series has missing values (NaN or NA)")
    ids = original_ids()
    import pandas as pd

    values = values.set_axis(_exact_index(values.index, what))
    index = pd.Index(ids)
    if missing is not None:
        if not values.index.is_unique:
            raise InvalidArgumentError(f"{what}: the Series has repeated ids")
        unknown = ~values.index.isin(index)
        if unknown.any():
            stray = shown(values.index[unknown][0])
            raise InvalidArgumentError(f"{what}: the Series names {stray}, not a vertex")
        if not pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_complex_dtype(values.dtype):
            raise InvalidArgumentError(f"{what}: the Series must hold real numbers, got dtype {values.dtype}")
        # As float64 first: a nullable integer Series cannot take a float fill value.
        return values.astype("float64").reindex(index, fill_value=missing).to_numpy()
    if len(values) != len(ids) or not values.index.is_unique:
        raise InvalidArgumentError(
            f"{what}: a Series needs one value per vertex ({len(ids)}) indexed by the original ids, "
            f"got {len(values)} values" + ("" if values.index.is_unique else " with repeated ids")
        )
    absent = ~index.isin(values.index)
    if absent.any():
        raise InvalidArgumentError(
            f"{what}: the Series has no value for the vertex of original id {shown(index[absent][0])}"
        )
    return values.reindex(index).to_numpy()


def _exact_index(index: Any, what: str) -> Any:
    """``index`` with float labels as the integers they hold. pandas compares integer ids with a
    float index as float64, so a label from 2**53 on would match every id that rounds to it (and an
    index turns float as soon as a merge brings a NaN in): such a label, or one that is not a
    whole number, is refused. Boolean labels are refused too (pandas equates True with 1)."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(index.dtype) or (
        index.dtype == object and any(isinstance(x, (bool, np.bool_)) for x in index)
    ):
        raise InvalidArgumentError(f"{what}: the Series is indexed by booleans, not original ids")
    if pd.api.types.is_float_dtype(index.dtype):
        a = index.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(a) | (a != np.floor(a)) | (np.abs(a) >= 2.0**53)
        if bad.any():
            _exact_int(a[bad][0], what)
        return pd.Index(a.astype(np.int64))
    if index.dtype == object and any(isinstance(x, (float, np.floating)) for x in index):
        # Floats among other labels (an object index): each as the integer it holds.
        return pd.Index([_exact_int(x, what) if isinstance(x, (float, np.floating)) else x for x in index])
    return index


def _exact_int(x: float, what: str) -> int:
    """The integer the float label ``x`` holds exactly, or the error of :func:`_exact_index`."""
    if not np.isfinite(x) or x != np.floor(x) or abs(x) >= 2.0**53:
        raise InvalidArgumentError(
            f"{what}: the Series names {float(x)!r}, which a float cannot hold as an exact "
            "integer id (a float from 2**53 on may stand for several ids; below it, only whole "
            "numbers are ids); index it by integers"
        )
    return int(x)


def personalization_vector(personalization: Any, n: int) -> np.ndarray:
    """A float64 array of ``n`` values from a dict ``{vertex: weight}`` (missing vertices get 0)
    or an array-like of ``n`` values; raises ``InvalidArgumentError`` naming the problem.
    Finite values whose sum overflows are divided by the largest (PageRank normalises the
    vector, so scaling it changes nothing)."""
    return _summable(_vector(personalization, n))


def _summable(p: np.ndarray) -> np.ndarray:
    """``p`` divided by its largest value when its values are finite and non-negative but their
    sum is not (a negative value is left for the kernel's check to name as given)."""
    with np.errstate(over="ignore"):
        overflows = p.size and np.isfinite(p).all() and (p >= 0).all() and not np.isfinite(p.sum())
    return p / p.max() if overflows else p


def _vector(personalization: Any, n: int) -> np.ndarray:
    """The values of :func:`personalization_vector`, as given."""
    if isinstance(personalization, dict):
        p = np.zeros(n, dtype=np.float64)
        for v, x in personalization.items():
            try:
                if isinstance(x, (str, bytes)):
                    raise TypeError("a string is not a number")
                if isinstance(v, (bool, np.bool_)):
                    raise TypeError("a bool is not a vertex id")
                i, w = operator.index(v), float(x)
            except (TypeError, ValueError) as e:
                raise InvalidArgumentError(
                    f"personalization maps vertex ids (ints) to numbers, got {shown(v)}: {shown(x)}"
                ) from e
            if not 0 <= i < n:
                raise VertexError(f"personalization vertex {v} out of range (the graph has {n} vertices)")
            p[i] = w
        return p
    given = unmasked("personalization", personalization)
    if given.dtype.kind not in "biuf":  # strings and bytes would be parsed, complex cut
        raise InvalidArgumentError(f"personalization must hold real numbers, got dtype {given.dtype}")
    p = given.astype(np.float64)
    if p.shape != (n,):
        raise InvalidArgumentError(
            f"personalization must have one value per vertex ({n}), got shape {p.shape}"
        )
    return p
