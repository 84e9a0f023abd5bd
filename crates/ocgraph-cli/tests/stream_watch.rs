//! `ocgraph stream --watch` end to end: on random update streams (edge additions, removals of
//! existing edges, vertex removals) over small generated graphs, the changes written to
//! `--watch-out` for every batch equal the difference between brute-force recounts of the
//! pattern before and after that batch, with no duplicate; the totals printed match.
//!
//! The reference replays the stream on its own edge set (directed arcs or undirected edges, as
//! the graph is) and enumerates the matches by brute force over the undirected simple view.
//! Matches are compared as sorted vertex sets: each clique, and each vertex-induced match of a
//! pattern, is determined by its vertices. A labelled pattern with label updates in the stream
//! is checked the same way, with matches as vertex tuples in pattern order (`B ~` lines).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{neighbour_sets, ok, p, random_ops, read_edges, run, Op, Rng};

type Match = Vec<u32>;

/// Every k-clique (ascending vertices), by extending ascending cliques one vertex at a time.
fn cliques(nb: &[BTreeSet<u32>], k: usize) -> BTreeSet<Match> {
    let mut level: Vec<Match> = (0..nb.len() as u32).map(|v| vec![v]).collect();
    for _ in 1..k {
        level = level
            .iter()
            .flat_map(|c| {
                let last = *c.last().unwrap();
                nb[last as usize]
                    .range(last + 1..)
                    .filter(|&&x| c.iter().all(|&y| nb[y as usize].contains(&x)))
                    .map(|&x| [c.as_slice(), &[x]].concat())
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    level.into_iter().collect()
}

/// Every 4-vertex set inducing exactly a 4-cycle (every vertex of degree 2, 4 edges).
fn induced_4_cycles(nb: &[BTreeSet<u32>]) -> BTreeSet<Match> {
    let n = nb.len() as u32;
    let mut found = BTreeSet::new();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    let s = [a, b, c, d];
                    let deg = |x: u32| s.iter().filter(|&&y| nb[x as usize].contains(&y)).count();
                    if s.iter().all(|&x| deg(x) == 2) {
                        found.insert(s.to_vec());
                    }
                }
            }
        }
    }
    found
}

/// The `--watch-out` lines grouped by batch: (added, removed) as sorted vertex sets; asserts
/// that no change is reported twice.
fn read_changes(path: &Path) -> BTreeMap<usize, (BTreeSet<Match>, BTreeSet<Match>)> {
    let mut by_batch: BTreeMap<usize, (BTreeSet<Match>, BTreeSet<Match>)> = BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let w: Vec<&str> = line.split(' ').collect();
        let batch: usize = w[0].parse().unwrap();
        let mut m: Match = w[2..].iter().map(|x| x.parse().unwrap()).collect();
        m.sort_unstable();
        let e = by_batch.entry(batch).or_default();
        let fresh = if w[1] == "+" { e.0.insert(m) } else { e.1.insert(m) };
        assert!(fresh, "change reported twice: {line}");
    }
    by_batch
}

/// Streams random updates over a generated graph with `pattern` watched and checks every
/// batch's changes against `reference` recounts.
fn check_stream(
    gen: &[&str],
    directed: bool,
    pattern: &[&str],
    batch: usize,
    updates: usize,
    reference: fn(&[BTreeSet<u32>]) -> BTreeSet<Match>,
) {
    let ops = |edges: &BTreeSet<(u32, u32)>, n| random_ops(edges, n, directed, updates, 7);
    check_ops(gen, directed, pattern, batch, ops, reference);
}

