//! `ocgraph stream --maintain` end to end: random update streams (edge additions, removals of
//! existing edges, vertex removals) over small generated graphs, with WCC and BFS maintained.
//!
//! `--verify` makes the command fail unless every maintained result equals a full
//! recomputation at the end of the stream; the recomputation (`ocgraph run`) is itself compared
//! here with a brute-force replay of the stream on the test's own edge set. The results saved
//! with the graph are reused by the next stream when the graph has not changed since, and
//! recomputed when it has.

mod common;

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

use common::{ok, p, random_ops, read_edges, run, Op};

/// The number of vertices of the graph at `g` (`ocgraph info --json`).
fn num_vertices(g: &Path) -> usize {
    let info: serde_json::Value = serde_json::from_str(&ok(&["info", p(g), "--json"])).unwrap();
    info["vertices"].as_u64().unwrap() as usize
}

/// `ocgraph run KERNEL G ARGS --out FILE`: one value a line.
fn static_result(g: &Path, kernel: &str, args: &[&str]) -> Vec<i64> {
    let out = g.with_extension(format!("{kernel}.txt"));
    ok(&[&["run", kernel, p(g), "--out", p(&out)], args].concat());
    std::fs::read_to_string(&out).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect()
}

/// Out-neighbours of every vertex (both directions of each undirected edge).
fn adjacency(edges: &BTreeSet<(u32, u32)>, n: usize, directed: bool) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for &(u, v) in edges {
        adj[u as usize].push(v as usize);
        if !directed {
            adj[v as usize].push(u as usize);
        }
    }
    adj
}

/// Hop distances from `s` by a plain queue (-1 unreachable).
fn bfs_hops(adj: &[Vec<usize>], s: usize) -> Vec<i64> {
    let mut hops = vec![-1; adj.len()];
    hops[s] = 0;
    let mut queue = VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u] {
            if hops[v] < 0 {
                hops[v] = hops[u] + 1;
                queue.push_back(v);
            }
        }
    }
    hops
}

/// The smallest vertex id of each vertex's weakly connected component.
fn min_labels(edges: &BTreeSet<(u32, u32)>, n: usize) -> Vec<i64> {
    let adj = adjacency(edges, n, false);
    let mut label = vec![-1; n];
    for s in 0..n {
        if label[s] < 0 {
            let reached = bfs_hops(&adj, s);
            for (v, &h) in reached.iter().enumerate() {
                if h >= 0 {
                    label[v] = s as i64;
                }
            }
        }
    }
    label
}

