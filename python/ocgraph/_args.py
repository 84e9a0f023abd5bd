"""Checks of numeric arguments before they reach the native module, so that a negative or
too-large value raises :class:`InvalidArgumentError` naming the argument (the native module
would raise a bare ``OverflowError``)."""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from . import _ocgraph
from ._errors import InputError, InvalidArgumentError

#: Largest ``threads`` accepted: far above any machine's core count, low enough that a typo
#: cannot ask the OS for millions of threads.
MAX_THREADS = 1024

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


def float_arg(name: str, value: Any) -> float:
    """``value`` as a float: a real number (Python or numpy; ``bool`` and strings raise
    ``TypeError`` rather than being read as 1.0 or parsed)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    return float(value)


def flag_arg(name: str, value: Any) -> bool:
    """``value`` as a bool: ``True``/``False`` (numpy's too) or the integers 0 and 1. A string
    such as ``"false"`` raises ``TypeError``: ``bool()`` would read it as true and build, say,
    a directed graph where an undirected one was asked."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")


def weight_arg(weight: Any) -> bool:
    """PageRank's ``weight``: ``True``/``False`` (see :func:`flag_arg`), or networkx's forms,
    ``None`` (unweighted) and the attribute name ``"weight"`` (weighted: a graph has one)."""
    if weight is None:
        return False
    if isinstance(weight, str):
        if weight != "weight":
            raise InvalidArgumentError(
                f"weight must be True, False, None or 'weight' (networkx's attribute name), got {weight!r}"
            )
        return True
    return flag_arg("weight", weight)


