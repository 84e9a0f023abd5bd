//! A terminal progress bar implementing the ingest [`Progress`] trait, and the summary line.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use ocgraph_core::ingest::{Progress, Unit};

/// Shows the current phase, its rate and ETA on stderr when it is a terminal (and not `--quiet`).
pub struct CliProgress {
    bar: Option<ProgressBar>,
    start: Instant,
}

impl CliProgress {
    /// A progress display; hidden when `quiet` or when stderr is not a terminal.
    pub fn new(quiet: bool) -> CliProgress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = visible.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(style(None, Unit::Edges));
            bar
        });
        CliProgress { bar, start: Instant::now() }
    }

    /// A spinner with `msg` and the elapsed time, for a step that reports no progress of its
    /// own (a kernel's trials, a compaction, a cache simulation); cleared by `finish`.
    pub fn spinner(&self, msg: &str) {
        if let Some(bar) = &self.bar {
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
            );
            bar.set_message(msg.to_string());
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
        }
    }

    /// Prints the one-line summary: `what` `count` `unit` (edges or arcs) in seconds, M a second.
    pub fn summary(&self, what: &str, count: u64, unit: &str, detail: &str) {
        let secs = self.start.elapsed().as_secs_f64();
        eprintln!(
            "{what} {count} {unit}{detail} in {secs:.2} s ({:.2} M {unit}/s)",
            count as f64 / secs.max(1e-9) / 1e6
        );
    }
}

fn style(total: Option<u64>, unit: Unit) -> ProgressStyle {
    let template = match (total.is_some(), unit) {
        (true, Unit::Bytes) => {
            "{msg:>9} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta} ({elapsed})"
        }
        (true, Unit::Edges) => "{msg:>9} [{bar:30}] {human_pos}/{human_len} {medges} ETA {eta} ({elapsed})",
        (false, Unit::Bytes) => "{spinner} {msg:>9} {bytes} {binary_bytes_per_sec} ({elapsed})",
        (false, Unit::Edges) => "{spinner} {msg:>9} {human_pos} {medges} ({elapsed})",
    };
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key("medges", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.2} M/s", s.per_sec() / 1e6);
        })
        .progress_chars("=> ")
}

impl Progress for CliProgress {
    fn phase(&self, name: &str, total: Option<u64>, unit: Unit) {
        if let Some(bar) = &self.bar {
            bar.reset();
            bar.set_style(style(total, unit));
            bar.set_length(total.unwrap_or(0));
            bar.set_message(name.to_string());
            if total.is_none() {
                bar.enable_steady_tick(std::time::Duration::from_millis(200));
            } else {
                bar.disable_steady_tick();
            }
        }
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
