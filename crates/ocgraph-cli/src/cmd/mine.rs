//! `ocgraph mine`: pattern mining on the undirected simple view of a graph: k-cliques, the
//! 3-/4-vertex motif census (or the directed triad census), and user patterns, counted or
//! listed (`--list --out FILE`: one match a line, its vertex ids separated by spaces, in
//! pattern-vertex order; cliques ascending).
//!
//! A pattern is a name (`triangle`, `4-cycle`, `5-clique`, ...) or a file of edges `a b`, one a
//! line, over pattern vertices `0..k` (`#` starts a comment); a line `label a L` gives pattern
//! vertex `a` the label `L`; in a pattern with labels, a vertex without one is a wildcard (it
//! matches any data vertex, labelled or not). Data vertices take the labels stored with the
//! graph (`ocgraph import --labels`, `ocgraph labels set`, label updates), or those of
//! `--labels FILE` (one integer a line, line `i` for vertex `i`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ocgraph_algo::mine::{self, MatchOptions, Pattern, MAX_PATTERN_VERTICES, TRIAD_NAMES};
use ocgraph_core::format::OutputFile;
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::{with_adjacency, Adjacency, Error, Result, Vertex};

use super::text_lines::for_each_text_line;
use super::text_lines::parse_label;
use crate::backend_args::BackendArgs;

/// What `ocgraph mine` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// k-cliques (--k).
    Cliques,
    /// Induced connected motifs of --size 3 or 4 (undirected), or the 16 directed triad
    /// classes (--directed).
    Motifs,
    /// Matches of --pattern (a name or an edge-list file).
    Pattern,
}

