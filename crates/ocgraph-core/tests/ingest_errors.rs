//! Bad inputs give the right error kind naming the file and line/offset, and leave nothing at
//! the output path; corrupted graphs are detected.

mod ingest_common;

use std::path::Path;

use ingest_common::scratch;
use ocgraph_core::error::ErrorKind;
use ocgraph_core::format::{Manifest, WeightRange};
use ocgraph_core::ingest::{import, BuildOptions, Columns, ImportOptions, InputFormat, NoProgress, Relabel};
use ocgraph_core::{Graph, OpenOptions};

/// Imports `bytes` (as file `name`) and returns the error message after checking its kind and
/// that neither the graph nor a temporary directory was left behind.
fn fails(name: &str, bytes: &[u8], opts: &ImportOptions, kind: ErrorKind) -> String {
    let tmp = scratch();
    let input = tmp.path().join(name);
    std::fs::write(&input, bytes).unwrap();
    let outdir = tmp.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    let out = outdir.join("g");
    let err = import(&input, &out, opts, &NoProgress).expect_err("import must fail");
    assert_eq!(err.kind(), kind, "{err}");
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(&outdir).unwrap().count(), 0, "temporary directory left behind");
    let msg = err.to_string();
    assert!(msg.contains(name), "message names the file: {msg}");
    msg
}

fn opts() -> ImportOptions {
    ImportOptions::default()
}

