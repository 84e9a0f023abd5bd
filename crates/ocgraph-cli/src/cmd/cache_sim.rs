//! `ocgraph cache-sim`: replays a page-access trace (recorded with `--trace`) through
//! replacement policies at several cache sizes, with Belady's OPT as the bound, and prints hit
//! ratios (cold misses excluded). The policies are the buffer pool's own code, driven by
//! `ocgraph_core::page::sim`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use ocgraph_core::format::{names_standard_output, one_file, refuse_missing_directory, OutputFile};
use ocgraph_core::page::policy::{policy_by_name, Gac, GacConfig};
use ocgraph_core::page::sim::{simulate, simulate_opt, CacheSim, DenseTrace, SimStats};
use ocgraph_core::page::trace::{Trace, TRACE_HEADER_LEN};
use ocgraph_core::{Error, Result};
use rayon::prelude::*;

use ocgraph_core::ingest::Progress;

use crate::progress::CliProgress;

/// Arguments of `ocgraph cache-sim`.
#[derive(Args)]
pub struct CacheSimArgs {
    /// Trace file written by `ocgraph run ... --trace FILE`.
    trace: PathBuf,
    /// Comma-separated policies: clock, lru, fifo, lifo, random, s3fifo, arc, gac (or
    /// gac:key=value:..., e.g. gac:decay=0.5:voters=all), opt (Belady's offline optimum).
    #[arg(long, default_value = "clock,lru,fifo,lifo,random,s3fifo,arc,gac,opt")]
    policies: String,
    /// Comma-separated cache sizes: N% of the trace's distinct pages, Nf frames, or bytes
    /// (64MiB; divided by the trace's page size); a size above the trace's distinct pages counts
    /// as that many frames.
    #[arg(long, default_value = "5%,10%,20%,30%,40%,50%,60%,70%,80%,90%,100%")]
    sizes: String,
    /// Write `policy,size,hit_ratio,frames,hits,capacity_misses,cold_misses` rows to this CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write GAC's score over time (`miss,score,active`) to this CSV, for one run at
    /// --score-size with the first gac policy given (default parameters if none).
    #[arg(long)]
    score_trace: Option<PathBuf>,
    /// Cache size of the --score-trace run.
    #[arg(long, default_value = "50%")]
    score_size: String,
    /// One --score-trace row every this many misses.
    #[arg(long, allow_negative_numbers = true, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    score_every: u64,
}

/// Frames for a size spec over a trace with `distinct` pages of `page_size` bytes. A size above
/// `distinct` pages is taken as `distinct` frames: no policy evicts then, so every hit ratio is
/// the same, and the simulators need not allocate the frames asked for.
fn frames_for(spec: &str, distinct: usize, page_size: u32) -> Result<usize> {
    let bad = |why: &str| Error::invalid(format!("cache size '{spec}': {why}"));
    let frames = if let Some(p) = spec.strip_suffix('%') {
        let p: f64 = p.trim().parse().map_err(|_| bad("expected a percentage like 10%"))?;
        if p.is_nan() || p <= 0.0 {
            return Err(bad("must be positive"));
        }
        // Rounded up to whole frames, but a product that is whole up to the float error of
        // the percentage (7% of 100 computes as 7.000000000000001) is that whole number.
        let exact = p * distinct as f64 / 100.0;
        let whole = exact.round();
        (if (exact - whole).abs() <= 1e-9 * whole.max(1.0) { whole } else { exact.ceil() }) as usize
    } else if let Some(n) = spec.strip_suffix('f') {
        n.trim().parse().map_err(|_| bad("expected a frame count like 512f"))?
    } else {
        (ocgraph_core::size::parse_size(spec)? / page_size as u64) as usize
    };
    if frames == 0 {
        return Err(bad("is less than one frame"));
    }
    Ok(frames.min(distinct.max(1)))
}