/// Streams `count` random updates in batches of `batch` with WCC and BFS (from vertex 0)
/// maintained and verified, checks the final graph's results against brute force, then checks
/// that the saved results are reused or recomputed as the graph requires.
fn check(gen: &[&str], directed: bool, count: usize, batch: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    ok(&[&["generate"], gen, &["--quiet", p(&g)]].concat());
    let n = num_vertices(&g);
    let mut edges = read_edges(&g, directed);
    let ops = random_ops(&edges, n as u32, directed, count, 11);
    let file = tmp.path().join("updates.txt");
    std::fs::write(&file, ops.iter().map(|o| o.line() + "\n").collect::<String>()).unwrap();
    let json = tmp.path().join("stream.json");
    let batch_arg = batch.to_string();
    let maintain = "wcc,bfs:source=0";
    let out = run(&[
        "stream",
        p(&g),
        "--updates",
        p(&file),
        "--maintain",
        maintain,
        "--batch-size",
        &batch_arg,
        "--verify",
        "--stats",
        "--json",
        p(&json),
    ]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "stream failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("wcc: computed") && stdout.contains("bfs-source-0: computed"), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["updates"].as_f64(), Some(count as f64));
    assert_eq!(report["batches"].as_f64(), Some(count.div_ceil(batch) as f64));
    // `--stats`: the backend's I/O statistics over the stream, as JSON on stderr.
    let io: serde_json::Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    assert!(io["page_requests"].as_u64().is_some(), "{stderr}");

    for op in &ops {
        op.apply(&mut edges, directed);
    }
    assert_eq!(read_edges(&g, directed), edges, "the reference replay disagrees with the stored graph");
    assert_eq!(static_result(&g, "wcc", &[]), min_labels(&edges, n));
    assert_eq!(static_result(&g, "bfs", &["--source", "0"]), bfs_hops(&adjacency(&edges, n, directed), 0));

    // Nothing changed since: the saved results are current and reused (on one thread).
    let empty = tmp.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let again =
        ok(&["stream", p(&g), "--updates", p(&empty), "--maintain", maintain, "--verify", "--threads", "1"]);
    assert!(
        again.contains("wcc: loaded (current)") && again.contains("bfs-source-0: loaded (current)"),
        "{again}"
    );
    // The graph changes without them: they are recomputed, never reused stale.
    let one = tmp.path().join("one.txt");
    std::fs::write(&one, "+ 1 2\n").unwrap();
    ok(&["stream", p(&g), "--updates", p(&one)]);
    let after = ok(&["stream", p(&g), "--updates", p(&empty), "--maintain", maintain, "--verify"]);
    assert!(after.contains("wcc: computed") && after.contains("bfs-source-0: computed"), "{after}");
}

#[test]
fn maintained_wcc_and_bfs_on_an_undirected_graph() {
    check(&["kronecker", "--scale", "7", "--edge-factor", "6", "--seed", "4"], false, 240, 1);
    check(&["kronecker", "--scale", "8", "--edge-factor", "4", "--seed", "5"], false, 400, 37);
}

#[test]
fn maintained_wcc_and_bfs_on_a_directed_graph() {
    check(&["kronecker", "--scale", "7", "--edge-factor", "6", "--seed", "6", "--directed"], true, 300, 9);
}

/// The 13-byte binary item of an update (docs/design.md, "Binary update file").
fn binary_item(op: &Op) -> Vec<u8> {
    let (code, a, b, w) = match *op {
        Op::Add(u, v) => (1u8, u, v, 1.0f32),
        Op::Remove(u, v) => (2, u, v, 0.0),
        Op::RemoveVertex(u) => (5, u, 0, 0.0),
    };
    let mut out = vec![code];
    out.extend_from_slice(&a.to_le_bytes());
    out.extend_from_slice(&b.to_le_bytes());
    out.extend_from_slice(&w.to_le_bytes());
    out
}

#[test]
fn binary_update_files_apply_as_their_text_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let (g, h) = (tmp.path().join("g"), tmp.path().join("h"));
    let gen = ["generate", "kronecker", "--scale", "7", "--edge-factor", "6", "--seed", "8", "--quiet"];
    ok(&[&gen[..], &[p(&g)]].concat());
    ok(&[&gen[..], &[p(&h)]].concat());
    let n = num_vertices(&g);
    let mut edges = read_edges(&g, false);
    let ops = random_ops(&edges, n as u32, false, 300, 21);
    let text = tmp.path().join("u.txt");
    std::fs::write(&text, ops.iter().map(|o| o.line() + "\n").collect::<String>()).unwrap();
    let bin = tmp.path().join("u.updates");
    let mut bytes = b"OCUPDAT1".to_vec();
    ops.iter().for_each(|o| bytes.extend(binary_item(o)));
    std::fs::write(&bin, &bytes).unwrap();
    for (graph, file) in [(&g, &text), (&h, &bin)] {
        let out = ok(&[
            "stream",
            p(graph),
            "--updates",
            p(file),
            "--batch-size",
            "16",
            "--maintain",
            "wcc",
            "--verify",
        ]);
        assert!(out.contains("300 updates in 19 batches"), "{out}");
    }
    for op in &ops {
        op.apply(&mut edges, false);
    }
    assert_eq!(read_edges(&g, false), edges);
    assert_eq!(read_edges(&h, false), edges);

    // Damage is named by the item's byte offset.
    let err = |data: &[u8]| {
        std::fs::write(&bin, data).unwrap();
        let out = run(&["stream", p(&h), "--updates", p(&bin)]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = err(&bytes[..bytes.len() - 5]);
    assert!(e.contains("u.updates") && e.contains(&(8 + 13 * 299).to_string()) && e.contains("torn"), "{e}");
    let mut far = bytes.clone();
    far[8 + 13 * 4 + 1..8 + 13 * 4 + 5].copy_from_slice(&(n as u32 + 7).to_le_bytes());
    let e = err(&far);
    assert!(e.contains(&(8 + 13 * 4).to_string()) && e.contains("out of range"), "{e}");

    // `workload updates --binary` writes the items of its text output.
    let k = tmp.path().join("k");
    ok(&[&gen[..], &[p(&k)]].concat());
    let (wt, wb) = (tmp.path().join("w.txt"), tmp.path().join("w.bin"));
    let w = ["workload", "updates", p(&k), "--count", "200", "--mix", "70/30", "--seed", "3", "--out"];
    ok(&[&w[..], &[p(&wt)]].concat());
    ok(&[&w[..], &[p(&wb), "--binary"]].concat());
    let lines: Vec<Op> = std::fs::read_to_string(&wt)
        .unwrap()
        .lines()
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            let (u, v) = (c[1].parse().unwrap(), c[2].parse().unwrap());
            if c[0] == "+" {
                Op::Add(u, v)
            } else {
                Op::Remove(u, v)
            }
        })
        .collect();
    let mut want = b"OCUPDAT1".to_vec();
    lines.iter().for_each(|o| want.extend(binary_item(o)));
    assert_eq!(std::fs::read(&wb).unwrap(), want);
}