#[test]
fn malformed_lines() {
    let m = fails("a.txt", b"# c\n1 2\n3\n4 5\n", &opts(), ErrorKind::Input);
    assert!(m.contains("a.txt:3:") && m.contains("2 columns"), "{m}");
    let m = fails("b.txt", b"1 2\n3 x\n", &opts(), ErrorKind::Input);
    assert!(m.contains("b.txt:2:") && m.contains("'x'"), "{m}");
    // String ids (first token non-numeric): a one-column line later is still malformed.
    let m = fails("c.txt", b"a b\nc d\ne\n", &opts(), ErrorKind::Input);
    assert!(m.contains("c.txt:3:"), "{m}");
    let m = fails("d.csv", b"s,t\n1,2\n3\n", &opts(), ErrorKind::Input);
    assert!(m.contains("d.csv:3:"), "{m}");
    let m = fails(
        "e.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n1 2\n0 1\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(m.contains("e.mtx:5:"), "{m}");
    let m = fails(
        "f.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(m.contains("declares 3 entries"), "{m}");
    fails("g.mtx", b"%%MatrixMarket matrix array real general\n3 3\n", &opts(), ErrorKind::Input);
    // An id beyond the declared size is an error naming its line, not a larger graph.
    let m = fails(
        "h.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(m.contains("h.mtx:4:") && m.contains("row 4 is beyond the 3 rows"), "{m}");
    // Rows and columns apart: column 5 of a 5 x 2 matrix was taken (it is below max(5, 2)).
    let m = fails(
        "h2.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n5 2 2\n5 1\n1 5\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(m.contains("h2.mtx:4:") && m.contains("column 5 is beyond the 2 columns"), "{m}");
    // A banner after the first line was read as a comment: a symmetric matrix came in directed.
    for (name, text) in [
        ("j.mtx", &b"\n%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n"[..]),
        ("k.mtx", b" %%MatrixMarket matrix coordinate integer general\n3 3 1\n2 1 3.5\n"),
    ] {
        let m = fails(name, text, &opts(), ErrorKind::Input);
        assert!(m.contains(name) && m.contains("banner must be the file's first line"), "{m}");
    }
    // Lines ended by CR alone would read as one line of many columns (one edge): refused.
    let m = fails("i.txt", b"# c\n1 2\r2 3\r3 4\r", &opts(), ErrorKind::Input);
    assert!(m.contains("i.txt:2:") && m.contains("carriage return"), "{m}");
}

#[test]
fn crlf_line_endings_import() {
    let tmp = scratch();
    let input = tmp.path().join("crlf.txt");
    std::fs::write(&input, b"1 2\r\n2 3\r\n").unwrap();
    let out = tmp.path().join("g");
    import(&input, &out, &opts(), &NoProgress).unwrap();
    assert_eq!(ocgraph_core::Graph::open(&out, &Default::default()).unwrap().num_edges(), 2);
}

#[test]
fn line_numbers_are_exact_across_parallel_pieces() {
    // Enough lines for several parallel pieces; the bad line is deep inside.
    let mut text = String::new();
    for i in 0..300_000u32 {
        text += &format!("{} {}\n", i % 1000, (i * 7) % 1000);
    }
    text += "5 -6\n";
    let m = fails("big.txt", text.as_bytes(), &opts(), ErrorKind::Input);
    assert!(m.contains("big.txt:300001:") && m.contains("negative"), "{m}");
}

#[test]
fn bad_ids() {
    let m = fails("neg.txt", b"1 2\n-3 4\n", &opts(), ErrorKind::Input);
    assert!(m.contains("neg.txt:2:") && m.contains("negative"), "{m}");
    let m = fails("big.txt", b"1 2\n4294967295 1\n", &opts(), ErrorKind::Input);
    assert!(m.contains("big.txt:2:") && m.contains("--relabel"), "{m}");
    let m = fails("huge.txt", b"1 2\n3 99999999999999999999999\n", &opts(), ErrorKind::Input);
    assert!(m.contains("huge.txt:2:") && m.contains("overflows"), "{m}");
    let relabel = ImportOptions { relabel: Relabel::FirstSeen, ..opts() };
    fails("huge2.txt", b"1 2\n3 99999999999999999999999\n", &relabel, ErrorKind::Input);
    let mut b = Vec::new();
    for x in [1u32, 2, 3, u32::MAX] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    let m = fails("ids.bin", &b, &opts(), ErrorKind::Input);
    assert!(m.contains("at byte 8") && m.contains("--relabel"), "{m}");
}

#[test]
fn truncated_binary() {
    let m = fails("t.bin", &[0u8; 8 * 5 + 3], &opts(), ErrorKind::Input);
    assert!(m.contains("at byte 40") && m.contains("truncated"), "{m}");
    let b64 = ImportOptions { format: InputFormat::Binary64, ..opts() };
    let m = fails("t.dat", &[0u8; 16 * 2 + 9], &b64, ErrorKind::Input);
    assert!(m.contains("at byte 32"), "{m}");
}

#[test]
fn empty_and_missing_files() {
    let m = fails("empty.txt", b"", &opts(), ErrorKind::Input);
    assert!(m.contains("no edges"), "{m}");
    let m = fails("comments.txt", b"# only\n% comments\n\n", &opts(), ErrorKind::Input);
    assert!(m.contains("no edges"), "{m}");
    fails("empty.bin", b"", &opts(), ErrorKind::Input);
    let tmp = scratch();
    let out = tmp.path().join("g");
    let err = import(&tmp.path().join("nope.txt"), &out, &opts(), &NoProgress).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(err.to_string().contains("nope.txt"));
    assert!(!out.exists());
}

#[test]
fn bad_and_missing_weights() {
    let w = ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() };
    let m = fails("w.txt", b"1 2 0.5\n2 3 abc\n", &w, ErrorKind::Input);
    assert!(m.contains("w.txt:2:") && m.contains("bad weight"), "{m}");
    let m = fails("w2.txt", b"1 2 0.5\n2 3 NaN\n", &w, ErrorKind::Input);
    assert!(m.contains("w2.txt:2:"), "{m}");
    let m = fails("w3.txt", b"1 2 0.5\n2 3\n", &w, ErrorKind::Input);
    assert!(m.contains("w3.txt:2:") && m.contains("missing weight"), "{m}");
    let m = fails("w4.csv", b"a,b,weight\n1,2,\n", &w, ErrorKind::Input);
    assert!(m.contains("w4.csv:2:"), "{m}");
    // A weight a 32-bit float cannot hold is refused, whether too large or, nonzero, too small.
    for (name, text) in [("w5.txt", &b"1 2 0.5\n2 3 1e39\n"[..]), ("w6.txt", b"1 2 0.5\n2 3 -1e-50\n")] {
        let m = fails(name, text, &w, ErrorKind::Input);
        assert!(m.contains(&format!("{name}:2:")) && m.contains("not a finite 32-bit float"), "{m}");
    }
    let g = scratch();
    std::fs::write(g.path().join("tiny.txt"), b"1 2 1e-40\n2 3 0\n").unwrap();
    import(&g.path().join("tiny.txt"), &g.path().join("g"), &w, &NoProgress)
        .expect("subnormal and zero weights are stored");
}

#[test]
fn gzip_detected_by_magic_and_corrupt_gzip_fails() {
    let tmp = scratch();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, b"0 1\n1 2\n").unwrap();
    let bytes = e.finish().unwrap();
    let input = tmp.path().join("no-extension");
    std::fs::write(&input, &bytes).unwrap();
    let r = import(&input, &tmp.path().join("g"), &opts(), &NoProgress).unwrap();
    assert_eq!((r.num_vertices, r.num_edges), (3, 2));
    let mut cut = bytes.clone();
    cut.truncate(bytes.len() - 6);
    // A cut stream is the file's content, not a failing device.
    let m = fails("cut.gz", &cut, &opts(), ErrorKind::Input);
    assert!(m.contains("cut.gz") && m.contains("damaged gzip data after 8 decompressed bytes"), "{m}");
    // Bytes after the last member are not another member: named after the text before them.
    let mut tail = bytes.clone();
    tail.extend_from_slice(b"not gzip");
    let m = fails("tail.gz", &tail, &opts(), ErrorKind::Input);
    assert!(m.contains("tail.gz") && m.contains("damaged gzip data after 8 decompressed bytes"), "{m}");
}

fn build_small(dir: &Path) {
    let tmp_in = dir.with_extension("txt");
    std::fs::write(&tmp_in, b"0 1\n1 2\n2 0\n2 3\n").unwrap();
    import(&tmp_in, dir, &opts(), &NoProgress).unwrap();
}

/// Building a layout on a path that holds no graph fails as opening it would, and leaves the
/// directory as it was (no `writer.lock`).
#[test]
fn layouts_of_a_path_without_a_graph_write_nothing() {
    let tmp = scratch();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = ocgraph_core::ingest::index_hubs(&empty, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("manifest"), "{err}");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    let err = ocgraph_core::ingest::pack_copy(&tmp.path().join("missing"), &NoProgress).unwrap_err();
    assert!(
        err.to_string().contains("open graph directory") && !err.to_string().contains("writer.lock"),
        "{err}"
    );
    assert!(!tmp.path().join("missing").exists());
}

/// A weight range in the manifest that is not the weights' is refused by `check_graph`, naming
/// the weights file; one that is no range at all is refused on open.
#[test]
fn a_wrong_weight_range_is_detected() {
    let tmp = scratch();
    let dir = tmp.path().join("g");
    let input = dir.with_extension("txt");
    std::fs::write(&input, b"0 1 2.5\n1 2 0\n2 0 7\n").unwrap();
    import(
        &input,
        &dir,
        &ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() },
        &NoProgress,
    )
    .unwrap();
    let mut m = Manifest::read(&dir).unwrap();
    assert_eq!(m.weight_range, Some(WeightRange { min_positive: Some(2.5), max: 7.0, whole: false }));
    ocgraph_core::format::check_graph(&dir).unwrap();
    m.weight_range = Some(WeightRange { min_positive: Some(2.5), max: 6.0, whole: false });
    m.write_atomic(&dir).unwrap();
    let err = ocgraph_core::format::check_graph(&dir).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("out.weights"), "{err}");
    m.weight_range = Some(WeightRange { min_positive: Some(8.0), max: 7.0, whole: false });
    m.write_atomic(&dir).unwrap();
    let err = Graph::open(&dir, &OpenOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("weight range"), "{err}");
    m.weight_range = Some(WeightRange { min_positive: Some(2.5), max: 7.0, whole: true });
    m.write_atomic(&dir).unwrap();
    let err = Graph::open(&dir, &OpenOptions::default()).unwrap_err();
    assert!(err.to_string().contains("says whole weights"), "{err}");
}

