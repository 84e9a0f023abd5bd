//! End-to-end tests of `ocgraph workload` and `ocgraph query`: workloads are deterministic,
//! answers are identical on mmap and a tiny pool with every prefetcher and 1 or 3 clients and
//! match the graph's neighbour lists, and bad workload files and options fail cleanly.

use std::path::Path;
use std::process::{Command, Output};

use ocgraph_core::{Adjacency, Graph, OpenOptions};

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

#[test]
fn answers_agree_across_backends_prefetchers_and_clients() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&["generate", "kronecker", p(&g), "--scale", "10", "--edge-factor", "8", "--seed", "2", "--quiet"]);
    let specs: [(&str, &[&str]); 3] = [
        ("edge-queries", &["--alpha", "0.5", "--queue", "200", "--count", "500"]),
        ("fof", &["--count", "40"]),
        ("shortest-path", &["--count", "10"]),
    ];
    for (kind, extra) in specs {
        let w = dir.path().join(format!("{kind}.bin"));
        let w2 = dir.path().join(format!("{kind}-again.bin"));
        ok(&[&["workload", kind, p(&g), "--seed", "5", "--out", p(&w)], extra].concat());
        ok(&[&["workload", kind, p(&g), "--seed", "5", "--out", p(&w2)], extra].concat());
        assert_eq!(std::fs::read(&w).unwrap(), std::fs::read(&w2).unwrap(), "{kind} is seeded");
        let mut reference: Option<String> = None;
        for backend in [&["--backend", "mmap"][..], &["--backend", "pool", "--memory", "24KiB"][..]] {
            for prefetch in ["none", "neighbourhood", "sequential", "omniscient"] {
                for clients in ["1", "3"] {
                    let a = dir.path().join("answers.txt");
                    let out = ok(&[
                        &["query", p(&g), "--workload", p(&w), "--prefetch", prefetch, "--clients", clients],
                        &["--answers", p(&a), "--json"][..],
                        backend,
                    ]
                    .concat());
                    let json: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
                    assert_eq!(json["prefetch"], prefetch);
                    assert!(json["io"]["backend"].is_string() && json["latency"]["p99_us"].is_number());
                    // VmHWM in bytes: a process with its binary and libraries mapped holds MiBs.
                    let rss = json["peak_rss_bytes"].as_u64().expect("peak_rss_bytes on Linux");
                    assert!((1 << 20..1 << 30).contains(&rss), "peak_rss_bytes {rss}");
                    let text = std::fs::read_to_string(&a).unwrap();
                    match &reference {
                        None => reference = Some(text),
                        Some(r) => assert_eq!(r, &text, "{kind} {backend:?} {prefetch} {clients}"),
                    }
                }
            }
        }
        // Edge-query answers are the neighbour lists.
        if kind == "edge-queries" {
            let graph = Graph::open(&g, &OpenOptions::default()).unwrap();
            let wl = ocgraph_core::query::Workload::load(&w).unwrap();
            let text = reference.unwrap();
            let mut lines = text.lines();
            assert_eq!(lines.next().unwrap(), "# ocgraph answers v1 kind=edge-queries count=500");
            for (i, line) in lines.enumerate() {
                let want: Vec<String> = std::iter::once(i.to_string())
                    .chain(graph.out().neighbors(wl.query(i)[0]).iter().map(|v| v.to_string()))
                    .collect();
                assert_eq!(line, want.join(" "));
            }
        }
    }
}

#[test]
fn bad_workloads_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    let small = dir.path().join("small");
    ok(&["generate", "kronecker", p(&g), "--scale", "8", "--quiet"]);
    ok(&["generate", "kronecker", p(&small), "--scale", "6", "--quiet"]);
    let w = dir.path().join("w.bin");
    ok(&["workload", "fof", p(&g), "--count", "5", "--out", p(&w)]);
    // A workload made for another graph.
    let out = ocgraph(&["query", p(&small), "--workload", p(&w)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let names = format!(
        "{}: the workload was generated for a graph of 256 vertices, the graph {} has 64",
        p(&w),
        p(&small)
    );
    assert!(err.contains(&names), "{err}");
    // A truncated file names the file and the offset.
    let bytes = std::fs::read(&w).unwrap();
    std::fs::write(&w, &bytes[..bytes.len() - 2]).unwrap();
    let out = ocgraph(&["query", p(&g), "--workload", p(&w)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("w.bin") && err.contains("do not match the file size"), "{err}");
    // Bad generator parameters.
    let out = ocgraph(&["workload", "edge-queries", p(&g), "--alpha", "2", "--out", p(&w)]);
    assert_eq!(out.status.code(), Some(2));
    // A lock reserve that is no share.
    ok(&["workload", "fof", p(&g), "--count", "5", "--out", p(&w)]);
    for bad in ["1", "-0.1", "x"] {
        let out = ocgraph(&["query", p(&g), "--workload", p(&w), &format!("--lock-reserve={bad}")]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not a share from 0 to 1"), "{bad}");
    }
    ok(&["query", p(&g), "--workload", p(&w), "--lock-reserve", "0"]);
    // Far too many clients: a usage error (the OS refused the threads: a panic or an abort).
    let out = ocgraph(&["query", p(&g), "--workload", p(&w), "--clients", "100000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 1024"));
    // A recent-vertex queue far longer than the workload is not allocated (it aborted).
    ok(&["workload", "edge-queries", p(&g), "--queue", "1000000000000", "--count", "5", "--out", p(&w)]);
    // More updates than any stream is made of: refused at once (it filled memory or the disk).
    let out = ocgraph(&["workload", "updates", p(&g), "--count", "4294967297", "--out", p(&w)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 4294967296 updates"));
    // A mix with NaN is refused (it panicked, or was read as 100/0).
    let u = dir.path().join("u.txt");
    for mix in ["nan/100", "100/nan", "NaN/NaN"] {
        let out = ocgraph(&["workload", "updates", p(&g), "--mix", mix, "--count", "5", "--out", p(&u)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mix}: {err}");
        assert!(err.contains("expected additions/removals percentages"), "{mix}: {err}");
    }
}
