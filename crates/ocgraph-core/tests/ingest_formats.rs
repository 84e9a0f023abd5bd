//! Every input format round-trips the same edges; relabelling and string ids with IdLookup.

mod ingest_common;

use std::io::Write;
use std::path::{Path, PathBuf};

use ingest_common::{open_lists, reference, scratch};
use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::{import, BuildOptions, Columns, ImportOptions, InputFormat, NoProgress, Relabel};
use ocgraph_core::{Adjacency, Graph, OpenOptions};
use proptest::prelude::*;

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// The same edges in every format: (file name, bytes, explicit format, weighted-capable).
fn encodings(n: usize, edges: &[(u32, u32, f32)]) -> Vec<(&'static str, Vec<u8>, InputFormat, bool)> {
    let mut text = String::from("# comment line\n% another comment\n\n");
    let seps = ["\t", " ", ",", "  \t "];
    for (i, (u, v, w)) in edges.iter().enumerate() {
        let s = seps[i % seps.len()];
        text += &format!("{u}{s}{v}{s}{w}{}\n", if i % 3 == 0 { "\r" } else { "" });
    }
    let mut csv = String::from("source,target,weight\n");
    for (u, v, w) in edges {
        csv += &format!("{u}, {v},{w}\n");
    }
    let mut mtx =
        format!("%%MatrixMarket matrix coordinate real general\n% made by a test\n{n} {n} {}\n", edges.len());
    for (u, v, w) in edges {
        mtx += &format!("{} {} {w}\n", u + 1, v + 1);
    }
    // Without the banner (read as general, values from the third column) and without a header.
    let bare_mtx = mtx.split_once("% made by a test\n").unwrap().1.to_string();
    let bare_csv = csv.split_once('\n').unwrap().1.to_string();
    let (mut b32, mut b64, mut b32w, mut b64w) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (u, v, w) in edges {
        b32.extend_from_slice(&u.to_le_bytes());
        b32.extend_from_slice(&v.to_le_bytes());
        b64.extend_from_slice(&(*u as u64).to_le_bytes());
        b64.extend_from_slice(&(*v as u64).to_le_bytes());
        b32w.extend_from_slice(&u.to_le_bytes());
        b32w.extend_from_slice(&v.to_le_bytes());
        b32w.extend_from_slice(&w.to_le_bytes());
        b64w.extend_from_slice(&(*u as u64).to_le_bytes());
        b64w.extend_from_slice(&(*v as u64).to_le_bytes());
        b64w.extend_from_slice(&w.to_le_bytes());
    }
    vec![
        ("edges.txt", text.clone().into_bytes(), InputFormat::Text, true),
        ("edges.csv", csv.clone().into_bytes(), InputFormat::Csv, true),
        ("edges.mtx", mtx.clone().into_bytes(), InputFormat::MatrixMarket, true),
        ("edges.txt.gz", gz(text.as_bytes()), InputFormat::Text, true),
        ("edges.csv.gz", gz(csv.as_bytes()), InputFormat::Csv, true),
        ("edges.mtx.gz", gz(mtx.as_bytes()), InputFormat::MatrixMarket, true),
        ("bare.mtx", bare_mtx.clone().into_bytes(), InputFormat::MatrixMarket, true),
        ("bare.mtx.gz", gz(bare_mtx.as_bytes()), InputFormat::MatrixMarket, true),
        ("bare.csv", bare_csv.into_bytes(), InputFormat::Csv, true),
        ("edges.bin", b32, InputFormat::Binary32, false),
        ("edges.u64", b64, InputFormat::Binary64, false),
        ("edges.u32w", b32w, InputFormat::Binary32Weighted, true),
        ("edges.u64w", b64w, InputFormat::Binary64Weighted, true),
    ]
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_format_round_trips(
        n in 1usize..25,
        raw in prop::collection::vec((0u32..25, 0u32..25, -2i32..5), 1..60),
        directed: bool,
        weighted: bool,
        dedup: bool,
    ) {
        let edges: Vec<(u32, u32, f32)> =
            raw.iter().map(|&(u, v, w)| (u % n as u32, v % n as u32, w as f32 * 0.25)).collect();
        let tmp = scratch();
        for (k, (name, bytes, fmt, can_weight)) in encodings(n, &edges).into_iter().enumerate() {
            if weighted && !can_weight {
                continue;
            }
            let input = write(tmp.path(), name, &bytes);
            for (j, format) in [fmt, InputFormat::Auto].into_iter().enumerate() {
                let out = tmp.path().join(format!("g{k}-{j}"));
                let build = BuildOptions { directed, weighted, dedup, memory: 256, ..BuildOptions::default() };
                let opts = ImportOptions { format, build: build.clone(), ..ImportOptions::default() };
                let report = import(&input, &out, &opts, &NoProgress).unwrap();
                // MatrixMarket declares n; other formats end at the largest id seen.
                let max = edges.iter().map(|e| e.0.max(e.1) as usize + 1).max().unwrap_or(0);
                let nn = if fmt == InputFormat::MatrixMarket { n } else { max };
                let (want_out, want_in) = reference(nn, &edges, &build);
                let (g, got_out, got_in) = open_lists(&out);
                prop_assert_eq!(report.num_vertices, nn as u64, "{}", name);
                prop_assert_eq!(g.num_vertices(), nn);
                prop_assert_eq!(&got_out, &want_out, "{} {:?}", name, format);
                prop_assert_eq!(&got_in, &want_in, "{}", name);
            }
        }
    }
}

