//! MCP servers at the terminal: `arbor mcp [list|add|remove|enable|disable|approve|login|log|secret]`.
//! The user's servers live in the settings (for every project); a project's come from its
//! `.mcp.json` and start only once `arbor mcp approve NAME` pinned their exact definition. No
//! server's tools are offered before `approve` showed them and a person said yes.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use arbor_app::views::mcp::{
    McpScope, McpServerConfig, McpServerView, McpToolsReview, McpTransport,
};
use arbor_app::ArborApp;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
// `Add` carries every option of a server; the action is parsed once per process.
#[allow(clippy::large_enum_variant)]
pub enum McpAction {
    /// This project's servers — yours and its `.mcp.json`'s — with status and tools (the default).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Add a server for every project: `arbor mcp add NAME -- COMMAND [ARGS…]` (stdio) or
    /// `arbor mcp add NAME --url URL` (Streamable HTTP).
    Add {
        name: String,
        #[arg(long, value_name = "URL", conflicts_with = "command")]
        url: Option<String>,
        /// A variable the server gets, `NAME=VALUE` (`${keychain:SECRET}` takes a secret from
        /// the keychain, see `arbor mcp secret`); repeatable.
        #[arg(long = "env", value_name = "NAME=VALUE")]
        env: Vec<String>,
        /// With --url: the server speaks the legacy HTTP+SSE transport (its event stream's URL).
        #[arg(long, requires = "url")]
        sse: bool,
        /// A header sent to an HTTP server, `NAME=VALUE`; repeatable.
        #[arg(long = "header", value_name = "NAME=VALUE")]
        headers: Vec<String>,
        /// An OAuth client registered beforehand with the server (for servers that do not
        /// register clients themselves).
        #[arg(long, value_name = "ID", requires = "url")]
        oauth_client_id: Option<String>,
        /// That client's secret, as `${keychain:NAME}` (see `arbor mcp secret`).
        #[arg(long, value_name = "REFERENCE", requires = "oauth_client_id")]
        oauth_client_secret: Option<String>,
        /// `client_credentials`: the client is a machine client, signed in by itself with its
        /// secret or private key (no browser).
        #[arg(long, value_name = "GRANT", requires = "oauth_client_id")]
        oauth_grant: Option<String>,
        /// A machine client's private key (PEM on one line), as `${keychain:NAME}`.
        #[arg(long, value_name = "REFERENCE", requires = "oauth_client_id")]
        oauth_private_key: Option<String>,
        /// The private key's algorithm: ES256 (default), ES384, RS256, RS384 or RS512.
        #[arg(long, value_name = "ALG", requires = "oauth_private_key")]
        oauth_signing_algorithm: Option<String>,
        /// The command and its arguments, after `--`.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Remove one of your servers (a project's: edit its `.mcp.json`).
    Remove { name: String },
    /// Switch a server on again.
    Enable { name: String },
    /// Switch a server off: never started, its tools not offered.
    Disable { name: String },
    /// Review and approve: a project's server definition (when pending), then the server's
    /// tools (started to list them). Asks on a terminal unless `--yes`.
    Approve {
        name: String,
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Sign in to an HTTP server (OAuth): its page opens in your browser (or open the URL
    /// printed), the tokens go to the keychain.
    Login { name: String },
    /// A server's stderr and Arbor's lines about it (this run's only).
    Log { name: String },
    /// Keep a secret in the keychain for `${keychain:NAME}`, read from stdin.
    Secret { name: String },
    /// Serve Arbor's sessions to other agents over MCP: stdio, or `--http PORT` (loopback,
    /// bearer token from $ARBOR_MCP_TOKEN or printed).
    Serve {
        #[arg(long, value_name = "PORT")]
        http: Option<u16>,
    },
}

fn pairs(list: &[String], what: &str) -> anyhow::Result<BTreeMap<String, String>> {
    list.iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
            _ => anyhow::bail!("{what} {pair:?} is not NAME=VALUE"),
        })
        .collect()
}

fn scope_of(app: &ArborApp, cwd: &Path, name: &str) -> anyhow::Result<McpScope> {
    let servers = app.mcp_servers(cwd)?.servers;
    match servers.iter().find(|s| s.name == name) {
        Some(server) => Ok(server.scope),
        None => anyhow::bail!("no MCP server {name:?} here (`arbor mcp list` shows them)"),
    }
}

fn status_line(server: &McpServerView) -> String {
    let scope = match server.scope {
        McpScope::User => "user",
        McpScope::Project => "project",
    };
    let status = serde_json::to_value(server.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut line = format!(
        "{:<16} {scope:<8} {status:<9} {} tools{}  {}",
        server.name,
        server.tools_approved,
        if server.tools_pending > 0 {
            format!(" (+{} to review)", server.tools_pending)
        } else {
            String::new()
        },
        server.summary
    );
    if let Some(error) = &server.error {
        line.push_str(&format!("\n{:16} {error}", ""));
    }
    line
}

fn confirm(out: &mut dyn Write, question: &str, yes: bool) -> anyhow::Result<bool> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        writeln!(out, "{question}no (not a terminal: pass --yes to approve)")?;
        return Ok(false);
    }
    write!(out, "{question}")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

fn print_review(review: &McpToolsReview, out: &mut dyn Write) -> anyhow::Result<()> {
    for tool in &review.added {
        writeln!(out, "new      {}  {}", tool.offered_as, tool.description)?;
    }
    for tool in &review.changed {
        writeln!(out, "changed  {}", tool.offered_as)?;
        if let Some(diff) = &tool.diff {
            for line in diff.lines() {
                writeln!(out, "    {line}")?;
            }
        }
    }
    for name in &review.removed {
        writeln!(out, "gone     {name}")?;
    }
    writeln!(out, "{} unchanged", review.unchanged.len())?;
    Ok(())
}

async fn approve(
    app: &ArborApp,
    cwd: &Path,
    name: &str,
    yes: bool,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let scope = scope_of(app, cwd, name)?;
    if scope == McpScope::Project {
        let pending =
            app.mcp_servers(cwd)?.servers.iter().any(|s| {
                s.name == name && s.status == arbor_app::views::mcp::McpServerStatus::Pending
            });
        if pending {
            let review = app.mcp_server_review(cwd, name)?;
            writeln!(
                out,
                "The project's .mcp.json defines {name:?}:\n{}",
                review.definition
            )?;
            if let Some(diff) = &review.diff {
                writeln!(out, "Changed since you approved it:\n{diff}")?;
            }
            if !confirm(out, "Start this server? [y/N] ", yes)? {
                return Ok(ExitCode::from(1));
            }
            app.approve_mcp_server(cwd, name, &review.hash)?;
        }
    }
    let review = app.mcp_tools_review(cwd, scope, name).await?;
    print_review(&review, out)?;
    if review.added.is_empty() && review.changed.is_empty() && review.removed.is_empty() {
        writeln!(out, "Nothing to review.")?;
        return Ok(ExitCode::SUCCESS);
    }
    if !confirm(out, "Offer these tools to the model? [y/N] ", yes)? {
        return Ok(ExitCode::from(1));
    }
    app.approve_mcp_tools(cwd, scope, name, &review.hash)
        .await?;
    writeln!(out, "Approved: offered from the next request.")?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `arbor mcp ACTION` in the project at `cwd`.
pub fn run(
    data_dir: &Path,
    cwd: &Path,
    action: Option<&McpAction>,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let app = ArborApp::open(Some(data_dir))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let code = runtime.block_on(async {
        match action.unwrap_or(&McpAction::List { json: false }) {
            McpAction::List { json } => {
                let view = app.mcp_servers(cwd)?;
                if *json {
                    writeln!(out, "{}", serde_json::to_string_pretty(&view)?)?;
                } else if view.servers.is_empty() && view.problems.is_empty() {
                    writeln!(out, "No MCP servers. Add one with `arbor mcp add NAME -- COMMAND` or a .mcp.json.")?;
                } else {
                    for server in &view.servers {
                        writeln!(out, "{}", status_line(server))?;
                    }
                    for problem in &view.problems {
                        writeln!(out, "left out: {problem}")?;
                    }
                }
                Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
            }
            McpAction::Add {
                name,
                url,
                sse,
                env,
                headers,
                oauth_client_id,
                oauth_client_secret,
                oauth_grant,
                oauth_private_key,
                oauth_signing_algorithm,
                command,
            } => {
                let (transport, command, args) = match (url, command.split_first()) {
                    (Some(_), _) if *sse => (McpTransport::Sse, String::new(), Vec::new()),
                    (Some(_), _) => (McpTransport::Http, String::new(), Vec::new()),
                    (None, Some((command, args))) => (McpTransport::Stdio, command.clone(), args.to_vec()),
                    (None, None) => anyhow::bail!("give the server's command after `--`, or --url"),
                };
                let config = McpServerConfig {
                    name: name.clone(),
                    transport,
                    command,
                    args,
                    env: pairs(env, "--env")?,
                    url: url.clone().unwrap_or_default(),
                    headers: pairs(headers, "--header")?,
                    oauth_client_id: oauth_client_id.clone().unwrap_or_default(),
                    oauth_client_secret: oauth_client_secret.clone().unwrap_or_default(),
                    oauth_grant: oauth_grant.clone().unwrap_or_default(),
                    oauth_private_key: oauth_private_key.clone().unwrap_or_default(),
                    oauth_signing_algorithm: oauth_signing_algorithm.clone().unwrap_or_default(),
                    enabled: true,
                };
                app.add_mcp_server(cwd, config)?;
                writeln!(out, "Added {name}. Review its tools with `arbor mcp approve {name}`.")?;
                Ok(ExitCode::SUCCESS)
            }
            McpAction::Remove { name } => {
                app.remove_mcp_server(cwd, name).await?;
                writeln!(out, "Removed {name}.")?;
                Ok(ExitCode::SUCCESS)
            }
            McpAction::Enable { name } | McpAction::Disable { name } => {
                let enabled = matches!(action, Some(McpAction::Enable { .. }));
                let scope = scope_of(&app, cwd, name)?;
                app.set_mcp_server_enabled(cwd, scope, name, enabled).await?;
                writeln!(out, "{name} is {}.", if enabled { "on" } else { "off" })?;
                Ok(ExitCode::SUCCESS)
            }
            McpAction::Approve { name, yes } => approve(&app, cwd, name, *yes, out).await,
            McpAction::Login { name } => {
                let scope = scope_of(&app, cwd, name)?;
                let open = |url: String| {
                    eprintln!("Open this page to sign in:\n  {url}");
                    // Best effort: a desktop session opens it; a terminal alone shows it. The
                    // server chose the URL: only a web page is handed to the desktop.
                    if !(url.starts_with("https://") || url.starts_with("http://")) {
                        return;
                    }
                    let _ = std::process::Command::new("xdg-open")
                        .arg(&url)
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .spawn();
                };
                app.mcp_sign_in(cwd, scope, name, &open).await?;
                writeln!(out, "Signed in to {name}.")?;
                Ok(ExitCode::SUCCESS)
            }
            McpAction::Log { name } => {
                let scope = scope_of(&app, cwd, name)?;
                for line in app.mcp_server_log(cwd, scope, name) {
                    writeln!(out, "{line}")?;
                }
                Ok(ExitCode::SUCCESS)
            }
            McpAction::Serve { .. } => unreachable_serve(),
            McpAction::Secret { name } => {
                let mut value = String::new();
                std::io::stdin().lock().read_line(&mut value)?;
                app.set_mcp_secret(name, value.trim_end_matches(['\r', '\n']))?;
                writeln!(out, "Kept {name} in the keychain: use it as ${{keychain:{name}}}.")?;
                Ok(ExitCode::SUCCESS)
            }
        }
    });
    runtime.block_on(app.stop_mcp_servers());
    code
}

/// `serve` is handled before the app opens (it opens its own, for as long as it serves).
fn unreachable_serve() -> anyhow::Result<ExitCode> {
    anyhow::bail!("`arbor mcp serve` runs on its own")
}
