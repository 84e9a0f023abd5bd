//! End-to-end tests of `ocgraph run`: every kernel verifies (PASS) on generated graphs, `.npy`/`.txt` outputs hold the same values as calling the kernels directly, and bad
//! arguments fail cleanly.

use std::path::Path;
use std::process::{Command, Output};

use ocgraph_core::{Graph, OpenOptions};

fn ocgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ocgraph")).args(args).output().expect("run ocgraph")
}

fn ok(args: &[&str]) -> String {
    let out = ocgraph(args);
    assert!(out.status.success(), "ocgraph {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Parses a 1-D NPY v1.0 file: (descr, raw little-endian values).
fn read_npy(path: &Path) -> (String, Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
    let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
    assert_eq!((10 + hlen) % 64, 0);
    let header = std::str::from_utf8(&b[10..10 + hlen]).unwrap();
    let descr = header.split('\'').nth(3).unwrap().to_string();
    let size: usize = descr[2..].parse().unwrap();
    let data = b[10 + hlen..].to_vec();
    let shape = format!("'shape': ({},)", data.len() / size);
    assert!(header.contains(&shape), "{header} vs {shape}");
    (descr, data)
}

fn as_i64(v: &[u8]) -> Vec<i64> {
    v.chunks(8).map(|b| i64::from_le_bytes(b.try_into().unwrap())).collect()
}

fn as_u32(v: &[u8]) -> Vec<u32> {
    v.chunks(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect()
}

fn as_f64(v: &[u8]) -> Vec<f64> {
    v.chunks(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect()
}

#[test]
fn every_kernel_passes_verification_and_writes_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("kron");
    let road = dir.path().join("road");
    ok(&[
        "generate",
        "kronecker",
        "--scale",
        "9",
        "--edge-factor",
        "8",
        "--seed",
        "3",
        "--directed",
        "--quiet",
        p(&g),
    ]);
    ok(&["generate", "road", "--rows", "20", "--cols", "30", "--seed", "2", "--quiet", p(&road)]);
    let graph = Graph::open(&g, &OpenOptions::default()).unwrap();
    let (out, inn) = (graph.out(), graph.in_());
    let npy = dir.path().join("r.npy");
    // A pool of 16 frames, far smaller than the graph, with CLOCK and with GAC's parameters.
    let backends: [&[&str]; 3] = [
        &["--backend", "mmap"],
        &["--backend", "pool", "--memory", "64KiB", "--page-size", "4KiB", "--policy", "clock"],
        &["--backend", "pool", "--memory", "64KiB", "--policy", "gac:decay=0.99:guidegap=0.5"],
    ];
    for algo in ["bfs", "sssp", "wcc", "pagerank", "triangle-count", "diameter", "k-hop", "shortest-path"] {
        for backend in backends {
            let mut args =
                vec!["run", algo, p(&g), "--verify", "--trials", "2", "--threads", "2", "--out", p(&npy)];
            args.extend_from_slice(backend);
            args.extend_from_slice(&["--source", "1", "--target", "7"]);
            let stdout = ok(&args);
            assert!(stdout.contains("verification: PASS"), "{algo}: {stdout}");
            assert_eq!(stdout.matches("trial ").count(), 2, "{stdout}");
            let (descr, data) = read_npy(&npy);
            match algo {
                "bfs" => assert_eq!(as_i64(&data), ocgraph_algo::bfs(&out, &inn, 1).unwrap().depth_i64()),
                "sssp" => {
                    assert_eq!(descr, "<f8");
                    assert_eq!(as_f64(&data), ocgraph_algo::dijkstra(&out, 1).unwrap());
                }
                "wcc" => {
                    assert_eq!(descr, "<u4");
                    assert_eq!(as_u32(&data), ocgraph_algo::wcc(&out, &inn).unwrap());
                }
                "pagerank" => {
                    let s = as_f64(&data);
                    assert_eq!(s.len(), graph.num_vertices());
                    assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-9);
                }
                "triangle-count" => {
                    assert_eq!(as_i64(&data), vec![ocgraph_algo::triangle_count(&out, &inn).unwrap() as i64])
                }
                "diameter" => assert_eq!(as_i64(&data).len(), 3),
                "k-hop" => assert_eq!(as_u32(&data), ocgraph_algo::k_hop(&out, 1, 2).unwrap()),
                "shortest-path" => {
                    let path = ocgraph_algo::shortest_path(&out, &inn, 1, 7).unwrap().unwrap_or_default();
                    assert_eq!(as_u32(&data).len(), path.len());
                }
                _ => unreachable!(),
            }
        }
    }
    // Weighted SSSP, text output, --stats JSON on stderr.
    let txt = dir.path().join("d.txt");
    let o = ocgraph(&["run", "sssp", p(&road), "--verify", "--out", p(&txt), "--stats"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("verification: PASS"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"backend\""));
    let rg = Graph::open(&road, &OpenOptions::default()).unwrap();
    let want = ocgraph_algo::dijkstra(&rg.out(), 0).unwrap();
    let got: Vec<f64> = std::fs::read_to_string(&txt).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got, want);
    // Fixed-iteration PageRank.
    let s = ok(&["run", "pagerank", p(&g), "--tol", "0", "--max-iter", "20"]);
    assert!(s.contains("20 iterations, not converged"), "{s}");
}

#[test]
fn bad_arguments_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("er");
    ok(&["generate", "erdos-renyi", "--vertices", "50", "--edges", "100", "--quiet", p(&g)]);
    let outdir = dir.path().join("outdir");
    std::fs::create_dir(&outdir).unwrap();
    let dangling = dir.path().join("dangling.npy");
    std::os::unix::fs::symlink("nodir/wcc.npy", &dangling).unwrap();
    for (args, needle) in [
        (vec!["run", "bfs", p(&g), "--source", "50"], "--source 50: out of range"),
        (vec!["run", "k-hop", p(&g), "--source", "50"], "--source 50: out of range"),
        (vec!["run", "shortest-path", p(&g), "--target", "50"], "--target 50: out of range"),
        (vec!["run", "shortest-path", p(&g)], "--target"),
        (vec!["run", "pagerank", p(&g), "--damping", "2"], "damping"),
        (vec!["run", "wcc", p(&g), "--backend", "pool", "--policy", "clocky"], "unknown replacement policy"),
        (vec!["run", "wcc", p(&g), "--backend", "pool", "--policy", "gac:decay=2"], "decay 2"),
        (vec!["run", "wcc", p(&g), "--backend", "pool", "--policy", "gac:what=1"], "unknown key"),
        // Refused before the kernel runs, not after.
        (
            vec!["run", "wcc", p(&g), "--out", "/nonexistent-dir/wcc.npy"],
            "the directory /nonexistent-dir does not exist",
        ),
        (vec!["run", "wcc", p(&g), "--out", p(&outdir)], "is a directory"),
        (vec!["run", "wcc", p(&g), "--out", p(&dangling)], "nodir does not exist"),
    ] {
        let o = ocgraph(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle) && !err.contains("panicked"), "{args:?}: {err}");
    }
    let o = ocgraph(&["run", "bfs", p(&dir.path().join("missing"))]);
    assert_eq!(o.status.code(), Some(1));
    // Options of other kernels run with a warning naming them; the kernel's own run without one.
    for (args, warned) in [
        (vec!["run", "sssp", p(&g), "--k", "3", "--source", "1"], vec!["--k does not apply to sssp"]),
        (
            vec!["run", "pagerank", p(&g), "--source", "3", "--tol", "1e-3"],
            vec!["--source does not apply to pagerank (an option of bfs, sssp, diameter, k-hop, shortest-path)"],
        ),
        (
            vec!["run", "bfs", p(&g), "--damping", "0.5", "--sweeps", "2"],
            vec!["--damping does not apply to bfs", "--sweeps does not apply to bfs"],
        ),
        (vec!["run", "k-hop", p(&g), "--k", "1", "--source", "2"], vec![]),
    ] {
        let o = ocgraph(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {err}");
        assert_eq!(err.matches("warning:").count(), warned.len(), "{args:?}: {err}");
        assert!(warned.iter().all(|w| err.contains(w)), "{args:?}: {err}");
    }
    // A stream whose --json names a directory is refused before its first update.
    let updates = dir.path().join("u.txt");
    std::fs::write(&updates, "+ 0 49\n").unwrap();
    let edges = |g: &Path| {
        let info: serde_json::Value = serde_json::from_str(&ok(&["info", p(g), "--json"])).unwrap();
        info["edges"].as_u64().unwrap()
    };
    let before = edges(&g);
    let o = ocgraph(&["stream", p(&g), "--updates", p(&updates), "--json", p(&outdir)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a directory"));
    assert_eq!(edges(&g), before);
    // So is one whose file cannot be created (a name past NAME_MAX).
    let long = dir.path().join(format!("{}.json", "x".repeat(300)));
    let o = ocgraph(&["stream", p(&g), "--updates", p(&updates), "--json", p(&long)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("create failed"));
    assert_eq!(edges(&g), before);
    // Two outputs on standard output would be mixed: refused.
    let o = ocgraph(&[
        "stream",
        p(&g),
        "--updates",
        p(&updates),
        "--json",
        "-",
        "--watch",
        "triangle",
        "--watch-out",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot both be standard output"));
    assert_eq!(edges(&g), before);
}

/// With `-` as the output, standard output holds the data alone: the report lines go to
/// standard error (they were mixed into the values, matches and answers).
#[test]
fn data_written_to_standard_output_is_alone_there() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "5", "--quiet", p(&g)]);
    let n = 32;
    // `-` is standard output even where a directory of that name exists.
    std::fs::create_dir(t.path().join("-")).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
        .args(["run", "bfs", p(&g), "--source", "0", "--out", "-"])
        .current_dir(t.path())
        .output()
        .unwrap();
    assert!(run.status.success());
    let depths = String::from_utf8(run.stdout).unwrap();
    assert_eq!(depths.lines().count(), n, "{depths}");
    assert!(depths.lines().all(|l| l.parse::<i64>().is_ok()), "{depths}");
    assert!(String::from_utf8_lossy(&run.stderr).contains("trial 0"));
    let mine = ocgraph(&["mine", "cliques", p(&g), "--k", "3", "--list", "--out", "-"]);
    assert!(mine.status.success());
    let rows = String::from_utf8(mine.stdout).unwrap();
    assert!(
        rows.lines().all(|l| l.split(' ').count() == 3 && l.split(' ').all(|v| v.parse::<u32>().is_ok())),
        "{rows}"
    );
    assert!(String::from_utf8_lossy(&mine.stderr).contains("matches written to -"));
    let w = t.path().join("w.bin");
    ok(&["workload", "fof", p(&g), "--out", p(&w), "--count", "4"]);
    let query = ocgraph(&["query", p(&g), "--workload", p(&w), "--answers", "-", "--json"]);
    assert!(query.status.success());
    let answers = String::from_utf8(query.stdout).unwrap();
    assert!(answers.starts_with("# ocgraph answers v1 kind=fof count=4\n"), "{answers}");
    assert_eq!(answers.lines().count(), 5, "{answers}");
    let updates = t.path().join("u.txt");
    std::fs::write(&updates, "+ 0 31\n").unwrap();
    let stream = ocgraph(&["stream", p(&g), "--updates", p(&updates), "--json", "-"]);
    assert!(stream.status.success());
    let json: serde_json::Value = serde_json::from_slice(&stream.stdout).unwrap();
    assert_eq!(json["updates"], 1);
}

/// A trace is put in place whole when the run ends, and `cache-sim` replays it; a trace with
/// a header and no requests is refused naming the file (it printed a message about the cache
/// size instead).
#[test]
fn traces_replay_and_an_empty_trace_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "8", "--quiet", p(&g)]);
    let trace = t.path().join("t.trace");
    ok(&[
        "run",
        "bfs",
        p(&g),
        "--backend",
        "pool",
        "--memory",
        "64KiB",
        "--trials",
        "1",
        "--trace",
        p(&trace),
    ]);
    let names: Vec<_> = std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
    ok(&["cache-sim", p(&trace), "--sizes", "50%"]);
    // The table names every policy whole (two GAC specs were cut to the same `gac:decay`).
    let table = ok(&["cache-sim", p(&trace), "--sizes", "50%", "--policies", "gac:decay=0.5,gac:decay=0.9"]);
    assert!(table.contains(" gac:decay=0.5 gac:decay=0.9"), "{table}");
    // A CSV to standard output is all that goes there (the table goes to stderr).
    let csv = ok(&["cache-sim", p(&trace), "--sizes", "50%,100%", "--policies", "lru,opt", "--csv", "-"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "policy,size,hit_ratio,frames,hits,capacity_misses,cold_misses", "{csv}");
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(lines[1..].iter().all(|l| l.split(',').count() == 7), "{csv}");
    // Policy names in any case, the score trace's GAC spec too (it was matched case-sensitively).
    let score = t.path().join("s.csv");
    let args = ["--policies", "LRU,GAC:Decay=0.5", "--score-trace", p(&score)];
    let out = ok(&[&["cache-sim", p(&trace), "--sizes", "50%"][..], &args[..]].concat());
    assert!(out.contains("(gac:decay=0.5 at "), "{out}");
    let out = ocgraph(&["run", "bfs", p(&g), "--trials", "1", "--trace", "/dev/stdout"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--trace /dev/stdout"));
    // A trace naming the command's results or an input it reads is refused before any work
    // (it replaced them, exit 0): the file is left as it was, by any spelling or link.
    let keep = t.path().join("keep.txt");
    std::fs::write(&keep, "kept").unwrap();
    let link = t.path().join("link.txt");
    std::os::unix::fs::symlink(&keep, &link).unwrap();
    let w = t.path().join("w.bin");
    ok(&["workload", "fof", p(&g), "--out", p(&w), "--count", "5"]);
    let spelled = format!("{}/./keep.txt", t.path().display());
    for (args, what) in [
        (vec!["run", "bfs", p(&g), "--out", p(&keep), "--trace", p(&keep)], "--out"),
        (vec!["run", "bfs", p(&g), "--out", p(&keep), "--trace", p(&link)], "--out"),
        (vec!["run", "bfs", p(&g), "--out", p(&keep), "--trace", &spelled], "--out"),
        (
            vec!["mine", "cliques", p(&g), "--k", "3", "--list", "--out", p(&keep), "--trace", p(&keep)],
            "--out",
        ),
        (vec!["export", p(&g), p(&keep), "--trace", p(&keep)], "OUT"),
        (vec!["query", p(&g), "--workload", p(&w), "--trace", p(&w)], "--workload"),
        (vec!["query", p(&g), "--workload", p(&w), "--answers", p(&keep), "--trace", p(&keep)], "--answers"),
        // Any output over another file of the command, not only a trace's.
        (vec!["query", p(&g), "--workload", p(&w), "--answers", p(&w)], "--workload"),
        (vec!["mine", "pattern", p(&g), "--pattern", p(&keep), "--list", "--out", p(&keep)], "--pattern"),
        (vec!["stream", p(&g), "--updates", p(&keep), "--maintain", "wcc", "--json", p(&keep)], "--updates"),
        // A watched pattern given as a file is an input too (it was overwritten by the changes).
        (vec!["stream", p(&g), "--updates", p(&w), "--watch", p(&keep), "--watch-out", p(&keep)], "--watch"),
        (vec!["stream", p(&g), "--updates", p(&w), "--watch", p(&keep), "--json", p(&keep)], "--watch"),
        (
            vec![
                "stream",
                p(&g),
                "--updates",
                p(&keep),
                "--json",
                p(&w),
                "--watch",
                "triangle",
                "--watch-out",
                p(&w),
            ],
            "--watch-out",
        ),
    ] {
        let before = (std::fs::read(&keep).unwrap(), std::fs::read(&w).unwrap());
        let out = ocgraph(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("is also the {what} file")), "{args:?}: {err}");
        assert_eq!((std::fs::read(&keep).unwrap(), std::fs::read(&w).unwrap()), before, "{args:?}");
    }
    // A device such as /dev/null is no file to replace.
    ok(&["run", "bfs", p(&g), "--trials", "1", "--out", "/dev/null", "--trace", "/dev/null"]);
    let bytes = std::fs::read(&trace).unwrap();
    let empty = t.path().join("empty.trace");
    std::fs::write(&empty, &bytes[..16]).unwrap();
    let out = ocgraph(&["cache-sim", p(&empty)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("empty.trace") && err.contains("no page requests"), "{err}");
    // Options that name nothing, an unknown policy and a bad --score-size fail before any
    // simulation prints (a bad --score-size failed after the table and the CSV).
    for (args, needle) in [
        (&["--policies", ","][..], "--policies ',' names nothing"),
        (&["--sizes", " , "][..], "--sizes ' , ' names nothing"),
        (&["--policies", "lru,bogus"][..], "or opt"),
        (&["--score-trace", "s.csv", "--score-size", "0%"][..], "--score-size"),
        (&["--score-trace", "s.csv", "--score-every", "0"][..], "--score-every"),
        // An output that would replace the trace, or two outputs in one file.
        (&["--csv", p(&trace)][..], "is the trace being replayed"),
        (&["--csv", p(&score), "--score-trace", p(&score)][..], "both name"),
    ] {
        let mut all = vec!["cache-sim", p(&trace)];
        all.extend_from_slice(args);
        let out = ocgraph(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed before failing");
    }
    // A bad GAC parameter is not offered `opt` as a remedy (only an unknown name is).
    let out = ocgraph(&["cache-sim", p(&trace), "--policies", "gac:decay=2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("decay") && !err.contains("or opt"), "{err}");
    // Policies and sizes are checked before the trace is read (a bad one was reported only
    // after a whole trace was read, here the empty trace's error instead).
    for (args, needle) in [
        (&["--policies", "bogus"][..], "or opt"),
        (&["--sizes", "10x"][..], "bad size '10x'"),
        (&["--sizes", "0f"][..], "less than one frame"),
        (&["--score-trace", "s.csv", "--score-size", "0f"][..], "--score-size"),
    ] {
        let out = ocgraph(&[&["cache-sim", p(&empty)][..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    assert!(std::fs::read(&trace).unwrap() == bytes, "the trace was changed");
}

/// A trace written through a symbolic link replaces the file it names, whole at the end: a
/// failed run leaves that file as it was (it was emptied at the start), the link stays a link.
#[test]
fn a_trace_through_a_symbolic_link_replaces_its_file_whole() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "8", "--quiet", p(&g)]);
    let (real, link) = (t.path().join("real.trace"), t.path().join("link.trace"));
    let run = |source: &str| {
        ocgraph(&["run", "bfs", p(&g), "--source", source, "--backend", "pool", "--trace", p(&link)])
    };
    std::fs::write(&real, b"previous").unwrap();
    std::os::unix::fs::symlink("real.trace", &link).unwrap();
    assert_eq!(run("99999999").status.code(), Some(2));
    assert_eq!(std::fs::read(&real).unwrap(), b"previous");
    assert!(run("0").status.success());
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(&std::fs::read(&real).unwrap()[..8], b"OCGTRACE");
    ok(&["cache-sim", p(&link), "--sizes", "50%"]);
    let names: Vec<_> = std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "no temporary file is left: {names:?}");
}

/// Standard output that refuses a write (a full disk: `/dev/full`) fails the command with an
/// error naming it, for report lines printed as text (it was an "internal error") and for help,
/// which exited 0 with nothing written.
#[test]
fn a_full_standard_output_is_an_error_naming_it() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "5", "--quiet", p(&g)]);
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    for args in [vec!["info", p(&g)], vec!["run", "bfs", p(&g), "--source", "0"], vec!["--help"]] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ocgraph"))
            .args(&args)
            .stdout(full())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("<stdout>: write failed") && !err.contains("internal error"), "{args:?}: {err}");
    }
}
