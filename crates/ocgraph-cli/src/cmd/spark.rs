//! `ocgraph spark`: the analytics on Apache Spark, run by the Python package `ocgraph.spark`.
//!
//! Spark's API is the JVM's and Python's, so this subcommand hands its arguments to
//! `python -m ocgraph.spark` (the interpreter from `OCGRAPH_PYTHON`, else `python3`), which
//! needs the `ocgraph` package with its `spark` extra (pyspark, pyarrow) and Java 17.

use std::ffi::OsString;
use std::process::Command;

use clap::Args;
use ocgraph_core::{Error, Result};

/// Arguments of `ocgraph spark`: everything after `spark` goes to `python -m ocgraph.spark`.
#[derive(Args)]
#[command(disable_help_flag = true)]
pub struct SparkArgs {
    /// `run ALGO DATASET_OR_GRAPH [--master local[2]] [--partitions N] [--design D] ...`,
    /// `export GRAPH OUT [--partitions N]` or `import DATASET OUT` (`--help` for details).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    args: Vec<OsString>,
}

/// What the interpreter runs: `ocgraph.spark`'s entry point, as `python -m ocgraph.spark` would,
/// but with one line naming the remedy when the package (or what it imports) is missing.
const BOOTSTRAP: &str = "import sys
try:
    from ocgraph.spark.__main__ import main
except ImportError as e:
    print(f'error: {sys.executable} cannot import ocgraph.spark ({e}); set OCGRAPH_PYTHON to a '
          \"Python with ocgraph and its spark extra installed (pip install 'ocgraph[spark]')\",
          file=sys.stderr)
    sys.exit(2)
sys.exit(main(sys.argv[1:]))
";

/// Runs `python -m ocgraph.spark ARGS...` (through [`BOOTSTRAP`]); exits with its status when it
/// fails (it has printed the error).
pub fn run(args: &SparkArgs) -> Result<()> {
    let python = std::env::var_os("OCGRAPH_PYTHON").unwrap_or_else(|| "python3".into());
    let status = Command::new(&python).args(["-c", BOOTSTRAP]).args(&args.args).status().map_err(|e| {
        Error::invalid(format!(
            "cannot start {} for `ocgraph spark` ({e}); set OCGRAPH_PYTHON to a Python with \
                 ocgraph and its spark extra installed (pip install 'ocgraph[spark]')",
            python.to_string_lossy()
        ))
    })?;
    match status.code() {
        Some(0) => Ok(()),
        Some(code) => std::process::exit(code),
        None => Err(Error::invalid(format!("{} -m ocgraph.spark was killed", python.to_string_lossy()))),
    }
}
