"""The exception hierarchy of ocgraph.

Every error raised by the engine is an :class:`Error`; the subclasses say what kind:

- :class:`FormatError`: a graph directory that is not a valid ocgraph graph (truncated,
  corrupted, bad checksum, written by a newer format version).
- :class:`InputError`: malformed input (an edge list line that does not parse, a vertex id out
  of range in ``from_edges``...); the message names the file and line or byte offset.
- :class:`OcgraphIOError`: an operating-system I/O error; also an :class:`OSError`, with
  ``errno`` and ``filename`` set when known. A missing file, a file that exists already and a
  refused permission raise subclasses that are also Python's :class:`FileNotFoundError`,
  :class:`FileExistsError` and :class:`PermissionError`, as the built-in ``open`` does.
- :class:`InvalidArgumentError`: a bad argument (unknown backend, bad size string, operation on
  a closed graph...); also a :class:`ValueError`.
- :class:`VertexError`: a vertex id outside ``0 .. num_vertices - 1``; both an
  :class:`InvalidArgumentError` and an :class:`IndexError`.
- :class:`OcgraphMemoryError`: per-vertex state the machine cannot allocate (a kernel on
  billions of vertices); also a :class:`MemoryError`.
"""

from __future__ import annotations

import errno as _errno

__all__ = [
    "Error",
    "FormatError",
    "InputError",
    "InvalidArgumentError",
    "OcgraphFileExistsError",
    "OcgraphFileNotFoundError",
    "OcgraphIOError",
    "OcgraphMemoryError",
    "OcgraphPermissionError",
    "VertexError",
]


class Error(Exception):
    """Base class of every error raised by ocgraph."""


class FormatError(Error):
    """The graph directory is not a valid ocgraph graph (or its format version is too new)."""


class InputError(Error):
    """Malformed input data: an edge list that does not parse, bad arrays for ``from_edges``."""


class OcgraphIOError(Error, OSError):
    """An operating-system I/O error (file missing, permission denied, disk full, read failure).

    ``errno`` and ``filename`` are set when known; the message already names the file.
    """

    def __str__(self) -> str:
        if len(self.args) == 1:
            return str(self.args[0])
        return OSError.__str__(self)


class OcgraphFileNotFoundError(OcgraphIOError, FileNotFoundError):
    """A file or directory that does not exist (``errno`` ENOENT)."""


class OcgraphFileExistsError(OcgraphIOError, FileExistsError):
    """A file or directory in the way of one being written (``errno`` EEXIST)."""


class OcgraphPermissionError(OcgraphIOError, PermissionError):
    """An operation the file's permissions refuse (``errno`` EACCES or EPERM)."""


_BY_ERRNO = {
    _errno.ENOENT: OcgraphFileNotFoundError,
    _errno.EEXIST: OcgraphFileExistsError,
    _errno.EACCES: OcgraphPermissionError,
    _errno.EPERM: OcgraphPermissionError,
}


def io_error(message: str, code: int | None = None, filename: str | None = None) -> OcgraphIOError:
    """The :class:`OcgraphIOError` for ``message``, of the subclass ``code`` (an errno) names,
    with ``errno`` and ``filename`` set."""
    e = _BY_ERRNO.get(code, OcgraphIOError)(message)
    e.errno, e.filename = code, filename
    return e


class InvalidArgumentError(Error, ValueError):
    """A bad argument: unknown option value, bad size string, operation on a closed graph."""


class VertexError(InvalidArgumentError, IndexError):
    """A vertex id outside ``0 .. num_vertices - 1``."""


class OcgraphMemoryError(Error, MemoryError):
    """Memory the machine cannot allocate: the message says what needed how much (the
    per-vertex state of a kernel or a maintained result, docs/guide.md "Memory")."""
