//! End-to-end tests of the `ocgraph` binary: round trips through generate/export/import, and
//! every kind of bad input failing cleanly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ocgraph_core::{Adjacency, Graph, OpenOptions};

fn ocgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ocgraph")).args(args).output().expect("run ocgraph")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs `ocgraph args` and asserts success.
fn ok(args: &[&str]) -> Output {
    let out = ocgraph(args);
    assert!(out.status.success(), "ocgraph {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Runs `ocgraph args`, asserts a clean failure with `code` whose message contains every `needle`.
fn fails(args: &[&str], code: i32, needles: &[&str]) -> String {
    let out = ocgraph(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "ocgraph {args:?}: stderr {err}");
    assert!(err.starts_with("error: ") || err.contains("\nerror: "), "no 'error:' line: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "panic: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr of {args:?} lacks '{n}': {err}");
    }
    err
}

fn open(dir: &Path) -> Graph {
    Graph::open(dir, &OpenOptions::default()).unwrap()
}

/// Asserts two graphs have the same CSR (neighbours and weights, both directions). The second may
/// have fewer vertices when the first's highest ids are isolated (an edge list cannot say).
fn assert_same_csr(a: &Graph, b: &Graph) {
    assert_eq!((a.is_directed(), a.is_weighted()), (b.is_directed(), b.is_weighted()));
    assert_eq!((a.num_edges(), a.num_arcs()), (b.num_edges(), b.num_arcs()));
    assert!(b.num_vertices() <= a.num_vertices());
    for (da, db) in [(a.out(), b.out()), (a.in_(), b.in_())] {
        for v in 0..a.num_vertices() as u32 {
            if (v as usize) < b.num_vertices() {
                assert_eq!(&*da.neighbors(v), &*db.neighbors(v), "vertex {v}");
                let (wa, wb) = (da.weights(v), db.weights(v));
                assert_eq!(wa.as_deref(), wb.as_deref(), "weights of {v}");
            } else {
                assert_eq!(da.degree(v), 0);
            }
        }
    }
}

#[test]
fn kronecker_generate_info_check_export_import_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("k");
    ok(&["generate", "kronecker", "--scale", "9", "--edge-factor", "8", "--seed", "3", p(&g)]);
    let info: serde_json::Value =
        serde_json::from_slice(&ok(&["info", p(&g), "--json"]).stdout).expect("info --json is JSON");
    let graph = open(&g);
    assert_eq!(info["vertices"], 512);
    assert_eq!(info["edges"], graph.num_edges());
    assert_eq!(info["directed"], false);
    assert_eq!(info["self_loops"], 0);
    let degs: Vec<usize> = (0..512).map(|v| graph.out().degree(v)).collect();
    assert_eq!(info["out_degree"]["max"], *degs.iter().max().unwrap());
    assert_eq!(info["isolated_vertices"], degs.iter().filter(|&&d| d == 0).count());
    let mut sorted = degs.clone();
    sorted.sort();
    assert_eq!(info["out_degree"]["median"], sorted[255]);
    let check = String::from_utf8(ok(&["check", p(&g)]).stdout).unwrap();
    assert!(check.starts_with("OK"), "{check}");

    // Text: each undirected edge once, u <= v.
    let txt = t.path().join("k.txt");
    ok(&["export", p(&g), p(&txt)]);
    let text = std::fs::read_to_string(&txt).unwrap();
    assert_eq!(text.lines().count() as u64, graph.num_edges());
    assert!(text.lines().all(|l| {
        let f: Vec<u32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
        f.len() == 2 && f[0] <= f[1]
    }));
    let g2 = t.path().join("k2");
    ok(&["import", p(&txt), p(&g2), "--undirected", "--quiet"]);
    assert_same_csr(&graph, &open(&g2));

    // Binary u32 pairs, with sequential advice and I/O statistics on stderr.
    let bin = t.path().join("k.bin");
    let out = ok(&["export", p(&g), p(&bin), "--advice", "sequential", "--stats"]);
    let stats = String::from_utf8(out.stderr).unwrap();
    assert!(stats.contains("\"backend\""), "{stats}");
    assert_eq!(std::fs::metadata(&bin).unwrap().len(), graph.num_edges() * 8);
    let g3 = t.path().join("k3");
    ok(&["import", p(&bin), p(&g3), "--undirected", "--memory", "4KiB"]);
    assert_same_csr(&graph, &open(&g3));
}

#[test]
fn pack_keeps_the_graph_and_refuses_updates() {
    let t = tempfile::tempdir().unwrap();
    let (g, pk) = (t.path().join("k"), t.path().join("kp"));
    ok(&["generate", "kronecker", "--scale", "10", "--edge-factor", "8", "--seed", "5", p(&g)]);
    let out = String::from_utf8(ok(&["pack", p(&g), p(&pk), "--quiet"]).stderr).unwrap();
    assert!(out.contains("packed") && out.contains("x the size"), "{out}");
    let info: serde_json::Value = serde_json::from_slice(&ok(&["info", p(&pk), "--json"]).stdout).unwrap();
    assert_eq!(info["packed"], true);
    assert!(
        info["files"]["out.packed"].as_u64().unwrap() < info["files"]["out.offsets"].as_u64().unwrap() * 4
    );
    assert!(String::from_utf8(ok(&["check", p(&pk)]).stdout).unwrap().starts_with("OK"));
    assert_same_csr(&open(&g), &open(&pk));
    // The same BFS depths, byte for byte, through a pool of a few frames.
    for (dir, npy) in [(&g, "a.npy"), (&pk, "b.npy")] {
        let npy = t.path().join(npy);
        ok(&[
            "run",
            "bfs",
            p(dir),
            "--source",
            "3",
            "--backend",
            "pool",
            "--memory",
            "32KiB",
            "--out",
            p(&npy),
        ]);
    }
    assert_eq!(
        std::fs::read(t.path().join("a.npy")).unwrap(),
        std::fs::read(t.path().join("b.npy")).unwrap()
    );
    let edges = t.path().join("e.txt");
    std::fs::write(&edges, "1 2\n").unwrap();
    fails(&["update", p(&pk), "--add-edges", p(&edges)], 2, &["packed graphs cannot be opened for updates"]);
    fails(&["pack", p(&pk), p(&t.path().join("again"))], 2, &["packed already"]);
    fails(&["pack", p(&g), p(&pk)], 1, &["kp"]);
}

/// The int64 values of a 1-d `.npy` file written by `ocgraph run --out`.
fn npy_i64(path: &Path) -> Vec<i64> {
    let b = std::fs::read(path).unwrap();
    let header = 10 + u16::from_le_bytes([b[8], b[9]]) as usize;
    assert!(String::from_utf8_lossy(&b[10..header]).contains("'<i8'"));
    b[header..].chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn reorder_numbers_hubs_first_and_keeps_original_ids() {
    // Also `run --source-id`: a source given by its original id.
    let t = tempfile::tempdir().unwrap();
    let (g, r) = (t.path().join("k"), t.path().join("kr"));
    ok(&["generate", "kronecker", "--scale", "10", "--edge-factor", "8", "--seed", "5", p(&g)]);
    let out = String::from_utf8(ok(&["reorder", p(&g), p(&r), "--quiet"]).stderr).unwrap();
    assert!(out.contains("reordered") && out.contains("by degree"), "{out}");
    assert!(String::from_utf8(ok(&["check", p(&r)]).stdout).unwrap().starts_with("OK"));
    let info: serde_json::Value = serde_json::from_slice(&ok(&["info", p(&r), "--json"]).stdout).unwrap();
    assert_eq!(info["id_map"], "u64");
    // ids.u64: the old vertex of each new one.
    let n = open(&g).num_vertices();
    let old: Vec<usize> = std::fs::read(r.join("ids.u64")).unwrap()[..n * 8]
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as usize)
        .collect();
    let (gg, rr) = (open(&g), open(&r));
    for (p_new, &u) in old.iter().enumerate() {
        let mapped: Vec<usize> = gg.out().neighbors(u as u32).iter().map(|&x| x as usize).collect();
        let mut back: Vec<usize> =
            rr.out().neighbors(p_new as u32).iter().map(|&x| old[x as usize]).collect();
        back.sort_unstable();
        assert_eq!(back, mapped, "list of new vertex {p_new} (old {u})");
        if p_new > 0 {
            assert!(rr.out().degree(p_new as u32 - 1) >= rr.out().degree(p_new as u32));
        }
    }
    // BFS from old vertex 3 gives the same depths, renumbered.
    let source = old.iter().position(|&u| u == 3).unwrap().to_string();
    ok(&["run", "bfs", p(&g), "--source", "3", "--out", p(&t.path().join("a.npy"))]);
    ok(&["run", "bfs", p(&r), "--source", &source, "--out", p(&t.path().join("b.npy"))]);
    // The same source by its original id.
    ok(&["run", "bfs", p(&r), "--source-id", "3", "--out", p(&t.path().join("c.npy"))]);
    let (a, b) = (npy_i64(&t.path().join("a.npy")), npy_i64(&t.path().join("b.npy")));
    assert!(a.iter().filter(|&&d| d > 1).count() > 10);
    assert_eq!((0..n).map(|p| a[old[p]]).collect::<Vec<_>>(), b);
    assert_eq!(npy_i64(&t.path().join("c.npy")), b);
    fails(&["run", "bfs", p(&r), "--source-id", &n.to_string()], 2, &["--source-id", "no vertex"]);
    // Ids no vertex can have, each said as what it is.
    for (id, why) in [
        ("18446744073709551616", "past the largest original id"),
        ("-1", "negative"),
        ("abc", "are integers"),
    ] {
        fails(&["run", "bfs", p(&r), &format!("--source-id={id}")], 2, &["--source-id", id, why]);
    }
    fails(&["run", "wcc", p(&r), "--threads", "100000"], 2, &["--threads 100000", "at most 1024"]);
    for secs in ["nan", "inf", "1e999"] {
        fails(
            &["run", "wcc", p(&r), "--warmup-secs", secs],
            2,
            &["--warmup-secs", "finite number of seconds"],
        );
    }
    // Updates by original id on the renumbered copy: id 3 is old vertex 3; a new id (n + 7)
    // gets a new vertex.
    let edges = t.path().join("e.txt");
    std::fs::write(&edges, format!("3 {}\n", n + 7)).unwrap();
    let out =
        String::from_utf8(ok(&["update", p(&r), "--add-edges", p(&edges), "--original-ids"]).stdout).unwrap();
    assert!(out.contains("new vertices 1"), "{out}");
    let rr = open(&r);
    assert_eq!(rr.num_vertices(), n);
    let view = ocgraph_core::GraphView::open(&r, &Default::default()).unwrap();
    let ids = view.ids().unwrap();
    let new = ids.vertex(&ocgraph_core::ids::OriginalId::Int(n as u64 + 7)).unwrap();
    assert_eq!(new as usize, n);
    let v3 = ids.vertex(&ocgraph_core::ids::OriginalId::Int(3)).unwrap();
    ocgraph_core::with_adjacency!(&view, |out, _inn| assert!(out.neighbors(v3).contains(&new)));
    fails(&["reorder", p(&g), p(&r)], 1, &["kr"]);
}

/// `(id, value)` pairs of a text file written by `run --out ... --original-ids`.
fn id_value_lines(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (id, v) = l.split_once(' ').unwrap_or_else(|| panic!("no `id value` line: {l:?}"));
            (id.to_string(), v.to_string())
        })
        .collect()
}

