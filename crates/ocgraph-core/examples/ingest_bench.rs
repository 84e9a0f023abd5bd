//! Import throughput benchmark.
//!
//! `ingest_bench gen SCALE DIR` writes an R-MAT (Graph500 parameters, edge factor 16) edge list
//! as `DIR/kron.bin` (u32 pairs) and `DIR/kron.txt`.
//! `ingest_bench run INPUT OUT MEMORY` imports INPUT as an undirected graph with the memory
//! budget (e.g. 256MiB) and prints one CSV row: input,budget,edges,arcs,runs,seconds; phase
//! timings (wall and CPU) go to stderr. `ingest_bench.sh` runs the whole table.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ocgraph_core::ingest::{import, BuildOptions, ImportOptions, Progress, Unit};
use rand::{Rng, SeedableRng};

fn gen(scale: u32, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let m = 16u64 << scale;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(42);
    let mut bin =
        std::io::BufWriter::with_capacity(1 << 22, std::fs::File::create(dir.join("kron.bin")).unwrap());
    let mut txt =
        std::io::BufWriter::with_capacity(1 << 22, std::fs::File::create(dir.join("kron.txt")).unwrap());
    let (a, b, c) = (0.57, 0.19, 0.19);
    for _ in 0..m {
        let (mut u, mut v) = (0u32, 0u32);
        for bit in 0..scale {
            let r: f64 = rng.gen();
            let (du, dv) = if r < a {
                (0, 0)
            } else if r < a + b {
                (0, 1)
            } else if r < a + b + c {
                (1, 0)
            } else {
                (1, 1)
            };
            u |= du << bit;
            v |= dv << bit;
        }
        bin.write_all(&u.to_le_bytes()).unwrap();
        bin.write_all(&v.to_le_bytes()).unwrap();
        writeln!(txt, "{u}\t{v}").unwrap();
    }
}

/// Prints each phase with the wall and CPU time since the start (to stderr).
struct PhaseTimer(Instant);

fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|x| x.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    ticks / 100.0
}

impl Progress for PhaseTimer {
    fn phase(&self, name: &str, _total: Option<u64>, _unit: Unit) {
        eprintln!("  {:>8.2}s wall {:>8.2}s cpu: {name}", self.0.elapsed().as_secs_f64(), cpu_seconds());
    }
    fn advance(&self, _n: u64) {}
    fn finish(&self) {
        eprintln!("  {:>8.2}s wall {:>8.2}s cpu: done", self.0.elapsed().as_secs_f64(), cpu_seconds());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("gen") => gen(args[2].parse().unwrap(), Path::new(&args[3])),
        Some("run") => {
            let input = Path::new(&args[2]);
            let out = Path::new(&args[3]);
            let memory = ocgraph_core::size::parse_size(&args[4]).unwrap();
            let opts = ImportOptions {
                build: BuildOptions { directed: false, memory, overwrite: true, ..BuildOptions::default() },
                ..ImportOptions::default()
            };
            let t = Instant::now();
            let r = import(input, out, &opts, &PhaseTimer(t)).unwrap();
            let s = t.elapsed().as_secs_f64();
            println!(
                "{},{},{},{},{},{:.2}",
                input.file_name().unwrap_or_default().to_string_lossy(),
                args[4],
                r.num_edges,
                r.num_arcs,
                r.spilled_runs,
                s
            );
        }
        _ => eprintln!("usage: ingest_bench gen SCALE DIR | run INPUT OUT MEMORY"),
    }
}
