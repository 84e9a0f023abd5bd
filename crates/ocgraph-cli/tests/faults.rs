//! Fault injection below the engine: an `LD_PRELOAD` shim (`tests/faults/faultfs.c` at the top
//! of the repository, compiled
//! here with `cc`) makes one libc call of `ocgraph update` or `ocgraph compact` fail — a write,
//! fsync, read, rename, open, mkdir, unlink or ftruncate on one file of the graph — with EIO,
//! ENOSPC or a short count.
//!
//! Each call site is a file pattern and an operation in a scenario that reaches it (the plain
//! update path, WAL replay at open, a freeze into a level, a compaction, the id log of a
//! relabelled graph, the label log of label updates). A dry run under the shim counts the site's calls; trials then fail one of
//! them (the middle one; every one up to 40 with `OCGRAPH_SLOW=1`) and check that:
//!
//! - the command ends with a normal error (no panic, no signal) whose message names the file
//!   (a short write or read may instead be completed by the engine's retry, and a failed
//!   removal of a file that is garbage already may be left for the next open to remove);
//! - `ocgraph check` passes and `ocgraph export` shows exactly the first `k` batches of a
//!   brute-force model for some `k` at least the last batch the command acknowledged
//!   (`update --ack`), and at most the batches it was given;
//! - a later fault-free update is applied on top (the graph stays usable).
//!
//! The shim cannot reach memory-mapped I/O (level files and the mmap backend are read through
//! page faults) nor io_uring reads (the pool's prefetcher); a failing write-back of mapped pages
//! cannot happen because nothing writes through a mapping. The paged delta's pool write-back
//! (`pwritev`) is covered by `update_crash.rs`'s failing-write trials (`prlimit`), since the
//! CLI keeps the delta in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[path = "../../../tests/faults/shim.rs"]
mod shim;
use shim::build_shim;

/// Vertices of the base graph (ids `0..BASE_N`, plus [`ID_OFFSET`] in the relabelled one).
const BASE_N: u64 = 60;
/// Offset of the original ids of the relabelled base.
const ID_OFFSET: u64 = 1000;
/// Edges per batch (`update --batch-size`).
const BATCH: usize = 20;

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn slow() -> bool {
    std::env::var("OCGRAPH_SLOW").is_ok_and(|v| v == "1")
}

/// A weighted edge list: `(src, dst) -> weight`.
type Edges = BTreeMap<(u64, u64), f32>;

/// One batch as the CLI applies it.
#[derive(Clone, Debug)]
enum Batch {
    Add(Vec<(u64, u64, f32)>),
    Remove(Vec<(u64, u64)>),
}

/// The edges after `batches` on `base` (adding an edge that exists replaces its weight).
fn model(base: &Edges, batches: &[Batch]) -> Edges {
    let mut m = base.clone();
    for b in batches {
        match b {
            Batch::Add(e) => {
                for &(s, d, w) in e {
                    m.insert((s, d), w);
                }
            }
            Batch::Remove(e) => {
                for k in e {
                    m.remove(k);
                }
            }
        }
    }
    m
}

/// The input files of every scenario and the batches each makes.
struct Inputs {
    dir: PathBuf,
    base: Edges,
}