/// A matrix that is not square is read as a graph of max(rows, cols) vertices, with a note.
#[test]
fn a_rectangular_mtx_is_noted() {
    let tmp = scratch();
    let input = write(tmp.path(), "r.mtx", b"%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3\n");
    let r = import(&input, &tmp.path().join("g"), &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges), (3, 1));
    assert!(r.notices.iter().any(|n| n.contains("r.mtx: a 2 x 3 matrix, not square")), "{:?}", r.notices);
    let square =
        write(tmp.path(), "s.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 3\n");
    let r = import(&square, &tmp.path().join("h"), &ImportOptions::default(), &NoProgress).unwrap();
    assert!(r.notices.is_empty(), "{:?}", r.notices);
}

#[test]
fn mtx_symmetric_is_undirected() {
    let tmp = scratch();
    let input = write(
        tmp.path(),
        "s.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 3\n2 1\n3 3\n5 2\n",
    );
    let out = tmp.path().join("g");
    let r = import(&input, &out, &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges, r.num_arcs), (5, 3, 5));
    let (g, lists, _) = open_lists(&out);
    assert!(!g.is_directed());
    let ids = |l: &Vec<(u32, u32)>| l.iter().map(|e| e.0).collect::<Vec<_>>();
    let got: Vec<Vec<u32>> = lists.iter().map(ids).collect();
    assert_eq!(got, vec![vec![1], vec![0, 4], vec![2], vec![], vec![1]]);
}

#[test]
fn relabel_first_seen_and_sorted_with_id_lookup() {
    let tmp = scratch();
    let big = 10_000_000_000u64;
    let input = write(tmp.path(), "e.txt", format!("{big} 7\n7 3\n3 {big}\n42 7\n").as_bytes());
    for (relabel, order) in
        [(Relabel::FirstSeen, vec![big, 7, 3, 42]), (Relabel::Sorted, vec![3, 7, 42, big])]
    {
        let out = tmp.path().join(format!("{relabel:?}"));
        let opts = ImportOptions { relabel, ..ImportOptions::default() };
        let r = import(&input, &out, &opts, &NoProgress).unwrap();
        assert_eq!((r.num_vertices, r.num_edges), (4, 4));
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        let ids = g.ids().unwrap();
        for (v, &orig) in order.iter().enumerate() {
            assert_eq!(ids.original(v as u32), OriginalId::Int(orig));
            assert_eq!(ids.vertex(&OriginalId::Int(orig)), Some(v as u32));
        }
        assert_eq!(ids.vertex(&OriginalId::Int(5)), None);
        // Each original edge is present under the new ids.
        let v = |x: u64| order.iter().position(|&o| o == x).unwrap() as u32;
        for (a, b) in [(big, 7), (7, 3), (3, big), (42, 7)] {
            assert!(g.out().neighbors(v(a)).contains(&v(b)), "{a}->{b}");
        }
        ocgraph_core::format::check_graph(&out).unwrap();
    }
}

