//! `ocgraph mine` end to end on a small Kronecker graph: counts agree across the miners and the
//! backends, listed matches are distinct and are matches, pattern files with labels, and bad
//! arguments fail cleanly.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use ocgraph_core::{Adjacency, Graph, OpenOptions};

fn ocgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ocgraph")).args(args).output().expect("run ocgraph")
}

/// Runs `ocgraph args`, asserts success, returns stdout.
fn ok(args: &[&str]) -> String {
    let out = ocgraph(args);
    assert!(out.status.success(), "ocgraph {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The number after `name: ` in `out`.
fn value(out: &str, name: &str) -> u64 {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} in {out}"))
        .parse()
        .unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn mine_counts_lists_and_patterns() {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("kron");
    ok(&["generate", "kronecker", "--scale", "9", "--edge-factor", "8", "--seed", "2", "--quiet", p(&g)]);
    let c4 = value(&ok(&["mine", "cliques", p(&g), "--k", "4"]), "4-cliques");
    assert!(c4 > 0);
    let pool =
        ok(&["mine", "cliques", p(&g), "--k", "4", "--backend", "pool", "--memory", "64KiB", "--stats"]);
    assert_eq!(value(&pool, "4-cliques"), c4);
    let census = ok(&["mine", "motifs", p(&g), "--size", "4", "--threads", "1"]);
    assert_eq!(value(&census, "4-clique"), c4);
    let m = ok(&["mine", "pattern", p(&g), "--pattern", "4-clique"]);
    assert!(m.contains(&format!(": {c4}\n")), "{m}");
    // A pattern file that is not there is named as such, not as an unknown pattern name.
    let missing = tmp.path().join("nosuch.txt");
    let out = ocgraph(&["mine", "pattern", p(&g), "--pattern", p(&missing)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nosuch.txt: no such pattern file"), "{err}");

    // Listing: one distinct clique a line, each a clique of the graph.
    let list = tmp.path().join("c4.txt");
    ok(&["mine", "cliques", p(&g), "--k", "4", "--list", "--out", p(&list)]);
    let graph = Graph::open(&g, &OpenOptions::default()).unwrap();
    let adj = |u: u32, v: u32| graph.out().neighbors(u).binary_search(&v).is_ok();
    let rows: BTreeSet<Vec<u32>> = std::fs::read_to_string(&list)
        .unwrap()
        .lines()
        .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len() as u64, c4);
    for r in &rows {
        assert!(r.windows(2).all(|w| w[0] < w[1]));
        assert!(r.iter().all(|&a| r.iter().all(|&b| a == b || adj(a, b))));
    }

    // A labelled pattern file: with every vertex labelled 0, a triangle labelled 0,0,0 matches
    // every triangle, and one labelled 0,0,1 none.
    let n = graph.num_vertices();
    let labels = tmp.path().join("labels.txt");
    std::fs::write(&labels, "0\n".repeat(n)).unwrap();
    let triangles = value(&ok(&["mine", "cliques", p(&g), "--k", "3"]), "3-cliques");
    let pat = tmp.path().join("tri.txt");
    for (last, want) in [(0, triangles), (1, 0)] {
        std::fs::write(&pat, format!("# a triangle\n0 1\n1 2\n2 0\nlabel 0 0\nlabel 1 0\nlabel 2 {last}\n"))
            .unwrap();
        let out = ok(&["mine", "pattern", p(&g), "--pattern", p(&pat), "--labels", p(&labels)]);
        assert!(out.contains(&format!(": {want}\n")), "{out}");
    }
    // A label file with a line short or one too many is refused, naming it (exit 1).
    for count in [n - 1, n + 1] {
        let wrong = tmp.path().join("wrong.txt");
        std::fs::write(&wrong, "0\n".repeat(count)).unwrap();
        let out = ocgraph(&["mine", "pattern", p(&g), "--pattern", p(&pat), "--labels", p(&wrong)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("wrong.txt: {count} labels for a graph of {n} vertices")), "{err}");
    }

    // Bad arguments: clean errors, exit code 2.
    for args in [
        vec!["mine", "cliques", p(&g), "--k", "1"],
        vec!["mine", "motifs", p(&g), "--size", "5"],
        vec!["mine", "pattern", p(&g), "--pattern", "blob"],
        vec!["mine", "pattern", p(&g)],
        // Options of another kind, and --out without --list, are refused (they were ignored).
        vec!["mine", "motifs", p(&g), "--k", "4"],
        vec!["mine", "cliques", p(&g), "--pattern", "triangle"],
        vec!["mine", "cliques", p(&g), "--size", "4"],
        vec!["mine", "cliques", p(&g), "--out", p(&tmp.path().join("x.txt"))],
    ] {
        let out = ocgraph(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && !err.contains("panicked"), "{err}");
    }

    // Bad lines of a pattern file are input errors (exit 1) naming the file and line.
    for (body, line, what) in [
        ("0 1\n1 2\nlabel 5 1\n", 3, "vertices 0 to 2"),
        ("0 1\nlabel 0 1\n# again\nlabel 0 2\n", 4, "labelled twice"),
        (
            "0 1\nlabel 0 4294967295\n",
            2,
            "label \"4294967295\": a pattern label is an integer from 0 to 4294967294",
        ),
        ("0 1\nlabel 99999999999999 1\n", 2, "vertices 0 to 1"),
        ("0 1\nlabel 0 -1\n", 2, "label \"-1\": a pattern label is an integer from 0 to 4294967294"),
        ("0 1\nlabel 0 1 2\n", 2, "expected `a b` or `label a L`"),
        // Edge ends beyond the pattern size limit, up to the largest integers.
        ("0 1\n0 8\n", 2, "at most 8 vertices"),
        ("0 1\n# a loop\n1 1\n", 3, "self-loop"),
        ("0 4294967295\n", 1, "at most 8 vertices"),
        ("18446744073709551615 0\n", 1, "at most 8 vertices"),
        ("0 18446744073709551616\n", 1, "expected"),
    ] {
        let pat = tmp.path().join("bad.txt");
        std::fs::write(&pat, body).unwrap();
        let out = ocgraph(&["mine", "pattern", p(&g), "--pattern", p(&pat), "--labels", p(&labels)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{body:?}: {err}");
        assert!(err.contains(&format!("bad.txt:{line}:")) && err.contains(what), "{body:?}: {err}");
    }
    // A pattern file that is wrong as a whole names the file.
    for (body, what) in [
        ("0 1\n2 3\n", "not connected"),
        ("0 2\n", "vertex 1 has no edge"),
        ("# none\n", "at least one edge"),
    ] {
        let pat = tmp.path().join("whole.txt");
        std::fs::write(&pat, body).unwrap();
        let out = ocgraph(&["mine", "pattern", p(&g), "--pattern", p(&pat)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{body:?}: {err}");
        assert!(err.contains("whole.txt: ") && err.contains(what), "{body:?}: {err}");
    }
}

#[test]
fn listed_matches_name_original_ids_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    let edges = tmp.path().join("e.txt");
    // Two triangles sharing bob (a bowtie) and a pendant edge.
    std::fs::write(&edges, "ann bob\nbob cat\ncat ann\nbob dan\ndan eve\neve bob\neve fay\n").unwrap();
    let g = tmp.path().join("g");
    ok(&["import", p(&edges), p(&g), "--undirected", "--quiet"]);
    let by_id = tmp.path().join("t.txt");
    ok(&["mine", "cliques", p(&g), "--k", "3", "--list", "--out", p(&by_id), "--original-ids"]);
    let names: BTreeSet<BTreeSet<String>> = std::fs::read_to_string(&by_id)
        .unwrap()
        .lines()
        .map(|l| l.split(' ').map(String::from).collect())
        .collect();
    let expect: BTreeSet<BTreeSet<String>> = [["ann", "bob", "cat"], ["bob", "dan", "eve"]]
        .iter()
        .map(|t| t.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(names, expect);
    // Without the flag: vertex ids (first seen: ann 0, bob 1, cat 2, dan 3, eve 4).
    let plain = tmp.path().join("v.txt");
    ok(&["mine", "pattern", p(&g), "--pattern", "triangle", "--list", "--out", p(&plain)]);
    let vertices: BTreeSet<BTreeSet<u32>> = std::fs::read_to_string(&plain)
        .unwrap()
        .lines()
        .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(vertices.contains(&BTreeSet::from([0, 1, 2])) && vertices.contains(&BTreeSet::from([1, 3, 4])));
    // An id a space-separated line cannot show is refused, naming it, and nothing is written.
    std::fs::write(&edges, "source,target\n\"a b\",x\nx,y\ny,\"a b\"\n").unwrap();
    let csv = tmp.path().join("e.csv");
    std::fs::rename(&edges, &csv).unwrap();
    let h = tmp.path().join("h");
    ok(&["import", p(&csv), p(&h), "--undirected", "--quiet"]);
    let out = tmp.path().join("bad.txt");
    let r = ocgraph(&["mine", "cliques", p(&h), "--k", "3", "--list", "--out", p(&out), "--original-ids"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success() && err.contains("\"a b\""), "{err}");
    assert!(!out.exists());
}