impl Inputs {
    /// Writes `base.txt` (unique edges on `0..BASE_N`), the update files and their
    /// `+ID_OFFSET` copies for the relabelled graph; `ids-add.txt` also names new vertices.
    fn new(dir: &Path) -> Inputs {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(38);
        let mut base = Edges::new();
        while base.len() < 300 {
            base.insert((rng.gen_range(0..BASE_N), rng.gen_range(0..BASE_N)), rng.gen_range(1..100) as f32);
        }
        let edges = |rng: &mut Xoshiro256PlusPlus, k: usize, hi: u64| -> Vec<(u64, u64, f32)> {
            let mut seen = std::collections::BTreeSet::new();
            let mut out = Vec::new();
            while out.len() < k {
                let (s, d) = (rng.gen_range(0..hi), rng.gen_range(0..hi));
                if seen.insert((s, d)) {
                    out.push((s, d, rng.gen_range(1..100) as f32));
                }
            }
            out
        };
        let add_a = edges(&mut rng, 6 * BATCH, BASE_N);
        let add_b = edges(&mut rng, 2 * BATCH, BASE_N);
        // Removals: some base edges, some added ones, some missing.
        let mut rm: Vec<(u64, u64)> = base.keys().step_by(9).copied().collect();
        rm.extend(add_a.iter().step_by(4).map(|&(s, d, _)| (s, d)));
        rm.extend((0..10).map(|_| (rng.gen_range(0..BASE_N), rng.gen_range(0..BASE_N))));
        rm.truncate(3 * BATCH);
        let ids_add: Vec<(u64, u64, f32)> = edges(&mut rng, 4 * BATCH, BASE_N + 30)
            .into_iter()
            .map(|(s, d, w)| (s + ID_OFFSET, d + ID_OFFSET, w))
            .collect();
        let write = |name: &str, lines: Vec<String>| {
            std::fs::write(dir.join(name), lines.concat()).unwrap();
        };
        let wlines = |e: &[(u64, u64, f32)], off: u64| -> Vec<String> {
            e.iter().map(|(s, d, w)| format!("{} {} {w}\n", s + off, d + off)).collect()
        };
        let base_v: Vec<(u64, u64, f32)> = base.iter().map(|(&(s, d), &w)| (s, d, w)).collect();
        write("base.txt", wlines(&base_v, 0));
        write("ids-base.txt", wlines(&base_v, ID_OFFSET));
        write("add-a.txt", wlines(&add_a, 0));
        write("add-b.txt", wlines(&add_b, 0));
        write("rm-a.txt", rm.iter().map(|(s, d)| format!("{s} {d}\n")).collect());
        write("ids-add.txt", wlines(&ids_add, 0));
        // Label updates: 3 batches, some vertices labelled twice, some labels removed.
        let labels: Vec<String> = (0..50)
            .map(|i| {
                let v = if i % 7 == 0 { 3 } else { rng.gen_range(0..BASE_N) };
                let l = if i % 9 == 4 { "-".to_string() } else { rng.gen_range(0..5).to_string() };
                format!("L {v} {l}\n")
            })
            .collect();
        write("labels-a.txt", labels);
        Inputs { dir: dir.to_path_buf(), base }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The batches `update` makes of file `name` (adds or removals, [`BATCH`] edges each; a
    /// label file's batches change no edge).
    fn batches(&self, name: &str) -> Vec<Batch> {
        let text = std::fs::read_to_string(self.file(name)).unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().collect()).collect();
        let num = |s: &str| s.parse::<u64>().unwrap();
        rows.chunks(BATCH)
            .map(|c| {
                if name.starts_with("labels") {
                    Batch::Add(Vec::new())
                } else if name.starts_with("rm") {
                    Batch::Remove(c.iter().map(|r| (num(r[0]), num(r[1]))).collect())
                } else {
                    Batch::Add(c.iter().map(|r| (num(r[0]), num(r[1]), r[2].parse().unwrap())).collect())
                }
            })
            .collect()
    }

    /// The base edges in the id space of `ids` (the relabelled graph uses original ids).
    fn base_edges(&self, ids: bool) -> Edges {
        let off = if ids { ID_OFFSET } else { 0 };
        self.base.iter().map(|(&(s, d), &w)| ((s + off, d + off), w)).collect()
    }
}

/// A scenario: how the graph is prepared (fault-free) and the command that runs under the shim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    /// `update` with adds then removals on a fresh graph (WAL appends and per-batch fsyncs).
    Update,
    /// The same with `--backend pool` (the base read through the buffer pool's `pread`).
    UpdatePool,
    /// `update` on a graph whose log holds batches (read and replayed at open).
    Replay,
    /// `update --durability none --freeze` (WAL rotation, level file, manifest, directories).
    Freeze,
    /// `compact` of a graph with two levels (new base directory, manifest switch).
    Compact,
    /// `update --original-ids` adding new vertices to a relabelled graph (the id log).
    Ids,
    /// `compact` of that graph after the update (the id log rewritten without the ids the new
    /// base holds).
    IdsCompact,
    /// `update --durability none --freeze` after label updates (the label log created and
    /// appended at the checkpoint).
    Labels,
    /// `compact` after label updates were frozen (the labels written into the new base, the
    /// label log removed).
    LabelsCompact,
}

