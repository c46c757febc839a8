use std::process::ExitCode;

use clap::Parser;

/// mimalloc gives freed memory back to the OS, so RSS falls again after a burst of streams.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    plaincall::cli::run(plaincall::cli::Cli::parse())
}