#[test]
fn run_out_with_original_ids_names_the_input_vertices() {
    // A reordered copy's results written with --original-ids equal the source graph's, whose
    // vertex ids are the copy's original ids.
    let t = tempfile::tempdir().unwrap();
    let (g, r) = (t.path().join("k"), t.path().join("kr"));
    ok(&["generate", "kronecker", "--scale", "9", "--edge-factor", "6", "--seed", "3", p(&g)]);
    ok(&["reorder", p(&g), p(&r), "--quiet"]);
    let n = open(&g).num_vertices();
    let out = |name: &str| t.path().join(name);
    for algo in ["bfs", "sssp", "pagerank", "spmv"] {
        ok(&["run", algo, p(&g), "--source", "3", "--out", p(&out("a.txt"))]);
        ok(&["run", algo, p(&r), "--source-id", "3", "--out", p(&out("b.txt")), "--original-ids"]);
        let a: Vec<String> =
            std::fs::read_to_string(out("a.txt")).unwrap().lines().map(String::from).collect();
        let b = id_value_lines(&out("b.txt"));
        assert_eq!(b.len(), n, "{algo}");
        let mut seen = vec![false; n];
        for (id, v) in b {
            let u: usize = id.parse().unwrap();
            assert!(!std::mem::replace(&mut seen[u], true), "{algo}: vertex {u} twice");
            if algo == "bfs" {
                assert_eq!(v, a[u], "{algo} of {u}");
            } else {
                // Sums in another order: equal to rounding.
                let (x, y): (f64, f64) = (v.parse().unwrap(), a[u].parse().unwrap());
                assert!(x == y || (x - y).abs() <= 1e-9 * y.abs().max(1e-12), "{algo} of {u}: {x} vs {y}");
            }
        }
    }
    // Components: the same partition, each labelled by the original id of a member.
    ok(&["run", "wcc", p(&g), "--out", p(&out("a.txt"))]);
    ok(&["run", "wcc", p(&r), "--out", p(&out("b.txt")), "--original-ids"]);
    let a: Vec<usize> =
        std::fs::read_to_string(out("a.txt")).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    let mut label_of = std::collections::HashMap::new();
    for (id, label) in id_value_lines(&out("b.txt")) {
        let (u, l): (usize, usize) = (id.parse().unwrap(), label.parse().unwrap());
        assert_eq!(a[l], a[u], "label {l} of {u} is outside its component");
        assert_eq!(*label_of.entry(a[u]).or_insert(l), l, "component of {u} has two labels");
    }
    // Vertex lists: one original id a line.
    let lines = |path: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_to_string(path).unwrap().lines().map(String::from).collect();
        v.sort();
        v
    };
    ok(&["run", "k-hop", p(&g), "--source", "3", "--out", p(&out("a.txt"))]);
    ok(&["run", "k-hop", p(&r), "--source-id", "3", "--out", p(&out("b.txt")), "--original-ids"]);
    assert!(lines(&out("a.txt")).len() > 5);
    assert_eq!(lines(&out("a.txt")), lines(&out("b.txt")));
    fails(
        &["run", "bfs", p(&r), "--out", p(&out("c.npy")), "--original-ids"],
        2,
        &["--original-ids writes text", "c.npy"],
    );
    assert!(!out("c.npy").exists());
}

#[test]
fn run_out_with_original_ids_writes_string_ids() {
    // Hand-checked: a triangle alice-bob-carol, bob-frank, and dave-erin apart.
    let t = tempfile::tempdir().unwrap();
    let (edges, g, o) = (t.path().join("e.txt"), t.path().join("g"), t.path().join("o.txt"));
    std::fs::write(&edges, "alice bob\nbob carol\ncarol alice\ndave erin\nbob frank\n").unwrap();
    ok(&["import", p(&edges), p(&g), "--undirected"]);
    let read = || std::fs::read_to_string(&o).unwrap();
    ok(&["run", "bfs", p(&g), "--source-id", "bob", "--out", p(&o), "--original-ids"]);
    let mut depth: Vec<String> = read().lines().map(String::from).collect();
    depth.sort();
    assert_eq!(depth, ["alice 1", "bob 0", "carol 1", "dave -1", "erin -1", "frank 1"]);
    ok(&[
        "run",
        "shortest-path",
        p(&g),
        "--source-id",
        "alice",
        "--target-id",
        "frank",
        "--out",
        p(&o),
        "--original-ids",
    ]);
    assert_eq!(read(), "alice\nbob\nfrank\n");
    ok(&["run", "diameter", p(&g), "--source-id", "dave", "--out", p(&o), "--original-ids"]);
    assert_eq!(read(), "1\ndave\nerin\n");
    ok(&["run", "triangle-count", p(&g), "--out", p(&o), "--original-ids"]);
    assert_eq!(read(), "1\n");
}

#[test]
fn weighted_road_and_directed_erdos_renyi_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let road = t.path().join("road");
    let directed = t.path().join("directed-road");
    fails(
        &["generate", "road", "--rows", "4", "--cols", "4", "--directed", p(&directed)],
        2,
        &["undirected"],
    );
    assert!(!directed.exists());
    ok(&["generate", "road", "--rows", "20", "--cols", "30", "--seed", "2", p(&road)]);
    let rg = open(&road);
    assert!(rg.is_weighted() && !rg.is_directed() && rg.num_vertices() == 600);
    let txt = t.path().join("road.txt");
    ok(&["export", p(&road), p(&txt), "--format", "text"]);
    let back = t.path().join("road2");
    ok(&["import", p(&txt), p(&back), "--undirected", "--weighted"]);
    assert_same_csr(&rg, &open(&back));

    let er = t.path().join("er");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "300",
        "--edges",
        "3000",
        "--directed",
        "--weighted",
        p(&er),
    ]);
    let eg = open(&er);
    assert!(eg.is_directed() && eg.is_weighted());
    let etxt = t.path().join("er.edges");
    ok(&["export", p(&er), p(&etxt)]);
    assert_eq!(std::fs::read_to_string(&etxt).unwrap().lines().count() as u64, eg.num_arcs());
    let eback = t.path().join("er2");
    ok(&["import", p(&etxt), p(&eback), "--weighted"]);
    assert_same_csr(&eg, &open(&eback));
    // Generation is deterministic per seed.
    let er_again = t.path().join("er_again");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "300",
        "--edges",
        "3000",
        "--directed",
        "--weighted",
        p(&er_again),
    ]);
    assert_same_csr(&eg, &open(&er_again));
}

#[test]
fn relabel_then_export_original_ids() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "# comment\n1000 20\n20 7\n7 1000\n5000000000 20\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g), "--relabel"]);
    assert_eq!(open(&g).num_vertices(), 4);
    let out = t.path().join("out.txt");
    ok(&["export", p(&g), p(&out), "--original-ids"]);
    let mut got: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(String::from).collect();
    got.sort();
    assert_eq!(got, ["1000 20", "20 7", "5000000000 20", "7 1000"]);
    // u64 ids do not fit u32 pairs.
    fails(
        &["export", p(&g), p(&t.path().join("o.bin")), "--original-ids"],
        2,
        &["5000000000", "export as Parquet"],
    );
    assert!(!t.path().join("o.bin").exists());
}

/// Export to `.csv` writes CSV (a header, commas), which `import` reads back as the same graph,
/// weights and original string ids included (it wrote the space-separated text format).
#[test]
fn csv_export_imports_back() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("e.txt");
    std::fs::write(&input, "a b 1.5\nb c 2\nc a 0.25\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g), "--weighted"]);
    let csv = t.path().join("e.csv");
    ok(&["export", p(&g), p(&csv), "--original-ids"]);
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "src,dst,weight\na,b,1.5\nb,c,2\nc,a,0.25\n");
    let back = t.path().join("back");
    ok(&["import", p(&csv), p(&back), "--weighted"]);
    let (a, b) = (t.path().join("a.txt"), t.path().join("b.txt"));
    ok(&["export", p(&g), p(&a), "--original-ids"]);
    ok(&["export", p(&back), p(&b), "--original-ids"]);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
}

/// Triangle counting's oriented lists, when `advise` says they stay in RAM, fit the memory
/// beside the pool with their building peak (twice the lists and 40 bytes per vertex); when
/// they would not, it advises a pool that sends them to the scratch file. It advised a pool
/// that kept them in RAM past `--memory` (90 MiB used for 64 MiB); each kernel's state is what
/// the kernel reserves (BFS 32 bytes per vertex; it counted 16, and runs peaked past the budget).
#[test]
fn advise_keeps_triangle_counting_and_bfs_within_the_memory() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    // 65,536 vertices (BFS 2 MiB, lists building 2.5 MiB), 131,070 arcs (lists 256 KiB), 1 MiB of lists.
    ok(&["generate", "erdos-renyi", "--vertices", "65536", "--edges", "65536", "--quiet", p(&g)]);
    let line = |memory: &str, kernel: &str| {
        let out = String::from_utf8(ok(&["advise", p(&g), "--memory", memory]).stdout).unwrap();
        out.lines().find(|l| l.starts_with(kernel)).unwrap_or_default().to_string()
    };
    // 2 MiB of state, 1.1 MiB of pool and 3 MiB of building peak do not fit 4 MiB: scratch.
    let tight = line("4MiB", "triangle-count");
    assert!(tight.contains("to a scratch file") && tight.contains("--memory 896.0KiB"), "{tight}");
    let roomy = line("8MiB", "triangle-count");
    assert!(roomy.contains("in RAM") && roomy.contains("--memory 1.1MiB"), "{roomy}");
    assert!(line("8MiB", "bfs").contains("2.0 MiB"), "{}", line("8MiB", "bfs"));
    // PageRank and WCC: what the kernels reserve too (48 and 16 bytes per vertex; it counted 36
    // and 8, so a budget between the two was advised and then refused by the kernel).
    assert!(line("8MiB", "pagerank").contains("3.0 MiB"), "{}", line("8MiB", "pagerank"));
    assert!(line("8MiB", "wcc").contains("1.0 MiB"), "{}", line("8MiB", "wcc"));
}

