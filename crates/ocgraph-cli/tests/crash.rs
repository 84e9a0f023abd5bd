//! SIGKILL at random moments during `import`, `reorder` and `pack`: afterwards the output either
//! does not exist or is a whole graph that `ocgraph check` passes and that equals the one an
//! uninterrupted run makes; a new run into the same place then succeeds. 12 trials by default,
//! 300 with `OCGRAPH_SLOW=1`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use ocgraph_core::{Adjacency, Graph, OpenOptions};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ocgraph"))
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn run_ok(args: &[&str]) {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "ocgraph {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Every vertex's out-list, for comparing two graphs.
fn lists(dir: &Path) -> Vec<Vec<u32>> {
    let g = Graph::open(dir, &OpenOptions::default()).unwrap();
    (0..g.num_vertices() as u32).map(|v| g.out().neighbors(v).to_vec()).collect()
}

#[test]
fn interrupted_import_reorder_and_pack_leave_no_half_graph() {
    let slow = std::env::var("OCGRAPH_SLOW").is_ok_and(|v| v == "1");
    let trials = if slow { 300 } else { 12 };
    let t = tempfile::tempdir().unwrap();
    let (base, text) = (t.path().join("k"), t.path().join("k.txt"));
    run_ok(&[
        "generate",
        "kronecker",
        "--scale",
        "15",
        "--edge-factor",
        "8",
        "--seed",
        "3",
        "--quiet",
        p(&base),
    ]);
    run_ok(&["export", p(&base), p(&text)]);
    // What uninterrupted runs make.
    let refs = t.path().join("refs");
    std::fs::create_dir(&refs).unwrap();
    let jobs: [(&str, Vec<String>); 3] = [
        ("import", vec!["import".into(), p(&text).into(), "--memory".into(), "4MiB".into()]),
        ("reorder", vec!["reorder".into(), p(&base).into()]),
        ("pack", vec!["pack".into(), p(&base).into()]),
    ];
    for (name, args) in &jobs {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = refs.join(name);
        a.extend([p(&out), "--quiet"]);
        run_ok(&a);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let (mut whole, mut none) = (0, 0);
    for trial in 0..trials {
        let (name, args) = &jobs[trial % 3];
        let out = t.path().join(format!("out-{name}"));
        if out.exists() {
            std::fs::remove_dir_all(&out).unwrap();
        }
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend([p(&out), "--quiet"]);
        let mut child = bin().args(&a).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(rng.gen_range(0..150_000)));
        let _ = child.kill(); // SIGKILL (a no-op when it already finished)
        child.wait().unwrap();
        if out.exists() {
            let check = bin().args(["check", p(&out)]).output().unwrap();
            assert!(
                check.status.success(),
                "{name} trial {trial}: an interrupted run left a graph that fails check: {}",
                String::from_utf8_lossy(&check.stdout)
            );
            assert_eq!(lists(&out), lists(&refs.join(name)), "{name} trial {trial}: not the whole graph");
            whole += 1;
        } else {
            none += 1;
        }
        // The next run into the same place succeeds (stale temporary directories are no obstacle).
        if trial % 6 == 5 {
            if out.exists() {
                std::fs::remove_dir_all(&out).unwrap();
            }
            run_ok(&a);
            assert_eq!(lists(&out), lists(&refs.join(name)));
        }
    }
    eprintln!("{trials} trials: {whole} left the whole graph, {none} left none");
}