impl Scenario {
    /// Fault-free commands run first, each an `ocgraph` argument list (`G` is the graph).
    fn setup(self) -> Vec<Vec<&'static str>> {
        let upd = |file: &'static str| vec!["update", "G", "--add-edges", file, "--batch-size", "20"];
        match self {
            Scenario::Update | Scenario::UpdatePool | Scenario::Ids => vec![],
            Scenario::IdsCompact => {
                vec![vec![
                    "update",
                    "G",
                    "--original-ids",
                    "--add-edges",
                    "ids-add.txt",
                    "--batch-size",
                    "20",
                ]]
            }
            Scenario::Replay | Scenario::Freeze => vec![upd("add-a.txt")],
            Scenario::Labels => {
                vec![vec!["update", "G", "--set-labels", "labels-a.txt", "--batch-size", "20"]]
            }
            Scenario::LabelsCompact => {
                let mut a = upd("add-a.txt");
                a.extend(["--set-labels", "labels-a.txt", "--freeze"]);
                vec![a]
            }
            Scenario::Compact => {
                let mut a = upd("add-a.txt");
                a.push("--freeze");
                let b = vec!["update", "G", "--remove-edges", "rm-a.txt", "--batch-size", "20", "--freeze"];
                vec![a, b]
            }
        }
    }

    /// The command run under the shim.
    fn faulted(self) -> Vec<&'static str> {
        let mut a = vec!["update", "G", "--batch-size", "20", "--ack"];
        match self {
            Scenario::Update => a.extend(["--add-edges", "add-a.txt", "--remove-edges", "rm-a.txt"]),
            Scenario::UpdatePool => {
                a.extend(["--remove-edges", "rm-a.txt", "--backend", "pool", "--memory", "64KiB"])
            }
            Scenario::Replay => a.extend(["--remove-edges", "rm-a.txt"]),
            Scenario::Freeze | Scenario::Labels => {
                a.extend(["--remove-edges", "rm-a.txt", "--durability", "none", "--freeze"])
            }
            Scenario::Compact | Scenario::IdsCompact | Scenario::LabelsCompact => {
                return vec!["compact", "G"]
            }
            Scenario::Ids => a.extend(["--original-ids", "--add-edges", "ids-add.txt"]),
        }
        a
    }

    /// Whether the graph is the relabelled one (files and export in original ids).
    fn ids(self) -> bool {
        matches!(self, Scenario::Ids | Scenario::IdsCompact)
    }

    /// The files whose batches the setup and the faulted command apply, in order.
    fn batch_files(self) -> (Vec<&'static str>, Vec<&'static str>) {
        match self {
            Scenario::Update => (vec![], vec!["add-a.txt", "rm-a.txt"]),
            Scenario::UpdatePool => (vec![], vec!["rm-a.txt"]),
            Scenario::Replay | Scenario::Freeze => (vec!["add-a.txt"], vec!["rm-a.txt"]),
            Scenario::Compact => (vec!["add-a.txt", "rm-a.txt"], vec![]),
            Scenario::Ids => (vec![], vec!["ids-add.txt"]),
            Scenario::IdsCompact => (vec!["ids-add.txt"], vec![]),
            Scenario::Labels => (vec!["labels-a.txt"], vec!["rm-a.txt"]),
            Scenario::LabelsCompact => (vec!["add-a.txt", "labels-a.txt"], vec![]),
        }
    }
}

/// One call site: an operation on the files matching `pattern` (relative to the graph
/// directory; a trailing `$` means the path ends there, `""` alone is the graph directory).
struct Site {
    name: &'static str,
    scenario: Scenario,
    op: &'static str,
    pattern: &'static str,
    /// A best-effort removal of a file no reader needs any more (a compacted level): its
    /// failure may be ignored, leaving the file for the next open to remove.
    cleanup: bool,
}

/// Every call site of the write path the shim can reach through the CLI.
fn sites() -> Vec<Site> {
    use Scenario::*;
    let s = |name, scenario, op, pattern| Site { name, scenario, op, pattern, cleanup: false };
    vec![
        s("WAL segment append", Update, "write", "wal/0"),
        s("WAL segment fdatasync (per batch)", Update, "fsync", "wal/0"),
        s("WAL directory fsync (creation)", Update, "fsync", "wal$"),
        s("graph directory fsync (WAL creation)", Update, "fsync", "$"),
        s("base pages read (pool backend)", UpdatePool, "read", "out."),
        s("WAL segment read (replay)", Replay, "read", "wal/0"),
        s("manifest read (open)", Replay, "read", "manifest"),
        s("WAL segment fdatasync (rotation, close)", Freeze, "fsync", "wal/0"),
        s("WAL directory fsync (rotation, removal)", Freeze, "fsync", "wal$"),
        s("level file write", Freeze, "write", "levels/."),
        s("level file fsync", Freeze, "fsync", "levels/."),
        s("level file rename", Freeze, "rename", "levels/0"),
        s("levels directory fsync", Freeze, "fsync", "levels$"),
        s("manifest write (freeze)", Freeze, "write", "manifest"),
        s("manifest fsync (freeze)", Freeze, "fsync", "manifest"),
        s("manifest rename (freeze)", Freeze, "rename", "manifest"),
        s("graph directory fsync (freeze)", Freeze, "fsync", "$"),
        s("new base files write (compact)", Compact, "write", ".base."),
        s("new base files fsync (compact)", Compact, "fsync", ".base."),
        s("new base directory rename (compact)", Compact, "rename", "base."),
        s("manifest write (compact)", Compact, "write", "manifest"),
        s("manifest fsync (compact)", Compact, "fsync", "manifest"),
        s("manifest rename (compact)", Compact, "rename", "manifest"),
        s("graph directory fsync (compact)", Compact, "fsync", "$"),
        s("id log append", Ids, "write", "ids.log"),
        s("id log fdatasync", Ids, "fsync", "ids.log"),
        s("id log rewrite fsync (compact)", IdsCompact, "fsync", "ids.log"),
        s("id log rewrite rename (compact)", IdsCompact, "rename", "ids.log"),
        s("label log create (freeze)", Labels, "open", "labels."),
        s("label log append (freeze)", Labels, "write", "labels."),
        s("label log fdatasync (freeze)", Labels, "fsync", "labels."),
        Site { cleanup: true, ..s("compacted label log removal", LabelsCompact, "unlink", "labels.") },
        s("WAL directory create", Update, "mkdir", "wal$"),
        s("WAL segment create", Update, "open", "wal/0"),
        s("levels directory create", Freeze, "mkdir", "levels$"),
        s("level file create", Freeze, "open", "levels/."),
        s("manifest temporary file create (freeze)", Freeze, "open", "manifest.tmp"),
        s("new base directory create (compact)", Compact, "mkdir", ".base."),
        s("new base file create (compact)", Compact, "open", ".base."),
        s("WAL segment removal (freeze)", Freeze, "unlink", "wal/0"),
        Site { cleanup: true, ..s("compacted level removal", Compact, "unlink", "levels/0") },
    ]
}