/// Whole weights are recorded as such; `check_graph` refuses a manifest that calls weights
/// whole when one between the bounds is not, and takes one that does not say (written before
/// the field) when they are.
#[test]
fn whole_weights_are_recorded_and_checked() {
    let tmp = scratch();
    let opts = ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() };
    // Imports `text` and records the opposite of what its manifest says of whole weights.
    let flipped = |name: &str, text: &[u8], whole: bool| {
        let dir = tmp.path().join(name);
        std::fs::write(dir.with_extension("txt"), text).unwrap();
        import(&dir.with_extension("txt"), &dir, &opts, &NoProgress).unwrap();
        let mut m = Manifest::read(&dir).unwrap();
        assert_eq!(m.weight_range, Some(WeightRange { min_positive: Some(2.0), max: 7.0, whole }));
        m.weight_range = Some(WeightRange { whole: !whole, ..m.weight_range.unwrap() });
        m.write_atomic(&dir).unwrap();
        dir
    };
    ocgraph_core::format::check_graph(&flipped("whole", b"0 1 2\n1 2 0\n2 0 7\n", true)).unwrap();
    let err =
        ocgraph_core::format::check_graph(&flipped("inner", b"0 1 2\n1 2 2.5\n2 0 7\n", false)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("out.weights"), "{err}");
}