/// Streams the updates `make_ops(edges, n)` makes over a generated graph with `pattern` watched
/// and checks every batch's changes against `reference` recounts.
fn check_ops(
    gen: &[&str],
    directed: bool,
    pattern: &[&str],
    batch: usize,
    make_ops: impl Fn(&BTreeSet<(u32, u32)>, u32) -> Vec<Op>,
    reference: fn(&[BTreeSet<u32>]) -> BTreeSet<Match>,
) {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    ok(&[&["generate"], gen, &["--quiet", p(&g)]].concat());
    let mut edges = read_edges(&g, directed);
    let n = 1 + edges.iter().map(|&(u, v)| u.max(v)).max().unwrap();
    let ops = make_ops(&edges, n);
    let file = tmp.path().join("updates.txt");
    std::fs::write(&file, ops.iter().map(|o| o.line() + "\n").collect::<String>()).unwrap();
    let out_path = tmp.path().join("changes.txt");
    let batch_arg = batch.to_string();
    let args = [
        &["stream", p(&g), "--updates", p(&file), "--batch-size", &batch_arg, "--no-save"],
        pattern,
        &["--watch-out", p(&out_path)],
    ]
    .concat();
    let summary = ok(&args);
    let got = read_changes(&out_path);

    let mut before = reference(&neighbour_sets(&edges, n));
    let (mut added, mut removed) = (0, 0);
    for (b, chunk) in ops.chunks(batch).enumerate() {
        for op in chunk {
            op.apply(&mut edges, directed);
        }
        let after = reference(&neighbour_sets(&edges, n));
        let want_added: BTreeSet<Match> = after.difference(&before).cloned().collect();
        let want_removed: BTreeSet<Match> = before.difference(&after).cloned().collect();
        let empty = (BTreeSet::new(), BTreeSet::new());
        let (ga, gr) = got.get(&b).unwrap_or(&empty);
        assert_eq!(ga, &want_added, "batch {b}: added matches");
        assert_eq!(gr, &want_removed, "batch {b}: removed matches");
        added += want_added.len();
        removed += want_removed.len();
        before = after;
    }
    assert!(added > 0 && removed > 0, "the stream should add and remove matches ({added}, {removed})");
    assert!(
        summary.contains(&format!(": {added} matches added, {removed} removed, 0 modified;")),
        "{summary}"
    );
    assert_eq!(read_edges(&g, directed), edges, "the reference replay disagrees with the stored graph");
}

#[test]
fn watched_cliques_match_recounts() {
    let gen = ["kronecker", "--scale", "7", "--edge-factor", "8", "--seed", "3"];
    check_stream(&gen, false, &["--watch", "triangle"], 1, 300, |nb| cliques(nb, 3));
    check_stream(&gen, false, &["--watch", "4-clique"], 9, 600, |nb| cliques(nb, 4));
    // On a thread of its own, overlapping the next batch's update.
    check_stream(&gen, false, &["--watch", "triangle", "--background"], 1, 300, |nb| cliques(nb, 3));
    check_stream(&gen, false, &["--watch", "4-clique", "--background"], 9, 600, |nb| cliques(nb, 4));
}

#[test]
fn watched_induced_cycles_on_a_directed_graph_match_recounts() {
    let gen = ["kronecker", "--scale", "5", "--edge-factor", "4", "--seed", "5", "--directed"];
    check_stream(&gen, true, &["--watch", "4-cycle", "--watch-induced"], 4, 200, induced_4_cycles);
    // The background watch reads the snapshot after each batch, taken when it was queued.
    let background = ["--watch", "4-cycle", "--watch-induced", "--background"];
    check_stream(&gen, true, &background, 1, 200, induced_4_cycles);
}

