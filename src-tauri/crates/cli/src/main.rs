//! `arbor`: the command-line front end of the Arbor coding agent.
//!
//! Modes: interactive (no prompt, on a terminal), print (`-p`, or prompts given), `--mode json`
//! and `--mode rpc`. Exit status: 0 on success, 1 when the provider or the setup fails (one clear
//! line on stderr), 2 for usage errors, 130 when interrupted.

mod args;
mod auth;
mod clone;
mod code;
mod config;
mod doctor;
mod elicitation;
mod interactive;
mod interactive_tree;
mod json_mode;
mod jsonl;
mod mcp;
mod mcp_serve;
mod mcp_serve_resources;
mod models;
mod permissions;
mod print_mode;
mod render;
mod rpc_mode;
mod selection;
mod session;
mod stored;
mod tools;
mod transfer;
mod worktrees;

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

use arbor_app::{ProviderKeys, Settings, SettingsFile};

use clap::Parser;

use args::{Cli, Command, Mode};

fn main() -> ExitCode {
    // Started as the sandbox's helper: set the restrictions and become the command.
    arbor_app::run_sandbox_helper_if_requested();
    // No tool process may read this process's memory or environment (`/proc/<pid>/environ`
    // holds the provider's key when it came from a variable).
    arbor_app::protect_this_process();
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
    // Before `-C`: a relative `--data-dir` means relative to where arbor was started.
    let data_dir = config::data_dir(cli.data_dir.as_deref())?;
    // What a killed `arbor clone` left beside its destination goes at the next start.
    arbor_app::cloning::clean_clone_leftovers_at_start(&data_dir);
    if let Some(dir) = &cli.cwd {
        std::env::set_current_dir(dir)
            .map_err(|error| anyhow::anyhow!("cannot work in {}: {error}", dir.display()))?;
    }
    if let Some(Command::Models { provider }) = &cli.command {
        let catalog = config::load_catalog(&data_dir)?;
        models::print(&catalog, provider.as_deref(), &mut std::io::stdout().lock())?;
        return Ok(ExitCode::SUCCESS);
    }
    match &cli.command {
        Some(Command::Sessions { json, all }) => {
            let cwd = std::env::current_dir()?;
            stored::list(&data_dir, &cwd, *json, *all, &mut std::io::stdout().lock())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Tree { id, json }) => {
            stored::tree(&data_dir, id, *json, &mut std::io::stdout().lock())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Export {
            id,
            format,
            scope,
            output,
        }) => {
            transfer::export(&data_dir, id, *format, *scope, output.as_deref())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Import { file }) => {
            let cwd = std::env::current_dir()?;
            transfer::import(&data_dir, file, &cwd, &mut std::io::stdout().lock())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Diff { from, to, stat }) => {
            let cwd = std::env::current_dir()?;
            code::diff(
                &data_dir,
                &cwd,
                from,
                to,
                *stat,
                &mut std::io::stdout().lock(),
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Restore { node, undo, yes }) => {
            let cwd = std::env::current_dir()?;
            let target = match (node, undo) {
                (Some(node), false) => code::RestoreTarget::Node(node),
                _ => code::RestoreTarget::Undo,
            };
            let stdin = std::io::stdin();
            let mut terminal = stdin.lock();
            let ask: Option<&mut dyn std::io::BufRead> =
                std::io::IsTerminal::is_terminal(&std::io::stdin()).then_some(&mut terminal);
            let restored = code::restore(
                &data_dir,
                &cwd,
                target,
                *yes,
                ask,
                &mut std::io::stdout().lock(),
            )?;
            return Ok(if restored {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        Some(Command::Search { query, json }) => {
            let query = query.join(" ");
            stored::search(&data_dir, &query, *json, &mut std::io::stdout().lock())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Auth { action }) => return auth::run(&data_dir, action),
        Some(Command::Mcp {
            action: Some(mcp::McpAction::Serve { http }),
        }) => {
            // Not under `stdout().lock()`: the MCP transport writes stdout from another thread.
            return mcp_serve::run(&data_dir, *http);
        }
        Some(Command::Mcp { action }) => {
            let cwd = std::env::current_dir()?;
            return mcp::run(
                &data_dir,
                &cwd,
                action.as_ref(),
                &mut std::io::stdout().lock(),
            );
        }
        Some(Command::Doctor) => return doctor::run(&data_dir, &mut std::io::stdout().lock()),
        Some(Command::Permissions {
            action,
            project,
            json,
        }) => {
            let cwd = std::env::current_dir()?;
            return permissions::run(
                &data_dir,
                &cwd,
                action.as_ref(),
                *project,
                *json,
                &mut std::io::stdout().lock(),
            );
        }
        Some(Command::Tools { action }) => {
            let cwd = std::env::current_dir()?;
            tools::run(
                &data_dir,
                &cwd,
                action.as_ref(),
                &mut std::io::stdout().lock(),
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Worktrees { action }) => {
            let cwd = std::env::current_dir()?;
            return worktrees::run(
                &data_dir,
                &cwd,
                action.as_ref(),
                &mut std::io::stdout().lock(),
            );
        }
        Some(Command::Review { name, stat, json }) => {
            let cwd = std::env::current_dir()?;
            let out = &mut std::io::stdout().lock();
            return worktrees::review(&data_dir, &cwd, name.as_deref(), *stat, *json, out);
        }
        Some(Command::Commit { name, message }) => {
            let cwd = std::env::current_dir()?;
            let out = &mut std::io::stdout().lock();
            return worktrees::commit(&data_dir, &cwd, name.as_deref(), message, out);
        }
        Some(Command::Merge { name }) => {
            let cwd = std::env::current_dir()?;
            return worktrees::merge(
                &data_dir,
                &cwd,
                name.as_deref(),
                &mut std::io::stdout().lock(),
            );
        }
        Some(Command::Push { name }) => {
            let cwd = std::env::current_dir()?;
            return worktrees::push(
                &data_dir,
                &cwd,
                name.as_deref(),
                &mut std::io::stdout().lock(),
            );
        }
        Some(Command::Clone {
            url,
            dir,
            depth,
            branch,
            json,
        }) => {
            let request = arbor_app::clone::CloneRequest {
                source: url.clone(),
                destination: dir.clone(),
                depth: *depth,
                branch: branch.clone(),
            };
            return clone::run(&data_dir, request, *json);
        }
        _ => {}
    }

    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let mut prompts = cli.prompts.clone();
    // Piped input joins the first prompt (`git diff | arbor -p "review this"`) in text mode; in
    // JSON and RPC modes stdin carries commands instead.
    if cli.mode == Mode::Text && !std::io::stdin().is_terminal() {
        let mut piped = String::new();
        std::io::stdin()
            .read_to_string(&mut piped)
            .map_err(|error| anyhow::anyhow!("cannot read standard input: {error}"))?;
        if !piped.trim().is_empty() {
            match prompts.first_mut() {
                Some(first) => *first = format!("{}\n\n{first}", piped.trim_end()),
                None => prompts.push(piped),
            }
        }
    }
    let interactive = cli.mode == Mode::Text && !cli.print && prompts.is_empty() && terminal;
    if cli.mode == Mode::Text && !interactive && prompts.is_empty() {
        return usage("-p needs a prompt: arbor -p \"your question\" (or pipe text in)");
    }

    // The first user turn is known now: its snapshot's walk of the folder starts at once, beside
    // everything done before the first request, instead of after it (a stored session in its
    // own folder; a worktree session's folder is known later).
    let scan_ahead =
        (!prompts.is_empty() && !cli.sessions.no_session && cli.sessions.worktree.is_none())
            .then(|| std::env::current_dir().ok())
            .flatten()
            .and_then(|cwd| arbor_app::code_state::scan_ahead(&data_dir, &cwd));
    let opening = stored::open_beside(&cli.sessions, &data_dir);
    // A session that lives on (a person at the terminal, RPC, JSON commands on stdin) finds
    // the sandbox while it waits; a one-shot run only at its first command, if any.
    if interactive || cli.mode == Mode::Rpc || (cli.mode == Mode::Json && prompts.is_empty()) {
        arbor_app::permissions::warm_sandbox_probe();
    }
    let overrides = match permission_overrides(&cli.agent) {
        Ok(overrides) => overrides,
        Err(error) => return usage(&error.to_string()),
    };
    let catalog = config::load_catalog(&data_dir)?;
    let settings = Settings::load(&data_dir)?;
    let keys = Arc::new(ProviderKeys::for_app());
    let mut model_args = cli.model.clone();
    if model_args.model.is_none() && model_args.provider.is_none() && model_args.base_url.is_none()
    {
        model_args.model = settings.default_model.clone();
    }
    let selection = match selection::select(&catalog, &model_args, &keys) {
        Ok(selection) => selection,
        // A provider or model that does not exist is a mistake on the command line.
        Err(selection::SelectionError::Catalog(error)) => return usage(&error.to_string()),
        Err(error) => return Err(error.into()),
    };
    // An ad-hoc endpoint (`--api` + `--base-url`) is uncatalogued by design: no note.
    if !selection.catalogued && selection.model.provider != "custom" {
        eprintln!(
            "arbor: note: {}/{} is not in the catalogue; its limits are guessed and its cost is not counted",
            selection.model.provider, selection.model.id
        );
    }
    let mut cwd = std::env::current_dir()?;
    if let Some(name) = &cli.sessions.worktree {
        // The session works in the worktree: a project of its own, under this one's rules.
        cwd = worktrees::for_session(&data_dir, &cwd, name, cli.sessions.base.as_deref())?;
        std::env::set_current_dir(&cwd)?;
    }
    let mut pass_through = settings.tool_env_pass_through.clone();
    pass_through.extend(cli.agent.pass_env.iter().cloned());
    let tool_environment = arbor_app::tool_environment(&catalog, &keys, &pass_through);
    let mcp_environment = tool_environment.clone();
    // One connection to the database for the whole run (permissions, then the session).
    let database = opening.wait()?;
    let permissions = match &database {
        Some(database) => arbor_app::permissions::load_setup_stored(database, &cwd, &overrides)?,
        None => arbor_app::permissions::load_setup_in(&data_dir, &cwd, &overrides)?,
    };
    let stored = database.filter(|_| !cli.sessions.no_session);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let mut session = match session::start(
            selection,
            cli.model.thinking,
            &cli.agent,
            &cwd,
            tool_environment,
            settings.stream_idle_timeout(),
            permissions,
        ) {
            Ok(session) => session,
            Err(arbor_app::AppError::Tools(error)) => return usage(&error.to_string()),
            Err(error) => return Err(error.into()),
        };
        // The project's MCP servers (their approved tools), started at a tool's first call and
        // stopped when this run ends.
        let mcp_hub = arbor_app::mcp::new_hub(&keys, mcp_environment);
        session.set_mcp_hub(mcp_hub.clone());
        stored::connect(&mut session, &cli.sessions, stored)?;
        if let Some(walk) = scan_ahead {
            session.offer_scan_ahead(walk);
        }
        // A person answers permission requests in the interactive mode and over RPC; `-p` and
        // JSON refuse what would need one, saying what would allow it.
        session.set_permissions_answerable(matches!(cli.mode, Mode::Rpc) || interactive);
        let resolver = rpc_mode::ModelResolver {
            catalog,
            base: cli.model.clone(),
            keys,
        };
        let outcome = match cli.mode {
            Mode::Json => json_mode::run(session, prompts).await,
            Mode::Rpc => rpc_mode::run(session, resolver).await,
            Mode::Text if interactive => {
                interactive::run(session, resolver, data_dir.join("history.txt")).await
            }
            Mode::Text => print_mode::run(session, prompts).await,
        };
        mcp_hub.stop_all().await;
        outcome
    })
}

/// This run's `--permission-mode`, `--allow`, `--ask` and `--deny`, each rule checked.
fn permission_overrides(
    args: &args::AgentArgs,
) -> Result<arbor_app::permissions::PermissionOverrides, arbor_app::AppError> {
    use arbor_protocol::views::permissions::RuleEffect;
    let mut rules = Vec::new();
    for (effect, list) in [
        (RuleEffect::Deny, &args.deny),
        (RuleEffect::Ask, &args.ask),
        (RuleEffect::Allow, &args.allow),
    ] {
        for rule in list {
            arbor_app::permissions::check_rule(rule)?;
            rules.push((effect, rule.clone()));
        }
    }
    Ok(arbor_app::permissions::PermissionOverrides {
        mode: args.permission_mode,
        rules,
    })
}

fn usage(message: &str) -> anyhow::Result<ExitCode> {
    eprintln!("arbor: {message}");
    Ok(ExitCode::from(2))
}