/// Runs `ocgraph cache-sim`.
pub fn run(args: &CacheSimArgs) -> Result<()> {
    let outputs = [(&args.csv, "--csv"), (&args.score_trace, "--score-trace")];
    for (out, what) in outputs {
        if let Some(out) = out {
            refuse_missing_directory(out, what)?;
            // One file for two outputs, or the trace replaced by a table, would lose data.
            if one_file(out, &args.trace) {
                return Err(Error::invalid(format!("{what} {}: is the trace being replayed", out.display())));
            }
        }
    }
    if let (Some(a), Some(b)) = (&args.csv, &args.score_trace) {
        if one_file(a, b) {
            return Err(Error::invalid(format!("--csv and --score-trace both name {}", a.display())));
        }
    }
    // Names are taken in any case (as `policy_by_name` takes them): lowered once here.
    let lowered = args.policies.to_ascii_lowercase();
    let policies = listed(&lowered, "--policies")?;
    for p in &policies {
        if *p != "opt" {
            // Names and GAC specs are checked up front; the list of valid names adds `opt`.
            policy_by_name(p, 2).map_err(|e| {
                reworded(e, |why| match why.starts_with("unknown") {
                    true => format!("{why}; or opt, Belady's offline optimum"),
                    false => why,
                })
            })?;
        }
    }
    // The sizes' syntax too, before the trace is read (their frames need its pages).
    let size_specs = listed(&args.sizes, "--sizes")?;
    for s in &size_specs {
        frames_for(s, usize::MAX, 1)?;
    }
    let score_size = |distinct, page_size| {
        frames_for(&args.score_size, distinct, page_size)
            .map_err(|e| reworded(e, |why| format!("--score-size: {why}")))
    };
    if args.score_trace.is_some() {
        score_size(usize::MAX, 1)?;
    }
    let trace = Trace::read(&args.trace)?;
    if trace.records.is_empty() {
        return Err(Error::input_offset(
            &args.trace,
            TRACE_HEADER_LEN as u64,
            "the trace holds no page requests: nothing to replay",
        ));
    }
    let page_size = trace.page_size;
    let dense = DenseTrace::new(trace.keys());
    drop(trace);
    eprintln!(
        "{}: {} requests, {} distinct pages of {page_size} bytes",
        args.trace.display(),
        dense.ids.len(),
        dense.distinct
    );
    let sizes: Vec<(&str, usize)> = size_specs
        .into_iter()
        .map(|s| Ok((s, frames_for(s, dense.distinct, page_size)?)))
        .collect::<Result<_>>()?;
    let score_frames =
        args.score_trace.as_ref().map(|_| score_size(dense.distinct, page_size)).transpose()?;
    let jobs: Vec<(usize, usize)> =
        (0..sizes.len()).flat_map(|s| (0..policies.len()).map(move |p| (s, p))).collect();
    let progress = CliProgress::new(false);
    progress.spinner(&format!("simulating {} policies x {} sizes", policies.len(), sizes.len()));
    let results: Result<Vec<SimStats>> = jobs
        .par_iter()
        .map(|&(s, p)| {
            let frames = sizes[s].1;
            if policies[p] == "opt" {
                Ok(simulate_opt(&dense, frames))
            } else {
                simulate(policies[p], &dense, frames)
            }
        })
        .collect();
    progress.finish();
    let results = results?;

    // Table: one row per size, one column per policy; on stderr when a CSV goes to stdout.
    let csv_to_stdout =
        [&args.csv, &args.score_trace].iter().any(|p| p.as_deref().is_some_and(names_standard_output));
    let say = |line: &str| {
        if csv_to_stdout {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    // Each policy's column as wide as its spec (`gac:decay=0.5` and `gac:decay=0.9` apart).
    let widths: Vec<usize> = policies.iter().map(|p| p.chars().count().max(9)).collect();
    let mut out = format!("{:>10} {:>9}", "size", "frames");
    for (p, w) in policies.iter().zip(&widths) {
        let _ = write!(out, " {p:>w$}");
    }
    say(&out);
    for (s, (spec, frames)) in sizes.iter().enumerate() {
        let mut line = format!("{spec:>10} {frames:>9}");
        for (p, w) in widths.iter().enumerate() {
            let _ = write!(line, " {:>w$.4}", results[s * policies.len() + p].hit_ratio());
        }
        say(&line);
    }
    if let Some(csv) = &args.csv {
        let mut text = String::from("policy,size,hit_ratio,frames,hits,capacity_misses,cold_misses\n");
        for (i, &(s, p)) in jobs.iter().enumerate() {
            let r = results[i];
            let _ = writeln!(
                text,
                "{},{},{:.6},{},{},{},{}",
                policies[p],
                sizes[s].0,
                r.hit_ratio(),
                sizes[s].1,
                r.hits,
                r.capacity_misses,
                r.cold_misses
            );
        }
        OutputFile::write_whole(csv, text.as_bytes())?;
        if !names_standard_output(csv) {
            say(&format!(
                "wrote {}; chart: python3 bench/caching/plot.py {} --out chart.png",
                csv.display(),
                csv.display()
            ));
        }
    }
    if let (Some(path), Some(frames)) = (&args.score_trace, score_frames) {
        let spec = policies.iter().find(|p| p.starts_with("gac")).copied().unwrap_or("gac");
        let config = if spec == "gac" { GacConfig::default() } else { GacConfig::parse(spec)? };
        write_score_trace(path, &dense, frames, &config, args.score_every)?;
        say(&format!(
            "wrote {} ({spec} at {} = {frames} frames); plot: python3 bench/caching/plot.py --score {} --out score.png",
            path.display(),
            args.score_size,
            path.display()
        ));
    }
    Ok(())
}

/// An invalid-argument error `e` with its message rewritten by `f` (other errors as they are).
fn reworded(e: Error, f: impl FnOnce(String) -> String) -> Error {
    match e {
        Error::InvalidArgument(why) => Error::invalid(f(why)),
        other => other,
    }
}

/// The non-empty items of the comma-separated list `value` of option `flag`; an error when
/// there are none.
fn listed<'a>(value: &'a str, flag: &str) -> Result<Vec<&'a str>> {
    let items: Vec<&str> = value.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if items.is_empty() {
        return Err(Error::invalid(format!("{flag} '{value}' names nothing to simulate")));
    }
    Ok(items)
}

