//! `ocgraph`: import, generate, inspect, verify and export out-of-core graphs.
//!
//! This file only parses the command line and dispatches; each subcommand lives in `cmd/`.

mod backend_args;
mod cmd;
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
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".into());
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            // The reader of our output went away (`ocgraph info G | head -2`): stop quietly,
            // with the status of a process a SIGPIPE ended, as other command-line tools do.
            std::process::exit(141);
        }
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            // A report line that standard output refused (a full disk): the error it is, named
            // as the other outputs name theirs, not an internal one.
            say(&format!("error: <stdout>: write failed: {why}"));
            return;
        }
        say(&format!("error: internal error: {msg}"));
    }));
    // A failed page read of the buffer pool comes back as an error naming the file and offset.
    let run = || ocgraph_core::page::catch_read_errors(|| cmd::run(cli.command)).and_then(|r| r);
    match std::panic::catch_unwind(run) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(ocgraph_core::Error::Io { source, .. }))
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            // The reader of a pipe we write went away (`ocgraph export G /dev/stdout | head`):
            // as above.
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