/// A manifest whose edge count cannot go with its arc count (a directed graph's edges are its
/// arcs; an undirected one has between `e` and `2e` arcs) is refused on open; one that can but
/// that the lists' self-loops contradict is refused by `check`.
#[test]
fn an_edge_count_that_contradicts_the_arcs_is_refused() {
    let tmp = scratch();
    for (directed, bad_edges) in [(false, 1u64 << 40), (false, 1), (true, 2)] {
        let dir = tmp.path().join(format!("g{directed}{bad_edges}"));
        let input = dir.with_extension("txt");
        std::fs::write(&input, b"0 1\n1 2\n2 2\n").unwrap();
        let build = BuildOptions { directed, ..BuildOptions::default() };
        import(&input, &dir, &ImportOptions { build, ..opts() }, &NoProgress).unwrap();
        let mut m = Manifest::read(&dir).unwrap();
        // Undirected: 2 edges as 4 arcs and the loop as 1; directed: 3 arcs.
        assert_eq!((m.num_edges, m.num_arcs), if directed { (3, 3) } else { (3, 5) });
        m.num_edges = bad_edges;
        m.write_atomic(&dir).unwrap();
        let err = Graph::open(&dir, &OpenOptions::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Format);
        assert!(err.to_string().contains("cannot describe"), "{err}");
    }
    // One the arcs allow but the lists contradict (4 undirected edges where 2 and a loop are
    // stored) opens, and `check`, which counts the loops, refuses it (it passed), plain or packed.
    let dir = tmp.path().join("loops");
    let input = dir.with_extension("txt");
    std::fs::write(&input, b"0 1\n1 2\n2 2\n").unwrap();
    let build = BuildOptions { directed: false, ..BuildOptions::default() };
    import(&input, &dir, &ImportOptions { build, ..opts() }, &NoProgress).unwrap();
    ocgraph_core::ingest::pack_copy(&dir, &NoProgress).unwrap();
    ocgraph_core::format::check_graph(&dir).unwrap();
    let mut m = Manifest::read(&dir).unwrap();
    m.num_edges = 4;
    m.write_atomic(&dir).unwrap();
    Graph::open(&dir, &OpenOptions::default()).unwrap();
    let err = ocgraph_core::format::check_graph(&dir).unwrap_err().to_string();
    assert!(
        err.contains("num_edges is 4, but the lists hold 3 edges (5 arcs, 1 of them self-loops)"),
        "{err}"
    );
    let packed = tmp.path().join("loops-packed");
    m.num_edges = 3;
    m.write_atomic(&dir).unwrap();
    ocgraph_core::ingest::pack(&dir, &packed, false, &NoProgress).unwrap();
    let mut m = Manifest::read(&packed).unwrap();
    m.num_edges = 4;
    m.write_atomic(&packed).unwrap();
    let err = ocgraph_core::format::check_graph(&packed).unwrap_err().to_string();
    assert!(err.contains("num_edges is 4, but the lists hold 3 edges"), "{err}");
}

#[test]
fn corrupted_graphs_are_detected() {
    let tmp = scratch();
    let dir = tmp.path().join("g");
    build_small(&dir);
    ocgraph_core::format::check_graph(&dir).unwrap();
    // Bit flip in a neighbour file: check_graph fails on the checksum.
    let nb = dir.join("out.neighbors");
    let mut bytes = std::fs::read(&nb).unwrap();
    bytes[4] ^= 0x01;
    std::fs::write(&nb, &bytes).unwrap();
    let err = ocgraph_core::format::check_graph(&dir).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("out.neighbors"), "{err}");
    // A file that `pack` copies as it is (a grid's) is checked against its checksum: a flipped
    // byte fails the copy (its new checksum would pass `check`) and nothing is written.
    let dir5 = tmp.path().join("g5");
    build_small(&dir5);
    ocgraph_core::ingest::build_grid(&dir5, &Default::default(), &NoProgress).unwrap();
    let edges = dir5.join("grid.edges");
    let mut bytes = std::fs::read(&edges).unwrap();
    bytes[0] ^= 0x01;
    std::fs::write(&edges, &bytes).unwrap();
    let copy = tmp.path().join("g5p");
    let err = ocgraph_core::ingest::pack(&dir5, &copy, false, &NoProgress).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("grid.edges") && err.to_string().contains("checksum"), "{err}");
    assert!(!copy.exists());
    // Truncated file: open fails.
    let dir2 = tmp.path().join("g2");
    build_small(&dir2);
    let f = std::fs::OpenOptions::new().write(true).open(dir2.join("in.neighbors")).unwrap();
    f.set_len(100).unwrap();
    let err = Graph::open(&dir2, &OpenOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("in.neighbors"), "{err}");
    // A directory in a listed file's place (its size, 4096, is a small file's padded size).
    let dir4 = tmp.path().join("g4");
    build_small(&dir4);
    let offsets = dir4.join("out.offsets");
    assert_eq!(std::fs::metadata(&offsets).unwrap().len(), 4096);
    std::fs::remove_file(&offsets).unwrap();
    std::fs::create_dir(&offsets).unwrap();
    let err = Graph::open(&dir4, &OpenOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(
        err.to_string().contains("out.offsets") && err.to_string().contains("not a regular file"),
        "{err}"
    );
    // A flipped byte in a small graph's file: open names the file (its files are checked whole).
    let err = Graph::open(&dir, &OpenOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Format);
    assert!(err.to_string().contains("out.neighbors") && err.to_string().contains("checksum"), "{err}");
    // A first or last offset that is not the lists' bounds: open names that entry's byte, also
    // when the file's checksum matches (as open finds it of a graph too large to be checked
    // whole there).
    for (entry, want) in [(0usize, 0u64), (4, 32)] {
        let dir6 = tmp.path().join(format!("g6-{entry}"));
        build_small(&dir6);
        let offsets = dir6.join("out.offsets");
        let mut bytes = std::fs::read(&offsets).unwrap();
        bytes[entry * 8] ^= 0x40;
        std::fs::write(&offsets, &bytes).unwrap();
        let mut m = Manifest::read(&dir6).unwrap();
        m.files.get_mut("out.offsets").unwrap().crc32c = crc32c::crc32c(&bytes);
        m.write_atomic(&dir6).unwrap();
        match Graph::open(&dir6, &OpenOptions::default()).unwrap_err() {
            ocgraph_core::Error::Format { path, offset, msg } => {
                assert!(path.ends_with("out.offsets") && msg.contains("offsets run from"), "{msg}");
                assert_eq!(offset, Some(want), "entry {entry}: {msg}");
            }
            e => panic!("{e}"),
        }
    }
    // Manifest version 2: open fails with a version error.
    let dir3 = tmp.path().join("g3");
    build_small(&dir3);
    let mpath = dir3.join("manifest");
    let mut m = std::fs::read(&mpath).unwrap();
    m[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&mpath, &m).unwrap();
    let err = Graph::open(&dir3, &OpenOptions::default()).unwrap_err();
    assert!(matches!(err, ocgraph_core::Error::Version { found: 2, .. }), "{err}");
}