#[test]
fn string_ids_relabel_and_lookup() {
    let tmp = scratch();
    let text = "# people\nbob\talice\nalice carol\n carol,bob\ndave 12\n";
    let input = write(tmp.path(), "p.txt", text.as_bytes());
    for (relabel, order) in [
        (Relabel::None, vec!["bob", "alice", "carol", "dave", "12"]),
        (Relabel::Sorted, vec!["12", "alice", "bob", "carol", "dave"]),
    ] {
        let out = tmp.path().join(format!("{relabel:?}"));
        let opts = ImportOptions {
            relabel,
            build: BuildOptions { directed: false, ..BuildOptions::default() },
            ..ImportOptions::default()
        };
        let r = import(&input, &out, &opts, &NoProgress).unwrap();
        assert_eq!((r.num_vertices, r.num_edges, r.num_arcs), (5, 4, 8));
        let g = Graph::open(&out, &OpenOptions::default()).unwrap();
        let ids = g.ids().unwrap();
        for (v, name) in order.iter().enumerate() {
            assert_eq!(ids.original(v as u32), OriginalId::Str(name.to_string()));
            assert_eq!(ids.vertex(&OriginalId::Str(name.to_string())), Some(v as u32));
        }
        // Ids are strings here: "12" is found by its string only.
        assert_eq!(
            ids.vertex(&OriginalId::Str("12".into())),
            Some(order.iter().position(|&s| s == "12").unwrap() as u32)
        );
        assert_eq!(ids.vertex(&OriginalId::Int(12)), None);
        assert_eq!(ids.vertex(&OriginalId::Str("erin".into())), None);
        let v = |s: &str| order.iter().position(|&o| o == s).unwrap() as u32;
        assert_eq!(
            &*g.out().neighbors(v("bob")),
            &{
                let mut l = vec![v("alice"), v("carol")];
                l.sort();
                l
            }[..]
        );
        ocgraph_core::format::check_graph(&out).unwrap();
    }
}

