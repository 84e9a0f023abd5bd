//! Calls in a process forked from the one that loaded the module: the child's copy of rayon's
//! global pool has no threads (work queued there would wait forever), so its calls run on a
//! pool of its own, started on its first call.

use std::sync::{Arc, Mutex, OnceLock};

use ocgraph_core::process::current_process;

/// The process that loaded the module.
static LOADED_BY: OnceLock<u32> = OnceLock::new();

/// The pool of a forked child, with the child's process id.
static CHILD_POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// Records the process loading the module (called by the module's initialisation).
pub(crate) fn note_loading_process() {
    LOADED_BY.get_or_init(current_process);
}

/// Runs `f` where its parallel work can run: as it is in the process that loaded the module,
/// on the child's own pool in a forked child.
pub(crate) fn on_own_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let pid = current_process();
    if LOADED_BY.get().is_none_or(|&loaded| loaded == pid) {
        return f();
    }
    let pool = {
        let mut slot = CHILD_POOL.lock().unwrap_or_else(|e| e.into_inner());
        match &*slot {
            Some((owner, pool)) if *owner == pid => pool.clone(),
            _ => {
                let pool =
                    Arc::new(rayon::ThreadPoolBuilder::new().build().expect("start the child's threads"));
                *slot = Some((pid, pool.clone()));
                pool
            }
        }
    };
    pool.install(f)
}