/// The fault kinds that make sense for `op`: the shim's `eio`, `enospc` and `short` fail one
/// call; `full` is ENOSPC on that call and every later one (a disk that stays full).
fn kinds(op: &str) -> &'static [&'static str] {
    match op {
        "write" => &["eio", "enospc", "short", "full"],
        "read" => &["eio", "short"],
        _ => &["eio", "enospc"],
    }
}

/// `ocgraph` with `args`, `G` replaced by `graph` and input file names by their paths.
fn ocgraph(graph: &Path, inputs: &Inputs, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ocgraph"));
    for &a in args {
        if a == "G" {
            c.arg(graph);
        } else if a.ends_with(".txt") {
            c.arg(inputs.file(a));
        } else {
            c.arg(a);
        }
    }
    c
}

fn run_ok(graph: &Path, inputs: &Inputs, args: &[&str]) -> Output {
    let out = ocgraph(graph, inputs, args).output().unwrap();
    assert!(out.status.success(), "ocgraph {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Copies the directory tree `from` to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

/// The edges `ocgraph export` shows (in original ids for the relabelled graph).
fn exported(graph: &Path, inputs: &Inputs, ids: bool, out: &Path) -> Edges {
    let mut args = vec!["export", "G", p(out)];
    if ids {
        args.push("--original-ids");
    }
    run_ok(graph, inputs, &args);
    let text = std::fs::read_to_string(out).unwrap();
    text.lines()
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            ((c[0].parse().unwrap(), c[1].parse().unwrap()), c[2].parse().unwrap())
        })
        .collect()
}

/// A prepared scenario: its graph after the setup, and the batches of setup and faulted run.
struct Prepared {
    graph: PathBuf,
    base: Edges,
    setup_batches: Vec<Batch>,
    faulted_batches: Vec<Batch>,
}

fn prepare(scenario: Scenario, inputs: &Inputs, root: &Path) -> Prepared {
    let graph = root.join(format!("{scenario:?}")).join("g");
    std::fs::create_dir_all(graph.parent().unwrap()).unwrap();
    let ids = scenario.ids();
    let base_file = if ids { "ids-base.txt" } else { "base.txt" };
    let mut import = vec!["import", base_file, "G", "--weighted", "--quiet"];
    if ids {
        import.push("--relabel");
    }
    run_ok(&graph, inputs, &import);
    for args in scenario.setup() {
        run_ok(&graph, inputs, &args);
    }
    let (setup_files, faulted_files) = scenario.batch_files();
    let batches = |files: Vec<&str>| files.into_iter().flat_map(|f| inputs.batches(f)).collect();
    Prepared {
        graph,
        base: inputs.base_edges(ids),
        setup_batches: batches(setup_files),
        faulted_batches: batches(faulted_files),
    }
}

/// What one trial saw.
#[derive(Default)]
struct Outcome {
    /// The command failed with an error naming the faulted file.
    named: bool,
    /// The command completed (a short count the engine retried, a read it made again).
    completed: bool,
    /// Batches the command acknowledged (including the setup's).
    acked: u64,
    /// Batches the reopened graph holds.
    recovered: u64,
}

/// The shim's environment for failing call `nth` of `site` on `graph` with `kind`.
fn shim_env(cmd: &mut Command, shim: &Path, site: &Site, graph: &Path, kind: &str, nth: u64, log: &Path) {
    let pattern = match site.pattern {
        "$" => format!("{}$", graph.display()),
        pat => format!("{}/{pat}", graph.display()),
    };
    cmd.env("LD_PRELOAD", shim)
        .env("FAULT_OP", site.op)
        .env("FAULT_PATH_SUBSTR", pattern)
        .env("FAULT_KIND", if kind == "full" { "enospc" } else { kind })
        .env("FAULT_STICKY", if kind == "full" { "1" } else { "0" })
        .env("FAULT_NTH", nth.to_string())
        .env("FAULT_LOG", log);
}

