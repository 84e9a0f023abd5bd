//! `ocgraph`: import, generate, inspect, verify and export out-of-core graphs.
//!
//! This file only parses the command line and dispatches; each subcommand lives in `cmd/`.

mod backend_args;
mod cmd;
mod float_text;
mod panic_report;
mod progress;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use ocgraph_core::error::ErrorKind;

/// ocgraph: graphs larger than memory on one machine.
#[derive(Parser)]
#[command(name = "ocgraph", version, about)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

/// Run before Rust's runtime replaces a closed standard output by `/dev/null`, so that a
/// command writing its data to `-` under `>&-` fails instead of losing it.
#[used]
#[link_section = ".init_array"]
static NOTE_CLOSED_STDOUT: extern "C" fn() = ocgraph_core::process::note_closed_stdout;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help, the version, or a usage error. Printing them can fail too (standard output on
        // a full disk): that is an error, not a success with nothing written.
        Err(e) => {
            let code = ExitCode::from(e.exit_code().clamp(0, 255) as u8);
            return match e.print() {
                Ok(()) => code,
                // A usage error that standard error refused keeps its status.
                Err(_) if e.use_stderr() => code,
                // The reader went away (`ocgraph --help | head -1`): as for every output.
                Err(w) if w.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
                Err(w) => {
                    say(&format!("error: <stdout>: write failed: {w}"));
                    ExitCode::from(1)
                }
            };
        }
    };
    panic_report::install();
    ocgraph_core::process::report_oversized_writes();
    // A failed page read of the buffer pool comes back as an error naming the file and offset.
    let run = || ocgraph_core::page::catch_read_errors(|| cmd::run(cli.command)).and_then(|r| r);
    let outcome = std::panic::catch_unwind(run);
    // A panic's message, printed before the error it led to (if any).
    if let Some(msg) = panic_report::take() {
        say(&format!("error: internal error: {msg}"));
    }
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(ocgraph_core::Error::Io { source, .. }))
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            // The reader of a pipe we write went away (`ocgraph export G /dev/stdout | head`):
            // as the panic hook does.
            ExitCode::from(141)
        }
        Ok(Err(e)) => {
            say(&format!("error: {e}"));
            match e.kind() {
                ErrorKind::InvalidArgument => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
        Err(_) => ExitCode::from(1),
    }
}

/// Writes `line` to standard error, and nothing when standard error refuses it (a closed pipe:
/// `eprintln!` would panic, and again in the panic hook).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}
