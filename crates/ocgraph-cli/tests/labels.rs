//! Vertex labels end to end through the `ocgraph` binary: `import --labels` over string ids,
//! `labels show|set|remove`, `info`, `check` of a corrupted label file, labelled patterns
//! counted by `mine pattern` against a brute-force count, and labels kept by `reorder` and by
//! compaction after updates that add vertices (new original ids, which have no label).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

fn ocgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ocgraph")).args(args).output().expect("run ocgraph")
}

fn ok(args: &[&str]) -> String {
    let out = ocgraph(args);
    assert!(out.status.success(), "ocgraph {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fails(args: &[&str], needles: &[&str]) {
    let out = ocgraph(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !err.contains("panicked"), "ocgraph {args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr of {args:?} lacks '{n}': {err}");
    }
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A small deterministic pseudo-random generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Triangles `{a, b, c}` of the undirected simple graph `edges` whose labels are `{x, x, y}`
/// (`x` != `y`) for the pattern `label 0 x; label 1 x; label 2 y`: each counted once.
fn brute_force_labelled_triangles(
    edges: &BTreeSet<(String, String)>,
    labels: &BTreeMap<String, u32>,
) -> usize {
    let mut nb: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (a, b) in edges {
        if a != b {
            nb.entry(a).or_default().insert(b);
            nb.entry(b).or_default().insert(a);
        }
    }
    let mut count = 0;
    for (&a, na) in &nb {
        for &b in na.range::<&str, _>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded)) {
            for &c in nb[b].range::<&str, _>((std::ops::Bound::Excluded(b), std::ops::Bound::Unbounded)) {
                if na.contains(c) {
                    let mut ls: Vec<Option<u32>> =
                        [a, b, c].iter().map(|v| labels.get(*v).copied()).collect();
                    ls.sort();
                    count += (ls == [Some(1), Some(1), Some(2)]) as usize;
                }
            }
        }
    }
    count
}

fn matches(out: &str) -> usize {
    let line = out.lines().find(|l| l.starts_with("matches")).expect("a matches line");
    line.rsplit(": ").next().unwrap().trim().parse().unwrap()
}

#[test]
fn labels_travel_with_the_graph_and_drive_labelled_patterns() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut edges = BTreeSet::new();
    let mut text = String::new();
    for _ in 0..400 {
        let (a, b) = (format!("u{}", rng.below(60)), format!("u{}", rng.below(60)));
        text.push_str(&format!("{a} {b}\n"));
        edges.insert(if a < b { (a, b) } else { (b, a) });
    }
    let vertices: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let mut labels = BTreeMap::new();
    for v in vertices {
        // About one vertex in five has no label.
        let l = rng.below(10);
        if l >= 2 {
            labels.insert(v.to_string(), 1 + (l % 2) as u32);
        }
    }
    std::fs::write(dir.join("e.txt"), text).unwrap();
    // Some lines end with a comment.
    let label_text: String = labels
        .iter()
        .enumerate()
        .map(|(i, (v, l))| format!("{v}\t{l}{}\n", if i % 3 == 0 { " # note" } else { "" }))
        .collect();
    std::fs::write(dir.join("l.txt"), format!("# vertex label\n{label_text}")).unwrap();
    std::fs::write(dir.join("p.txt"), "0 1\n1 2\n2 0\nlabel 0 1\nlabel 1 1\nlabel 2 2\n").unwrap();
    let (e, l, pat) = (dir.join("e.txt"), dir.join("l.txt"), dir.join("p.txt"));
    let g = dir.join("g");
    ok(&["import", p(&e), p(&g), "--undirected", "--relabel", "--labels", p(&l), "--quiet"]);

    // Round trip, info, and the labelled count against brute force.
    let shown: BTreeMap<String, u32> = ok(&["labels", "show", p(&g)])
        .lines()
        .map(|line| {
            let (v, l) = line.split_once(' ').unwrap();
            (v.to_string(), l.parse().unwrap())
        })
        .collect();
    assert_eq!(shown, labels);
    let distinct = labels.values().collect::<BTreeSet<_>>().len();
    assert!(
        ok(&["info", p(&g)]).contains(&format!("{} vertices labelled, {distinct} distinct", labels.len()))
    );
    let want = brute_force_labelled_triangles(&edges, &labels);
    assert!(want > 0, "the test graph has labelled triangles");
    assert_eq!(matches(&ok(&["mine", "pattern", p(&g), "--pattern", p(&pat)])), want);

    // reorder permutes the labels with the vertices.
    let r = dir.join("r");
    ok(&["reorder", p(&g), p(&r), "--quiet"]);
    let sorted = |s: String| s.lines().map(str::to_string).collect::<BTreeSet<_>>();
    assert_eq!(sorted(ok(&["labels", "show", p(&r)])), sorted(ok(&["labels", "show", p(&g)])));
    assert_eq!(matches(&ok(&["mine", "pattern", p(&r), "--pattern", p(&pat)])), want);

    // Updates that add vertices, then compaction: the old vertices keep their labels.
    let before = ok(&["labels", "show", p(&g)]);
    std::fs::write(dir.join("add.txt"), "new1 u0\nnew2 new1\nu1 u2\n").unwrap();
    ok(&["update", p(&g), "--original-ids", "--add-edges", p(&dir.join("add.txt"))]);
    fails(&["labels", "set", p(&g), p(&l)], &["compact"]);
    // A file naming a vertex the updates added gets the same refusal (it was "not in the graph").
    let l_new = dir.join("labels_new.txt");
    std::fs::write(
        &l_new,
        "u0 1
new1 2
",
    )
    .unwrap();
    fails(&["labels", "set", p(&g), p(&l_new)], &["compact"]);
    ok(&["compact", p(&g)]);
    assert_eq!(ok(&["labels", "show", p(&g)]), before);
    ok(&["check", p(&g)]);

    // A corrupted label file fails check and the labelled count; removal leaves no labels.
    // Compaction wrote a new base in a subdirectory (`base.<gen>`): its labels.u32.
    let file = std::fs::read_dir(&g)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("labels.u32"))
        .find(|f| f.exists())
        .expect("the compacted base has a label file");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    fails(&["check", p(&g)], &["labels.u32", "checksum"]);
    fails(&["mine", "pattern", p(&g), "--pattern", p(&pat)], &["labels.u32"]);
    ok(&["labels", "remove", p(&g)]);
    fails(&["mine", "pattern", p(&g), "--pattern", p(&pat)], &["has no labels", "--labels"]);
    // Showing the labels of a graph without any lists none (it was an argument error).
    assert_eq!(ok(&["labels", "show", p(&g)]), "");
}