/// How often the faulted command of `site` makes a matching call (a dry run under the shim).
fn count_calls(shim: &Path, site: &Site, prep: &Prepared, inputs: &Inputs, scratch: &Path) -> u64 {
    let graph = scratch.join("g");
    copy_tree(&prep.graph, &graph);
    let log = scratch.join("count.log");
    let mut cmd = ocgraph(&graph, inputs, &site.scenario.faulted());
    shim_env(&mut cmd, shim, site, &graph, "eio", 0, &log);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "dry run of {}: {}", site.name, String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    std::fs::remove_dir_all(scratch).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("count "))
        .map(|n| n.parse::<u64>().unwrap())
        .max()
        .unwrap_or(0)
}

/// One trial: fails call `nth` of `site` with `kind` and checks the error and the reopened graph.
fn trial(
    shim: &Path,
    site: &Site,
    kind: &str,
    nth: u64,
    prep: &Prepared,
    inputs: &Inputs,
    scratch: &Path,
) -> Outcome {
    let what = format!("{} ({}, {kind}, call {nth})", site.name, site.op);
    let graph = scratch.join("g");
    copy_tree(&prep.graph, &graph);
    let log = scratch.join("fault.log");
    let mut cmd = ocgraph(&graph, inputs, &site.scenario.faulted());
    shim_env(&mut cmd, shim, site, &graph, kind, nth, &log);
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.code().is_some(), "{what}: killed by a signal ({}): {stderr}", out.status);
    let panicked = stderr.contains("panicked") || stderr.contains("internal error");
    assert!(!panicked, "{what}: panicked: {stderr}");
    let fired: Vec<String> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with("count "))
        .map(String::from)
        .collect();
    assert!(!fired.is_empty(), "{what}: the fault never fired");
    assert!(fired.len() == 1 || kind == "full", "{what}: the fault fired {} times: {fired:?}", fired.len());
    let faulted_path = fired[0].split(' ').nth(1).unwrap().to_string();
    let file_name = Path::new(&faulted_path).file_name().unwrap().to_string_lossy().into_owned();
    let mut outcome = Outcome::default();
    if out.status.success() {
        // Only a short count may be completed by a retry, and a failed read by another read
        // (the pool's O_DIRECT probe falls back to buffered reads); a failed write, fsync or
        // rename must never be swallowed. Either way the graph must then hold every batch.
        assert!(
            kind == "short" || site.op == "read" || site.cleanup,
            "{what}: the command succeeded despite the fault: {stdout}"
        );
        outcome.completed = true;
    } else {
        assert_eq!(out.status.code(), Some(1), "{what}: exit code: {stderr}");
        let err =
            stderr.lines().rfind(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{what}: {stderr}"));
        assert!(err.contains(&file_name), "{what}: the error does not name {faulted_path}: {err}");
        outcome.named = true;
    }
    let setup = prep.setup_batches.len() as u64;
    let acks = stdout.lines().filter_map(|l| l.strip_prefix("ack ")).map(|s| s.parse::<u64>().unwrap());
    outcome.acked = acks.max().unwrap_or(0).max(setup);
    // Reopened: check passes and the edges are the first k batches for some k >= acked.
    run_ok(&graph, inputs, &["check", "G"]);
    let ids = site.scenario.ids();
    let all: Vec<Batch> = prep.setup_batches.iter().chain(&prep.faulted_batches).cloned().collect();
    let got = exported(&graph, inputs, ids, &scratch.join("out.txt"));
    let k = (outcome.acked as usize..=all.len()).find(|&k| model(&prep.base, &all[..k]) == got);
    let k = k.unwrap_or_else(|| {
        panic!("{what}: the reopened graph is not the first k >= {} batches: {stderr}", outcome.acked)
    });
    if outcome.completed {
        assert_eq!(k, all.len(), "{what}: completed but holds {k} of {} batches", all.len());
    }
    outcome.recovered = k as u64;
    // Still usable: a fault-free update lands on top of what was recovered.
    let (file, more) = if ids {
        ("ids-add.txt", inputs.batches("ids-add.txt"))
    } else {
        ("add-b.txt", inputs.batches("add-b.txt"))
    };
    let mut upd = vec!["update", "G", "--add-edges", file, "--batch-size", "20"];
    if ids {
        upd.push("--original-ids");
    }
    run_ok(&graph, inputs, &upd);
    let mut want: Vec<Batch> = all[..k].to_vec();
    want.extend(more);
    assert_eq!(
        exported(&graph, inputs, ids, &scratch.join("out.txt")),
        model(&prep.base, &want),
        "{what}: an update after recovery"
    );
    std::fs::remove_dir_all(scratch).unwrap();
    outcome
}

