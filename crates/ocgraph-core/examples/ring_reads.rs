//! What a random 4 KiB direct read costs when reads are submitted one by one (`pread`) or in
//! batches through io_uring: reads per second and the kernel CPU per read.
//!
//! Usage: `cargo run --release -p ocgraph-core --example ring_reads -- FILE [READS] [ROUNDS]`
//! (FILE: at least a few hundred MB, so that reads miss the device's cache; READS per run,
//! default 60000; ROUNDS, default 2). Each round runs `pread` then batches of 1, 2, 4, 16 and 32
//! reads (each batch submitted with one `io_uring_enter` and waited for whole). Prints a table
//! and CSV rows `round,batch,reads,reads_per_s,sys_us_per_read,user_us_per_read` (batch 0 =
//! `pread`); compare rows of one round, the disk of a VM varies between minutes.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;

use io_uring::{opcode, types, IoUring};

const PAGE: usize = 4096;

/// (user, system) CPU seconds of this process.
fn cpu() -> (f64, f64) {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let r = unsafe {
        let mut r: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut r);
        r
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (secs(r.ru_utime), secs(r.ru_stime))
}

/// A page-aligned buffer of `pages` pages.
struct Aligned(Vec<u8>, usize);

impl Aligned {
    fn new(pages: usize) -> Aligned {
        let v = vec![0u8; (pages + 1) * PAGE];
        let skip = v.as_ptr().align_offset(PAGE);
        Aligned(v, skip)
    }

    fn page(&mut self, i: usize) -> *mut u8 {
        self.0[self.1 + i * PAGE..].as_mut_ptr()
    }
}

/// Reads `n` random pages of `file` (`pages` pages long), `batch` at a time (0: `pread`).
fn run(file: &std::fs::File, pages: u64, n: usize, batch: usize, seed: u64) -> std::io::Result<()> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % pages) * PAGE as u64
    };
    let mut buf = Aligned::new(batch.max(1));
    let fd = file.as_raw_fd();
    if batch == 0 {
        for _ in 0..n {
            // SAFETY: the buffer holds one aligned page, valid for writes during the call.
            let r = unsafe { libc::pread(fd, buf.page(0) as *mut libc::c_void, PAGE, next() as libc::off_t) };
            if r != PAGE as isize {
                return Err(std::io::Error::last_os_error());
            }
        }
        return Ok(());
    }
    let mut ring = IoUring::new(64)?;
    let mut done = 0;
    while done < n {
        let k = batch.min(n - done);
        for i in 0..k {
            let e = opcode::Read::new(types::Fd(fd), buf.page(i), PAGE as u32).offset(next()).build();
            // SAFETY: page `i` of the buffer is written by this read only, and the buffer
            // outlives it (the batch is waited for below).
            unsafe { ring.submission().push(&e) }.expect("the ring has room for a batch");
        }
        ring.submit_and_wait(k)?;
        for c in ring.completion() {
            if c.result() != PAGE as i32 {
                return Err(std::io::Error::other(format!("read returned {}", c.result())));
            }
        }
        done += k;
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: ring_reads FILE [READS] [ROUNDS]");
        std::process::exit(2);
    };
    let n: usize = args.get(2).map_or(Ok(60_000), |s| s.parse()).expect("READS is a number");
    let rounds: usize = args.get(3).map_or(Ok(2), |s| s.parse()).expect("ROUNDS is a number");
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path)?;
    let pages = file.metadata()?.len() / PAGE as u64;
    println!(
        "{:>5} {:>6} {:>8} {:>11} {:>14} {:>15}",
        "round", "batch", "reads", "reads/s", "sys us/read", "user us/read"
    );
    let mut csv = String::from("round,batch,reads,reads_per_s,sys_us_per_read,user_us_per_read\n");
    for round in 1..=rounds {
        for batch in [0, 1, 2, 4, 16, 32] {
            let (u0, s0) = cpu();
            let t = std::time::Instant::now();
            run(&file, pages, n, batch, 0x9E37_79B9_7F4A_7C15 ^ (round * 64 + batch) as u64)?;
            let secs = t.elapsed().as_secs_f64();
            let (u1, s1) = cpu();
            let row = (n as f64 / secs, (s1 - s0) * 1e6 / n as f64, (u1 - u0) * 1e6 / n as f64);
            println!("{round:>5} {batch:>6} {n:>8} {:>11.0} {:>14.2} {:>15.2}", row.0, row.1, row.2);
            csv += &format!("{round},{batch},{n},{:.0},{:.2},{:.2}\n", row.0, row.1, row.2);
        }
    }
    print!("\nCSV:\n{csv}");
    Ok(())
}
