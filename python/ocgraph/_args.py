"""Checks of integer arguments before they reach the native module, so that a negative or
too-large value raises :class:`InvalidArgumentError` naming the argument (the native module
would raise a bare ``OverflowError``)."""

from __future__ import annotations

import operator
from typing import Any

from ._errors import InvalidArgumentError

#: Largest ``threads`` accepted: far above any machine's core count, low enough that a typo
#: cannot ask the OS for millions of threads.
MAX_THREADS = 4096

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


def int_arg(name: str, value: Any, low: int = 0, high: int = U32_MAX) -> int:
    """``value`` as an int in ``low ..= high``; a non-integer raises ``TypeError``."""
    v = operator.index(value)
    if not low <= v <= high:
        raise InvalidArgumentError(f"{name} must be an integer from {low} to {high}, got {v}")
    return v


def threads_arg(threads: Any) -> int | None:
    """The ``threads`` argument of a kernel: None (all cores) or ``1 ..= MAX_THREADS``."""
    return None if threads is None else int_arg("threads", threads, 1, MAX_THREADS)
