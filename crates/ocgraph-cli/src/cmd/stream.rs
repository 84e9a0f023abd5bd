//! `ocgraph stream`: apply a file of updates in batches while keeping results current
//! (`--maintain wcc,bfs:source=0,pagerank`), and report per-batch latency and throughput.
//!
//! Update files hold one operation per line (internal vertex ids; a line starting with `#`
//! or `%` is a comment): `+ u v [w]` adds an edge (an existing one gets the new weight), `- u v` removes
//! one, `+v n` adds `n` vertices, `-v u` removes every edge of `u`, `L u label` sets the label
//! of `u` (`L u -` removes it). A binary update file (`ocgraph_core::update::update_file`: the
//! magic "OCUPDAT1", then 13-byte items) holds the same operations and is recognised by its
//! magic. Every `--batch-size` operations are one batch (one log record; mixed kinds allowed).
//! `ocgraph workload updates` writes such files.
//!
//! `--watch PATTERN` reports, after every batch, the matches of a pattern that the batch made
//! appear, disappear and (labelled patterns) change labels (see [`super::stream_watch`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use ocgraph_algo::incremental::{Maintainer, Spec, Values};
use ocgraph_core::ingest::parse_weight;
use ocgraph_core::update::{is_update_file, update_file_items, WalItem, WritableGraph, WriteOptions};
use ocgraph_core::{Error, Result, Vertex};

use super::mine::{read_labels, read_pattern};
use super::stream_watch::Watcher;
use super::text_lines::{for_each_line_in, gunzipped, parse_label};
use super::update::DurabilityArg;
use crate::backend_args::BackendArgs;

/// Arguments of `ocgraph stream`.
#[derive(Args)]
pub struct StreamArgs {
    /// Graph directory.
    pub(crate) graph: PathBuf,
    /// The update file, one operation a line: `+ u v [w]` adds an edge, `- u v` removes one,
    /// `+v n` adds n vertices, `-v u` removes every edge of u, `L u label` sets u's label
    /// (`L u -` removes it); or a binary update file (`workload updates --binary`), recognised
    /// by its magic.
    #[arg(long)]
    updates: PathBuf,
    /// Results to keep current, comma-separated: wcc, bfs:source=S, sssp:source=S,
    /// pagerank[:damping=D][:tol=T].
    #[arg(long, value_delimiter = ',')]
    maintain: Vec<String>,
    /// Operations per batch.
    #[arg(long, allow_negative_numbers = true, default_value_t = 10_000, value_parser = super::batch_size_arg)]
    batch_size: usize,
    /// When a batch is durable.
    #[arg(long, value_enum, default_value_t = DurabilityArg::None)]
    durability: DurabilityArg,
    /// At the end, compare every maintained result with a full recomputation (static kernels)
    /// on the final graph, and time that recomputation.
    #[arg(long)]
    verify: bool,
    /// Maintain the results and watch the pattern on threads of their own: an update call
    /// returns once its batch is queued, and the stream's time ends when every result includes
    /// the last batch and the watch has found its changes. The per-batch latencies are then
    /// the update calls', or with `--watch` from the start of a batch's update to the end of
    /// its watch (the next batch's update overlaps it).
    #[arg(long)]
    background: bool,
    /// Do not save the maintained results at the end (under `<graph>/maintained/`).
    #[arg(long)]
    no_save: bool,
    /// A pattern to watch (a name such as triangle or 4-clique, or an edge-list file as in
    /// `ocgraph mine pattern`): every batch finds the matches it added and removed, and for a
    /// labelled pattern those whose labels it changed.
    #[arg(long, value_name = "PATTERN")]
    watch: Option<String>,
    /// Watch vertex-induced matches (default edge-induced).
    #[arg(long, requires = "watch")]
    watch_induced: bool,
    /// Data vertex labels for a labelled watched pattern, one a line (an integer, or - for
    /// none), one line per vertex of the graph as the stream finds it (default: the labels
    /// stored with the graph); the stream's `L` lines change them.
    #[arg(long, value_name = "FILE", requires = "watch")]
    watch_labels: Option<PathBuf>,
    /// Write every change of the watched pattern to this file: `B + v0 v1 ...` (appeared in
    /// batch B, 0-based), `B - v0 v1 ...` (disappeared) or `B ~ v0 v1 ...` (same vertices,
    /// labels changed).
    #[arg(long, value_name = "FILE", requires = "watch")]
    watch_out: Option<PathBuf>,
    /// Write the measurements as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Threads for the maintained results' recomputations and sweeps and the watch's
    /// searches (default: one per core).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    pub(crate) threads: usize,
    #[command(flatten)]
    backend: BackendArgs,
}

