"""Per-vertex input vectors given by users (shared by the local and the Spark graphs)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._errors import InvalidArgumentError


def personalization_vector(personalization: Any, n: int) -> np.ndarray:
    """A float64 array of ``n`` values from a dict ``{vertex: weight}`` (missing vertices get 0)
    or an array-like of ``n`` values; raises ``InvalidArgumentError`` naming the problem.
    Finite values whose sum overflows are divided by the largest (PageRank normalises the
    vector, so scaling it changes nothing)."""
    return _summable(_vector(personalization, n))


def _summable(p: np.ndarray) -> np.ndarray:
    """``p`` divided by its largest value when its values are finite but their sum is not."""
    with np.errstate(over="ignore"):
        overflows = p.size and np.isfinite(p).all() and not np.isfinite(p.sum())
    return p / p.max() if overflows else p


def _vector(personalization: Any, n: int) -> np.ndarray:
    """The values of :func:`personalization_vector`, as given."""
    if isinstance(personalization, dict):
        p = np.zeros(n, dtype=np.float64)
        for v, x in personalization.items():
            try:
                if isinstance(x, (str, bytes)):
                    raise TypeError("a string is not a number")
                i, w = operator.index(v), float(x)
            except (TypeError, ValueError) as e:
                raise InvalidArgumentError(
                    f"personalization maps vertex ids (ints) to numbers, got {v!r}: {x!r}"
                ) from e
            if not 0 <= i < n:
                raise InvalidArgumentError(f"personalization vertex {v} out of range")
            p[i] = w
        return p
    given = np.asarray(personalization)
    if given.dtype.kind not in "biuf":  # strings and bytes would be parsed, complex cut
        raise InvalidArgumentError(f"personalization must hold real numbers, got dtype {given.dtype}")
    p = given.astype(np.float64)
    if p.shape != (n,):
        raise InvalidArgumentError(
            f"personalization must have one value per vertex ({n}), got shape {p.shape}"
        )
    return p