/// `advise` sizes the graph as it is now (pending updates included) and counts the stored
/// layouts apart from the lists a kernel reads (it counted them all as graph size).
#[test]
fn advise_counts_updates_and_layouts_apart() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "10", "--edge-factor", "8", "--seed", "1", "--quiet", p(&g)]);
    let before = String::from_utf8(ok(&["advise", p(&g), "--memory", "1GiB"]).stdout).unwrap();
    assert!(before.contains("(1024 vertices") && !before.contains("layouts"), "{before}");
    // The grid's build budget has every builder's floor.
    fails(&["layout", "grid", p(&g), "--memory", "1KiB"], 2, &["at least 4KiB"]);
    ok(&["layout", "grid", p(&g)]);
    ok(&["layout", "hubs", p(&g)]);
    let line = |g: &Path, name: &str| {
        let info = String::from_utf8(ok(&["info", p(g)]).stdout).unwrap();
        info.lines().find(|l| l.starts_with(name)).unwrap().to_string()
    };
    for name in ["grid", "hubs"] {
        assert!(!line(&g, name).contains("not used"), "{}", line(&g, name));
    }
    ok(&["update", p(&g), "--add-vertices", "5000"]);
    // `info` says the grid and hub index wait for a compaction (kernels read the lists meanwhile).
    for name in ["grid", "hubs"] {
        assert!(line(&g, name).contains("not used while the graph has updates"), "{}", line(&g, name));
    }
    let after = String::from_utf8(ok(&["advise", p(&g), "--memory", "1GiB"]).stdout).unwrap();
    assert!(after.contains("(6024 vertices") && after.contains("of stored layouts and copies"), "{after}");
    let lists = |out: &str| {
        out.lines().find(|l| l.starts_with("size")).unwrap().split(" of ").next().unwrap().to_string()
    };
    assert_eq!(lists(&before), lists(&after), "the lists' size leaves the grid out");
    assert!(after.contains("of update log, held in RAM"), "{after}");
    // Copies and online queries read the stored graph: with updates pending, the advice
    // compacts first (it advised commands that refuse such a graph).
    let small = String::from_utf8(ok(&["advise", p(&g), "--memory", "128KiB"]).stdout).unwrap();
    let needs_stored = |l: &&str| l.contains("`ocgraph pack`") || l.starts_with("queries");
    assert!(small.lines().filter(needs_stored).count() >= 2, "{small}");
    for l in small.lines().filter(needs_stored) {
        assert!(l.contains("`ocgraph compact`, then "), "{small}");
    }
    assert!(!before.contains("`ocgraph compact`"), "{before}");
    // Every pool size it recommends is one the pool accepts (it advised 4 KiB, below two
    // frames, for small graphs and budgets), written as one word of the command line.
    let tiny = t.path().join("tiny");
    ok(&["generate", "erdos-renyi", "--vertices", "5", "--edges", "0", "--quiet", p(&tiny)]);
    for (graph, memory) in [(&tiny, "1MiB"), (&g, "64KiB"), (&g, "100")] {
        let out = String::from_utf8(ok(&["advise", p(graph), "--memory", memory]).stdout).unwrap();
        for size in out.lines().filter_map(|l| l.split("--memory ").nth(1)) {
            let size = size.split([' ', ';']).next().unwrap();
            ok(&["run", "bfs", p(graph), "--backend", "pool", "--memory", size, "--trials", "1"]);
        }
    }
    // A skewed graph is advised a reordered copy; the copy `reorder` wrote is not.
    let (k, r) = (t.path().join("k12"), t.path().join("k12r"));
    ok(&["generate", "kronecker", "--scale", "12", "--edge-factor", "8", "--seed", "1", "--quiet", p(&k)]);
    ok(&["reorder", p(&k), p(&r), "--quiet"]);
    let advice = |g: &Path| String::from_utf8(ok(&["advise", p(g), "--memory", "150KiB"]).stdout).unwrap();
    assert!(advice(&k).contains("`ocgraph reorder` then `ocgraph pack`"), "{}", advice(&k));
    let copy = advice(&r);
    assert!(
        copy.contains("a copy reordered by degree") && !copy.contains("`ocgraph reorder` then"),
        "{copy}"
    );
    // The skew counts every vertex: a hub that a sample of every 4th vertex misses (vertex 1
    // of 20,000, joined to all others) makes the graph skewed (it was called even).
    let edges: String = (0..20_000u32)
        .filter(|&v| v != 1)
        .map(|v| format!("1 {v}\n"))
        .chain((0..20_000u32).map(|v| format!("{v} {}\n", (v as u64 * 7919 % 20_000))))
        .collect();
    let (input, hub) = (t.path().join("hub.txt"), t.path().join("hub"));
    std::fs::write(&input, edges).unwrap();
    ok(&["import", p(&input), p(&hub), "--quiet"]);
    let out = advice(&hub);
    let skew: f64 =
        out.split("max/mean out-degree ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    assert!(skew > 4000.0, "{out}");
    // An out-star whose centre no sampled vertex is: its neighbours are not called close (no
    // sampled list had any, and the median of none was 0).
    let star: String = (0..20_000u32).filter(|&v| v != 1001).map(|v| format!("1001 {v}\n")).collect();
    let (input, hub) = (t.path().join("star.txt"), t.path().join("star"));
    std::fs::write(&input, star).unwrap();
    ok(&["import", p(&input), p(&hub), "--quiet"]);
    let out = advice(&hub);
    assert!(!out.contains("neighbours already close"), "{out}");
}

/// `--force` replaces a graph, never a file (the input itself) or a directory of other files,
/// which it deleted.
#[test]
fn force_replaces_only_graphs() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("e.txt");
    std::fs::write(&input, "0 1\n1 2\n").unwrap();
    fails(&["import", p(&input), p(&input), "--force"], 1, &["is a file, not a graph"]);
    // Without --force the refusal does not suggest it.
    let out = fails(&["import", p(&input), p(&input)], 1, &["is a file, not a graph"]);
    assert!(!out.contains("use --force"), "{out}");
    assert_eq!(std::fs::read_to_string(&input).unwrap(), "0 1\n1 2\n");
    let other = t.path().join("mydata");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "keep").unwrap();
    fails(&["import", p(&input), p(&other), "--force"], 1, &["other files in it"]);
    assert!(other.join("notes.txt").exists());
    // A graph and an empty directory are replaced.
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g)]);
    ok(&["import", p(&input), p(&g), "--force", "--undirected"]);
    assert!(!open(&g).is_directed());
    let empty = t.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    ok(&["import", p(&input), p(&empty), "--force"]);
    // A graph whose manifest is corrupt past its magic bytes is replaced (it failed reading
    // the manifest, and a user had to delete the directory); a directory whose file named
    // `manifest` is no graph's is not.
    let bytes = std::fs::read(g.join("manifest")).unwrap();
    std::fs::write(g.join("manifest"), &bytes[..30]).unwrap();
    ok(&["import", p(&input), p(&g), "--force"]);
    assert!(open(&g).is_directed());
    std::fs::write(other.join("manifest"), "a list of things").unwrap();
    fails(&["import", p(&input), p(&other), "--force"], 1, &["whose file 'manifest' is no graph's"]);
    assert!(other.join("notes.txt").exists() && other.join("manifest").exists());
    // A user's file kept inside a graph directory is never deleted with the graph (it was).
    std::fs::write(g.join("in.txt"), "mine").unwrap();
    fails(&["import", p(&input), p(&g), "--force"], 1, &["also holds a file not the graph's ('in.txt')"]);
    assert_eq!(std::fs::read_to_string(g.join("in.txt")).unwrap(), "mine");
    assert!(open(&g).is_directed());
}

/// Every entry the engine writes in a graph directory (layouts, labels, WAL, levels, a
/// compacted base, maintained results, the writer lock) is the graph's: `--force` replaces
/// such a graph whole.
#[test]
fn force_replaces_a_graph_with_every_kind_of_entry() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("e.txt");
    let edges: String = (0..400u32).map(|i| format!("{} {} 0.5\n", i % 97, (i * 7 + 3) % 101)).collect();
    std::fs::write(&input, edges).unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g), "--weighted", "--quiet"]);
    for layout in ["grid", "compress", "pack", "hubs"] {
        ok(&["layout", layout, p(&g)]);
    }
    let labels = t.path().join("labels.txt");
    std::fs::write(&labels, "0 1\n3 4\n").unwrap();
    ok(&["labels", "set", p(&g), p(&labels)]);
    let updates = t.path().join("u.txt");
    std::fs::write(&updates, "+ 5 6 1.0\n- 0 3\n+v 2\n").unwrap();
    ok(&["stream", p(&g), "--updates", p(&updates), "--maintain", "wcc,bfs:source=0"]);
    ok(&["import", p(&input), p(&g), "--force", "--weighted", "--quiet"]);
    assert!(!g.join("grid.edges").exists());
    // Then a compacted base, a frozen level and a label log.
    ok(&["labels", "set", p(&g), p(&labels)]);
    ok(&["stream", p(&g), "--updates", p(&updates), "--maintain", "wcc,bfs:source=0"]);
    ok(&["compact", p(&g)]);
    ok(&["stream", p(&g), "--updates", p(&updates), "--maintain", "wcc"]);
    let (added, relabelled) = (t.path().join("a.txt"), t.path().join("l2.txt"));
    std::fs::write(&added, "8 9 2.0\n").unwrap();
    std::fs::write(&relabelled, "7 3\n").unwrap();
    ok(&["update", p(&g), "--add-edges", p(&added), "--set-labels", p(&relabelled), "--freeze"]);
    let mut kinds: Vec<String> = std::fs::read_dir(&g)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().split('.').next().unwrap().to_string())
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["base", "labels", "levels", "maintained", "manifest", "wal", "writer"]);
    ok(&["import", p(&input), p(&g), "--force", "--undirected", "--quiet"]);
    assert!(!open(&g).is_directed());
}

