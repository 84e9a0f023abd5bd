//! Builds the fault shim (`faultfs.c` beside this file) for the crash and fault tests of the
//! crates; included by them with `#[path]`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fault shim compiled into `dir`; `None` (with a notice) without a C compiler.
pub fn build_shim(dir: &Path) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/faults/faultfs.c");
    let so = dir.join("faultfs.so");
    match Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&so).arg(&src).arg("-ldl").output() {
        Ok(o) if o.status.success() => Some(so),
        Ok(o) => panic!("compiling the fault shim failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => {
            eprintln!("skipped: no C compiler (cc) to build the fault shim");
            None
        }
    }
}