/// Batches that set one pair several times, give a vertex edges and then remove it (its new
/// edges go too), re-add edges to a removed vertex, and remove a triangle's edge and put it
/// back: the watch reports each batch's net change only.
#[test]
fn batches_touching_a_pair_twice_and_removing_a_fresh_vertex() {
    let gen = ["kronecker", "--scale", "6", "--edge-factor", "8", "--seed", "3"];
    let ops = |edges: &BTreeSet<(u32, u32)>, _n: u32| {
        let nb = neighbour_sets(edges, 64);
        // A triangle a-b-c, and its vertex of most neighbours as a hub.
        let (a, b, c) = (0..64u32)
            .flat_map(|a| nb[a as usize].iter().map(move |&b| (a, b)))
            .find_map(|(a, b)| nb[a as usize].intersection(&nb[b as usize]).next().map(|&c| (a, b, c)))
            .expect("a triangle");
        let far = (0..64u32).find(|x| ![a, b, c].contains(x) && !nb[a as usize].contains(x)).unwrap();
        vec![
            // Batch 0: a-b removed, re-added, removed again (net: removed).
            Op::Remove(a, b),
            Op::Add(b, a),
            Op::Remove(a, b),
            Op::Add(far, a),
            // Batch 1: far gets b and c, then loses every edge, then gets c back.
            Op::Add(far, b),
            Op::Add(c, far),
            Op::RemoveVertex(far),
            Op::Add(far, c),
            // Batch 2: a-b back and removed and back (net: added), far-a and far-b added.
            Op::Add(a, b),
            Op::Remove(b, a),
            Op::Add(a, b),
            Op::Add(far, a),
            // Batch 3: far-b twice, then a removed vertex and a no-op removal.
            Op::Add(far, b),
            Op::Add(b, far),
            Op::RemoveVertex(c),
            Op::Remove(c, a),
        ]
    };
    check_ops(&gen, false, &["--watch", "triangle"], 4, ops, |nb| cliques(nb, 3));
    check_ops(&gen, false, &["--watch", "4-clique"], 4, ops, |nb| cliques(nb, 4));
    check_ops(&gen, false, &["--watch", "triangle", "--background"], 4, ops, |nb| cliques(nb, 3));
}

/// A batch removing the same vertex 60 times between edge updates (each `-v` once doubled the
/// pairs the watch re-read for that vertex: 2^60 of them) reports the net change.
#[test]
fn a_batch_removing_one_vertex_many_times() {
    let gen = ["kronecker", "--scale", "6", "--edge-factor", "8", "--seed", "3"];
    let ops = |edges: &BTreeSet<(u32, u32)>, _n: u32| {
        let nb = neighbour_sets(edges, 64);
        let hub = (0..64u32).max_by_key(|&v| nb[v as usize].len()).unwrap();
        let others: Vec<u32> = nb[hub as usize].iter().copied().take(3).collect();
        let mut ops = Vec::new();
        for round in 0..60 {
            ops.push(Op::Add(hub, others[round % 3]));
            ops.push(Op::RemoveVertex(hub));
        }
        // The next batch gives the hub a triangle back.
        ops.extend([Op::Add(hub, others[0]), Op::Add(hub, others[1]), Op::Add(others[0], others[1])]);
        ops.resize(ops.len() + 117, Op::Add(others[0], others[1]));
        ops
    };
    check_ops(&gen, false, &["--watch", "triangle"], 120, ops, |nb| cliques(nb, 3));
}

/// A labelled triangle (pattern vertex 0 labelled 1, vertex 1 a wildcard, vertex 2 labelled 2:
/// no symmetry, so a match is its vertex tuple) watched over a stream mixing edge updates with
/// `L v label` lines, on a graph that starts without labels: every batch's `+`, `-` and `~`
/// lines equal the brute-force differences before and after it; `ocgraph labels show` then
/// lists the streamed labels, and `ocgraph update --set-labels` changes them durably.
#[test]
fn labelled_watch_with_label_lines_matches_recounts() {
    labelled_watch(&[]);
    labelled_watch(&["--background"]);
}