#[test]
fn line_numbers_are_exact_across_blocks_and_long_lines() {
    // More than one 16 MiB read block, including one line longer than a block.
    let mut text = String::with_capacity(40 << 20);
    text.push_str("# ");
    text.push_str(&"x".repeat(17 << 20));
    text.push('\n');
    let filler = format!("% {}\n", "y".repeat(60));
    for _ in 0..300_000 {
        text.push_str(&filler);
    }
    text.push_str("1 2\n3 4\n5\n");
    let m = fails("blocks.txt", text.as_bytes(), &opts(), ErrorKind::Input);
    assert!(m.contains("blocks.txt:300004:"), "{m}");
}

/// The pid of a process that has exited (a child reaped before this returns).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn stale_temporary_directories_of_dead_writers_are_removed_by_the_next_import() {
    let tmp = scratch();
    let out = tmp.path().join("g");
    let stale = tmp.path().join(format!(".g.tmp-{}-7", dead_pid()));
    std::fs::create_dir_all(stale.join("scratch")).unwrap();
    std::fs::write(stale.join("scratch/run-0"), vec![0u8; 4096]).unwrap();
    // A writer that is still running (this process) keeps its directory; other graphs' too.
    let live = tmp.path().join(format!(".g.tmp-{}-8", std::process::id()));
    let other = tmp.path().join(format!(".h.tmp-{}-9", dead_pid()));
    std::fs::create_dir(&live).unwrap();
    std::fs::create_dir(&other).unwrap();
    build_small(&out);
    assert!(!stale.exists(), "the dead writer's directory is removed");
    assert!(live.exists() && other.exists());
    // The previous graph moved aside by a killed `--force` replace goes too, once the graph exists.
    let trash = tmp.path().join(format!(".g.tmp-{}-10.old", dead_pid()));
    std::fs::create_dir(&trash).unwrap();
    let removed = ocgraph_core::format::remove_stale_temp_dirs(&out).unwrap();
    assert_eq!(removed.iter().map(|r| r.path.as_path()).collect::<Vec<_>>(), [trash.as_path()]);
    assert!(!trash.exists() && live.exists());
    // Killed between moving the old graph aside and moving the new one in: both are kept.
    let dead = dead_pid();
    let new = tmp.path().join(format!(".k.tmp-{dead}-5"));
    let old = tmp.path().join(format!(".k.tmp-{dead}-5.old"));
    std::fs::create_dir(&new).unwrap();
    std::fs::create_dir(&old).unwrap();
    assert!(ocgraph_core::format::remove_stale_temp_dirs(&tmp.path().join("k")).unwrap().is_empty());
    assert!(new.exists() && old.exists());
}

/// Imports `bytes` (as file `name`) and returns the report.
fn imports(name: &str, bytes: &[u8], opts: &ImportOptions) -> ocgraph_core::ingest::BuildReport {
    let tmp = scratch();
    let input = tmp.path().join(name);
    std::fs::write(&input, bytes).unwrap();
    import(&input, &tmp.path().join("g"), opts, &NoProgress).unwrap()
}

#[test]
fn mtx_without_banner_is_read_as_matrix_market_and_reported() {
    // A size line, then 1-based pairs: 3 vertices and 2 edges (not 4 vertices, 3 edges).
    let r = imports("bare.mtx", b"% no banner\n3 3 2\n1 2\n3 1\n", &opts());
    assert_eq!((r.num_vertices, r.num_edges), (3, 2));
    assert_eq!(r.notices.len(), 1, "{:?}", r.notices);
    assert!(r.notices[0].contains("bare.mtx: no '%%MatrixMarket' banner") && r.notices[0].contains("line 2"));
    // Values in a third column: read as weights with --weighted, else ignored and said so.
    let w = ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() };
    let r = imports("barew.mtx", b"2 2 1\n1 2 0.5\n", &w);
    assert_eq!(r.notices.len(), 1, "{:?}", r.notices);
    let r = imports("barev.mtx", b"2 2 1\n1 2 0.5\n", &opts());
    assert!(r.notices.iter().any(|n| n.contains("values were ignored")), "{:?}", r.notices);
    // A 'pattern' entry with a value: read as the edge, the value reported once, at its line.
    let pattern = b"%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3 7\n3 1 9\n";
    let r = imports("pat.mtx", pattern, &opts());
    assert_eq!((r.num_vertices, r.num_edges), (3, 3));
    assert_eq!(r.notices.len(), 1, "{:?}", r.notices);
    assert!(r.notices[0].contains("pat.mtx:4: more than 2 columns in a 'pattern'"), "{:?}", r.notices);
    // A size line's numbers are counts, not vertex ids.
    let m = fails(
        "neg.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 -3 1\n1 2\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(m.contains("neg.mtx:2:") && m.contains("its columns '-3' is not a count"), "{m}");
    // A plain edge list named .mtx: refused at line 1, not guessed.
    let m = fails("pairs.mtx", b"1 2\n2 3\n", &opts(), ErrorKind::Input);
    assert!(m.contains("pairs.mtx:1:") && m.contains("no '%%MatrixMarket' banner"), "{m}");
    // The entry count of a bare size line is checked as with a banner.
    let m = fails("short.mtx", b"3 3 5\n1 2\n", &opts(), ErrorKind::Input);
    assert!(m.contains("declares 5 entries"), "{m}");
}