#[test]
fn a_bad_label_file_stops_the_import_naming_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("e.txt"), "a b\nb c\n").unwrap();
    std::fs::write(dir.join("l.txt"), "a 1\nb 2\nzz 3\n").unwrap();
    let g = dir.join("g");
    fails(
        &["import", p(&dir.join("e.txt")), p(&g), "--relabel", "--labels", p(&dir.join("l.txt"))],
        &["l.txt:3", "zz", "not in the graph"],
    );
    assert!(!g.exists(), "a failed import leaves no graph");
}

/// The value that means "no label" (2^32 - 1) is refused wherever a text file gives a label,
/// naming the file and line, and nothing is applied; `-` removes a label (update and stream
/// lines) or leaves a vertex without one (`mine --labels`, `stream --watch-labels`).
#[test]
fn the_no_label_value_is_refused_as_a_label_and_dash_means_none() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = |name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        f
    };
    let (e, l) = (file("e.txt", "0 1\n1 2\n2 0\n"), file("l.txt", "1 3\n2 4\n"));
    let g = dir.join("g");
    ok(&["import", p(&e), p(&g), "--undirected", "--labels", p(&l), "--quiet"]);
    let refused = "a label is an integer below 4294967295, or - for none";
    let set = file("set.txt", "L 2 5\nL 1 4294967295\n");
    fails(&["update", p(&g), "--set-labels", p(&set)], &["set.txt:2", refused]);
    let ups = file("ups.txt", "+ 0 2\nL 1 4294967295\n");
    fails(&["stream", p(&g), "--updates", p(&ups), "--no-save"], &["ups.txt:2", refused]);
    assert_eq!(ok(&["labels", "show", p(&g)]), "1 3\n2 4\n", "nothing applied");
    let data = file("data.txt", "0\n4294967295\n1\n");
    let pattern = file("p.txt", "0 1\nlabel 0 0\n");
    fails(
        &["mine", "pattern", p(&g), "--pattern", p(&pattern), "--labels", p(&data)],
        &["data.txt:2", refused],
    );
    // `-`: vertex 1 unlabelled, so only vertex 0 takes the labelled end: 0-1 and 0-2 (vertex 1
    // labelled 0 would add 1-0 and 1-2).
    let data = file("data.txt", "0\n-\n1\n");
    let out = ok(&["mine", "pattern", p(&g), "--pattern", p(&pattern), "--labels", p(&data), "--count"]);
    assert!(out.contains("1 edges): 2\n"), "{out}");
    let unset = file("unset.txt", "L 1 -\n");
    ok(&["update", p(&g), "--set-labels", p(&unset)]);
    assert_eq!(ok(&["labels", "show", p(&g)]), "2 4\n");
}

#[test]
fn a_label_file_may_be_gzipped_and_start_with_a_byte_order_mark() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("e.txt"), "a b\nb c\n").unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all("\u{feff}a 1\nc 3\n".as_bytes()).unwrap();
    std::fs::write(dir.join("l.txt.gz"), gz.finish().unwrap()).unwrap();
    let g = dir.join("g");
    ok(&["import", p(&dir.join("e.txt")), p(&g), "--relabel", "--labels", p(&dir.join("l.txt.gz"))]);
    assert_eq!(ok(&["labels", "show", p(&g)]), "a 1\nc 3\n");
}

#[test]
fn labels_show_refuses_an_id_a_label_file_would_not_read_back() {
    // Vertex "b o b" (a quoted CSV id) labelled through the library: a `b o b 7` line would
    // read back as four fields, so it is refused naming the id; the other lines stay legible.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("e.csv"), "src,dst\nann,\"b o b\"\n").unwrap();
    let g = dir.join("g");
    ok(&["import", p(&dir.join("e.csv")), p(&g), "--quiet"]);
    ocgraph_core::ingest::set_labels(&g, &[1, 7], None).unwrap();
    fails(&["labels", "show", p(&g)], &["\"b o b\"", "would not read back"]);
    ocgraph_core::ingest::set_labels(&g, &[1, ocgraph_core::labels::NO_LABEL], None).unwrap();
    assert_eq!(ok(&["labels", "show", p(&g)]), "ann 1\n");
}
