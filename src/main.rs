use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    plaincall::cli::run(plaincall::cli::Cli::parse())
}
