//! `arbor auth`: provider keys (and the GitHub token) in the OS keychain, through the session
//! API's key calls. A key is read from standard input or a prompt that does not echo it — never
//! from an argument, which other users can read in the process list and shells keep in history.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use arbor_app::{check_key, ArborApp, ProviderKeyStatus};

use crate::args::AuthAction;

pub fn run(data_dir: &Path, action: &AuthAction) -> anyhow::Result<ExitCode> {
    let app = ArborApp::open(Some(data_dir))?;
    let mut out = std::io::stdout().lock();
    match action {
        AuthAction::Set { provider, run_only } => {
            let value = read_key(provider)?;
            app.set_key(provider, &value, *run_only)?;
            writeln!(out, "{provider}: key kept in the OS keychain")?;
        }
        AuthAction::List { json } => {
            let list = app.key_statuses();
            if *json {
                serde_json::to_writer_pretty(&mut out, &list)?;
                writeln!(out)?;
            } else {
                let width = list
                    .providers
                    .iter()
                    .map(|p| p.provider.len())
                    .max()
                    .unwrap_or(6);
                for status in list.providers.iter().chain([&list.github]) {
                    writeln!(out, "{:width$}  {}", status.provider, describe(status))?;
                }
            }
            if let Some(problem) = &list.keychain_error {
                eprintln!("arbor: {}", problem.message);
            }
        }
        AuthAction::Remove { provider } => {
            if app.remove_key(provider)? {
                writeln!(out, "{provider}: key removed from the OS keychain")?;
            } else {
                writeln!(out, "{provider}: the keychain had no key for it")?;
            }
        }
        AuthAction::Test { provider } => {
            let selection = app.key_check_selection(provider)?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let check = runtime.block_on(check_key(&selection));
            if check.ok {
                writeln!(out, "{provider}: the key works ({})", check.model)?;
            } else {
                let class = check.error_class.as_deref().unwrap_or("error");
                let message = check.message.as_deref().unwrap_or("");
                eprintln!(
                    "arbor: {provider}: the key does not work ({class}, {}): {message}",
                    check.model
                );
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The key from standard input (piped), or from a prompt that does not echo it.
fn read_key(provider: &str) -> anyhow::Result<String> {
    let value = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("{provider} key (input is hidden): "))
            .context("cannot read the key from the terminal")?
    } else {
        let mut value = String::new();
        std::io::stdin()
            .read_to_string(&mut value)
            .context("cannot read the key from standard input")?;
        value
    };
    if value.trim().is_empty() {
        anyhow::bail!(
            "no key given: pipe it in (`printf %s \"$KEY\" | arbor auth set {provider}`) or type \
             it at the prompt"
        );
    }
    Ok(value)
}

/// `env (OPENAI_API_KEY)`, `keychain`, `none (set ANTHROPIC_API_KEY or arbor auth set …)`, …
fn describe(status: &ProviderKeyStatus) -> String {
    match status.source {
        "env" => format!("env ({})", status.variable.as_deref().unwrap_or("?")),
        "keychain" if status.run_only => "this run only".to_owned(),
        "keychain" => "keychain".to_owned(),
        "none" => match &status.variable {
            Some(variable) => format!(
                "none (set {variable} or run `arbor auth set {}`)",
                status.provider
            ),
            None => "none".to_owned(),
        },
        _ => "not needed".to_owned(),
    }
}