/// The body of [`labelled_watch_with_label_lines_matches_recounts`], with `extra` arguments to
/// `stream`.
fn labelled_watch(extra: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let g = tmp.path().join("g");
    ok(&["generate", "kronecker", "--scale", "6", "--edge-factor", "8", "--seed", "4", "--quiet", p(&g)]);
    let mut edges = read_edges(&g, false);
    let n = 64u32;
    let pattern = tmp.path().join("tri.txt");
    std::fs::write(&pattern, "0 1\n1 2\n2 0\nlabel 0 1\nlabel 2 2\n").unwrap();
    let mut rng = Rng(11);
    let mut labels: Vec<Option<u32>> = vec![None; n as usize];
    let mut lines = Vec::new();
    // Per line: the edge op, or the label change.
    let mut ops: Vec<Result<Op, (u32, Option<u32>)>> = Vec::new();
    for i in 0..600 {
        let r = rng.below(100);
        let op = if i < 120 || r < 40 {
            // Early lines label most vertices; later ones relabel, some several times a batch.
            let v = if r.is_multiple_of(3) { (i % 5) as u32 } else { rng.below(n as usize) as u32 };
            let l = match rng.below(5) {
                0 => None,
                x => Some(1 + x as u32 % 3),
            };
            Err((v, l))
        } else if r < 70 || edges.is_empty() {
            Ok(Op::Add(rng.below(n as usize) as u32, rng.below(n as usize) as u32))
        } else {
            let &(u, v) = edges.iter().nth(rng.below(edges.len())).unwrap();
            Ok(Op::Remove(u, v))
        };
        match &op {
            Ok(o) => {
                lines.push(o.line());
                o.apply(&mut edges, false);
            }
            Err((v, l)) => lines.push(format!("L {v} {}", l.map_or("-".to_string(), |l| l.to_string()))),
        }
        ops.push(op);
    }
    let mut edges = read_edges(&g, false);
    let file = tmp.path().join("updates.txt");
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let out_path = tmp.path().join("changes.txt");
    let json = tmp.path().join("run.json");
    let args = [
        "stream",
        p(&g),
        "--updates",
        p(&file),
        "--batch-size",
        "7",
        "--no-save",
        "--watch",
        p(&pattern),
        "--watch-out",
        p(&out_path),
        "--json",
        p(&json),
    ];
    let summary = ok(&[&args[..], extra].concat());
    // Brute force: ordered triangles (a, b, c) with label(a) = 1 and label(c) = 2.
    let matches = |edges: &BTreeSet<(u32, u32)>, labels: &[Option<u32>]| -> BTreeSet<Match> {
        let nb = neighbour_sets(edges, n);
        let mut out = BTreeSet::new();
        for a in (0..n).filter(|&a| labels[a as usize] == Some(1)) {
            for &c in nb[a as usize].iter().filter(|&&c| labels[c as usize] == Some(2)) {
                for &b in nb[a as usize].intersection(&nb[c as usize]) {
                    out.insert(vec![a, b, c]);
                }
            }
        }
        out
    };
    let mut got: BTreeMap<(usize, String), BTreeSet<Match>> = BTreeMap::new();
    for line in std::fs::read_to_string(&out_path).unwrap().lines() {
        let w: Vec<&str> = line.split(' ').collect();
        let m: Match = w[2..].iter().map(|x| x.parse().unwrap()).collect();
        assert!(got.entry((w[0].parse().unwrap(), w[1].to_string())).or_default().insert(m), "twice: {line}");
    }
    let mut before = matches(&edges, &labels);
    let (mut totals, none) = ([0usize; 3], BTreeSet::new());
    for (b, chunk) in ops.chunks(7).enumerate() {
        let old_labels = labels.clone();
        for op in chunk {
            match op {
                Ok(o) => o.apply(&mut edges, false),
                Err((v, l)) => labels[*v as usize] = *l,
            }
        }
        let after = matches(&edges, &labels);
        let relabelled = |m: &Match| m.iter().any(|&v| old_labels[v as usize] != labels[v as usize]);
        let want = [
            after.difference(&before).cloned().collect::<BTreeSet<_>>(),
            before.difference(&after).cloned().collect(),
            before.intersection(&after).filter(|m| relabelled(m)).cloned().collect(),
        ];
        for (i, sign) in ["+", "-", "~"].iter().enumerate() {
            assert_eq!(got.get(&(b, sign.to_string())).unwrap_or(&none), &want[i], "batch {b}: {sign} lines");
            totals[i] += want[i].len();
        }
        before = after;
    }
    assert!(totals.iter().all(|&t| t > 5), "every kind of change happens: {totals:?}");
    let [a, r, m] = totals;
    assert!(summary.contains(&format!(": {a} matches added, {r} removed, {m} modified;")), "{summary}");
    let report = std::fs::read_to_string(&json).unwrap();
    assert!(report.contains(&format!("\"watch_modified\": {m}")), "{report}");
    // The streamed labels are the graph's now.
    let shown = |labels: &[Option<u32>]| -> String {
        labels.iter().enumerate().filter_map(|(v, l)| l.map(|l| format!("{v} {l}\n"))).collect()
    };
    assert_eq!(ok(&["labels", "show", p(&g)]), shown(&labels));
    let set = tmp.path().join("set.txt");
    std::fs::write(&set, "L 3 9\n4 -\n# comment\nL 3 8\n").unwrap();
    ok(&["update", p(&g), "--set-labels", p(&set), "--freeze"]);
    (labels[3], labels[4]) = (Some(8), None);
    assert_eq!(ok(&["labels", "show", p(&g)]), shown(&labels));
    ok(&["compact", p(&g)]);
    assert_eq!(ok(&["labels", "show", p(&g)]), shown(&labels));
    // A line missing its label is named as such, not read as vertex `L`.
    std::fs::write(&set, "L 3 9\nL 4\n").unwrap();
    let out = run(&["update", p(&g), "--set-labels", p(&set)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("set.txt:2: expected 'L vertex label', found 'L 4'"),
        "{err}"
    );
    assert_eq!(ok(&["labels", "show", p(&g)]), shown(&labels));
}

/// A stream whose log write fails part way (a file-size limit, `ulimit -f`) fails the command
/// the same way with the watch in line and in the background: no `--watch-out` file or temporary
/// file is left, and with `--watch-out -` the changes of the batches applied are printed.
#[test]
fn a_stream_failing_part_way_ends_its_background_watch_as_in_line() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("g");
    ok(&["generate", "kronecker", "--scale", "6", "--edge-factor", "8", "--seed", "3", "--quiet", p(&base)]);
    let mut rng = Rng(5);
    let lines: String = (0..20_000).map(|_| format!("+ {} {}\n", rng.below(64), rng.below(64))).collect();
    let ups = tmp.path().join("ups.txt");
    std::fs::write(&ups, lines).unwrap();
    let bin = env!("CARGO_BIN_EXE_ocgraph");
    let run = |dir: &Path, out: &str, extra: &str| {
        let g = dir.join("g");
        std::fs::create_dir(dir).unwrap();
        let status = std::process::Command::new("cp").args(["-r", p(&base), p(&g)]).status().unwrap();
        assert!(status.success());
        // 40 blocks of 1 KiB for every file the command writes: the log fills them first.
        let script = format!(
            "trap '' XFSZ; ulimit -f 40; exec '{bin}' stream '{}' --updates '{}' --batch-size 1 \
             --watch triangle --watch-out {out} {extra}",
            p(&g),
            p(&ups)
        );
        let o = std::process::Command::new("sh").current_dir(dir).args(["-c", &script]).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("too large") && err.contains("batches before it were applied"), "{err}");
        let mut left: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["g"], "only the graph is left");
        String::from_utf8(o.stdout).unwrap()
    };
    for (i, extra) in ["", "--background"].into_iter().enumerate() {
        run(&tmp.path().join(format!("file{i}")), "changes.txt", extra);
    }
    let in_line = run(&tmp.path().join("stdout0"), "-", "");
    let background = run(&tmp.path().join("stdout1"), "-", "--background");
    assert!(in_line.lines().count() > 100, "changes were found before the failure: {in_line}");
    // The background stream applies at most one batch more than its watch has seen when the
    // update fails; the changes printed are those of the batches both watched.
    let last = |s: &str| s.lines().last().map(|l| l.split(' ').next().unwrap().parse::<usize>().unwrap());
    let shared = last(&in_line).min(last(&background)).unwrap();
    let upto = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.split(' ').next().unwrap().parse::<usize>().unwrap() <= shared)
            .map(String::from)
            .collect()
    };
    assert_eq!(upto(&in_line), upto(&background));
}