/// What an update file is checked against: the graph's vertex count (ids are checked against
/// it as `+v` lines grow it), whether its arcs carry weights, and whether its vertices all have
/// original ids (it takes no unnamed `+v` vertices).
#[derive(Clone, Copy)]
pub(crate) struct Target {
    pub(crate) n: u64,
    pub(crate) weighted: bool,
    pub(crate) named: bool,
}

/// Parses an update file, text or binary, for `target`. Errors name the file and the line
/// (text) or the item's byte offset (binary).
pub(crate) fn read_updates(path: &Path, target: Target) -> Result<Vec<WalItem>> {
    // Read once, whatever the form: a pipe (`--updates /dev/stdin`) has no second reading.
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "read", e))?;
    // Either form may be gzip'd.
    let bytes = gunzipped(path, &bytes)?;
    if is_update_file(&bytes) {
        return read_binary_updates(path, &bytes, target);
    }
    read_text_updates(path, &bytes, target)
}

/// The items of a binary update file, checked as the text lines are.
fn read_binary_updates(path: &Path, bytes: &[u8], target: Target) -> Result<Vec<WalItem>> {
    let Target { mut n, weighted, named } = target;
    let items = update_file_items(path, bytes)?;
    for &(offset, item) in &items {
        let bad = |msg: String| Error::input_offset(path, offset, msg);
        let vertex = |v: Vertex| -> Result<()> {
            if v as u64 >= n {
                return Err(bad(format!("vertex {v} out of range (the graph has {n} vertices here)")));
            }
            Ok(())
        };
        match item {
            WalItem::AddEdge { src, dst, weight } | WalItem::SetWeight { src, dst, weight } => {
                vertex(src)?;
                vertex(dst)?;
                if !weight.is_finite() {
                    return Err(bad(format!("the weight {weight} is not a finite number")));
                }
                let reweight = matches!(item, WalItem::SetWeight { .. });
                if !weighted && (reweight || weight != 1.0) {
                    return Err(bad("the graph is unweighted; weights are not accepted".into()));
                }
            }
            WalItem::RemoveEdge { src, dst } => {
                vertex(src)?;
                vertex(dst)?;
            }
            WalItem::AddVertices { count } => n = added_vertices(n, count, named).map_err(bad)?,
            WalItem::RemoveVertex { v } | WalItem::SetLabel { v, .. } => vertex(v)?,
        }
    }
    Ok(items.into_iter().map(|(_, item)| item).collect())
}

/// The vertex count after `count` more vertices are added to `n`; an error past `u32::MAX`
/// (vertex ids are 32-bit) or on a graph whose vertices are `named` by original ids, as the
/// update path would refuse the batch.
fn added_vertices(n: u64, count: u32, named: bool) -> std::result::Result<u64, String> {
    if named && count > 0 {
        return Err("this graph keeps original ids (imported with --relabel): `+v` cannot add \
                    unnamed vertices"
            .into());
    }
    let total = n + count as u64;
    if total > u32::MAX as u64 {
        return Err(format!("adding {count} vertices to {n} makes more than {} vertices", u32::MAX));
    }
    Ok(total)
}