/// An update file read from a pipe (`--updates /dev/stdin`) is read once: looking for the
/// binary form's magic used to consume its first 8 bytes, so a first line of 8 bytes was lost
/// without a word, and other first lines made errors quote the wrong line.
#[test]
fn update_files_from_a_pipe_lose_nothing() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.txt");
    std::fs::write(&input, "0 1\n").unwrap();
    let text = b"+  0  5\n+ 0 6\n# a comment\n+ 0 7\n".to_vec();
    let mut binary = b"OCUPDAT1".to_vec();
    [Op::Add(0, 5), Op::Add(0, 6), Op::Add(0, 7)].iter().for_each(|o| binary.extend(binary_item(o)));
    for (name, bytes) in [("text", text), ("binary", binary)] {
        let g = tmp.path().join(name);
        ok(&["import", p(&input), p(&g), "--num-vertices", "8"]);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ocgraph"))
            .args(["stream", p(&g), "--updates", "/dev/stdin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && said.contains("3 updates"), "{name}: {said} {:?}", out.stderr);
        let want: BTreeSet<(u32, u32)> = [(0, 1), (0, 5), (0, 6), (0, 7)].into_iter().collect();
        assert_eq!(read_edges(&g, false), want, "{name}");
    }
}

/// A weight that is not a finite number (`inf`, `nan`, or beyond `f32`: `1e40`, or, nonzero,
/// below its smallest: `1e-50`) in a text update
/// file is refused by the parser, naming the file and line, before any batch is applied; as in
/// an `ocgraph update --add-edges` file.
#[test]
fn non_finite_weights_in_update_files_name_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    let gen = ["generate", "erdos-renyi", "--vertices", "20", "--edges", "40", "--seed", "1", "--weighted"];
    ok(&[&gen[..], &["--quiet", p(&g)]].concat());
    let before = read_edges(&g, false);
    for w in ["inf", "-inf", "nan", "1e40", "1e-50"] {
        let u = tmp.path().join("u.txt");
        std::fs::write(&u, format!("+ 1 2 1\n+ 2 3 1\n+ 3 4 {w}\n")).unwrap();
        let out = run(&["stream", p(&g), "--updates", p(&u), "--batch-size", "1"]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("u.txt:3") && e.contains("finite"), "{w}: {e}");
        let add = tmp.path().join("add.txt");
        std::fs::write(&add, format!("1 2 1\n3 4 {w}\n")).unwrap();
        let out = run(&["update", p(&g), "--add-edges", p(&add)]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains("add.txt:2") && e.contains("finite"), "{w}: {e}");
    }
    assert_eq!(read_edges(&g, false), before, "nothing was applied");
    // `+v` on a graph that keeps original ids is refused at its line, before anything applies.
    let (named, input) = (tmp.path().join("named"), tmp.path().join("named.txt"));
    std::fs::write(&input, "a b\nb c\n").unwrap();
    ok(&["import", p(&input), p(&named), "--quiet"]);
    let u = tmp.path().join("v.txt");
    std::fs::write(&u, "+ 0 1\n+v 2\n").unwrap();
    let out = run(&["stream", p(&named), "--updates", p(&u)]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("v.txt:2") && e.contains("original ids"), "{e}");
}

