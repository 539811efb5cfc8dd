//! `arbor`: the command-line front end of the Arbor coding agent.
//!
//! Exit status: 0 on success, 1 when the provider or the setup fails (one clear line on stderr),
//! 2 for usage errors, 130 when interrupted.

mod args;
mod config;
mod models;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("arbor: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(dir) = &cli.cwd {
        std::env::set_current_dir(dir)
            .map_err(|error| anyhow::anyhow!("cannot work in {}: {error}", dir.display()))?;
    }
    let data_dir = config::data_dir(cli.data_dir.as_deref())?;
    match cli.command {
        Some(Command::Models { provider }) => {
            let catalog = config::load_catalog(&data_dir)?;
            models::print(&catalog, provider.as_deref(), &mut std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        None => usage(
            "interactive mode is not built yet: pass -p with a prompt, for example `arbor -p \"hello\"`",
        ),
    }
}

fn usage(message: &str) -> anyhow::Result<ExitCode> {
    eprintln!("arbor: {message}");
    Ok(ExitCode::from(2))
}