/// The items of a text update file (see the module docs).
fn read_text_updates(path: &Path, bytes: &[u8], target: Target) -> Result<Vec<WalItem>> {
    let Target { mut n, weighted, named } = target;
    let mut items = Vec::new();
    for_each_line_in(path, bytes, |no, text| {
        let bad = |msg: String| Error::input_line(path, no, msg);
        let cols: Vec<&str> = text.split_whitespace().collect();
        let vertex = |c: &str| -> Result<Vertex> {
            // Read as u64 first, so that an id past 32 bits is out of range, not malformed.
            let v: u64 = c.parse().map_err(|_| bad(format!("bad vertex id '{}'", c.escape_debug())))?;
            if v >= n {
                return Err(bad(format!("vertex {v} out of range (the graph has {n} vertices here)")));
            }
            Ok(v as Vertex)
        };
        let item = match (cols[0], cols.len()) {
            ("+", 3 | 4) => {
                let weight = match cols.get(3) {
                    Some(c) if weighted => parse_weight(c.as_bytes()).map_err(bad)?,
                    Some(_) => return Err(bad("the graph is unweighted; weights are not accepted".into())),
                    None => 1.0,
                };
                WalItem::AddEdge { src: vertex(cols[1])?, dst: vertex(cols[2])?, weight }
            }
            ("-", 3) => WalItem::RemoveEdge { src: vertex(cols[1])?, dst: vertex(cols[2])? },
            ("+v", 2) => {
                let count: u32 = cols[1]
                    .parse()
                    .map_err(|_| bad(format!("bad vertex count '{}'", cols[1].escape_debug())))?;
                n = added_vertices(n, count, named).map_err(bad)?;
                WalItem::AddVertices { count }
            }
            ("-v", 2) => WalItem::RemoveVertex { v: vertex(cols[1])? },
            ("L", 3) => WalItem::SetLabel { v: vertex(cols[1])?, label: parse_label(cols[2]).map_err(bad)? },
            _ => {
                return Err(bad(format!(
                    "expected '+ u v [w]', '- u v', '+v n', '-v u' or 'L u label', found '{}'",
                    text.escape_debug()
                )))
            }
        };
        items.push(item);
        Ok(())
    })?;
    Ok(items)
}

/// The `p`-th percentile (0..=100) of sorted `xs` by nearest rank: the smallest value with at
/// least `p`% of the values at or below it (of two batches, p50 is the smaller).
fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * xs.len() as f64).ceil() as usize;
    xs[rank.clamp(1, xs.len()) - 1]
}

/// Whether a maintained result equals a full recomputation (PageRank: within the L1 distance
/// its tolerance allows, `2 n tol / (1 - d)`, and never below `n * 1e-14`, which two `f64`
/// computations of the same scores can differ by in rounding alone).
fn same(spec: &Spec, a: &Values, b: &Values) -> bool {
    match (spec, a, b) {
        (Spec::PageRank { damping, tol }, Values::Float(x), Values::Float(y)) => {
            let l1: f64 = x.iter().zip(y).map(|(p, q)| (p - q).abs()).sum();
            let n = x.len() as f64;
            x.len() == y.len() && l1 <= (2.0 * n * tol / (1.0 - damping)).max(n * 1e-14)
        }
        (Spec::Sssp { .. }, Values::Float(x), Values::Float(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p == q || (p - q).abs() <= 1e-9 * q.max(1.0))
        }
        _ => a == b,
    }
}