/// The totals of one site and fault kind.
#[derive(Default)]
struct Tally {
    trials: u64,
    named: u64,
    completed: u64,
    acked: u64,
}

#[test]
fn faults_below_the_engine_give_errors_naming_the_file_and_lose_no_acknowledged_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(shim) = build_shim(&root) else { return };
    let inputs = Inputs::new(&root);
    let mut prepared: BTreeMap<String, Prepared> = BTreeMap::new();
    let mut lines = Vec::new();
    let mut total = 0;
    for site in sites() {
        let key = format!("{:?}", site.scenario);
        let prep = prepared.entry(key).or_insert_with(|| {
            let prep = prepare(site.scenario, &inputs, &root);
            // The model agrees with a fault-free run.
            let scratch = root.join("sanity");
            copy_tree(&prep.graph, &scratch.join("g"));
            run_ok(&scratch.join("g"), &inputs, &site.scenario.faulted());
            let all: Vec<Batch> = prep.setup_batches.iter().chain(&prep.faulted_batches).cloned().collect();
            let got = exported(&scratch.join("g"), &inputs, site.scenario.ids(), &scratch.join("out.txt"));
            assert_eq!(
                got,
                model(&prep.base, &all),
                "{:?}: a fault-free run differs from the model",
                site.scenario
            );
            std::fs::remove_dir_all(&scratch).unwrap();
            prep
        });
        let calls = count_calls(&shim, &site, prep, &inputs, &root.join("scratch"));
        assert!(calls > 0, "{}: the scenario never reaches this call site", site.name);
        let nths: Vec<u64> = if slow() { (1..=calls.min(40)).collect() } else { vec![calls.div_ceil(2)] };
        for &kind in kinds(site.op) {
            let mut t = Tally::default();
            for &nth in &nths {
                let o = trial(&shim, &site, kind, nth, prep, &inputs, &root.join("scratch"));
                t.trials += 1;
                t.named += o.named as u64;
                t.completed += o.completed as u64;
                t.acked += o.acked;
                assert!(o.recovered >= o.acked);
            }
            total += t.trials;
            lines.push(format!(
                "fault site | {:<42} | {:<6} | {:<6} | calls {:>3} | trials {:>3} | errors naming the file {:>3} | completed {:>3} | acknowledged batches {:>5} | lost 0",
                site.name, site.op, kind, calls, t.trials, t.named, t.completed, t.acked
            ));
        }
    }
    for l in &lines {
        eprintln!("{l}");
    }
    eprintln!(
        "fault trials: {total} faults injected at {} call sites, no acknowledged batch lost",
        sites().len()
    );
}

/// Result files are written whole or not at all: a full disk while `run --out`, `export`,
/// `workload` or `mine --list --out` writes leaves the previous file as it was and no
/// temporary file beside it, with an error naming the output.
#[test]
fn a_full_disk_leaves_result_files_as_they_were() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(shim) = build_shim(&root) else { return };
    let g = root.join("g");
    let gen = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
        .args(["generate", "kronecker", "--scale", "10", "--quiet", p(&g)])
        .output()
        .unwrap();
    assert!(gen.status.success());
    let out = root.join("result.out");
    let cases: [&[&str]; 4] = [
        &["run", "bfs", p(&g), "--out", p(&out)],
        &["export", p(&g), p(&out)],
        &["workload", "fof", p(&g), "--out", p(&out)],
        &["mine", "cliques", p(&g), "--k", "3", "--list", "--out", p(&out)],
    ];
    for args in cases {
        std::fs::write(&out, "old\n").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
            .args(args)
            .env("LD_PRELOAD", &shim)
            .env("FAULT_OP", "write")
            .env("FAULT_KIND", "enospc")
            .env("FAULT_STICKY", "1")
            .env("FAULT_PATH_SUBSTR", ".result.out.tmp")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("result.out") && !err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n", "{args:?} changed the old file");
        let left: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// A fault the shim injects into one run: the `nth` call of `op` on a path holding `path` fails
/// as `kind` says.
struct Fault<'a> {
    op: &'a str,
    kind: &'a str,
    nth: &'a str,
    path: &'a str,
}

/// Runs the CLI with `args`, under `fault` (through the shim `shim`) when one is given.
fn run_with_fault(shim: &Path, args: &[&str], fault: Option<Fault>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ocgraph"));
    cmd.args(args);
    if let Some(f) = fault {
        cmd.env("LD_PRELOAD", shim)
            .env("FAULT_OP", f.op)
            .env("FAULT_KIND", f.kind)
            .env("FAULT_NTH", f.nth)
            .env("FAULT_PATH_SUBSTR", f.path);
    }
    cmd.output().unwrap()
}