/// Arguments of `ocgraph mine`.
#[derive(Args)]
pub struct MineArgs {
    /// What to mine.
    #[arg(value_enum)]
    kind: Kind,
    /// Graph directory.
    pub(crate) graph: PathBuf,
    /// Clique size (cliques), 2 to 16 [default: 3].
    #[arg(long, allow_negative_numbers = true)]
    k: Option<usize>,
    /// Motif size (motifs): 3 or 4 [default: 3].
    #[arg(long, allow_negative_numbers = true)]
    size: Option<usize>,
    /// Directed triad census instead of the undirected census (motifs, size 3).
    #[arg(long)]
    directed: bool,
    /// The pattern: a name (triangle, wedge, diamond, tailed-triangle, K-clique, K-cycle,
    /// K-path, K-star) or an edge-list file (pattern).
    #[arg(long)]
    pattern: Option<String>,
    /// Vertex-induced matches (no extra edge among the matched vertices); default
    /// edge-induced (pattern).
    #[arg(long)]
    induced: bool,
    /// Data vertex labels, one a line (an integer, or - for none), one line per vertex (pattern with labels).
    #[arg(long, value_name = "FILE")]
    labels: Option<PathBuf>,
    /// Count the matches (the default).
    #[arg(long, conflicts_with = "list")]
    count: bool,
    /// List the matches into --out.
    #[arg(long, requires = "out")]
    list: bool,
    /// Where --list writes the matches (text, one a line).
    #[arg(long, requires = "list")]
    out: Option<PathBuf>,
    /// --list writes each vertex's original id (as imported) instead of its vertex id (the
    /// same on a graph that kept its ids); an id that is empty or holds white space is refused.
    #[arg(long, requires = "list")]
    original_ids: bool,
    /// Threads (0 = one per core).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0)]
    threads: usize,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Refuses options of another kind of mining (`--k` for motifs, `--pattern` for cliques...),
/// which would otherwise be ignored without a word.
fn refuse_other_kinds_options(args: &MineArgs) -> Result<()> {
    let given = [
        ("--k", args.k.is_some(), Kind::Cliques),
        ("--size", args.size.is_some(), Kind::Motifs),
        ("--directed", args.directed, Kind::Motifs),
        ("--pattern", args.pattern.is_some(), Kind::Pattern),
        ("--induced", args.induced, Kind::Pattern),
        ("--labels", args.labels.is_some(), Kind::Pattern),
    ];
    for (flag, set, kind) in given {
        if set && args.kind != kind {
            let name = kind.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
            return Err(Error::invalid(format!("{flag} applies to `ocgraph mine {name}` only")));
        }
    }
    Ok(())
}

/// Runs `ocgraph mine`.
pub fn run(args: &MineArgs) -> Result<()> {
    refuse_other_kinds_options(args)?;
    if let Some(out) = &args.out {
        ocgraph_core::format::refuse_output_place(&args.graph, out, "--out")?;
    }
    let pattern_file = args.pattern.as_deref().map(Path::new).filter(|p| p.exists());
    args.backend.refuse_shared_files(&[
        (args.labels.as_deref(), "--labels", false),
        (pattern_file, "--pattern", false),
        (args.out.as_deref(), "--out", true),
    ])?;
    let view = args.backend.open_view(&args.graph)?;
    let pool = super::thread_pool(args.threads, view.base())?;
    let labels = match &args.labels {
        Some(p) => Some(read_labels(p, view.num_vertices())?),
        None => view.labels()?,
    };
    let pattern = match (args.kind, &args.pattern) {
        (Kind::Pattern, None) => return Err(Error::invalid("mine pattern needs --pattern NAME or FILE")),
        (Kind::Pattern, Some(p)) => Some(read_pattern(p)?),
        _ => None,
    };
    if pattern.as_ref().is_some_and(Pattern::is_labelled) && labels.is_none() {
        return Err(Error::invalid(format!(
            "the pattern is labelled and {} has no labels: import it with --labels FILE, run \
             `ocgraph labels set`, or pass --labels FILE",
            args.graph.display()
        )));
    }
    if args.list && args.kind == Kind::Motifs {
        return Err(Error::invalid("--list lists cliques or pattern matches; motifs are counted"));
    }
    let writer = match (&args.out, args.list) {
        (Some(path), true) => Some(Mutex::new((OutputFile::create(path)?, None::<Error>))),
        _ => None,
    };
    let ids = if args.original_ids && view.base().manifest().keeps_ids() { Some(view.ids()?) } else { None };
    let found = Arc::new(AtomicU64::new(0));
    let progress = Progress::start(args.quiet, &found);
    let started = Instant::now();
    // Each listed match: one line; the first error (a write's, an id's) is kept and reported.
    let emit = |m: &[Vertex]| {
        found.fetch_add(1, Relaxed);
        if let Some(w) = &writer {
            let line = match_line(m, ids.as_ref());
            let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
            if w.1.is_none() {
                w.1 = match line {
                    Ok(line) => {
                        w.0.write_all(line.as_bytes()).err().map(|e| Error::io(w.0.path(), "write", e))
                    }
                    Err(e) => Some(e),
                };
            }
        }
    };
    let lines: Vec<String> = pool.install(|| {
        with_adjacency!(&view, |out, inn| mine_on(
            args,
            pattern.as_ref(),
            labels.as_deref(),
            &out,
            &inn,
            &emit
        ))
    })?;
    let secs = started.elapsed().as_secs_f64();
    progress.finish();
    // With `--out -` the matches go to standard output alone, the report to standard error.
    let say = |line: &str| super::report(super::data_on_stdout(&[args.out.as_deref()]), line);
    for l in &lines {
        say(l);
    }
    say(&format!("mine {}: {secs:.6} s, {} thread(s)", kind_name(args.kind), pool.current_num_threads()));
    if let (Some(w), Some(path)) = (writer, &args.out) {
        let (w, err) = w.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = err {
            return Err(e);
        }
        w.commit()?;
        say(&format!("{} matches written to {}", found.load(Relaxed), path.display()));
    }
    args.backend.report_stats(view.base())
}

/// One listed match: its vertices (or their original ids) separated by spaces.
fn match_line(m: &[Vertex], ids: Option<&IdLookup>) -> Result<String> {
    let mut line = String::with_capacity(m.len() * 8);
    for (i, &v) in m.iter().enumerate() {
        line.push_str(if i == 0 { "" } else { " " });
        match ids.map(|ids| ids.original(v)) {
            Some(OriginalId::Str(s)) if s.is_empty() || s.contains(char::is_whitespace) => {
                return Err(Error::invalid(format!(
                    "--original-ids: the id {s:?} of vertex {v} is empty or holds white space, which \
                     a line of ids separated by spaces cannot show; list without --original-ids"
                )));
            }
            Some(id) => line.push_str(&id.to_string()),
            None => line.push_str(&v.to_string()),
        }
    }
    line.push('\n');
    Ok(line)
}

fn kind_name(k: Kind) -> String {
    k.to_possible_value().expect("no skipped variants").get_name().to_string()
}

/// Runs the chosen miner; returns the summary lines.
fn mine_on<O: Adjacency, I: Adjacency>(
    args: &MineArgs,
    pattern: Option<&Pattern>,
    labels: Option<&[u32]>,
    out: &O,
    inn: &I,
    emit: &(impl Fn(&[Vertex]) + Sync),
) -> Result<Vec<String>> {
    let (k, size) = (args.k.unwrap_or(3), args.size.unwrap_or(3));
    Ok(match args.kind {
        Kind::Cliques => {
            let c = if args.list {
                mine::for_each_clique(out, inn, k, emit)?
            } else {
                mine::count_cliques(out, inn, k)?
            };
            vec![format!("{k}-cliques: {c}")]
        }
        Kind::Motifs if args.directed => {
            if size != 3 {
                return Err(Error::invalid("the directed census is over 3 vertices (--size 3)"));
            }
            let c = mine::triad_census(out, inn)?;
            TRIAD_NAMES.iter().zip(c).map(|(n, c)| format!("{n}: {c}")).collect()
        }
        Kind::Motifs => {
            let names = mine::motif_names(size)?;
            let c = mine::motif_census(out, inn, size)?;
            names.iter().zip(c).map(|(n, c)| format!("{n}: {c}")).collect()
        }
        Kind::Pattern => {
            let p = pattern.expect("checked by run");
            let opts = MatchOptions { induced: args.induced, labels };
            let c = if args.list {
                mine::for_each_match(out, inn, p, opts, emit)?
            } else {
                mine::count_matches(out, inn, p, opts)?
            };
            let kind = if args.induced { "vertex-induced" } else { "edge-induced" };
            vec![format!("matches ({kind}, {} vertices, {} edges): {c}", p.num_vertices(), p.edges().len())]
        }
    })
}

/// A spinner with the elapsed time and the matches listed so far (on a terminal only).
struct Progress {
    bar: Option<ProgressBar>,
    stop: Option<std::sync::mpsc::Sender<()>>,
}

impl Progress {
    /// Starts the display (nothing when `quiet` or stderr is not a terminal); `found` counts
    /// the matches listed so far.
    fn start(quiet: bool, found: &Arc<AtomicU64>) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None, stop: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} mining: {msg} ({elapsed})").expect("valid template"),
        );
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (b, found) = (bar.clone(), found.clone());
        std::thread::spawn(move || {
            while rx.recv_timeout(Duration::from_millis(200)).is_err() {
                b.set_message(format!("{} listed", found.load(Relaxed)));
                b.tick();
            }
        });
        Progress { bar: Some(bar), stop: Some(tx) }
    }

    fn finish(self) {
        if let Some(tx) = self.stop {
            let _ = tx.send(());
        }
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Reads a pattern: a name, or an edge-list file (see the module docs).
pub(crate) fn read_pattern(spec: &str) -> Result<Pattern> {
    let path = Path::new(spec);
    if !path.exists() {
        // Not a file: a name, or a path mistyped (which the name's error must not hide).
        return Pattern::named(spec).map_err(|e| {
            if spec.contains(['/', '.']) {
                Error::invalid(format!("{spec}: no such pattern file (nor a pattern name)"))
            } else {
                e
            }
        });
    }
    // Each `label a L` line with its line number, checked once the edges give the vertex count.
    let (mut edges, mut label_lines) = (Vec::new(), Vec::<(usize, u32, u64)>::new());
    for_each_text_line(path, |no, line| {
        let text = line.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            return Ok(());
        }
        let at = |msg: String| Error::input_line(path, no, msg);
        let bad = || at(format!("expected `a b` or `label a L`, got {text:?}"));
        let words: Vec<&str> = text.split_whitespace().collect();
        let num = |w: &str| w.parse::<usize>().map_err(|_| bad());
        // An edge's vertices are numbered from 0, below the pattern size limit.
        let end = |w: &str| match num(w)? {
            a if a < MAX_PATTERN_VERTICES => Ok(a),
            a => Err(at(format!(
                "pattern vertex {a}: patterns have at most {MAX_PATTERN_VERTICES} vertices, numbered from 0"
            ))),
        };
        match words.as_slice() {
            ["label", a, l] => {
                let l = l.parse::<u32>().ok().filter(|&l| l != NO_LABEL).ok_or_else(|| {
                    at(format!(
                        "label {l:?}: a pattern label is an integer from 0 to {} (a vertex without \
                         a `label` line matches any label)",
                        NO_LABEL - 1
                    ))
                })?;
                label_lines.push((num(a)?, l, no));
            }
            [a, b] => match (end(a)?, end(b)?) {
                (a, b) if a == b => return Err(at(format!("pattern edge {a}-{b} is a self-loop"))),
                edge => edges.push(edge),
            },
            _ => return Err(bad()),
        }
        Ok(())
    })?;
    // A pattern vertex without a `label` line is a wildcard (matches any data label).
    let k = edges.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(0);
    let mut labels = vec![None; k];
    for &(a, l, line) in &label_lines {
        let at = |msg: String| Error::input_line(path, line, msg);
        match labels.get_mut(a) {
            None if k == 0 => return Err(at("a label, but the pattern has no edges".into())),
            None => {
                return Err(at(format!(
                    "label of vertex {a}, but the pattern's edges use vertices 0 to {}",
                    k - 1
                )))
            }
            Some(Some(_)) => return Err(at(format!("vertex {a} is labelled twice"))),
            Some(slot) => *slot = Some(l),
        }
    }
    let labels = (!label_lines.is_empty()).then_some(labels);
    // What is wrong with the pattern as a whole (not connected, a vertex in no edge) is the
    // file's.
    Pattern::from_edges(&edges, labels).map_err(|e| match e {
        Error::InvalidArgument(msg) => Error::input(path, msg),
        e => e,
    })
}

/// Reads data vertex labels: one a line (an unsigned integer, or `-` for none), one line per
/// vertex of a graph of `n` vertices (vertex 0 first); another count is an error naming the
/// file.
pub(crate) fn read_labels(path: &Path, n: usize) -> Result<Vec<u32>> {
    let mut labels = Vec::new();
    for_each_text_line(path, |no, line| {
        let label = parse_label(line.trim()).map_err(|e| Error::input_line(path, no, e))?;
        labels.push(label);
        Ok(())
    })?;
    if labels.len() != n {
        return Err(Error::input(
            path,
            format!("{} labels for a graph of {n} vertices (one a line, vertex 0 first)", labels.len()),
        ));
    }
    Ok(labels)
}