/// A result named twice in `--maintain`, a parameter given twice, an unknown kind with
/// parameters, a source that is not a vertex id and an infinite or subnormal PageRank tolerance
/// are usage errors (the first two kept two copies or the last value, the subnormal tolerance
/// pushed forever, an infinite one stopped after one iteration).
#[test]
fn maintain_specs_named_twice_or_out_of_range_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    ok(&["generate", "erdos-renyi", "--vertices", "20", "--edges", "40", "--seed", "1", "--quiet", p(&g)]);
    let u = tmp.path().join("u.txt");
    std::fs::write(&u, "+ 1 2\n").unwrap();
    for (spec, needle) in [
        ("wcc,wcc", "names wcc twice"),
        ("bfs:source=0:source=1", "source given twice"),
        ("pagerank:tol=5e-324", "tol=5e-324: must be from 1e-300 to a finite value"),
        ("pagerank:tol=0", "tol=0: must be from 1e-300 to a finite value"),
        // Quoted as given: it parses as 0.
        ("pagerank:tol=1e-400", "tol=1e-400: must be from 1e-300 to a finite value"),
        ("pagerank:tol=1e400", "tol=1e400: must be from 1e-300 to a finite value"),
        // The kind is checked before its parameters: "BFS" is not a kind with no `source`.
        ("BFS:source=0", r#"unknown maintained result "BFS" (bfs, sssp, wcc, pagerank)"#),
        // Said as `run --source` says it (it was "invalid digit found in string").
        ("sssp:source=-1", "source=-1: not a vertex id (an integer in 0..=4294967295)"),
        ("bfs:source=1.5", "source=1.5: not a vertex id"),
    ] {
        let out = run(&["stream", p(&g), "--updates", p(&u), "--maintain", spec]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {e}");
        assert!(e.contains(needle), "{spec}: {e}");
    }
    let out = run(&["run", "pagerank", p(&g), "--tol", "inf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("non-negative and finite"));
    let out = run(&["stream", p(&g), "--updates", p(&u), "--maintain", "wcc", "--threads", "100000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 1024"));
}

/// A stream that leaves an arc with a negative weight applies, saves the results that admit it
/// (WCC, BFS) and fails naming the update file and the one that does not (SSSP), exit 1: it
/// exited 2 (a usage error) and saved none of them.
#[test]
fn a_negative_weight_fails_sssp_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    let gen = ["generate", "erdos-renyi", "--vertices", "20", "--edges", "40", "--seed", "1", "--weighted"];
    ok(&[&gen[..], &["--quiet", p(&g)]].concat());
    let u = tmp.path().join("u.txt");
    std::fs::write(&u, "+ 1 3 -2\n+ 2 4 1\n").unwrap();
    let maintain = "wcc,bfs:source=0,sssp:source=0";
    let out = run(&["stream", p(&g), "--updates", p(&u), "--maintain", maintain, "--batch-size", "1"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("u.txt") && e.contains("sssp") && e.contains("-2"), "{e}");
    let saved: Vec<String> = std::fs::read_dir(g.join("maintained"))
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        saved.iter().any(|f| f.starts_with("wcc")) && saved.iter().any(|f| f.starts_with("bfs")),
        "{saved:?}"
    );
    assert!(!saved.iter().any(|f| f.starts_with("sssp")), "{saved:?}");
}

/// Update files that would take the graph past 2^32 - 1 vertices (text and binary), or hold a
/// line that is not UTF-8, are refused by the parser with the file and line (or byte offset),
/// exit code 1, before any batch is applied.
#[test]
fn update_files_past_the_vertex_limit_or_not_utf8_name_the_place() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    ok(&["generate", "erdos-renyi", "--vertices", "20", "--edges", "40", "--seed", "1", "--quiet", p(&g)]);
    let before = read_edges(&g, false);
    let refused = |file: &Path, place: &str, what: &str| {
        let out = run(&["stream", p(&g), "--updates", p(file), "--batch-size", "1"]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{e}");
        assert!(e.contains(place) && e.contains(what) && !e.contains("internal error"), "{e}");
    };
    let u = tmp.path().join("u.txt");
    std::fs::write(&u, "+ 0 2\n+v 4294967275\n+v 1\n").unwrap();
    refused(&u, "u.txt:3", "more than 4294967295 vertices");
    std::fs::write(&u, b"+ 0 1\n# fine\n+ 0 \xff\n").unwrap();
    refused(&u, "u.txt:3", "UTF-8");
    // An id past 32 bits is out of range, not malformed (it was "bad vertex id").
    std::fs::write(&u, "+ 0 1\n- 0 99999999999999\n").unwrap();
    refused(&u, "u.txt:2", "vertex 99999999999999 out of range");
    let b = tmp.path().join("u.updates");
    let mut bytes = b"OCUPDAT1".to_vec();
    for count in [4294967275u32, 1] {
        bytes.push(4);
        bytes.extend(count.to_le_bytes());
        bytes.extend([0; 8]);
    }
    std::fs::write(&b, &bytes).unwrap();
    refused(&b, "u.updates", &format!("at byte {}", 8 + 13));
    // Another version is refused as such (it was read as text: "not UTF-8").
    bytes[7] = b'2';
    std::fs::write(&b, &bytes).unwrap();
    refused(&b, "u.updates at byte 7", "a binary update file of version '2': this ocgraph reads version '1'");
    assert_eq!(read_edges(&g, false), before, "nothing was applied");
    // A gzip'd binary file is read as the text form is (it was read as text).
    let (u, v) =
        (0..20u32).flat_map(|a| (a + 1..20).map(move |b| (a, b))).find(|e| !before.contains(e)).unwrap();
    let mut one = b"OCUPDAT1".to_vec();
    one.extend(binary_item(&Op::Add(u, v)));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &one).unwrap();
    std::fs::write(&b, gz.finish().unwrap()).unwrap();
    ok(&["stream", p(&g), "--updates", p(&b)]);
    let mut want = before.clone();
    want.insert((u, v));
    assert_eq!(read_edges(&g, false), want);
}

/// `workload updates --dist power-law` draws ends in proportion to degree: on a directed star
/// `0 -> 1..9` the hub is half the ends (in plus out; it was never drawn, by in-degree only).
#[test]
fn power_law_ends_follow_in_plus_out_degree() {
    let tmp = tempfile::tempdir().unwrap();
    let (edges, g, out) = (tmp.path().join("e.txt"), tmp.path().join("g"), tmp.path().join("u.txt"));
    std::fs::write(&edges, (1..10).map(|v| format!("0 {v}\n")).collect::<String>()).unwrap();
    ok(&["import", p(&edges), p(&g), "--quiet"]);
    let args = ["--count", "2000", "--mix", "100/0", "--dist", "power-law", "--seed", "5", "--out", p(&out)];
    ok(&[&["workload", "updates", p(&g)][..], &args].concat());
    let text = std::fs::read_to_string(&out).unwrap();
    let ends: Vec<&str> = text.lines().flat_map(|l| l.split_whitespace().skip(1).take(2)).collect();
    let hub = ends.iter().filter(|&&e| e == "0").count();
    assert_eq!(ends.len(), 4000);
    assert!((1700..=2300).contains(&hub), "the hub is {hub} of 4000 ends");
}

/// `workload updates --mix 0/100` removes every edge when asked for as many removals as there are
/// edges (the last ones found among those left when random picks miss), each once; asked for
/// more, it fails and leaves no output file behind.
#[test]
fn a_removal_workload_can_remove_every_edge() {
    let tmp = tempfile::tempdir().unwrap();
    for directed in [false, true] {
        let g = tmp.path().join(format!("g{directed}"));
        let mut gen = vec!["generate", "erdos-renyi", "--vertices", "50", "--edges", "120", "--seed", "2"];
        if directed {
            gen.push("--directed");
        }
        ok(&[&gen[..], &["--quiet", p(&g)]].concat());
        let edges = read_edges(&g, directed);
        let count = edges.len().to_string();
        let out = tmp.path().join("w.txt");
        let removals = |count: &str| {
            let w =
                ["workload", "updates", p(&g), "--count", count, "--mix", "0/100", "--seed", "3", "--out"];
            run(&[&w[..], &[p(&out)]].concat())
        };
        assert!(removals(&count).status.success());
        let mut removed = BTreeSet::new();
        for l in std::fs::read_to_string(&out).unwrap().lines() {
            let c: Vec<u32> = l[2..].split_whitespace().map(|x| x.parse().unwrap()).collect();
            let e = if directed { (c[0], c[1]) } else { (c[0].min(c[1]), c[0].max(c[1])) };
            assert!(l.starts_with("- ") && edges.contains(&e) && removed.insert(e), "{l}");
        }
        assert_eq!(removed, edges);
        std::fs::remove_file(&out).unwrap();
        let more = (edges.len() + 1).to_string();
        let r = removals(&more);
        assert!(!r.status.success() && String::from_utf8_lossy(&r.stderr).contains("no edge left"));
        assert!(!out.exists() && !tmp.path().join("w.txt.tmp").exists(), "no partial output");
        // Mixed, long enough that removals run out of random hits: each one removes an edge
        // present at that point (added earlier or in the graph), by a model of the stream.
        let w = ["workload", "updates", p(&g), "--count", "450", "--mix", "40/60", "--seed", "4", "--out"];
        assert!(run(&[&w[..], &[p(&out)]].concat()).status.success());
        let mut present: std::collections::BTreeMap<(u32, u32), usize> =
            edges.iter().map(|&e| (e, 1)).collect();
        for l in std::fs::read_to_string(&out).unwrap().lines() {
            let c: Vec<u32> = l[2..].split_whitespace().map(|x| x.parse().unwrap()).collect();
            let e = if directed { (c[0], c[1]) } else { (c[0].min(c[1]), c[0].max(c[1])) };
            if l.starts_with("+ ") {
                *present.entry(e).or_default() += 1;
            } else {
                assert!(present.remove(&e).is_some(), "{l} removes an edge not present");
            }
        }
        std::fs::remove_file(&out).unwrap();
    }
}

/// `--verify` passes a maintained PageRank at tolerances below what `f64` rounding can show
/// (its bound `2 n tol / (1 - d)` has a rounding floor): the result is right, and a
/// recomputation differs from it in the last bits only.
#[test]
fn verify_passes_pagerank_at_tolerances_below_rounding() {
    let tmp = tempfile::tempdir().unwrap();
    let edges = tmp.path().join("e.txt");
    std::fs::write(&edges, "0 1\n1 2\n").unwrap();
    let u = tmp.path().join("u.txt");
    std::fs::write(&u, "+v 1\n+ 2 3\n+ 3 0\n+ 0 2\n").unwrap();
    for tol in ["1e-18", "1e-300"] {
        let g = tmp.path().join(format!("g{tol}"));
        ok(&["import", p(&edges), p(&g), "--quiet"]);
        let spec = format!("pagerank:tol={tol}");
        let out = ok(&["stream", p(&g), "--updates", p(&u), "--maintain", &spec, "--verify", "--no-save"]);
        assert!(out.contains("equals a full recomputation"), "{out}");
    }
}

/// Runs `ocgraph args` with its address space limited to 4 GB (`ulimit -v`), as on a machine
/// with less memory than the command asks for; asserts that it fails with status 1 and returns
/// its standard error.
fn refused_within_4gb(args: &[&str]) -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 4000000 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_ocgraph")])
        .args(args)
        .output()
        .expect("run ocgraph");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    err
}

