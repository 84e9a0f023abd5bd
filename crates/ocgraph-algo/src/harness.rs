//! A benchmark harness in the manner of the GAP Benchmark Suite's `BenchmarkKernel`: run a
//! kernel for a number of trials, time each trial with [`Instant`], and optionally verify each
//! trial's result (verification time is not counted).

use std::time::Instant;

/// Timings and verification outcome of [`run_trials`].
#[derive(Debug, Clone, PartialEq)]
pub struct KernelReport {
    /// Kernel name as given to [`run_trials`].
    pub name: String,
    /// Wall-clock seconds of each trial, in order.
    pub trial_secs: Vec<f64>,
    /// `None` when not verified; `Some(true)` when every trial passed.
    pub verified: Option<bool>,
    /// The first verifier message, when a trial failed.
    pub verify_error: Option<String>,
}

impl KernelReport {
    /// Mean trial time in seconds.
    pub fn mean_secs(&self) -> f64 {
        self.trial_secs.iter().sum::<f64>() / self.trial_secs.len().max(1) as f64
    }

    /// Fastest trial time in seconds.
    pub fn min_secs(&self) -> f64 {
        self.trial_secs.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// `"PASS"`, `"FAIL"` or `"-"` (not verified).
    pub fn verdict(&self) -> &'static str {
        match self.verified {
            Some(true) => "PASS",
            Some(false) => "FAIL",
            None => "-",
        }
    }
}

/// Runs `kernel` `trials` times (at least once), timing each call; when `verify` is set, runs
/// `verifier` on each trial's result. Returns the report and the last trial's result, or the
/// first error the kernel returns. Whatever rayon pool is current when this is called is the
/// one the kernel uses.
pub fn run_trials<T, E>(
    name: &str,
    trials: usize,
    verify: bool,
    mut kernel: impl FnMut() -> Result<T, E>,
    mut verifier: impl FnMut(&T) -> Result<(), String>,
) -> Result<(KernelReport, T), E> {
    let mut report =
        KernelReport { name: name.to_string(), trial_secs: Vec::new(), verified: None, verify_error: None };
    let mut last = None;
    for _ in 0..trials.max(1) {
        let start = Instant::now();
        let result = kernel()?;
        report.trial_secs.push(start.elapsed().as_secs_f64());
        if verify {
            let ok = match verifier(&result) {
                Ok(()) => true,
                Err(msg) => {
                    report.verify_error.get_or_insert(msg);
                    false
                }
            };
            report.verified = Some(report.verified.unwrap_or(true) && ok);
        }
        last = Some(result);
    }
    Ok((report, last.expect("at least one trial ran")))
}