/// A pipe is refused as an import's input (import reads it more than once: the first read
/// took its first bytes, which the parse then lost); a binary edge list whose first bytes are
/// gzip's magic is read as it is, not as a gzip stream.
#[test]
fn pipes_are_refused_and_binary_lists_are_never_gzip() {
    use std::io::Write;
    let t = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
        .args(["import", "/dev/stdin", p(&t.path().join("g")), "--relabel"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The writer may find the pipe closed once the import refused it.
    let _ = child.stdin.take().unwrap().write_all(b"1000 2000\n\n3000 4000\n5 6\n");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(!t.path().join("g").exists());
    // Source 35615 = 0x8b1f: the file starts with 1f 8b.
    let bin = t.path().join("e.u32");
    let words: Vec<u8> = [35615u32, 1, 1, 2].iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&bin, words).unwrap();
    let g = t.path().join("b");
    ok(&["import", p(&bin), p(&g)]);
    let graph = open(&g);
    assert_eq!(graph.num_vertices(), 35616);
    assert_eq!(&*graph.out().neighbors(35615), &[1]);
    assert_eq!(&*graph.out().neighbors(1), &[2]);
}

/// `--source-id` on a graph with string ids takes the id as written: `007` and `7` are two
/// vertices, and an integer-looking id is not read as a number.
#[test]
fn source_ids_of_string_graphs_are_taken_as_written() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "a 007\n007 b\nb 7\n7 c\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g)]);
    // Vertices in order of first appearance: a 0, 007 1, b 2, 7 3, c 4; arcs directed.
    let depths = |id: &str| {
        let out = t.path().join(format!("d{id}.npy"));
        ok(&["run", "bfs", p(&g), "--source-id", id, "--out", p(&out)]);
        npy_i64(&out)
    };
    assert_eq!(depths("007"), [-1, 0, 1, 2, 3]);
    assert_eq!(depths("7"), [-1, -1, -1, 0, 1]);
    fails(&["run", "bfs", p(&g), "--source-id", "07"], 2, &["--source-id 07", "no vertex"]);
    // The report line names the vertices given by original id as they were given.
    let report = |args: &[&str]| String::from_utf8(ok(args).stdout).unwrap();
    let path = report(&["run", "shortest-path", p(&g), "--source-id", "007", "--target-id", "c"]);
    assert!(path.contains("path of 3 hops from 007 to c"), "{path}");
    let none = report(&["run", "shortest-path", p(&g), "--source-id", "c", "--target-id", "a"]);
    assert!(none.contains("no path from c to a"), "{none}");
    let hop = report(&["run", "k-hop", p(&g), "--source-id", "b", "--k", "1"]);
    assert!(hop.contains("1 vertices within 1 hops of b"), "{hop}");
    let far = report(&["run", "diameter", p(&g), "--source-id", "a"]);
    assert!(far.contains("diameter >= 4 (from a to c)"), "{far}");
    // Exported as text, a first edge of integer-looking string ids would read back as integers
    // (`007` and `7` one vertex): refused. Here the first edge is `a 007`, which reads back.
    let out = t.path().join("back.txt");
    ok(&["export", p(&g), p(&out), "--original-ids"]);
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("a 007\n"));
    let mixed = t.path().join("m.txt");
    std::fs::write(&mixed, "x y\n007 7\ny 007\n").unwrap();
    let sorted = t.path().join("s");
    ok(&["import", p(&mixed), p(&sorted), "--relabel=sorted"]);
    fails(&["export", p(&sorted), p(&out), "--original-ids"], 2, &["(007 7)", "look like integers"]);
}

/// A text export of original ids that would not read back as themselves (whitespace inside) is
/// refused and leaves no file; Parquet keeps them.
#[test]
fn text_export_refuses_ids_a_text_edge_list_cannot_hold() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.csv");
    std::fs::write(&input, "src,dst\n\"a b\",x\nx,y\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g)]);
    let out = t.path().join("s.txt");
    fails(&["export", p(&g), p(&out), "--original-ids"], 2, &["\"a b\"", "Parquet"]);
    assert!(!out.exists());
    ok(&["export", p(&g), p(&out)]); // vertex ids are fine
                                     // A first id starting with a byte-order mark would lose it: the importers skip one at the
                                     // start of a file. In CSV the header comes first.
    std::fs::write(&input, "src,dst\n\u{feff}a,b\nb,c\n").unwrap();
    let bom = t.path().join("bom");
    ok(&["import", p(&input), p(&bom)]);
    let out = t.path().join("bom.txt");
    fails(&["export", p(&bom), p(&out), "--original-ids"], 2, &["byte-order mark", "CSV"]);
    assert!(!out.exists());
    let (csv, back) = (t.path().join("bom.csv"), t.path().join("back"));
    ok(&["export", p(&bom), p(&csv), "--original-ids"]);
    ok(&["import", p(&csv), p(&back)]);
    // The mark came back through CSV: the text export still refuses it.
    fails(&["export", p(&back), p(&out), "--original-ids"], 2, &["byte-order mark"]);
}

/// `export` to a symlink writes through it (the link stays a link, its target gets the edges)
/// instead of replacing it; a graph of isolated vertices round-trips through Parquet given
/// `--num-vertices`, as through text.
#[test]
fn export_writes_through_links_and_edgeless_graphs_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "0 1\n1 2\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g)]);
    let (target, link) = (t.path().join("target.txt"), t.path().join("link.txt"));
    std::fs::write(&target, "old\n").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(&["export", p(&g), p(&link)]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "0 1\n1 2\n");
    // A device has nothing to fsync: exporting to it succeeds.
    ok(&["export", p(&g), "/dev/null"]);
    ok(&["export", p(&g), "/dev/null", "--format", "parquet"]);
    // `/dev/stdout` is the process's own output, at its offset: a shell's `>>` keeps what the
    // file held (the export is not written from its start over it).
    let shell_out = t.path().join("appended.txt");
    std::fs::write(&shell_out, "header\n").unwrap();
    let appending = std::fs::OpenOptions::new().append(true).open(&shell_out).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
        .args(["export", p(&g), "/dev/stdout"])
        .stdout(appending)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&shell_out).unwrap();
    assert!(text.starts_with("header\n0 1\n1 2\n"), "{text:?}");

    // A corrupted offset that `info` and `export` stumble on is reported by file.
    let bad = t.path().join("bad");
    ok(&["generate", "kronecker", "--scale", "6", "--edge-factor", "4", "--seed", "1", "--quiet", p(&bad)]);
    let mut offsets = std::fs::read(bad.join("out.offsets")).unwrap();
    offsets[16..20].copy_from_slice(&[0xff; 4]);
    std::fs::write(bad.join("out.offsets"), &offsets).unwrap();
    // The corrupted file is the whole message: the panic it caused is not printed (it was, as
    // an "internal error" line before the file's).
    for args in [
        vec!["info", p(&bad)],
        vec!["export", p(&bad), p(&t.path().join("x.txt"))],
        vec!["run", "sssp", p(&bad), "--source", "0"],
        vec!["run", "pagerank", p(&bad)],
        vec!["advise", p(&bad)],
    ] {
        let out = ocgraph(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("out.offsets") && err.contains("corrupted"), "{args:?}: {err}");
    }
    // An offset raised within the arcs (vertex 9's list then runs into the next ones', 10's
    // offsets fall) lists other edges, which the export wrote and installed ("exported 14942
    // edges" of 7991) before it failed: it fails first now, and leaves no file.
    let raised = t.path().join("raised");
    ok(&[
        "generate",
        "kronecker",
        "--scale",
        "6",
        "--edge-factor",
        "4",
        "--seed",
        "1",
        "--quiet",
        p(&raised),
    ]);
    let mut offsets = std::fs::read(raised.join("out.offsets")).unwrap();
    let arcs = u64::from_le_bytes(offsets[64 * 8..65 * 8].try_into().unwrap());
    offsets[80..88].copy_from_slice(&(arcs - 1).to_le_bytes());
    std::fs::write(raised.join("out.offsets"), &offsets).unwrap();
    let x = t.path().join("x2.txt");
    let out = ocgraph(&["export", p(&raised), p(&x)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("damaged") || err.contains("corrupted"), "{err}");
    assert!(!x.exists(), "{err}");

    let empty = t.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let e = t.path().join("e");
    ok(&["import", p(&empty), p(&e), "--num-vertices", "3"]);
    let pq = t.path().join("e.parquet");
    ok(&["export", p(&e), p(&pq)]);
    let back = t.path().join("back");
    fails(&["import", p(&pq), p(&back)], 1, &["e.parquet", "no edges"]);
    ok(&["import", p(&pq), p(&back), "--num-vertices", "3"]);
    let b = open(&back);
    assert_eq!((b.num_vertices(), b.out().num_arcs()), (3, 0));
}

/// Vertices that updates added by original id keep their ids in `export --original-ids` (it
/// once read only the base's id map and panicked on the first added vertex).
#[test]
fn export_original_ids_includes_vertices_added_by_updates() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "1000 20\n20 7\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g), "--relabel"]);
    let add = t.path().join("add.txt");
    std::fs::write(&add, "7 9000\n9000 9001\n").unwrap();
    ok(&["update", p(&g), "--original-ids", "--add-edges", p(&add)]);
    let out = t.path().join("out.txt");
    ok(&["export", p(&g), p(&out), "--original-ids"]);
    let mut got: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(String::from).collect();
    got.sort();
    let mut want: Vec<&str> = ["1000 20", "20 7", "7 9000", "9000 9001"].into();
    want.sort();
    assert_eq!(got, want);
    // Without --original-ids the ids are vertex numbers: the refusal says how to name them.
    std::fs::write(&add, "9000 1000\n").unwrap();
    fails(
        &["update", p(&g), "--add-edges", p(&add)],
        1,
        &["add.txt:1", "vertex 9000 is not in the graph (5 vertices)", "--original-ids names vertices"],
    );
}