/// Replays `dense` through GAC with `frames` frames, writing `miss,score,active` every `every`
/// misses.
fn write_score_trace(
    path: &Path,
    dense: &DenseTrace,
    frames: usize,
    config: &GacConfig,
    every: u64,
) -> Result<()> {
    let mut sim = CacheSim::new(Box::new(Gac::new(frames, config)?), frames, dense.distinct);
    let mut text = String::from("miss,score,active\n");
    let mut misses = 0u64;
    for (&id, &key) in dense.ids.iter().zip(&dense.keys) {
        if !sim.access(id, key) {
            misses += 1;
            if misses.is_multiple_of(every) {
                let s = sim.policy().score().unwrap_or(0.0);
                let _ = writeln!(text, "{misses},{s:.6},{}", if s >= 0.0 { "lifo" } else { "clock" });
            }
        }
    }
    OutputFile::write_whole(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_specs() {
        assert_eq!(frames_for("10%", 1000, 4096).unwrap(), 100);
        assert_eq!(frames_for("0.5%", 1000, 4096).unwrap(), 5);
        // Whole products are not rounded up by the float error of the percentage.
        assert_eq!(frames_for("7%", 100, 4096).unwrap(), 7);
        assert_eq!(frames_for("56%", 50, 4096).unwrap(), 28);
        assert_eq!(frames_for("0.07%", 10_000, 4096).unwrap(), 7);
        let off_by_one = (1..=100u32).flat_map(|p| (1..=2000usize).map(move |d| (p, d))).find(|&(p, d)| {
            frames_for(&format!("{p}%"), d, 4096).unwrap() != (p as usize * d).div_ceil(100).max(1)
        });
        assert_eq!(off_by_one, None);
        assert_eq!(frames_for("7.5%", 100, 4096).unwrap(), 8);
        assert_eq!(frames_for("512f", 1000, 4096).unwrap(), 512);
        assert_eq!(frames_for("1MiB", 1000, 4096).unwrap(), 256);
        assert!(frames_for("0%", 1000, 4096).is_err());
        assert!(frames_for("100", 1000, 4096).is_err()); // 100 bytes: less than a frame
        assert!(frames_for("x%", 1000, 4096).is_err());
        // Beyond the trace's pages: as many frames as pages.
        assert_eq!(frames_for("1e400%", 1000, 4096).unwrap(), 1000);
        assert_eq!(frames_for("18446744073709551615f", 1000, 4096).unwrap(), 1000);
        assert_eq!(frames_for("1TiB", 1000, 4096).unwrap(), 1000);
    }
}