#[test]
fn identity_ids_and_csv_string_ids() {
    let tmp = scratch();
    let input = write(tmp.path(), "e.csv", b"from,to\n\"x y\",z\nz,w\n");
    let out = tmp.path().join("g");
    let r = import(&input, &out, &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!(r.num_vertices, 3);
    let g = Graph::open(&out, &OpenOptions::default()).unwrap();
    assert_eq!(g.ids().unwrap().original(0), OriginalId::Str("x y".into()));
    let input = write(tmp.path(), "e.txt", b"0 4\n");
    let out = tmp.path().join("g2");
    import(&input, &out, &ImportOptions::default(), &NoProgress).unwrap();
    let g = Graph::open(&out, &OpenOptions::default()).unwrap();
    let ids = g.ids().unwrap();
    assert_eq!(ids.len(), 5);
    assert_eq!(ids.original(3), OriginalId::Int(3));
    assert_eq!(ids.vertex(&OriginalId::Int(4)), Some(4));
    assert_eq!(ids.vertex(&OriginalId::Int(5)), None);
}

/// Quoted CSV fields (RFC 4180): commas and doubled quotes inside quotes, quoted header names
/// and quoted numbers; a stray text after a closing quote is an error naming the line.
#[test]
fn csv_quoted_fields() {
    let tmp = scratch();
    let csv = "\"src\",\"dst\"\n\"Smith, J\",\"Doe, A\"\n\"Doe, A\",Lee\r\n\"O\"\"Brien\" , \"Smith, J\"\n";
    let input = write(tmp.path(), "quoted.csv", csv.as_bytes());
    for (relabel, order) in [
        (Relabel::None, ["Smith, J", "Doe, A", "Lee", "O\"Brien"]),
        (Relabel::Sorted, ["Doe, A", "Lee", "O\"Brien", "Smith, J"]),
    ] {
        let out = tmp.path().join(format!("{relabel:?}"));
        let opts = ImportOptions { relabel, ..ImportOptions::default() };
        let r = import(&input, &out, &opts, &NoProgress).unwrap();
        assert_eq!((r.num_vertices, r.num_edges), (4, 3));
        assert!(r.notices.iter().any(|n| n.contains("taken as the CSV header")), "{:?}", r.notices);
        assert!(!r.notices.iter().any(|n| n.contains("ignored")), "{:?}", r.notices);
        let (g, lists, _) = open_lists(&out);
        let ids = g.ids().unwrap();
        let name = |v: u32| match ids.original(v) {
            OriginalId::Str(s) => s,
            other => panic!("a string id expected, got {other:?}"),
        };
        assert_eq!((0..4).map(name).collect::<Vec<_>>(), order);
        let mut edges: Vec<(String, String)> = (0..4u32)
            .flat_map(|u| lists[u as usize].iter().map(move |&(v, _)| (u, v)))
            .map(|(u, v)| (name(u), name(v)))
            .collect();
        edges.sort();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(edges, [pair("Doe, A", "Lee"), pair("O\"Brien", "Smith, J"), pair("Smith, J", "Doe, A")]);
    }

    let numbers = write(tmp.path(), "numbers.csv", b"\"1\",\"2\"\n\"2\",0\n");
    let r = import(&numbers, &tmp.path().join("n"), &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges), (3, 2));
    assert!(r.notices.is_empty(), "{:?}", r.notices);
    let g = Graph::open(tmp.path().join("n"), &OpenOptions::default()).unwrap();
    assert_eq!(g.ids().unwrap().original(2), OriginalId::Int(2));

    let named = Columns { source: Some("to, b".into()), target: Some("from".into()), ..Columns::default() };
    let opts = ImportOptions { columns: named, ..ImportOptions::default() };
    let swapped = write(tmp.path(), "named.csv", b"from,\"to, b\"\nx,y\n");
    import(&swapped, &tmp.path().join("s"), &opts, &NoProgress).unwrap();
    let g = Graph::open(tmp.path().join("s"), &OpenOptions::default()).unwrap();
    assert_eq!(g.ids().unwrap().original(0), OriginalId::Str("y".into()));

    let bad = write(tmp.path(), "bad.csv", b"a,b\nc,d\n\"Smith\" J,d\n");
    let err =
        import(&bad, &tmp.path().join("b"), &ImportOptions::default(), &NoProgress).unwrap_err().to_string();
    assert!(err.contains("bad.csv:3:") && err.contains("text after the closing quote"), "{err}");
    let open = write(tmp.path(), "open.csv", b"a,b\n\"c,d\n");
    let err =
        import(&open, &tmp.path().join("o"), &ImportOptions::default(), &NoProgress).unwrap_err().to_string();
    assert!(err.contains("open.csv:2:") && err.contains("not closed"), "{err}");
}

#[test]
fn csv_columns_by_header_name() {
    let tmp = scratch();
    let csv = b"id,dst,len,src\n0,2,1.5,1\n1,0,2.5,2\n2,1,0.5,2\n";
    let input = write(tmp.path(), "named.csv", csv);
    let out = tmp.path().join("g");
    let columns =
        Columns { source: Some("src".into()), target: Some("dst".into()), weight: Some("len".into()) };
    let opts = ImportOptions { columns, ..ImportOptions::default() };
    let r = import(&input, &out, &opts, &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges), (3, 3));
    let (g, lists, _) = open_lists(&out);
    assert!(g.is_weighted(), "a weight column makes the graph weighted");
    // Edges src -> dst with weight len: 1 -> 2 (1.5), 2 -> 0 (2.5), 2 -> 1 (0.5).
    let bits = |l: &[(u32, f32)]| l.iter().map(|&(v, w)| (v, w.to_bits())).collect::<Vec<_>>();
    assert_eq!(lists, vec![vec![], bits(&[(2, 1.5)]), bits(&[(0, 2.5), (1, 0.5)])]);

    let missing = Columns { target: Some("to".into()), ..Columns::default() };
    let opts = ImportOptions { columns: missing, ..ImportOptions::default() };
    let err = import(&input, &tmp.path().join("h"), &opts, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("named.csv:1:") && err.contains("no column 'to'"), "{err}");
    let text = write(tmp.path(), "e.txt", b"0 1\n");
    let opts = ImportOptions { columns: Columns { source: Some("a".into()), ..Columns::default() }, ..opts };
    let err = import(&text, &tmp.path().join("i"), &opts, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("only in CSV files"), "{err}");
}