/// Under `--durability none` a batch's new names are not fsynced before its frame: a crash
/// that keeps the frame and loses the names makes `check` warn and the next `update` drop that
/// batch and the later ones (and say so) instead of leaving a graph that does not open.
#[test]
fn update_drops_batches_whose_names_a_crash_lost_under_durability_none() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "alice bob\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g), "--relabel"]);
    let add = t.path().join("add.txt");
    std::fs::write(&add, "bob carol\ncarol dave\ndave alice\n").unwrap();
    let none = ["--original-ids", "--durability", "none", "--batch-size", "1", "--add-edges", p(&add)];
    let manifest = std::fs::read(g.join("manifest")).unwrap();
    ok(&[&["update", p(&g)][..], &none].concat());
    // The crash (a power loss before the command's close synced, so before the close recorded
    // its batches as durable in the manifest): dave's name (batch 2) never reached the disk.
    // Carol's record is 4 + 4 + 5 + 4 bytes.
    std::fs::write(g.join("manifest"), manifest).unwrap();
    let log = g.join("ids.log");
    assert_eq!(std::fs::metadata(&log).unwrap().len(), 2 * 17 - 1);
    std::fs::OpenOptions::new().write(true).open(&log).unwrap().set_len(17).unwrap();
    let out = ok(&["check", p(&g)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a crash under durability none kept the batch but not its names"), "{err}");
    std::fs::write(&add, "carol erin\n").unwrap();
    let out = ok(&["update", p(&g), "--original-ids", "--add-edges", p(&add)]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said
        .contains("batch 2, written under durability none, adds vertices 3..4 that ids.log does not name"));
    let out = t.path().join("out.txt");
    ok(&["export", p(&g), p(&out), "--original-ids"]);
    let mut got: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(String::from).collect();
    got.sort();
    assert_eq!(got, ["alice bob", "bob carol", "carol erin"]);
    ok(&["check", p(&g)]);
}

/// `update --set-weights` changes the weights of existing edges (by vertex or original id),
/// leaves absent edges absent, needs a weight on every line, and is refused on an unweighted
/// graph before any file is applied.
#[test]
fn update_sets_edge_weights_from_a_file() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "0 1 1.5\n1 2 2.5\n").unwrap();
    let (g, h) = (t.path().join("g"), t.path().join("h"));
    ok(&["import", p(&input), p(&g), "--weighted", "--undirected"]);
    let set = t.path().join("set.txt");
    std::fs::write(&set, "1 0 7\n0 2 9\n").unwrap();
    ok(&["update", p(&g), "--set-weights", p(&set)]);
    let out = t.path().join("out.txt");
    ok(&["export", p(&g), p(&out)]);
    let mut got: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(String::from).collect();
    got.sort();
    assert_eq!(got, ["0 1 7", "1 2 2.5"]);
    std::fs::write(&set, "1 2\n").unwrap();
    fails(&["update", p(&g), "--set-weights", p(&set)], 1, &["set.txt:1: expected 3 columns, found 2"]);
    // By original id on a relabelled graph.
    std::fs::write(&input, "a b 1\nb c 2\n").unwrap();
    ok(&["import", p(&input), p(&h), "--weighted", "--relabel"]);
    std::fs::write(&set, "b c 0.25\n").unwrap();
    ok(&["update", p(&h), "--original-ids", "--set-weights", p(&set)]);
    ok(&["export", p(&h), p(&out), "--original-ids"]);
    let mut got: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(String::from).collect();
    got.sort();
    assert_eq!(got, ["a b 1", "b c 0.25"]);
    // An unweighted graph: refused before --add-edges is applied.
    std::fs::write(&input, "0 1\n").unwrap();
    let u = t.path().join("u");
    ok(&["import", p(&input), p(&u)]);
    let add = t.path().join("add.txt");
    std::fs::write(&add, "1 0\n").unwrap();
    fails(&["update", p(&u), "--add-edges", p(&add), "--set-weights", p(&set)], 2, &["unweighted"]);
    assert_eq!(open(&u).num_edges(), 1);
}

/// `update` reads and checks every file before its first batch: a bad line in a later file
/// applies nothing (not the vertices, not the earlier files); `--ack` acknowledges every batch,
/// `--add-vertices`' included.
#[test]
fn update_applies_nothing_when_a_file_is_bad_and_acks_every_batch() {
    // Vertices and edges as `info` reads them (the base and its updates).
    let counts = |g: &Path| {
        let info: serde_json::Value = serde_json::from_slice(&ok(&["info", p(g), "--json"]).stdout).unwrap();
        (info["vertices"].as_u64().unwrap(), info["edges"].as_u64().unwrap())
    };
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "0 1\n").unwrap();
    let (g, h) = (t.path().join("g"), t.path().join("h"));
    ok(&["import", p(&input), p(&g)]);
    let (add, remove) = (t.path().join("add.txt"), t.path().join("remove.txt"));
    std::fs::write(&add, "1 2\n").unwrap();
    std::fs::write(&remove, "0 1\n0 999\n").unwrap();
    fails(
        &["update", p(&g), "--add-vertices", "1", "--add-edges", p(&add), "--remove-edges", p(&remove)],
        1,
        &["remove.txt:2", "vertex 999 is not in the graph (3 vertices)"],
    );
    assert_eq!(counts(&g), (2, 1));
    std::fs::write(&remove, "0 1\n0 99999999999\n").unwrap();
    fails(
        &["update", p(&g), "--remove-edges", p(&remove)],
        1,
        &["remove.txt:2", "vertex 99999999999 is not in"],
    );
    // Vertex 2 is named by --add-edges and exists once --add-vertices has run.
    std::fs::write(&remove, "0 1\n").unwrap();
    let out = ok(&[
        "update",
        p(&g),
        "--add-vertices",
        "1",
        "--add-edges",
        p(&add),
        "--remove-edges",
        p(&remove),
        "--ack",
    ]);
    let acks: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("ack "))
        .map(String::from)
        .collect();
    assert_eq!(acks, ["ack 1", "ack 2", "ack 3"]);
    assert_eq!(counts(&g), (3, 1));
    // By original id: a malformed line in the last file applies nothing either.
    std::fs::write(&input, "a b\n").unwrap();
    ok(&["import", p(&input), p(&h), "--relabel"]);
    std::fs::write(&add, "b c\n").unwrap();
    let labels = t.path().join("labels.txt");
    std::fs::write(&labels, "L a 1\nL b x\n").unwrap();
    fails(
        &["update", p(&h), "--original-ids", "--add-edges", p(&add), "--set-labels", p(&labels)],
        1,
        &["labels.txt:2", "bad label 'x'"],
    );
    assert_eq!(counts(&h), (2, 1));
    // An id the graph lacks where one must exist, named by file and line before anything is
    // applied (an id --add-edges adds is fine).
    std::fs::write(&labels, "L c 1\nL zzz 2\n").unwrap();
    fails(
        &["update", p(&h), "--original-ids", "--add-edges", p(&add), "--set-labels", p(&labels)],
        1,
        &["labels.txt:2", "no vertex has the id zzz"],
    );
    let rv = t.path().join("rv.txt");
    std::fs::write(&rv, "c\nzzz\n").unwrap();
    fails(
        &["update", p(&h), "--original-ids", "--add-edges", p(&add), "--remove-vertices", p(&rv)],
        1,
        &["rv.txt:2", "no vertex has the id zzz"],
    );
    assert_eq!(counts(&h), (2, 1));
    // On a graph whose ids are vertex numbers, an id past 32 bits is refused the same way.
    std::fs::write(&add, "0 5\n1 4294967295\n").unwrap();
    fails(
        &["update", p(&g), "--original-ids", "--add-vertices", "1", "--add-edges", p(&add)],
        1,
        &["add.txt:2", "4294967295 is past the largest vertex id, 4294967294"],
    );
    assert_eq!(counts(&g), (3, 1));
    // ... while the vertices --add-vertices adds are known to the files.
    std::fs::write(&labels, "L 4 7\n").unwrap();
    ok(&["update", p(&g), "--original-ids", "--add-vertices", "2", "--set-labels", p(&labels)]);
    assert_eq!(counts(&g), (5, 1));
    // Growth to mostly empty vertices, and a new string id past the id log's limit, are
    // refused by file and line before the first batch too, whatever the batch size (they were
    // checked batch by batch, after the earlier batches were applied).
    std::fs::write(&add, "0 5\n1 6\n50000000 1\n2 7\n").unwrap();
    fails(
        &["update", p(&g), "--original-ids", "--add-edges", p(&add), "--batch-size", "1"],
        1,
        &["add.txt:3", "would grow the graph from 5 to 50000001", "add_vertices(49999996)"],
    );
    // With --add-vertices, from the count after those.
    fails(
        &["update", p(&g), "--original-ids", "--add-vertices", "4", "--add-edges", p(&add)],
        1,
        &["add.txt:3", "would grow the graph from 9 to 50000001", "add_vertices(49999992)"],
    );
    assert_eq!(counts(&g), (5, 1));
    std::fs::write(&add, format!("a c\nb {}\n", "x".repeat((1 << 20) + 1))).unwrap();
    fails(
        &["update", p(&h), "--original-ids", "--add-edges", p(&add), "--batch-size", "1"],
        1,
        &["add.txt:2", "ids that updates add are at most 1048576 bytes"],
    );
    assert_eq!(counts(&h), (2, 1));
    // Growth the file may make happens in one batch before the edges', so no edge batch is
    // refused for it: 8 vertices and 3 edges by ids past the end, one edge a batch.
    std::fs::write(&add, "7 6\n0 5\n1 6\n").unwrap();
    let out = ok(&["update", p(&g), "--original-ids", "--add-edges", p(&add), "--batch-size", "1", "--ack"]);
    let said = String::from_utf8(out.stdout).unwrap();
    let acks = said.lines().filter(|l| l.starts_with("ack ")).count();
    assert_eq!((counts(&g), acks), ((8, 4), 4));
    assert!(said.contains("new vertices 3"), "{said}");
    // Writing commands take no --trace; --stats prints the I/O statistics.
    fails(
        &["update", p(&g), "--add-edges", p(&remove), "--trace", p(&t.path().join("t.bin"))],
        2,
        &["--trace"],
    );
    fails(&["compact", p(&g), "--trace", p(&t.path().join("t.bin"))], 2, &["--trace"]);
    fails(&["compact", p(&g), "--stats"], 2, &["--stats"]);
    assert!(!t.path().join("t.bin").exists());
    let out = ok(&["update", p(&g), "--add-edges", p(&remove), "--stats"]);
    assert!(String::from_utf8(out.stderr).unwrap().contains("\"page_requests\""));
}