/// Billions of added vertices are a legal update, but the state of a maintained result or a
/// kernel on them may not fit the machine: that is an error saying what needed how much, not
/// an abort of the process.
#[test]
fn state_beyond_the_memory_limit_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "erdos-renyi", "--vertices", "4", "--edges", "3", "--seed", "1", "--quiet", p(&g)]);
    let updates = t.path().join("u.txt");
    let stream = |lines: &str, what: &[&str]| {
        std::fs::write(&updates, lines).unwrap();
        refused_within_4gb(
            &[&["stream", p(&g), "--updates", p(&updates), "--durability", "none"], what].concat(),
        )
    };
    let err = stream("+v 4294967290\n", &["--maintain", "wcc"]);
    assert!(err.contains("wcc: out of memory: ") && err.contains(" 4294967294 vertices needs "), "{err}");
    // The update itself was applied (the kernel names the grown graph's vertex count); a kernel
    // on the grown graph is refused the same way.
    let err = refused_within_4gb(&["run", "pagerank", p(&g)]);
    assert!(
        err.contains("out of memory: pagerank's per-vertex state on 4294967294 vertices needs 192.0 GiB"),
        "{err}"
    );
    // A watched edge at the last vertex grows the watch's per-vertex slots.
    let err = stream("+ 0 4294967293\n", &["--watch", "triangle"]);
    assert!(err.contains("out of memory: a watch's slots of 4294967294 vertices needs"), "{err}");
    // A label set on the grown graph: every vertex's label at once is refused the same way.
    let labels = t.path().join("l.txt");
    std::fs::write(&labels, "4294967293 7\n").unwrap();
    ok(&["update", p(&g), "--set-labels", p(&labels), "--durability", "none"]);
    let err = refused_within_4gb(&["labels", "show", p(&g)]);
    assert!(err.contains("out of memory: the labels of 4294967294 vertices needs"), "{err}");
}
