//! `arbor`: the command-line front end of the Arbor coding agent.
//!
//! Exit status: 0 on success, 1 when the provider or the setup fails (one clear line on stderr),
//! 2 for usage errors, 130 when interrupted.

mod args;
mod config;
mod models;
mod print_mode;
mod selection;

use std::process::ExitCode;

use std::io::{IsTerminal, Read};

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
        None if cli.print => {
            let mut prompts = cli.prompts;
            let mut stdin = std::io::stdin();
            if !stdin.is_terminal() {
                // Piped input is the first prompt (`git diff | arbor -p "review this"`).
                let mut piped = String::new();
                stdin
                    .read_to_string(&mut piped)
                    .map_err(|error| anyhow::anyhow!("cannot read standard input: {error}"))?;
                // Joined with the first argument into one message, so `… | arbor -p "review
                // this"` is one request that shows the model both, not two turns.
                if !piped.trim().is_empty() {
                    match prompts.first_mut() {
                        Some(first) => *first = format!("{}\n\n{first}", piped.trim_end()),
                        None => prompts.push(piped),
                    }
                }
            }
            if prompts.is_empty() {
                return usage("-p needs a prompt: arbor -p \"your question\" (or pipe text in)");
            }
            let catalog = config::load_catalog(&data_dir)?;
            let selection =
                match selection::select(&catalog, &cli.model, |name| std::env::var(name).ok()) {
                    Ok(selection) => selection,
                    // A provider or model that does not exist is a mistake on the command line.
                    Err(selection::SelectionError::Catalog(error)) => {
                        return usage(&error.to_string())
                    }
                    Err(error) => return Err(error.into()),
                };
            // An ad-hoc endpoint (`--api` + `--base-url`) is uncatalogued by design: no note.
            if !selection.catalogued && selection.model.provider != "custom" {
                eprintln!(
                    "arbor: note: {}/{} is not in the catalogue; its limits are guessed and its cost is not counted",
                    selection.model.provider, selection.model.id
                );
            }
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            runtime.block_on(print_mode::run(print_mode::PrintRun {
                selection,
                thinking: cli.model.thinking,
                prompts,
            }))
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