/// `info` says what it knows of the weights: their recorded range, or why none is recorded.
#[test]
fn info_says_why_a_weighted_graph_has_no_weight_range() {
    let t = tempfile::tempdir().unwrap();
    let weights = |g: &Path| {
        let out = String::from_utf8(ok(&["info", p(g)]).stdout).unwrap();
        out.lines().find(|l| l.starts_with("weights ")).map(String::from)
    };
    let (input, g) = (t.path().join("in.txt"), t.path().join("g"));
    std::fs::write(&input, "0 1 2.5\n1 2 0.5\n").unwrap();
    ok(&["import", p(&input), p(&g), "--weighted"]);
    assert!(weights(&g).unwrap().contains("largest 2.5, smallest positive 0.5"));
    let add = t.path().join("add.txt");
    std::fs::write(&add, "0 2 1\n").unwrap();
    ok(&["update", p(&g), "--add-edges", p(&add)]);
    assert!(weights(&g).unwrap().contains("not known while updates are pending"));
    ok(&["compact", p(&g)]);
    assert!(weights(&g).unwrap().contains("largest 2.5"));
    let negative = t.path().join("n");
    std::fs::write(&input, "0 1 -1\n").unwrap();
    ok(&["import", p(&input), p(&negative), "--weighted"]);
    assert!(weights(&negative).unwrap().contains("some weight is negative"));
    let plain = t.path().join("plain");
    ok(&["import", p(&input), p(&plain)]);
    assert_eq!(weights(&plain), None);
}

/// `info` on a graph with updates not yet compacted describes it as it is now (the base under
/// its log), as `export` and `run` read it, and says the updates are there.
#[test]
fn info_counts_the_updates_not_yet_compacted() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "0 1\n1 2\n2 3\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g)]);
    let add = t.path().join("add.txt");
    std::fs::write(&add, "3 0\n4 5\n5 6\n5 5\n").unwrap();
    ok(&["update", p(&g), "--add-vertices", "3", "--add-edges", p(&add)]);
    let info: serde_json::Value = serde_json::from_slice(&ok(&["info", p(&g), "--json"]).stdout).unwrap();
    assert_eq!(info["vertices"], 7);
    assert_eq!(info["edges"], 7);
    assert_eq!(info["self_loops"], 1);
    // A vertex the graph does not have, in an update file: named by file and line (exit 1),
    // nothing applied.
    let bad = t.path().join("bad.txt");
    std::fs::write(&bad, "0 1\n1 99\n").unwrap();
    fails(
        &["update", p(&g), "--add-edges", p(&bad)],
        1,
        &["bad.txt:2", "vertex 99 is not in the graph (7 vertices)"],
    );
    // Out-degrees now: 0:1 1:1 2:1 3:1 4:1 5:2 6:0; vertex 6 has an in-arc, so none is isolated.
    assert_eq!(info["out_degree"]["max"], 2);
    assert_eq!(info["isolated_vertices"], 0);
    assert_eq!(info["updates"]["levels"], 0);
    let text = String::from_utf8(ok(&["info", p(&g)]).stdout).unwrap();
    assert!(text.contains("vertices   7") && text.contains("compact"), "{text}");
    // Every self-loop edge counts, repeats too (no --dedup).
    let loops = t.path().join("loops.txt");
    std::fs::write(
        &loops,
        "0 0
0 0
1 1
0 1
",
    )
    .unwrap();
    let h = t.path().join("h");
    ok(&["import", p(&loops), p(&h), "--undirected"]);
    let info: serde_json::Value = serde_json::from_slice(&ok(&["info", p(&h), "--json"]).stdout).unwrap();
    assert_eq!(info["self_loops"], 3);
}

/// `check` verifies a graph's updates too: a byte flipped in a level, or in a log frame followed
/// by another, is refused naming the file, as opening the graph refuses it.
#[test]
fn check_verifies_levels_and_the_log() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("in.txt");
    std::fs::write(&input, "0 1\n1 2\n2 3\n").unwrap();
    // Three batches; with `freeze`, the first goes into a level.
    let build = |name: &str, freeze: bool| {
        let g = t.path().join(name);
        ok(&["import", p(&input), p(&g)]);
        for (i, edges) in ["3 4\n", "4 0\n", "1 3\n"].iter().enumerate() {
            let add = t.path().join(format!("{name}{i}.txt"));
            std::fs::write(&add, edges).unwrap();
            ok(&["update", p(&g), "--add-vertices", "1", "--add-edges", p(&add)]);
            if freeze && i == 0 {
                ok(&["update", p(&g), "--freeze"]);
            }
        }
        let out = String::from_utf8(ok(&["check", p(&g)]).stdout).unwrap();
        assert!(out.contains(&format!("updates verified ({} level(s)", freeze as u8)), "{out}");
        g
    };
    let flip = |dir: &Path, at: usize| {
        let f = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).min().unwrap();
        let mut b = std::fs::read(&f).unwrap();
        b[at] ^= 0x5A;
        std::fs::write(f, b).unwrap();
    };
    let g = build("g", true);
    flip(&g.join("levels"), 40);
    fails(&["check", p(&g)], 1, &["levels", "checksum"]);
    let h = build("h", false);
    flip(&h.join("wal"), 8);
    fails(&["check", p(&h)], 1, &["wal", "checksum"]);

    // A byte flipped in the last whole frame of the batches the last `update` closed with: they
    // were acknowledged as durable, so check and the next update refuse to drop it.
    let k = build("k", false);
    let seg = std::fs::read_dir(k.join("wal")).unwrap().map(|e| e.unwrap().path()).max().unwrap();
    let good = std::fs::read(&seg).unwrap();
    let mut b = good.clone();
    let last = b.len() - 1;
    b[last] ^= 0x5A;
    std::fs::write(&seg, &b).unwrap();
    for args in [vec!["check", p(&k)], vec!["update", p(&k), "--add-vertices", "1"]] {
        fails(&args, 1, &["batch 6 was durable when the graph was last closed", "checksum"]);
    }
    assert_eq!(std::fs::read(&seg).unwrap(), b, "nothing dropped");
    // A copy of that frame, whole but for its checksum, after the closed batches: a torn tail (a
    // crash may leave a frame's length written before its bytes), which check passes with a
    // warning naming the segment and offset, and the next update drops saying so.
    let mut torn = good.clone();
    torn.extend_from_slice(&b[b.len() - 41..]);
    std::fs::write(&seg, &torn).unwrap();
    let out = ok(&["check", p(&k)]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("log replayed up to batch 6"), "every closed batch is replayed: {stdout}");
    let name = seg.file_name().unwrap().to_str().unwrap();
    assert!(stderr.contains("warning") && stderr.contains(name) && stderr.contains("checksum"), "{stderr}");
    let out = String::from_utf8(ok(&["update", p(&k), "--add-vertices", "1"]).stdout).unwrap();
    assert!(out.contains("dropped a torn tail") && out.contains(name), "{out}");
    // `compact` and `stream` open the graph for writing too, and say so as well.
    let none = t.path().join("none.txt");
    std::fs::write(&none, "").unwrap();
    for args in [vec!["compact", p(&k)], vec!["stream", p(&k), "--updates", p(&none)]] {
        let seg = std::fs::read_dir(k.join("wal")).unwrap().map(|e| e.unwrap().path()).max().unwrap();
        let mut bytes = std::fs::read(&seg).unwrap();
        bytes.extend_from_slice(&torn[torn.len() - 41..torn.len() - 1]);
        std::fs::write(&seg, &bytes).unwrap();
        let out = ok(&args);
        let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("dropped a torn tail of 40 bytes"), "{args:?}: {said}");
    }

    // An update state whose vertex count contradicts the base and the levels is refused.
    let m = build("m", true);
    let orig = ocgraph_core::format::Manifest::read(&m).unwrap();
    let n = orig.updates.as_ref().unwrap().num_vertices;
    for bad in [n - 1, n + 1, 1 << 40] {
        let mut edited = orig.clone();
        edited.updates.as_mut().unwrap().num_vertices = bad;
        edited.write_atomic(&m).unwrap();
        fails(&["check", p(&m)], 1, &["manifest", "num_vertices"]);
        fails(&["run", "bfs", p(&m)], 1, &["manifest", "num_vertices"]);
    }
    orig.write_atomic(&m).unwrap();
    ok(&["check", p(&m)]);
}

/// A fresh directory with an input file holding `bytes`.
fn input_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join(name);
    std::fs::write(&input, bytes).unwrap();
    let out = t.path().join("out");
    (t, input, out)
}

fn assert_no_graph(out: &Path) {
    assert!(Graph::open(out, &OpenOptions::default()).is_err(), "{} opens", out.display());
}

#[test]
fn bad_edge_lists_fail_naming_file_and_line() {
    let cases: [(&str, &[u8], &[&str]); 5] = [
        ("malformed.txt", b"1 2\n3 x\n", &[":2"]),
        ("negative.txt", b"1 2\n4 5\n-3 4\n", &[":3"]),
        ("overflow.txt", b"1 99999999999999999999\n", &[":1"]),
        ("truncated.bin", &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0], &["byte"]),
        ("empty.txt", b"", &[]),
    ];
    for (name, bytes, needles) in cases {
        let (_t, input, out) = input_file(name, bytes);
        let mut all = vec![name];
        all.extend_from_slice(needles);
        fails(&["import", p(&input), p(&out), "--quiet"], 1, &all);
        assert_no_graph(&out);
        assert!(!out.exists(), "{name}: OUT was created");
    }
    let t = tempfile::tempdir().unwrap();
    let missing = t.path().join("missing.txt");
    fails(&["import", p(&missing), p(&t.path().join("o"))], 1, &["missing.txt"]);
    assert!(std::fs::read_dir(t.path()).unwrap().next().is_none(), "temporary files left behind");
}

#[test]
fn a_reversed_range_in_a_packed_index_is_reported() {
    // Entry 12 of the packed index raised past entry 13: vertex 12's bytes run backwards. It
    // was read as an empty list (vertex 12 unreached, exit 0).
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "10", "--edge-factor", "8", "--seed", "2", "--quiet", p(&g)]);
    ok(&["layout", "pack", p(&g), "--quiet"]);
    let path = g.join("out.packed_index");
    let mut index = std::fs::read(&path).unwrap();
    let at = |v: usize| u64::from_le_bytes(index[8 * v..8 * v + 8].try_into().unwrap());
    let (v, next) =
        (0..1023).find(|&v| at(v + 1) > at(v) && at(v + 2) > at(v + 1)).map(|v| (v + 1, at(v + 2))).unwrap();
    index[8 * v..8 * v + 8].copy_from_slice(&(next + 1).to_le_bytes());
    std::fs::write(&path, &index).unwrap();
    let source = v.to_string();
    fails(
        &["run", "bfs", p(&g), "--layout", "packed", "--source", &source],
        1,
        &["out.packed_index", "corrupted"],
    );
}