#[test]
fn csv_header_is_reported_and_a_headerless_csv_keeps_its_first_row() {
    let r = imports("plain.csv", b"0,1\n1,2\n", &opts());
    assert_eq!(r.num_edges, 2, "the first row is an edge, not a header");
    assert!(r.notices.is_empty(), "{:?}", r.notices);
    let r = imports("named.csv", b"# c\nsrc,dst\n0,1\n", &opts());
    assert_eq!(r.num_edges, 1);
    assert_eq!(r.notices.len(), 1, "{:?}", r.notices);
    assert!(r.notices[0].ends_with("named.csv:2: taken as the CSV header: 'src,dst'"), "{:?}", r.notices);
    // A file of one row without a comma: that row is the header, and "no edges" says so.
    let m = fails("one.csv", b"0 1\n", &opts(), ErrorKind::Input);
    assert!(
        m.contains("one.csv: no edges (") && m.contains("one.csv:1: taken as the CSV header: '0 1'"),
        "{m}"
    );
}

#[test]
fn extra_columns_of_an_unweighted_import_are_reported() {
    let r = imports("w.txt", b"0 1 0.5\n1 2 0.25\n", &opts());
    assert_eq!(r.num_edges, 2);
    assert_eq!(r.notices.len(), 1, "{:?}", r.notices);
    assert!(
        r.notices[0].contains("w.txt:1: 3 columns") && r.notices[0].contains("--weighted"),
        "{:?}",
        r.notices
    );
    let mut b = Vec::new();
    for x in [0u32, 1] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    b.extend_from_slice(&0.5f32.to_le_bytes());
    let r = imports("e.u32w", &b, &opts());
    assert!(r.notices.iter().any(|n| n.contains("weights of the records were ignored")), "{:?}", r.notices);
    assert!(imports("two.txt", b"0 1\n", &opts()).notices.is_empty());
    // Extra columns first met on a later line are reported there (they were dropped silently),
    // once, in text and CSV files, with integer and string ids.
    for (name, bytes, at) in [
        ("later.txt", &b"0 1\n1 2\n# c\n2 3 3.5\n3 4 9\n"[..], 4),
        ("later.csv", b"src,dst\n0,1\n1,2,3.5\n", 3),
        ("names.txt", b"a b\nb c x\n", 2),
    ] {
        let r = imports(name, bytes, &opts());
        let wide: Vec<_> = r.notices.iter().filter(|n| n.contains("columns")).collect();
        assert_eq!(wide.len(), 1, "{:?}", r.notices);
        assert!(wide[0].contains(&format!("{name}:{at}: more than 2 columns")), "{:?}", r.notices);
    }
    // The columns an unweighted import ignores are not parsed: a bad quote there is no error.
    let r = imports("quote.csv", b"src,dst,comment\n0,1,ok\n1,2,\"unclosed\n", &opts());
    assert_eq!(r.num_edges, 2, "{:?}", r.notices);
    // Weighted, a column past the weight is reported too, wherever first met (`3,5` is a
    // decimal comma among integer weights); with the columns named, the others are expected.
    let w = ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() };
    let r = imports("w2.txt", b"0 1 1\n1 2 3,5\n", &w);
    assert!(
        r.notices.len() == 1 && r.notices[0].contains("w2.txt:2: more than 3 columns"),
        "{:?}",
        r.notices
    );
    let named = ImportOptions { columns: Columns { weight: Some("w".into()), ..Columns::default() }, ..w };
    assert!(imports("w3.csv", b"src,dst,w,t\n0,1,1,5\n", &named).notices.is_empty());
}