/// Runs `ocgraph stream`.
pub fn run(args: &StreamArgs) -> Result<()> {
    for (out, what) in [(&args.watch_out, "--watch-out"), (&args.json, "--json")] {
        if let Some(out) = out {
            ocgraph_core::format::refuse_output_place(&args.graph, out, what)?;
        }
    }
    // A watched pattern given as a file (not a name) is an input too.
    let watch_file = args.watch.as_deref().map(Path::new).filter(|p| p.exists());
    ocgraph_core::format::refuse_one_file_twice(&[
        (Some(args.updates.as_path()), "--updates", false),
        (watch_file, "--watch", false),
        (args.watch_labels.as_deref(), "--watch-labels", false),
        (args.watch_out.as_deref(), "--watch-out", true),
        (args.json.as_deref(), "--json", true),
    ])?;
    let stdout = |o: &Option<PathBuf>| o.as_deref().is_some_and(ocgraph_core::format::names_standard_output);
    if stdout(&args.json) && stdout(&args.watch_out) {
        return Err(Error::invalid("--json and --watch-out cannot both be standard output ('-')"));
    }
    // With `--json -` or `--watch-out -` that output goes to standard output alone, the report
    // to standard error.
    let say = |line: &str| {
        super::report(super::data_on_stdout(&[args.json.as_deref(), args.watch_out.as_deref()]), line)
    };
    // The `--json` file is created before the first update, so that a path the command cannot
    // write (a directory it may not write in, say) fails it before the stream is applied.
    let mut json_out = args.json.as_deref().map(ocgraph_core::format::OutputFile::create).transpose()?;
    let specs: Vec<Spec> = args.maintain.iter().map(|s| s.parse()).collect::<Result<_>>()?;
    for (i, spec) in specs.iter().enumerate() {
        if specs[..i].iter().any(|other| other.name() == spec.name()) {
            return Err(Error::invalid(format!("--maintain names {} twice", spec.name())));
        }
    }
    let opts = WriteOptions {
        backend: args.backend.writer_backend("stream")?,
        durability: args.durability.durability(),
        ..WriteOptions::default()
    };
    let w = WritableGraph::open(&args.graph, &opts)?;
    if let Some(line) = w.recovery().dropped_tail() {
        eprintln!("warning: {line}");
    }
    let named = w.snapshot().base().manifest().keeps_ids();
    let target = Target { n: w.num_vertices() as u64, weighted: w.is_weighted(), named };
    let items = read_updates(&args.updates, target)?;
    let mut report = serde_json::Map::new();
    let mut ms = Vec::new();
    for spec in specs {
        let t = Instant::now();
        let m = if args.background {
            Maintainer::start_background(&w, spec.clone())?
        } else {
            Maintainer::start(&w, spec.clone())?
        };
        let secs = t.elapsed().as_secs_f64();
        let how = if m.loaded() { "loaded (current)" } else { "computed" };
        say(&format!("{}: {how} in {secs:.3} s", spec.name()));
        report.insert(format!("start_secs.{}", spec.name()), secs.into());
        ms.push(m);
    }
    let mut watcher = match &args.watch {
        Some(p) => {
            let labels = match &args.watch_labels {
                Some(p) => Some(read_labels(p, w.num_vertices())?),
                None => w.snapshot().labels()?,
            };
            Some(Watcher::start(&w, read_pattern(p)?, args.watch_induced, labels, args.watch_out.as_deref())?)
        }
        None => None,
    };
    let size = args.batch_size;
    let mut lat = Vec::with_capacity(items.len() / size + 1);
    // The I/O statistics cover the stream alone, not the results' first computation.
    w.snapshot().base().reset_io_stats();
    let start = Instant::now();
    let background = if args.background { watcher.take().map(Watcher::into_background) } else { None };
    for (b, chunk) in items.chunks(size).enumerate() {
        let t = Instant::now();
        if let Err(e) = w.update(chunk) {
            // How far the stream got, which the error itself (a log write, say) does not tell.
            eprintln!(
                "stream: batch {b} (updates {} to {} of {}) failed; the {b} batches before it were applied",
                b * size + 1,
                b * size + chunk.len(),
                items.len()
            );
            return Err(e);
        }
        if let Some(bg) = &background {
            if !bg.queue(&w, chunk, b, t) {
                break;
            }
            continue;
        }
        if let Some(wa) = &mut watcher {
            wa.after_batch(&w, chunk, b)?;
        }
        lat.push(t.elapsed().as_secs_f64());
    }
    if let Some(bg) = background {
        let (wa, latencies) = bg.finish()?;
        watcher = Some(wa);
        lat = latencies;
    }
    let last = w.last_seq();
    // A result the graph no longer admits (an SSSP after an arc got a negative weight) is
    // reported at the end and not saved; the others are verified and saved as usual.
    let mut unusable = Vec::new();
    let mut kept = Vec::with_capacity(ms.len());
    for m in ms {
        match m.wait(&w, last) {
            Ok(()) => kept.push(m),
            Err(e) => {
                unusable.push(format!("{}: {e}", m.spec().name()));
                m.stop(&w);
            }
        }
    }
    let ms = kept;
    let total = start.elapsed().as_secs_f64();
    let rate = items.len() as f64 / total.max(1e-12);
    say(&format!(
        "{} updates in {} batches of {size}: {total:.3} s, {rate:.0} updates/s",
        items.len(),
        lat.len()
    ));
    lat.sort_by(f64::total_cmp);
    let (p50, p99, max) = (percentile(&lat, 50.0), percentile(&lat, 99.0), percentile(&lat, 100.0));
    // `--stats` (of the backend options) also prints the per-batch latency percentiles.
    if args.backend.stats {
        say(&format!(
            "per-batch latency: p50 {:.1} us, p99 {:.1} us, max {:.1} us",
            p50 * 1e6,
            p99 * 1e6,
            max * 1e6
        ));
    }
    if let Some(wa) = &mut watcher {
        wa.finish()?;
        let name = args.watch.as_deref().unwrap_or_default();
        say(&format!(
            "watch {name}: {} matches added, {} removed, {} modified; {:.3} s finding them",
            wa.added, wa.removed, wa.modified, wa.secs
        ));
        for (k, v) in
            [("watch_added", wa.added), ("watch_removed", wa.removed), ("watch_modified", wa.modified)]
        {
            report.insert(k.into(), v.into());
        }
        report.insert("watch_secs".into(), wa.secs.into());
    }
    let io = w.snapshot().base().io_stats();
    if args.backend.stats {
        eprintln!("{}", io.to_json());
    }
    for (k, v) in [
        ("misses", io.misses),
        ("bytes_read", io.bytes_read),
        ("updates", items.len() as u64),
        ("batches", lat.len() as u64),
        ("batch_size", size as u64),
    ] {
        report.insert(k.into(), v.into());
    }
    for (k, v) in [
        ("total_secs", total),
        ("updates_per_sec", rate),
        ("p50_us", p50 * 1e6),
        ("p99_us", p99 * 1e6),
        ("max_us", max * 1e6),
    ] {
        report.insert(k.into(), v.into());
    }
    let mut failed = Vec::new();
    if args.verify {
        let snap = w.snapshot();
        for m in &ms {
            let got = m.result(&w)?;
            let t = Instant::now();
            let want = m.spec().build(&snap)?.result();
            let secs = t.elapsed().as_secs_f64();
            let ok = same(m.spec(), &got, &want);
            say(&format!(
                "{}: {} a full recomputation ({secs:.3} s)",
                m.spec().name(),
                if ok { "equals" } else { "DIFFERS FROM" }
            ));
            report.insert(format!("recompute_secs.{}", m.spec().name()), secs.into());
            if !ok {
                failed.push(m.spec().name());
            }
        }
    }
    if !args.no_save {
        for m in &ms {
            m.save(&w)?;
        }
    }
    if let Some(mut f) = json_out.take() {
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(report)).expect("plain values");
        f.write_bytes(text.as_bytes())?;
        f.commit()?;
    }
    for m in ms {
        m.stop(&w);
    }
    w.close()?;
    if !unusable.is_empty() {
        return Err(Error::input(
            &args.updates,
            format!(
                "the updates leave results that cannot be kept (the others were saved): {}",
                unusable.join("; ")
            ),
        ));
    }
    if !failed.is_empty() {
        return Err(Error::invalid(format!(
            "maintained results differ from recomputation: {}",
            failed.join(", ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::percentile;

    /// Nearest rank, checked by hand: of two batches p50 is the smaller (it was the larger, as max).
    #[test]
    fn percentiles_are_nearest_ranks() {
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!([50.0, 99.0, 100.0].map(|p| percentile(&[7.0], p)), [7.0; 3]);
        assert_eq!([50.0, 99.0, 100.0].map(|p| percentile(&[1.0, 9.0], p)), [1.0, 9.0, 9.0]);
        let xs: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!([0.0, 50.0, 99.0, 100.0].map(|p| percentile(&xs, p)), [1.0, 100.0, 198.0, 200.0]);
    }
}