#[test]
fn labels_and_layouts_whose_files_are_gone_can_be_removed() {
    // A truncated label file, which every open refuses: `labels remove` refused it too (it
    // opened the graph), so nothing but an edit of the manifest took it off. A hub index whose
    // file was deleted: `remove-hubs` unlisted it, then failed on the missing file.
    let t = tempfile::tempdir().unwrap();
    let (g, labels) = (t.path().join("g"), t.path().join("l.txt"));
    ok(&["generate", "kronecker", "--scale", "8", "--seed", "2", "--quiet", p(&g)]);
    std::fs::write(&labels, (0..256).map(|v| format!("{v} {}\n", v % 3)).collect::<String>()).unwrap();
    ok(&["labels", "set", p(&g), p(&labels)]);
    ok(&["layout", "hubs", p(&g), "--quiet"]);
    std::fs::OpenOptions::new().write(true).open(g.join("labels.u32")).unwrap().set_len(512).unwrap();
    fails(&["run", "wcc", p(&g)], 1, &["labels.u32"]);
    ok(&["labels", "remove", p(&g)]);
    std::fs::remove_file(g.join("hubs.u32")).unwrap();
    ok(&["layout", "remove-hubs", p(&g)]);
    assert!(String::from_utf8(ok(&["check", p(&g)]).stdout).unwrap().starts_with("OK"));
    ok(&["labels", "set", p(&g), p(&labels)]);
    ok(&["run", "wcc", p(&g), "--layout", "csr"]);
}

#[test]
fn a_damaged_id_past_the_vertex_count_in_a_list_bfs_reads_bottom_up_is_reported() {
    // Vertex 0 reaches 1..899, each of which reaches 900..999: the second level runs bottom-up,
    // reading the in-lists of 900..999. Vertex 950's in-list damaged to 1010 (no vertex of the
    // 1,000, but a bit of the frontier bitmap's last word) left 950 unreached without an error.
    let t = tempfile::tempdir().unwrap();
    let (edges, g) = (t.path().join("e.txt"), t.path().join("g"));
    let mut text = String::new();
    (1..900).for_each(|i| text.push_str(&format!("0 {i}\n")));
    (1..900).for_each(|i| (900..1000).for_each(|j| text.push_str(&format!("{i} {j}\n"))));
    std::fs::write(&edges, text).unwrap();
    ok(&["import", p(&edges), p(&g), "--num-vertices", "1000"]);
    let depth = t.path().join("d.txt");
    ok(&["run", "bfs", p(&g), "--out", p(&depth)]);
    let reached = std::fs::read_to_string(&depth).unwrap().lines().filter(|l| *l == "2").count();
    assert_eq!(reached, 100);
    let offsets = std::fs::read(g.join("in.offsets")).unwrap();
    let at = |v: usize| u64::from_le_bytes(offsets[8 * v..8 * v + 8].try_into().unwrap()) as usize;
    let mut lists = std::fs::read(g.join("in.neighbors")).unwrap();
    for i in at(950)..at(951) {
        lists[4 * i..4 * i + 4].copy_from_slice(&1010u32.to_le_bytes());
    }
    std::fs::write(g.join("in.neighbors"), &lists).unwrap();
    let err = fails(
        &["run", "bfs", p(&g), "--out", p(&t.path().join("d2.txt"))],
        1,
        &["in.neighbors", "corrupted"],
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn damaged_graphs_are_rejected() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "8", p(&g)]);
    let nb = g.join("out.neighbors");

    // Bit flip: still opens (sizes are right) but check fails on the checksum.
    let orig = std::fs::read(&nb).unwrap();
    let mut flipped = orig.clone();
    flipped[100] ^= 0x10;
    std::fs::write(&nb, &flipped).unwrap();
    fails(&["check", p(&g)], 1, &["out.neighbors", "checksum"]);
    std::fs::write(&nb, &orig).unwrap();
    ok(&["check", p(&g)]);

    // An id past the last vertex in a list: export fails naming the file (and writes nothing).
    let mut wild = orig.clone();
    wild[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&nb, &wild).unwrap();
    fails(&["export", p(&g), p(&t.path().join("w.txt"))], 1, &["out.neighbors", "corrupted"]);
    assert!(!t.path().join("w.txt").exists());
    std::fs::write(&nb, &orig).unwrap();

    // Truncation: neither opens nor checks.
    std::fs::write(&nb, &orig[..orig.len() - 4096]).unwrap();
    fails(&["check", p(&g)], 1, &["out.neighbors"]);
    fails(&["info", p(&g)], 1, &["out.neighbors", "truncated"]);
    fails(&["export", p(&g), p(&t.path().join("x.txt"))], 1, &["out.neighbors"]);
    assert!(!t.path().join("x.txt").exists());
    std::fs::write(&nb, &orig).unwrap();

    // A manifest from a future format version.
    let mpath = g.join("manifest");
    let mut m = std::fs::read(&mpath).unwrap();
    m[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&mpath, &m).unwrap();
    fails(&["info", p(&g)], 1, &["manifest", "version 2"]);
    fails(&["check", p(&g)], 1, &["manifest", "version 2"]);

    // Not a graph at all.
    fails(&["info", p(&t.path().join("nope"))], 1, &["nope"]);
}

#[test]
fn usage_errors_exit_2_and_existing_output_is_kept() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    let out = ocgraph(&["generate", "kronecker", "--scale", "6", "--memory", "12XB", p(&g)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!g.exists());
    // A budget of a few bytes spilled a sorted run per edge or two.
    fails(&["generate", "kronecker", "--scale", "6", "--memory", "0B", p(&g)], 2, &["at least 4KiB"]);
    fails(&["generate", "kronecker", "--scale", "6", "--memory", "4095", p(&g)], 2, &["at least 4KiB"]);
    // A negative size is a bad size, not an unknown option ("unexpected argument '-1'").
    fails(
        &["generate", "kronecker", "--scale", "6", "--memory", "-1", p(&g)],
        2,
        &["--memory", "not negative"],
    );
    fails(&["run", "bfs", p(&g), "--memory", "-1"], 2, &["--memory", "not negative"]);
    fails(&["advise", p(&g), "--memory", "-1"], 2, &["--memory", "not negative"]);
    fails(&["generate", "kronecker", "--scale", "40", p(&g)], 2, &["scale"]);
    // Sizes that would take days and fill the disk are refused at once.
    let huge = ["erdos-renyi", "--vertices", "100", "--edges", "18446744073709551615", "--seed", "1"];
    fails(&[&["generate"], &huge[..], &[p(&g)]].concat(), 2, &["edges asked for", "2^40"]);
    let dense = ["erdos-renyi", "--vertices", "3000000000", "--probability", "0.9", "--seed", "1"];
    fails(&[&["generate"], &dense[..], &[p(&g)]].concat(), 2, &["edges asked for"]);
    let wide = ["kronecker", "--scale", "30", "--edge-factor", "4096"];
    fails(&[&["generate"], &wide[..], &[p(&g)]].concat(), 2, &["edges asked for"]);
    ok(&["generate", "kronecker", "--scale", "6", p(&g)]);
    fails(&["generate", "kronecker", "--scale", "7", p(&g)], 1, &["already exists"]);
    assert_eq!(open(&g).num_vertices(), 64);
    ok(&["generate", "kronecker", "--scale", "7", "--force", p(&g)]);
    assert_eq!(open(&g).num_vertices(), 128);
    // Counts that must be at least 1.
    for args in [&["run", "bfs", p(&g), "--trials", "0"][..], &["update", p(&g), "--batch-size", "0"]] {
        let out = ocgraph(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("at least 1"), "{args:?}");
    }
    // A batch is at most what one log frame holds (a larger one could not be replayed).
    let big = "82595525";
    for args in [
        &["update", p(&g), "--batch-size", big][..],
        &["stream", p(&g), "--updates", "u", "--batch-size", big],
    ] {
        fails(args, 2, &["a batch holds at most 82595524 items"]);
    }
    // A graph open for updates is not replaced under its writer.
    let writer = ocgraph_core::update::WritableGraph::open(&g, &Default::default()).unwrap();
    fails(&["generate", "kronecker", "--scale", "6", "--force", p(&g)], 2, &["already open for updates"]);
    writer.close().unwrap();
    assert_eq!(open(&g).num_vertices(), 128);
    // The lock goes with the last handle of its open file: a child that another test of this
    // process forks holds it until its exec closes it, so the replace may wait a moment.
    let args = ["generate", "kronecker", "--scale", "6", "--force", p(&g)];
    let replaced = (0..100).any(|_| {
        let done = ocgraph(&args).status.success();
        if !done {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        done
    });
    assert!(replaced, "the graph was not replaced once its writer closed");
    assert_eq!(open(&g).num_vertices(), 64);
}

/// An output path inside the graph a command reads (or a directory holding it) is refused
/// before anything is written, through links too; the graph stays whole.
#[test]
fn outputs_inside_the_graph_read_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    ok(&["generate", "kronecker", "--scale", "6", p(&g)]);
    let link = t.path().join("link");
    std::os::unix::fs::symlink(&g, &link).unwrap();
    let (manifest, nbrs) = (g.join("manifest"), link.join("out.neighbors"));
    let (wl, sub) = (g.join("w.bin"), g.join("sub"));
    // A link to a file not there yet inside the graph (the write would create it there).
    let dangling = t.path().join("dangling.txt");
    std::os::unix::fs::symlink(g.join("extra.txt"), &dangling).unwrap();
    let cases: [&[&str]; 9] = [
        &["export", p(&g), p(&dangling)],
        &["run", "bfs", p(&g), "--out", p(&manifest)],
        &["run", "bfs", p(&g), "--trace", p(&nbrs)],
        &["export", p(&g), p(&nbrs)],
        &["workload", "fof", p(&g), "--out", p(&wl)],
        &["mine", "cliques", p(&g), "--k", "3", "--list", "--out", p(&manifest)],
        &["pack", p(&g), p(&sub)],
        &["reorder", p(&g), p(t.path()), "--force"],
        &["pack", p(&link), p(&g), "--force"],
    ];
    for args in cases {
        fails(args, 2, &["overlaps the graph directory"]);
        ok(&["check", p(&g)]);
    }
    assert!(!wl.exists() && !sub.exists() && !g.join("extra.txt").exists());
    // An output named with a trailing slash names a directory: refused before the work.
    let slash = format!("{}/", t.path().join("out.txt").display());
    fails(&["export", p(&g), &slash], 2, &["names a directory"]);
    // A directory holding the graph is named as a directory (no file to write), not as an overlap.
    let parent = format!("{}/", t.path().display());
    fails(&["workload", "fof", p(&g), "--out", &parent], 2, &["is a directory"]);
    fails(&["run", "bfs", p(&g), "--out", p(&g)], 2, &["is a directory"]);
    // An import that would replace the graph holding its own input (or labels) is refused too.
    let (edges, labels) = (g.join("edges.txt"), g.join("labels.txt"));
    std::fs::write(&edges, "0 1\n1 2\n").unwrap();
    std::fs::write(&labels, "0 1\n1 1\n2 1\n").unwrap();
    let outside = t.path().join("e.txt");
    std::fs::write(&outside, "0 1\n").unwrap();
    fails(&["import", p(&edges), p(&g), "--force"], 2, &["edges.txt", "inside the graph directory"]);
    let parquet = t.path().join("e.parquet");
    ok(&["export", p(&g), p(&parquet)]);
    std::fs::rename(&parquet, g.join("e.parquet")).unwrap();
    fails(
        &["import", p(&g.join("e.parquet")), p(&g), "--force"],
        2,
        &["e.parquet", "inside the graph directory"],
    );
    assert!(g.join("e.parquet").exists());
    fails(&["import", p(&outside), p(&g), "--force", "--labels", p(&labels)], 2, &["labels.txt", "inside"]);
    assert!(edges.exists() && labels.exists());
    ok(&["check", p(&g)]);
}