#[test]
fn a_header_line_in_a_text_edge_list_is_refused() {
    // Before: 'src' and 'dst' became two more vertices and every id a string.
    let m = fails("h.txt", b"# made by hand\nsrc dst\n0 1\n1 2\n", &opts(), ErrorKind::Input);
    assert!(m.contains("h.txt:2:") && m.contains("'src dst' looks like a header"), "{m}");
    // The line is quoted as written, separators and all.
    let m = fails("c.txt", b"src,dst\r\n0,1\r\n1,2\r\n", &opts(), ErrorKind::Input);
    assert!(m.contains("c.txt:1:") && m.contains("'src,dst' looks like a header"), "{m}");
    // String ids throughout are fine.
    assert_eq!(imports("s.txt", b"a b\nb c\n", &opts()).num_vertices, 3);
    // A first line with one string id above integer lines is an edge, and makes every id a
    // string (the remedy the error for a later string id gives).
    assert!(fails("late.txt", b"0 1\n1 x\n2 3\n", &opts(), ErrorKind::Input).contains("late.txt:2:"));
    assert_eq!(imports("first.txt", b"1 x\n0 1\n2 3\n", &opts()).num_vertices, 5);
}

#[test]
fn non_utf8_string_ids_are_refused_with_their_line() {
    let m = fails("s.txt", b"alice bob\ncarol \xff\xfeve\n", &opts(), ErrorKind::Input);
    assert!(m.contains("s.txt:2:") && m.contains("not valid UTF-8") && m.contains("\\xff"), "{m}");
    let m = fails("s.csv", b"src,dst\nalice,bob\nbob,\xc3\n", &opts(), ErrorKind::Input);
    assert!(m.contains("s.csv:3:") && m.contains("not valid UTF-8"), "{m}");
}

/// `pairs` as a little-endian u32 binary edge list.
fn bin32(pairs: &[(u32, u32)]) -> Vec<u8> {
    pairs.iter().flat_map(|&(u, v)| [u.to_le_bytes(), v.to_le_bytes()]).flatten().collect()
}

#[test]
fn sparse_ids_stop_the_import_before_it_writes_the_offsets() {
    // 376 bytes: 47 random u32 pairs whose largest id is 4,271,813,805 (68 GB of offsets).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut pairs: Vec<(u32, u32)> = (0..46)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 32) as u32 % 4_000_000_000, x as u32 % 4_000_000_000)
        })
        .collect();
    pairs.push((4_271_813_805, 7));
    let bytes = bin32(&pairs);
    assert_eq!(bytes.len(), 376);
    let m = fails("random.bin", &bytes, &opts(), ErrorKind::Input);
    for needle in [
        "largest vertex id is 4271813805",
        "47 edges",
        "--relabel",
        "--allow-sparse-ids",
        "--num-vertices",
        "GiB of offsets",
    ] {
        assert!(m.contains(needle), "lacks '{needle}': {m}");
    }
    // Relabelled, the same file is a graph of at most 94 vertices.
    let r = imports("random.bin", &bytes, &ImportOptions { relabel: Relabel::FirstSeen, ..opts() });
    assert!(r.num_vertices <= 94 && r.num_edges == 47);
    // A MatrixMarket size line counts as the largest id.
    let m = fails(
        "big.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n900000000 900000000 1\n1 2\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(m.contains("largest vertex id is 899999999"), "{m}");
    // Below the rule (64 MiB of offsets) ids are kept as they are.
    assert_eq!(imports("ok.bin", &bin32(&[(0, 4_000_000)]), &opts()).num_vertices, 4_000_001);
}

#[test]
fn sparse_ids_are_kept_when_asked() {
    let bytes = bin32(&[(0, 5_000_000), (1, 2)]);
    let allow = ImportOptions { allow_sparse_ids: true, ..opts() };
    fails("sparse.bin", &bytes, &opts(), ErrorKind::Input);
    assert_eq!(imports("sparse.bin", &bytes, &allow).num_vertices, 5_000_001);
    let given = ImportOptions { num_vertices: Some(6_000_000), ..opts() };
    assert_eq!(imports("sparse.bin", &bytes, &given).num_vertices, 6_000_000);
    // Ids must be below the vertex count given, named by line or offset.
    let five = ImportOptions { num_vertices: Some(5), ..opts() };
    let m = fails("n.txt", b"0 1\n3 9\n", &five, ErrorKind::Input);
    assert!(m.contains("n.txt:2:") && m.contains("not below the 5 vertices"), "{m}");
    let m = fails("n.bin", &bin32(&[(0, 1), (2, 5)]), &five, ErrorKind::Input);
    assert!(m.contains("at byte 8") && m.contains("not below the 5 vertices"), "{m}");
    assert_eq!(imports("n2.txt", b"0 1\n", &five).num_vertices, 5);
}

/// CSV columns that would be read wrong are refused naming the header line: a source and a
/// target that are one column (a named source beside the default second column).
#[test]
fn csv_columns_that_cannot_be_read_as_named() {
    use ocgraph_core::ingest::Columns;
    let one = Columns { source: Some("src".into()), ..Columns::default() };
    let msg = fails("same.csv", b"a,src\n1,2\n", &ImportOptions { columns: one, ..opts() }, ErrorKind::Input);
    assert!(msg.contains("same.csv:1:") && msg.contains("the same column 'src'"), "{msg}");
    assert!(msg.contains("the target, not named, defaults to column 2"), "{msg}");
}