/// Columns far to the right of a wide CSV are read (rows were read up to column 16 only, and a
/// source, target or weight past it was refused): by name, and the weight by its default
/// name `weight`.
#[test]
fn csv_columns_past_the_sixteenth_are_read() {
    let tmp = scratch();
    let names: Vec<String> =
        (0..40).map(|k| if k == 37 { "weight".into() } else { format!("c{k}") }).collect();
    let row = |src: &str, dst: &str, w: &str| -> String {
        let mut r: Vec<String> = (0..40).map(|k| format!("x{k}")).collect();
        (r[20], r[31], r[37]) = (src.into(), dst.into(), w.into());
        r.join(",")
    };
    let csv = format!("{}\n{}\n{}\n", names.join(","), row("a", "b", "1.5"), row("b", "c", "2.5"));
    let input = write(tmp.path(), "wide.csv", csv.as_bytes());
    let columns = Columns { source: Some("c20".into()), target: Some("c31".into()), weight: None };
    let build = BuildOptions { weighted: true, ..BuildOptions::default() };
    let opts = ImportOptions { columns, build, ..ImportOptions::default() };
    let out = tmp.path().join("g");
    let r = import(&input, &out, &opts, &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges), (3, 2));
    let (g, lists, _) = open_lists(&out);
    let ids = g.ids().unwrap();
    let name = |v: u32| ids.original(v);
    let mut arcs: Vec<(OriginalId, OriginalId, f32)> = Vec::new();
    for (u, l) in lists.iter().enumerate() {
        arcs.extend(l.iter().map(|&(v, w)| (name(u as u32), name(v), f32::from_bits(w))));
    }
    let s = |x: &str| OriginalId::Str(x.into());
    assert_eq!(arcs, vec![(s("a"), s("b"), 1.5), (s("b"), s("c"), 2.5)]);
    // A column the header lacks: the error quotes the header's first 16 names, not all 40.
    let columns = Columns { source: Some("c99".into()), ..Columns::default() };
    let opts = ImportOptions { columns, ..ImportOptions::default() };
    let err = import(&input, &tmp.path().join("h"), &opts, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("wide.csv:1: no column 'c99' in the header (columns: c0, c1,"), "{err}");
    assert!(err.contains("c15, ... 24 more; at most 4096 are read)") && !err.contains("c16"), "{err}");
}

#[test]
fn csv_column_read_by_a_name_two_columns_have_is_refused() {
    let tmp = scratch();
    let import_csv = |name: &str, csv: &[u8], columns: Columns, weighted: bool| {
        let input = write(tmp.path(), name, csv);
        let build = BuildOptions { weighted, ..BuildOptions::default() };
        let opts = ImportOptions { columns, build, ..ImportOptions::default() };
        import(&input, &tmp.path().join(name).with_extension("g"), &opts, &NoProgress).map(|r| r.num_edges)
    };
    let given = || Columns { source: Some("a".into()), target: Some("b".into()), ..Columns::default() };
    let err = import_csv("given.csv", b"a,b,a\n0,1,2\n", given(), false).unwrap_err().to_string();
    assert!(err.contains("given.csv:1:") && err.contains("2 columns are named 'a'"), "{err}");
    // Default names, in any case: `src`/`dst` and, when weighted, `weight`.
    let err = import_csv("ends.csv", b"# c\nsrc,dst,DST\n0,1,2\n", Columns::default(), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("ends.csv:2:") && err.contains("2 columns are named 'dst'"), "{err}");
    let csv = b"src,dst,weight,Weight\n0,1,2,3\n";
    let err = import_csv("w.csv", csv, Columns::default(), true).unwrap_err().to_string();
    assert!(err.contains("w.csv:1:") && err.contains("2 columns are named 'weight'"), "{err}");
    // A name shared by columns that are not read is no matter.
    assert_eq!(import_csv("unread.csv", csv, Columns::default(), false).unwrap(), 1);
    assert_eq!(import_csv("other.csv", b"a,b,c,c\n0,1,2,3\n", given(), false).unwrap(), 1);
}

/// The ids of every vertex of the graph at `out`, as strings, and its edges by those ids.
fn named_edges(out: &Path) -> Vec<(String, String)> {
    let (g, lists, _) = open_lists(out);
    let name = |v: u32| match g.ids().unwrap().original(v) {
        OriginalId::Str(s) => s,
        OriginalId::Int(i) => i.to_string(),
    };
    let mut edges: Vec<(String, String)> = (0..lists.len() as u32)
        .flat_map(|u| lists[u as usize].iter().map(move |&(v, _)| (u, v)))
        .map(|(u, v)| (name(u), name(v)))
        .collect();
    edges.sort();
    edges
}