/// A full disk while a layout or the labels are written: the command fails naming the file,
/// leaves no temporary file in the graph, and a failed `labels set` keeps the old labels.
#[test]
fn a_full_disk_during_layouts_and_labels_leaves_the_graph_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(shim) = build_shim(&root) else { return };
    let g = root.join("g");
    let run = |args: &[&str], fault: Option<(&str, &str)>| {
        run_with_fault(&shim, args, fault.map(|(path, nth)| Fault { op: "write", kind: "enospc", nth, path }))
    };
    assert!(run(&["generate", "kronecker", "--scale", "10", "--weighted", "--quiet", p(&g)], None)
        .status
        .success());
    let labels = |name: &str, f: fn(u32) -> u32| {
        let path = root.join(name);
        std::fs::write(&path, (0..1024).map(|v| format!("{v} {}\n", f(v))).collect::<String>()).unwrap();
        path
    };
    let (old, new) = (labels("old.txt", |v| v % 5), labels("new.txt", |_| 7));
    assert!(run(&["labels", "set", p(&g), p(&old)], None).status.success());
    let shown = |g: &Path| String::from_utf8(run(&["labels", "show", p(g)], None).stdout).unwrap();
    let before = shown(&g);
    let cases: [(&[&str], &str, &str); 6] = [
        (&["layout", "grid", p(&g)], "grid.edges.tmp", "1"),
        (&["layout", "pack", p(&g)], "out.packed.tmp", "1"),
        (&["layout", "hubs", p(&g)], "hubs", "1"),
        (&["layout", "compress", p(&g)], ".lz4.tmp", "1"),
        (&["labels", "set", p(&g), p(&new)], "labels.1.u32", "1"),
        (&["labels", "set", p(&g), p(&new)], "manifest.tmp", "1"),
    ];
    for (args, path, nth) in cases {
        let o = run(args, Some((path, nth)));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let left: Vec<_> = std::fs::read_dir(&g)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp") || (n.starts_with("labels.") && n != "labels.u32"))
            .collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
        assert!(run(&["check", p(&g)], None).status.success(), "{args:?}");
        assert_eq!(shown(&g), before, "{args:?} changed the labels");
    }
}

/// A full disk while a compaction rebuilds a layout in the new base: the command fails naming
/// the file and leaves no new base directory behind (it stayed until the next writer's open);
/// the graph keeps its updates and a later compaction succeeds.
#[test]
fn a_full_disk_while_a_compaction_rebuilds_a_layout_leaves_no_new_base() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(shim) = build_shim(&root) else { return };
    let g = root.join("g");
    let ok = |args: &[&str]| {
        let o = run_with_fault(&shim, args, None);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    ok(&["generate", "kronecker", "--scale", "10", "--quiet", p(&g)]);
    ok(&["layout", "grid", p(&g)]);
    let added = root.join("add.txt");
    std::fs::write(&added, "1 2\n3 4\n5 1000\n").unwrap();
    ok(&["update", p(&g), "--add-edges", p(&added), "--freeze"]);
    let before = ok(&["export", p(&g), "-"]);
    let bases = || -> Vec<String> {
        let names =
            std::fs::read_dir(&g).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
        names.filter(|n| n.contains("base.")).collect()
    };
    for nth in ["1", "2"] {
        let fault = Fault { op: "write", kind: "enospc", nth, path: "grid.edges" };
        let o = run_with_fault(&shim, &["compact", p(&g)], Some(fault));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "write {nth}: {err}");
        assert!(err.contains("grid.edges") && !err.contains("panicked"), "write {nth}: {err}");
        assert_eq!(bases(), Vec::<String>::new(), "write {nth}");
        ok(&["check", p(&g)]);
        assert_eq!(ok(&["export", p(&g), "-"]), before, "write {nth}");
    }
    ok(&["compact", p(&g)]);
    assert_eq!(bases().len(), 1);
    assert_eq!(ok(&["export", p(&g), "-"]), before);
    ok(&["run", "wcc", p(&g), "--layout", "grid"]);
}

