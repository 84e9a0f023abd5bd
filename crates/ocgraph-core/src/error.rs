//! The error type of ocgraph-core.
//!
//! Every variant names what went wrong and where: the file, and the line or byte offset
//! when there is one. Bindings map variants to exception classes by [`Error::kind`].

use std::fmt;
use std::path::PathBuf;

/// Result alias used across ocgraph-core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the storage engine.
#[derive(Debug)]
pub enum Error {
    /// An operating-system I/O error on `path`.
    Io {
        /// The file or directory being accessed.
        path: PathBuf,
        /// What was being done ("open", "read", "write", "rename", ...).
        op: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Malformed user input (an edge list): `line` is 1-based when known,
    /// `offset` a byte offset for binary inputs.
    Input {
        /// The input file.
        path: PathBuf,
        /// 1-based line number for text inputs.
        line: Option<u64>,
        /// Byte offset for binary inputs.
        offset: Option<u64>,
        /// What is wrong.
        msg: String,
    },
    /// A graph directory that is not a valid ocgraph graph (truncated, corrupted,
    /// wrong sizes, bad checksum).
    Format {
        /// The file in the graph directory.
        path: PathBuf,
        /// Byte offset of the problem when known.
        offset: Option<u64>,
        /// What is wrong.
        msg: String,
    },
    /// A graph written by a format version this build cannot read.
    Version {
        /// The manifest file.
        path: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The highest version this build reads.
        supported: u32,
    },
    /// A bad argument from the caller (unknown backend, vertex out of range, bad size string...).
    InvalidArgument(String),
    /// Memory the machine refused (see [`crate::memory`]): `bytes` for `what`.
    OutOfMemory {
        /// What needed the memory ("pagerank's per-vertex state on N vertices").
        what: String,
        /// How many bytes were asked for.
        bytes: u64,
        /// The process's address-space limit (`ulimit -v`) in bytes, when it has one.
        address_space_limit: Option<u64>,
    },
}

/// The coarse class of an [`Error`], used to pick a Python exception class or an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// [`Error::Io`]
    Io,
    /// [`Error::Input`]
    Input,
    /// [`Error::Format`] and [`Error::Version`]
    Format,
    /// [`Error::InvalidArgument`]
    InvalidArgument,
    /// [`Error::OutOfMemory`]
    OutOfMemory,
}

impl Error {
    /// Shorthand for an [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, op: &'static str, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), op, source }
    }

    /// Shorthand for an [`Error::Format`] without an offset.
    pub fn format(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Format { path: path.into(), offset: None, msg: msg.into() }
    }

    /// Shorthand for an [`Error::Input`] about a whole file (no line or offset).
    pub fn input(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Input { path: path.into(), line: None, offset: None, msg: msg.into() }
    }

    /// Shorthand for an [`Error::Input`] at a 1-based line.
    pub fn input_line(path: impl Into<PathBuf>, line: u64, msg: impl Into<String>) -> Self {
        Error::Input { path: path.into(), line: Some(line), offset: None, msg: msg.into() }
    }

    /// Shorthand for an [`Error::Input`] at a byte offset.
    pub fn input_offset(path: impl Into<PathBuf>, offset: u64, msg: impl Into<String>) -> Self {
        Error::Input { path: path.into(), line: None, offset: Some(offset), msg: msg.into() }
    }

    /// Shorthand for an [`Error::InvalidArgument`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }

    /// The coarse class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } => ErrorKind::Io,
            Error::Input { .. } => ErrorKind::Input,
            Error::Format { .. } | Error::Version { .. } => ErrorKind::Format,
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::OutOfMemory { .. } => ErrorKind::OutOfMemory,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, op, source } => {
                write!(f, "{}: {op} failed: {source}", path.display())
            }
            Error::Input { path, line, offset, msg } => {
                write!(f, "{}", path.display())?;
                if let Some(l) = line {
                    write!(f, ":{l}")?;
                }
                if let Some(o) = offset {
                    write!(f, " at byte {o}")?;
                }
                write!(f, ": {msg}")
            }
            Error::Format { path, offset, msg } => {
                write!(f, "{}", path.display())?;
                if let Some(o) = offset {
                    write!(f, " at byte {o}")?;
                }
                write!(f, ": invalid graph file: {msg}")
            }
            Error::Version { path, found, supported } => write!(
                f,
                "{}: graph format version {found} is newer than this build supports (<= {supported}); upgrade ocgraph",
                path.display()
            ),
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            Error::OutOfMemory { what, bytes, address_space_limit } => {
                write!(
                    f,
                    "out of memory: {what} needs {} ({bytes} bytes), which this machine cannot allocate",
                    crate::size::format_size(*bytes)
                )?;
                match address_space_limit {
                    // Each thread's malloc arena reserves address space (64 MiB on 64-bit glibc)
                    // that counts against the limit though it holds nothing yet.
                    Some(limit) => write!(
                        f,
                        " within the process's address-space limit of {} (`ulimit -v`), of which the \
                         threads' memory arenas reserve part: raise the limit, or set MALLOC_ARENA_MAX=1",
                        crate::size::format_size(*limit)
                    ),
                    None => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