/// A UTF-8 byte-order mark is not part of the first line (text, CSV with and without a header
/// or named columns, MatrixMarket); a CSV row starting with `#` or `%` after the first row is
/// data, not a comment (before it, and in a text file, such lines are comments); a first line
/// whose target is not an integer means string ids.
#[test]
fn byte_order_marks_csv_hash_rows_and_string_targets() {
    let tmp = scratch();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    type Case = (&'static str, &'static [u8], Columns, Vec<(String, String)>);
    let cases: [Case; 6] = [
        ("bom.txt", b"\xEF\xBB\xBF1 2\n2 3\n", Columns::default(), vec![pair("1", "2"), pair("2", "3")]),
        ("bom.csv", b"\xEF\xBB\xBF1,2\n2,3\n", Columns::default(), vec![pair("1", "2"), pair("2", "3")]),
        (
            "bom-named.csv",
            b"\xEF\xBB\xBFsrc,dst\n1,2\n",
            Columns { source: Some("src".into()), target: Some("dst".into()), ..Columns::default() },
            vec![pair("1", "2")],
        ),
        (
            "hash.csv",
            b"# a preamble\nsrc,dst\n#h1,b\nc,d\n%p,q\n",
            Columns::default(),
            vec![pair("#h1", "b"), pair("%p", "q"), pair("c", "d")],
        ),
        ("hash.txt", b"#h1 b\nc d\n", Columns::default(), vec![pair("c", "d")]),
        ("strings.txt", b"12 b\na 12\n", Columns::default(), vec![pair("12", "b"), pair("a", "12")]),
    ];
    for (name, bytes, columns, want) in cases {
        let input = write(tmp.path(), name, bytes);
        let out = tmp.path().join(format!("g-{name}"));
        let opts = ImportOptions { columns, ..ImportOptions::default() };
        let r = import(&input, &out, &opts, &NoProgress).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!r.notices.iter().any(|n| n.contains("header: '1")), "{name}: {:?}", r.notices);
        let mut want = want;
        want.sort();
        assert_eq!(named_edges(&out), want, "{name}");
    }
    // A weighted text import of more than three columns says which it read.
    let comma = write(tmp.path(), "comma.txt", b"0 1 1,5\n1 2 2,5\n");
    let opts = ImportOptions {
        build: BuildOptions { weighted: true, ..BuildOptions::default() },
        ..ImportOptions::default()
    };
    let r = import(&comma, &tmp.path().join("g-comma"), &opts, &NoProgress).unwrap();
    assert!(
        r.notices.iter().any(|n| n.contains("comma.txt:1: 4 columns") && n.contains("decimal comma")),
        "{:?}",
        r.notices
    );
    // So does a weighted CSV import without a header (the weight is the third column by
    // position); with a header naming the weight column, nothing is said.
    let csv = write(tmp.path(), "four.csv", b"0,1,2.5,x\n1,2,3.5,y\n");
    let r = import(&csv, &tmp.path().join("g-four"), &opts, &NoProgress).unwrap();
    assert!(
        r.notices.iter().any(|n| n.contains("four.csv:1: 4 columns") && n.contains("no header")),
        "{:?}",
        r.notices
    );
    let named = write(tmp.path(), "named.csv", b"src,dst,weight,note\n0,1,2.5,x\n");
    let r = import(&named, &tmp.path().join("g-named"), &opts, &NoProgress).unwrap();
    assert!(!r.notices.iter().any(|n| n.contains("columns: the first two")), "{:?}", r.notices);
    let mtx = write(
        tmp.path(),
        "bom.mtx",
        b"\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n",
    );
    let out = tmp.path().join("g-mtx");
    let r = import(&mtx, &out, &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges), (3, 2));
}