#[test]
fn check_removes_temporary_directories_of_killed_imports() {
    let t = tempfile::tempdir().unwrap();
    let input = t.path().join("e.txt");
    std::fs::write(&input, "0 1\n1 2\n").unwrap();
    let g = t.path().join("g");
    ok(&["import", p(&input), p(&g), "--quiet"]);
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = t.path().join(format!(".g.tmp-{dead}-1"));
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("out.offsets"), vec![0u8; 10_000]).unwrap();
    let out = ok(&["check", p(&g)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!stale.exists(), "{err}");
    assert!(err.contains(&format!(".g.tmp-{dead}-1")) && err.contains("process is gone"), "{err}");
}

#[test]
fn import_says_what_it_took_as_what() {
    // A .mtx file without its banner: read as MatrixMarket (3 vertices, 2 edges), and said so.
    let (_t, input, out) = input_file("bare.mtx", b"3 3 2\n1 2\n3 1\n");
    let run = ok(&["import", p(&input), p(&out), "--quiet"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("note: ") && err.contains("no '%%MatrixMarket' banner"), "{err}");
    let g = open(&out);
    assert_eq!((g.num_vertices(), g.num_edges()), (3, 2));
    // A CSV header and an ignored weight column.
    let (_t, input, out) = input_file("e.csv", b"src,dst,w\n0,1,0.5\n");
    let run = ok(&["import", p(&input), p(&out)]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("e.csv:1: taken as the CSV header: 'src,dst,w'"), "{err}");
    assert!(err.contains("e.csv:2: 3 columns") && err.contains("--weighted"), "{err}");
}

#[test]
fn sparse_ids_stop_the_import_unless_asked() {
    let mut b = Vec::new();
    for x in [3u32, 4_271_813_805, 4_271_813_805, 17] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    let (t, input, out) = input_file("random.bin", &b);
    fails(
        &["import", p(&input), p(&out), "--quiet"],
        1,
        &["random.bin", "largest vertex id is 4271813805", "2 edges", "--relabel", "--allow-sparse-ids"],
    );
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1, "only the input is left");
    ok(&["import", p(&input), p(&out), "--quiet", "--relabel"]);
    assert_eq!(open(&out).num_vertices(), 3);
    let small = t.path().join("small");
    fails(
        &["import", p(&input), p(&small), "--num-vertices", "10"],
        1,
        &["at byte 0", "not below the 10 vertices"],
    );
    fails(&["import", p(&input), p(&small), "--num-vertices", "10", "--relabel"], 2, &["--relabel"]);
}

#[test]
fn weighted_binary_export_import_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let er = t.path().join("er");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "200",
        "--edges",
        "2000",
        "--directed",
        "--weighted",
        p(&er),
    ]);
    let eg = open(&er);
    for (name, extra) in [("er.u32w", &[][..]), ("er.bin", &["--format", "bin64w"][..])] {
        let file = t.path().join(name);
        let mut args = vec!["export", p(&er), p(&file)];
        args.extend_from_slice(extra);
        ok(&args);
        let record = if extra.is_empty() { 12 } else { 20 };
        assert_eq!(std::fs::metadata(&file).unwrap().len(), record * eg.num_arcs());
        let back = t.path().join(format!("{name}.g"));
        let mut args = vec!["import", p(&file), p(&back), "--weighted", "--quiet"];
        args.extend_from_slice(extra);
        ok(&args);
        assert_same_csr(&eg, &open(&back));
    }
    // Plain pairs carry no weights: a weighted import of them is refused, naming the formats that do.
    let bin = t.path().join("er.u32");
    ok(&["export", p(&er), p(&bin)]);
    fails(&["import", p(&bin), p(&t.path().join("x")), "--weighted"], 2, &["bin32w"]);
}

/// CSV export quotes an id holding a quote (the CSV reader took `"x"` as the quoted `x` and
/// merged it with vertex `x`); a first edge of ids the importer reads as integers (`-1`) is
/// refused; isolated vertices, which no edge list holds, are noted; a reader of the output that
/// goes away ends the export quietly with status 141.
#[test]
fn exports_read_back_as_the_same_graph_or_say_why_not() {
    let t = tempfile::tempdir().unwrap();
    let (csv, g) = (t.path().join("m.csv"), t.path().join("g"));
    std::fs::write(&csv, "src,dst\n\"\"\"x\"\"\",b\nx,b\n").unwrap();
    ok(&["import", p(&csv), p(&g), "--quiet"]);
    let out = t.path().join("out.csv");
    ok(&["export", p(&g), p(&out), "--original-ids"]);
    let back = t.path().join("back");
    ok(&["import", p(&out), p(&back), "--quiet"]);
    let out2 = t.path().join("out2.csv");
    ok(&["export", p(&back), p(&out2), "--original-ids"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), std::fs::read_to_string(&out2).unwrap());
    let info = String::from_utf8(ok(&["info", p(&back)]).stdout).unwrap();
    assert!(info.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["vertices", "3"]), "{info}");

    // String ids (the first row decides) sorted so that the first edge is `-1 -2`.
    let (neg, ng) = (t.path().join("neg.csv"), t.path().join("ng"));
    std::fs::write(&neg, "src,dst\nx,-2\n-1,-2\n").unwrap();
    ok(&["import", p(&neg), p(&ng), "--quiet", "--relabel=sorted"]);
    fails(&["export", p(&ng), p(&t.path().join("n.txt")), "--original-ids"], 2, &["look like integers"]);

    let w = t.path().join("w");
    let edges = t.path().join("e.txt");
    std::fs::write(&edges, "0 1\n").unwrap();
    ok(&["import", p(&edges), p(&w), "--num-vertices", "6", "--quiet"]);
    let o = ok(&["export", p(&w), p(&t.path().join("w.txt"))]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("4 of the 6 vertices have no edges") && err.contains("--num-vertices 6"), "{err}");
    // `-` is standard output (no file named `-` appears).
    let o = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
        .current_dir(t.path())
        .args(["export", p(&w), "-"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), std::fs::read_to_string(t.path().join("w.txt")).unwrap());
    assert!(!t.path().join("-").exists());
    // Standard output closed (`>&-`): the data has nowhere to go, which is an error, for a
    // kernel's output before it runs. (The runtime opens /dev/null in its place.)
    for args in [format!("export '{}' -", p(&w)), format!("run wcc '{}' --out -", p(&w))] {
        let o = Command::new("sh")
            .args(["-c", &format!("'{}' {args} >&-", env!("CARGO_BIN_EXE_ocgraph"))])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("-: write failed: standard output is closed"),
            "{args}: {err}"
        );
    }

    let k = t.path().join("k");
    ok(&["generate", "kronecker", "--scale", "14", "--quiet", p(&k)]);
    // Parquet too (its writer wrapped the closed pipe in an error of its own: status 1).
    for format in ["text", "parquet"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
            .args(["export", p(&k), "/dev/stdout", "--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(141), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("error"), "{format}");
    }
}

/// `ocgraph spark` with an interpreter that cannot import `ocgraph.spark` (here a package
/// `ocgraph` whose import fails as without numpy): one line naming the interpreter and the
/// remedy, exit 2, no traceback.
#[test]
fn spark_names_the_remedy_when_its_python_lacks_the_package() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("ocgraph")).unwrap();
    std::fs::write(t.path().join("ocgraph/__init__.py"), "raise ImportError(\"No module named 'numpy'\")\n")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ocgraph"))
        .args(["spark", "export", "g", "d"])
        .env("OCGRAPH_PYTHON", "python3")
        .env("PYTHONPATH", t.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: ") && err.trim().lines().count() == 1, "{err}");
    assert!(
        err.contains("cannot import ocgraph.spark (No module named 'numpy'); set OCGRAPH_PYTHON"),
        "{err}"
    );
}

/// A write past the file-size limit (`ulimit -f`, as a full disk) is an error naming the file,
/// not the signal that killed the process without a word (exit 153), and leaves no graph.
#[test]
fn a_write_past_the_file_size_limit_is_an_error_naming_the_file() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("g");
    let script = format!(
        "ulimit -f 100; exec '{}' generate kronecker --scale 14 --quiet '{}'",
        env!("CARGO_BIN_EXE_ocgraph"),
        p(&g)
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: ") && err.contains("write failed: File too large"), "{err}");
    assert!(err.contains(".tmp-") && err.contains("/out."), "the file is named: {err}");
    let left: Vec<_> = std::fs::read_dir(t.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An import that fails leaves nothing, the directories it made for its output included
/// (they were left behind, empty); a directory that existed before stays.
#[test]
fn a_failed_import_removes_the_directories_it_made() {
    let t = tempfile::tempdir().unwrap();
    let bad = t.path().join("bad.txt");
    std::fs::write(&bad, "0 1\n1 x\n").unwrap();
    std::fs::create_dir(t.path().join("kept")).unwrap();
    let out = t.path().join("kept/a/b/g");
    fails(&["import", p(&bad), p(&out)], 1, &["bad.txt:2"]);
    let left: Vec<_> = std::fs::read_dir(t.path().join("kept")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::write(&bad, "0 1\n1 2\n").unwrap();
    ok(&["import", p(&bad), p(&out), "--quiet"]);
    assert!(out.join("manifest").is_file());
}