def int_arg(name: str, value: Any, low: int = 0, high: int = U32_MAX) -> int:
    """``value`` as an int in ``low ..= high``; a non-integer (a bool too) raises ``TypeError``
    naming ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got bool {value}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}") from None
    if not low <= v <= high:
        raise InvalidArgumentError(f"{name} must be an integer from {low} to {high}, got {v}")
    return v


def size_arg(name: str, value: Any) -> int:
    """A byte size (an int, or a string such as ``"256MB"`` or ``"4KiB"``) as bytes; a bad one
    raises naming ``name``, which the native module's message cannot (it names only the
    argument of a ``TypeError``)."""
    if isinstance(value, (bool, np.bool_)):  # an int to Python: True would be one byte
        raise TypeError(f"{name} must be an int or a string like '256MB', got bool {value}")
    try:
        return _ocgraph._size_bytes(value)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"{name}: {str(e).removeprefix('invalid argument: ')}") from None
    except TypeError:
        raise TypeError(
            f"{name} must be an int or a string like '256MB', got {type(value).__name__} {value!r}"
        ) from None


def relabel_arg(relabel: Any) -> str | None:
    """``relabel`` of the importers as ``None``, ``"first-seen"`` or ``"sorted"``: any letter
    case, ``"first_seen"`` and ``"none"`` too; ``True`` is ``"first-seen"`` (as the CLI's bare
    ``--relabel``) and ``False`` is ``None``."""
    if relabel is None or relabel is False:
        return None
    if relabel is True:
        return "first-seen"
    spelled = {"none": None, "first-seen": "first-seen", "first_seen": "first-seen", "sorted": "sorted"}
    if not isinstance(relabel, str) or relabel.lower() not in spelled:
        raise InvalidArgumentError(f"unknown relabel {relabel!r} (expected None, 'first-seen' or 'sorted')")
    return spelled[relabel.lower()]


def not_an_iterator(name: str, a: Any, error: type[Exception] = InvalidArgumentError) -> None:
    """Refuses an iterator (a generator, ``map``, ``iter(list)``), a set and a mapping: numpy
    would hold one as one object instead of reading its values, and a set's order (which pairs
    a source with its target) is arbitrary."""
    if isinstance(a, Iterator):
        raise error(f"{name} must be an array or a sequence, got {type(a).__name__}; make a list of it first")
    if isinstance(a, (set, frozenset, Mapping)):
        raise error(f"{name} must be an array or a sequence, got {type(a).__name__}, which has no order")


def unmasked(name: str, a: Any, error: type[Exception] = InvalidArgumentError) -> np.ndarray:
    """``np.asarray(a)``, refusing a masked array with masked entries, an Arrow array with
    nulls, and a list or tuple mixing booleans with numbers: ``asarray`` would drop the mask
    and read the hidden values as data, turn the nulls into NaN, and ``True`` into 1."""
    not_an_iterator(name, a, error)
    if np.ma.isMaskedArray(a) and np.ma.getmaskarray(a).any():
        raise error(f"{name} has masked entries; fill or drop them first")
    if type(a).__module__.startswith("pyarrow") and getattr(a, "null_count", 0):
        raise error(f"{name} has {a.null_count} null(s); fill or drop them first")
    arr = np.asarray(a)
    if isinstance(a, (list, tuple)) and arr.dtype.kind != "b":
        i = next((i for i, x in enumerate(a) if isinstance(x, (bool, np.bool_))), None)
        if i is not None:
            raise error(f"{name}[{i}] is a bool ({a[i]}), not a number")
    return arr


def int_ids(
    name: str, a: Any, error: type[Exception] = InputError, out_of_range: type[Exception] | None = None
) -> np.ndarray:
    """``a`` as a 1-D integer array (any integer dtype; an empty sequence is fine): floats,
    strings, booleans and durations raise ``error`` instead of being truncated, parsed or read
    in their unit (builders raise :class:`InputError`, updates :class:`InvalidArgumentError`);
    a Python int beyond 64 bits raises ``out_of_range`` (default ``error``)."""
    arr = unmasked(name, a, error)
    if arr.ndim != 1:
        raise error(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.dtype.kind in "fO" and isinstance(a, (list, tuple)) and a and all(type(x) is int for x in a):
        # Python ints past int64 (2**63 beside a 0) make numpy choose float64 or object: read
        # them as uint64 when they fit, else name the first beyond int64, not the dtype.
        if 0 <= min(a) and max(a) <= U64_MAX:
            arr = np.array(a, dtype=np.uint64)
        else:
            i = next(i for i, x in enumerate(a) if not -(2**63) <= x < 2**63)
            raise (out_of_range or error)(f"{name}[{i}] = {a[i]} is out of range")
    if arr.size and arr.dtype.kind not in "iu":
        missing = _first_missing(arr)
        if missing is not None:
            raise error(f"{name}[{missing}] is missing (None, NaN or NA): drop or fill missing ids first")
        raise error(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr


def _first_missing(arr: np.ndarray) -> int | None:
    """The index of the first missing value (None, NaN, pandas' NA) of a float or object
    array, as a nullable integer column with gaps converts to; ``None`` when there is none."""
    if arr.dtype.kind == "f":
        gaps = np.isnan(arr)
    elif arr.dtype.kind == "O":
        gaps = np.fromiter(
            (x is None or (isinstance(x, float) and x != x) or is_na(x) for x in arr), bool, len(arr)
        )
    else:
        return None
    return int(np.argmax(gaps)) if gaps.any() else None


def shown(x: Any) -> str:
    """``repr(x)`` for a message, with a numpy scalar shown as the Python value it holds
    (``5``, not ``np.int64(5)``)."""
    return repr(x.item() if isinstance(x, np.generic) else x)


def is_na(x: Any) -> bool:
    """Whether ``x`` is pandas' ``NA`` (without importing pandas)."""
    return type(x).__name__ == "NAType"


def overlaps(a: Any, b: Any) -> bool:
    """Whether the local paths ``a`` and ``b`` are the same or one holds the other (links
    followed), as the engine's ``format::place`` checks them."""
    x, y = os.path.realpath(a), os.path.realpath(b)
    return os.path.commonpath([x, y]) in (x, y)


def as_float32(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``arr`` as a contiguous float32 array, and the mask of the values it cannot hold: NaNs,
    infinities, values beyond float32's range, and nonzero values so small they became 0."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        out = np.ascontiguousarray(arr, dtype=np.float32)
    bad = ~np.isfinite(out)
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 4:
        bad |= (out == 0) & (arr != 0)
    return out, bad


def finite_weights(name: str, w: Any, n: int, error: type[Exception] = InputError) -> np.ndarray:
    """``w`` as a contiguous float32 array of ``n`` finite numbers (``error`` otherwise, naming
    the first bad one: a NaN, an infinity, or a value beyond float32's range or so small that
    it would be stored as 0)."""
    arr = unmasked(name, w, error)
    if arr.ndim != 1 or len(arr) != n:
        raise error(f"{name} must be a 1-D array of length {n}, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iuf":  # durations would be read in their unit
        raise error(f"{name} must be real numbers, got dtype {arr.dtype}")
    out, bad = as_float32(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise error(
            f"{name}[{i}] = {arr[i]} is not a finite float32 number "
            "(a NaN, an infinity, beyond its range, or nonzero and stored as 0: below about 7e-46)"
        )
    return out


def threads_arg(threads: Any) -> int | None:
    """The ``threads`` argument of a kernel: ``None`` or 0 (one per core, as the command line's
    ``--threads 0``) or ``1 ..= MAX_THREADS``."""
    if threads is None:
        return None
    return int_arg("threads", threads, 0, MAX_THREADS) or None
