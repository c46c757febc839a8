//! The `plaincall` binary: the command line parsed and handed to `plaincall::cli::run`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    plaincall::cli::run(plaincall::cli::Cli::parse())
}