/// A line ended by a bare CR is refused wherever it is, not only in the first block read
/// (after it, the lines it ended merged into one and their edges were lost).
#[test]
fn a_bare_carriage_return_past_the_first_block_is_refused() {
    let mut bytes = b"0 1\n".to_vec();
    let comment = format!("#{}\n", "x".repeat(1 << 20));
    for _ in 0..17 {
        bytes.extend_from_slice(comment.as_bytes());
    }
    bytes.extend_from_slice(b"2 3\r4 5\n");
    let msg = fails("late.txt", &bytes, &opts(), ErrorKind::Input);
    assert!(msg.contains("late.txt:19:") && msg.contains("carriage return"), "{msg}");
}

/// `--num-vertices` with string ids is refused: it was ignored when smaller than the count of
/// names and failed with an internal-sounding id-map error when larger.
#[test]
fn num_vertices_with_string_ids_is_refused() {
    for n in [2, 10] {
        let o = ImportOptions { num_vertices: Some(n), ..opts() };
        let msg = fails("names.txt", b"a b\nb c\n", &o, ErrorKind::InvalidArgument);
        assert!(msg.contains("--num-vertices applies to integer ids"), "{msg}");
    }
}

/// A weight column that is also the source or target column is refused (a CSV's second column
/// named `weight` was read as the target and the weight both), as is a NUL byte in a text file (a binary file
/// read as text gave vertices named by its bytes) and a Parquet file without its extension.
#[test]
fn inputs_that_would_read_as_another_graph_are_refused() {
    let weighted =
        ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() };
    let msg = fails("swd.csv", b"a,weight,b\n0,5,1\n1,7,2\n", &weighted, ErrorKind::Input);
    assert!(msg.contains("swd.csv:1:") && msg.contains("also the target column"), "{msg}");
    let msg = fails("wf.csv", b"w,a,b\n0.5,0,1\n", &weighted, ErrorKind::Input);
    assert!(msg.contains("wf.csv:1:") && msg.contains("also the source column"), "{msg}");
    // Columns named as the source and target are read by name, wherever the weight is.
    let r = imports("swd.csv", b"src,weight,dst\n0,5,1\n1,7,2\n", &weighted);
    assert_eq!((r.num_vertices, r.num_edges), (3, 2));
    let msg = fails("nul.txt", b"0 1\n1 2\n2 \x003\n", &opts(), ErrorKind::Input);
    assert!(msg.contains("nul.txt:3:") && msg.contains("NUL byte"), "{msg}");
    let msg = fails("part-0000", b"PAR1\x15\x04\x15\x00 body PAR1", &opts(), ErrorKind::Input);
    assert!(msg.contains("a Parquet file"), "{msg}");
    // Text starting with the letters PAR1 (a vertex named so) is still text.
    assert_eq!(imports("par.txt", b"PAR1 PAR2\nPAR2 x\n", &opts()).num_vertices, 3);
}

/// MatrixMarket headers that scipy refuses are refused: a size line of four numbers, a banner
/// word longer than `%%MatrixMarket`; a vertex count below the size line's is refused (it
/// shrank the graph).
#[test]
fn matrix_market_headers_that_do_not_parse_are_refused() {
    let general = "%%MatrixMarket matrix coordinate pattern general\n";
    let msg = fails("four.mtx", format!("{general}3 3 1 9\n1 2\n").as_bytes(), &opts(), ErrorKind::Input);
    assert!(msg.contains("four.mtx:2:") && msg.contains("found more numbers"), "{msg}");
    let msg = fails(
        "x.mtx",
        b"%%MatrixMarketX matrix coordinate pattern general\n3 3 1\n1 2\n",
        &opts(),
        ErrorKind::Input,
    );
    assert!(msg.contains("x.mtx:1:") && msg.contains("unsupported MatrixMarket banner"), "{msg}");
    let small = ImportOptions { num_vertices: Some(2), ..opts() };
    let msg = fails("n.mtx", format!("{general}3 3 1\n1 2\n").as_bytes(), &small, ErrorKind::Input);
    assert!(
        msg.contains("n.mtx:2:") && msg.contains("declares 3 vertices, more than --num-vertices 2"),
        "{msg}"
    );
    // An `integer` field holds integers (a weighted import read 2.5 from one).
    let weighted =
        ImportOptions { build: BuildOptions { weighted: true, ..BuildOptions::default() }, ..opts() };
    let integer = "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 -3\n";
    let msg = fails("i.mtx", format!("{integer}2 3 2.5\n").as_bytes(), &weighted, ErrorKind::Input);
    assert!(msg.contains("i.mtx:4:") && msg.contains("'2.5' is not an integer"), "{msg}");
    assert_eq!(imports("i.mtx", format!("{integer}2 3 +7\n").as_bytes(), &weighted).num_edges, 2);
    let large = ImportOptions { num_vertices: Some(5), ..opts() };
    assert_eq!(imports("n.mtx", format!("{general}3 3 1\n1 2\n").as_bytes(), &large).num_vertices, 5);
}