/// A layout is not built over offsets corrupted between their ends (which open does not
/// read): the degrees would not add up to the arcs, and the layout would pass `check`.
#[test]
fn layouts_refuse_offsets_whose_degrees_do_not_add_up() {
    let tmp = scratch();
    let input = write(tmp.path(), "e.txt", b"0 1\n1 2\n2 3\n3 0\n0 2\n");
    let out = tmp.path().join("g");
    import(&input, &out, &ImportOptions::default(), &NoProgress).unwrap();
    let path = out.join("out.offsets");
    let mut offsets = std::fs::read(&path).unwrap();
    offsets[16..24].copy_from_slice(&0u64.to_le_bytes()); // vertex 2's list starts at 0
    std::fs::write(&path, &offsets).unwrap();
    let e =
        ocgraph_core::ingest::build_grid(&out, &ocgraph_core::ingest::GridOptions::default(), &NoProgress)
            .unwrap_err()
            .to_string();
    // The source's checksums are checked first (the degrees after them, for offsets changed
    // while the build runs).
    assert!(e.contains("out.offsets") && e.contains("checksum mismatch"), "{e}");
    assert!(!out.join("grid.edges").exists());
}

/// A weighted CSV import whose header names no weight column reads the column after the source
/// and target (here named `src` and `dst`, read by name), and says so in a notice naming it (it
/// was chosen silently).
#[test]
fn an_unnamed_csv_weight_column_is_noted() {
    let tmp = scratch();
    let input = tmp.path().join("w.csv");
    std::fs::write(&input, "x,src,dst,w2\n9,5,6,7\n").unwrap();
    let opts = ImportOptions {
        build: BuildOptions { weighted: true, ..BuildOptions::default() },
        ..ImportOptions::default()
    };
    let r = import(&input, &tmp.path().join("g"), &opts, &NoProgress).unwrap();
    assert!(
        r.notices.iter().any(|n| n.contains("w.csv:1:") && n.contains("the weight is column 4 ('w2')")),
        "{:?}",
        r.notices
    );
    let named = tmp.path().join("n.csv");
    std::fs::write(&named, "src,dst,weight\n5,6,7\n").unwrap();
    let r = import(&named, &tmp.path().join("h"), &opts, &NoProgress).unwrap();
    assert!(!r.notices.iter().any(|n| n.contains("no column is named weight")), "{:?}", r.notices);
}

/// A CSV row wider than its header and a MatrixMarket entry with more than its fields are
/// reported (`2,5` is a decimal comma that would otherwise become a weight of 2 silently); a
/// header naming both `weight` and `w` takes `weight`, wherever it is.
#[test]
fn rows_wider_than_their_format_are_noted_and_weight_comes_before_w() {
    let tmp = scratch();
    let opts = ImportOptions {
        build: BuildOptions { weighted: true, ..BuildOptions::default() },
        ..ImportOptions::default()
    };
    let weights = |out: &Path| -> Vec<f32> {
        open_lists(out).1.iter().flatten().map(|&(_, w)| f32::from_bits(w)).collect()
    };
    // A text file's decimal comma deep in the file, not only in its first lines.
    let deep: String = (0..40).map(|i| format!("{i} {} 1.5\n", i + 1)).collect::<String>() + "7 9 2,5\n";
    let cases: [(&str, &str, &str); 3] = [
        ("c.csv", "src,dst,weight\n0,1,2,5\n", "c.csv:2: more than 3 columns: the weight is column 3"),
        ("m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2,5\n", "m.mtx:3: more than 3"),
        ("deep.txt", &deep, "deep.txt:41: more than 3 columns"),
    ];
    for (name, text, note) in cases {
        let input = write(tmp.path(), name, text.as_bytes());
        let out = tmp.path().join(format!("g-{name}"));
        let r = import(&input, &out, &opts, &NoProgress).unwrap();
        assert!(r.notices.iter().any(|n| n.contains(note)), "{name}: {:?}", r.notices);
    }
    // Rows as wide as the header (and a weight the header does not name, and columns the
    // header names past the weight) are no news.
    for (name, text) in [
        ("n.csv", "src,dst,weight\n0,1,2.5\n"),
        ("u.csv", "src,dst\n0,1,2.5\n"),
        ("t.csv", "src,dst,weight,time\n0,1,2.5,7\n"),
    ] {
        let input = write(tmp.path(), name, text.as_bytes());
        let out = tmp.path().join(format!("g-{name}"));
        let r = import(&input, &out, &opts, &NoProgress).unwrap();
        assert!(!r.notices.iter().any(|n| n.contains("columns past")), "{name}: {:?}", r.notices);
        assert_eq!(weights(&out), [2.5]);
    }
    for header in ["source,target,w,weight", "source,target,weight,w"] {
        let row = if header.ends_with(",w") { "0,1,2.5,9" } else { "0,1,9,2.5" };
        let input = write(tmp.path(), "both.csv", format!("{header}\n{row}\n").as_bytes());
        let out = tmp.path().join(format!("g-{header}"));
        import(&input, &out, &opts, &NoProgress).unwrap();
        assert_eq!(weights(&out), [2.5], "{header}");
    }
}