/// `labels set` killed right after its manifest switch has the new labels and leaves the old
/// file, which the next `labels set` removes with any file an earlier kill left unlisted (a kill
/// before the switch leaves the old labels; a failed write is in the full-disk test above).
#[test]
fn labels_set_killed_after_its_switch_keeps_the_new_labels_and_the_next_one_cleans_up() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(shim) = build_shim(&root) else { return };
    let g = root.join("g");
    let run = |args: &[&str], fault: Option<(&str, &str)>| {
        run_with_fault(&shim, args, fault.map(|(op, path)| Fault { op, kind: "kill", nth: "1", path }))
    };
    let edges = root.join("e.txt");
    std::fs::write(&edges, "0 1\n1 2\n2 3\n").unwrap();
    assert!(run(&["import", p(&edges), p(&g), "--quiet"], None).status.success());
    let labels = |name: &str, l: u32| {
        let path = root.join(name);
        std::fs::write(&path, (0..4).map(|v| format!("{v} {l}\n")).collect::<String>()).unwrap();
        path
    };
    let (one, two, three) = (labels("1.txt", 1), labels("2.txt", 2), labels("3.txt", 3));
    let shown = || String::from_utf8(run(&["labels", "show", p(&g)], None).stdout).unwrap();
    let label_files = || {
        let mut names: Vec<String> = std::fs::read_dir(&g)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("labels."))
            .collect();
        names.sort();
        names
    };
    assert!(run(&["labels", "set", p(&g), p(&one)], None).status.success());
    let o = run(&["labels", "set", p(&g), p(&two)], Some(("rename", "manifest")));
    assert!(!o.status.success());
    assert!(shown().contains(" 2") && !shown().contains(" 1"), "{}", shown());
    assert!(run(&["check", p(&g)], None).status.success());
    assert_eq!(label_files(), ["labels.1.u32", "labels.u32"]);
    // As a kill before the switch would leave it: a label file no manifest names.
    std::fs::write(g.join("labels.7.u32"), [0u8; 4096]).unwrap();
    assert!(run(&["labels", "set", p(&g), p(&three)], None).status.success());
    assert!(shown().contains(" 3") && !shown().contains(" 2"), "{}", shown());
    assert_eq!(label_files(), ["labels.2.u32"]);
    // The directory's fsync failing after the manifest's rename (the 4th fsync: the labels,
    // the directory, the manifest, the directory): the command fails, and the graph keeps
    // the new labels it now names; the file is not deleted under it.
    let four = labels("4.txt", 4);
    let fsync = Fault { op: "fsync", kind: "eio", nth: "4", path: p(&g) };
    let o = run_with_fault(&shim, &["labels", "set", p(&g), p(&four)], Some(fsync));
    assert!(!o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(run(&["check", p(&g)], None).status.success());
    assert!(shown().contains(" 4"), "{}", shown());
    assert_eq!(label_files(), ["labels.2.u32", "labels.3.u32"]);
}

#[test]
fn a_replace_killed_between_its_renames_keeps_both_graphs_and_one_killed_after_them_cleans_up() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let Some(shim) = build_shim(&root) else { return };
    let g = root.join("g");
    let generate = |vertices: &str, kill_at_rename: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ocgraph"));
        cmd.args([
            "generate",
            "erdos-renyi",
            "--vertices",
            vertices,
            "--edges",
            "300",
            "--force",
            "--quiet",
            p(&g),
        ]);
        if let Some(nth) = kill_at_rename {
            cmd.env("LD_PRELOAD", &shim)
                .env("FAULT_OP", "rename")
                .env("FAULT_KIND", "kill")
                .env("FAULT_NTH", nth)
                .env("FAULT_PATH_SUBSTR", format!("{}/.g.tmp-", p(&root)));
        }
        cmd.output().unwrap()
    };
    let ocgraph = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_ocgraph")).args(args).output().unwrap();
    let vertices = |g: &Path| {
        let info = String::from_utf8(ocgraph(&["info", p(g)]).stdout).unwrap();
        info.lines().find(|l| l.contains("vertices")).unwrap_or_default().to_string()
    };
    let siblings = || {
        let mut names: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".g."))
            .collect();
        names.sort();
        names
    };
    assert!(generate("100", None).status.success());
    // Killed after both renames: the graph is the new one, and the moved-aside old graph is
    // removed by the next command that looks, so that a later replace works.
    let o = generate("200", Some("2"));
    assert_eq!(o.status.code(), None, "killed by the shim");
    assert!(ocgraph(&["check", p(&g)]).status.success());
    assert!(vertices(&g).contains("200"), "{}", vertices(&g));
    assert!(siblings().is_empty(), "left {:?}", siblings());
    assert!(generate("300", None).status.success(), "a later replace works");
    // Killed between them: the graph's name is free, and both the new graph and the old one
    // moved aside are kept (check must not delete either).
    let o = generate("400", Some("1"));
    assert_eq!(o.status.code(), None, "killed by the shim");
    assert!(!g.exists());
    let checked = ocgraph(&["check", p(&g)]);
    let left = siblings();
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left[1].ends_with(".old") && left[1].starts_with(&left[0]), "{left:?}");
    // Opening the graph names both copies (it said only "No such file or directory").
    let said = String::from_utf8_lossy(&checked.stderr);
    for copy in &left {
        assert!(said.contains(p(&root.join(copy))), "{said}");
    }
    assert!(
        said.contains("No such file or directory") && said.contains("was killed between its two renames"),
        "{said}"
    );
    assert!(vertices(&root.join(&left[0])).contains("400"));
    assert!(vertices(&root.join(&left[1])).contains("300"));
}
