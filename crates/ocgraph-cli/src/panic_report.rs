//! The tool's panic hook. A panic's message is kept until the command ends rather than printed
//! when it happens, so that a panic the command turns into an error of its own (a corrupted
//! file found by `cmd::reporting_corruption`) prints that error alone.

use std::sync::Mutex;

/// The first panic message not yet printed or dropped.
static PENDING: Mutex<Option<String>> = Mutex::new(None);

/// Installs the hook. A panic from printing to a closed standard output ends the process
/// quietly with status 141; one from printing to a full one is reported as the write error it
/// is; any other keeps its message for [`take`].
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".into());
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            // The reader of our output went away (`ocgraph info G | head -2`): stop quietly,
            // with the status of a process a SIGPIPE ended, as other command-line tools do.
            std::process::exit(141);
        }
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            // A report line that standard output refused (a full disk): the error it is, named
            // as the other outputs name theirs, not an internal one.
            crate::say(&format!("error: <stdout>: write failed: {why}"));
            return;
        }
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        pending.get_or_insert(msg);
    }));
}

/// The kept panic message, if any, which is then no longer kept.
pub fn take() -> Option<String> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).take()
}