/// A text file's first lines are checked (a header line is refused, columns past the edge are
/// reported) the same way at every budget: after more comment lines than a block holds, and
/// wherever a 64 KiB block (a small budget's) ends around the header line.
#[test]
fn a_text_files_first_lines_are_checked_at_every_budget() {
    let tmp = scratch();
    let comments =
        |n: usize| (0..n).map(|i| format!("# comment {i:05} {}\n", "x".repeat(40))).collect::<String>();
    let run = |name: &str, text: &str, memory: u64| {
        let input = tmp.path().join(name);
        std::fs::write(&input, text).unwrap();
        let out = tmp.path().join(format!("{name}-{memory}-{}", text.len()));
        let opts = ImportOptions {
            build: BuildOptions { memory, ..BuildOptions::default() },
            ..ImportOptions::default()
        };
        import(&input, &out, &opts, &NoProgress)
    };
    // 3000 comment lines: 171 KB, past a small budget's block. Around 1150 of them, the header
    // line crosses the end of a 64 KiB block.
    let cases = [(3000, 1u64 << 30), (3000, 64 << 10)].into_iter().chain((1130..1170).map(|n| (n, 4 << 10)));
    for (n, memory) in cases {
        let header = format!("{}from to\n0 1\n1 2\n2 3\n", comments(n));
        let e = run("h.txt", &header, memory).expect_err("a header line");
        let m = e.to_string();
        assert!(
            m.contains(&format!("h.txt:{}:", n + 1)) && m.contains("'from to' looks like a header"),
            "{n} at {memory}: {m}"
        );
        let extra = format!("{}0 1 7\n1 2 7\n", comments(n));
        let report = run("x.txt", &extra, memory).unwrap();
        assert_eq!(report.num_edges, 2);
        let notice = format!("x.txt:{}: 3 columns", n + 1);
        assert!(report.notices.iter().any(|t| t.contains(&notice)), "{n} at {memory}: {:?}", report.notices);
    }
}

/// A CSV header or a MatrixMarket size line after more comment lines than an input block holds
/// (the block is sized from the budget: 64 KiB under a small one) is read as one, at every
/// budget: the same graph as with a budget whose block holds them all.
#[test]
fn headers_after_long_comments_are_found_at_every_budget() {
    let tmp = scratch();
    let comments = |mark: &str| {
        (0..3000).map(|i| format!("{mark} comment {i} {}\n", "x".repeat(40))).collect::<String>()
    };
    let csv = format!("{}src,dst\na,b\nb,c\n", comments("#"));
    let mtx = format!(
        "%%MatrixMarket matrix coordinate pattern general\n% {}\n{}3 3 2\n1 2\n2 3\n",
        "z".repeat(70_000),
        comments("%")
    );
    for (name, text, relabel) in [("e.csv", csv, Relabel::FirstSeen), ("e.mtx", mtx, Relabel::None)] {
        let input = tmp.path().join(name);
        std::fs::write(&input, text).unwrap();
        let mut lists = Vec::new();
        for memory in [1u64 << 30, 64 << 10, 4 << 10] {
            let out = tmp.path().join(format!("{name}-{memory}"));
            let opts = ImportOptions {
                build: BuildOptions { memory, ..BuildOptions::default() },
                relabel,
                ..ImportOptions::default()
            };
            let report = import(&input, &out, &opts, &NoProgress)
                .unwrap_or_else(|e| panic!("{name} at {memory}: {e}"));
            assert_eq!((report.num_edges, report.num_vertices), (2, 3), "{name} at {memory}");
            lists.push(open_lists(&out).1);
        }
        assert!(lists.windows(2).all(|w| w[0] == w[1]), "{name}: {lists:?}");
    }
}
