//! Builds the shims beside this file (`faultfs.c`, the fault shim; `powerloss.c`, the
//! power-loss recorder) for the crash and fault tests of the crates; included by them with
//! `#[path]`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fault shim compiled into `dir`; `None` (with a notice) without a C compiler.
pub fn build_shim(dir: &Path) -> Option<PathBuf> {
    build_named_shim(dir, "faultfs")
}

/// The shim `NAME.c` beside this file compiled into `dir` as `NAME.so`; `None` (with a
/// notice) without a C compiler.
pub fn build_named_shim(dir: &Path, name: &str) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/faults/{name}.c"));
    let so = dir.join(format!("{name}.so"));
    let out = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(&src)
        .args(["-ldl", "-lpthread"])
        .output();
    match out {
        Ok(o) if o.status.success() => Some(so),
        Ok(o) => panic!("compiling the shim {name}.c failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => {
            eprintln!("skipped: no C compiler (cc) to build the shim {name}.c");
            None
        }
    }
}
