//! Command-line arguments (clap). Usage errors exit with status 2.

use arbor_protocol::views::permissions::PermissionMode;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "arbor",
    version,
    about = "Arbor, a coding agent: ask a model from any major provider, or a local one",
    after_help = "Examples:\n  arbor -p \"explain this error\"\n  arbor -p --provider openai --model gpt-5 \"hello\"\n  arbor -p --api openai-completions --base-url http://127.0.0.1:8080/v1 --model local \"hi\"\n  arbor models --provider anthropic"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Print mode: send the prompt(s) in order and print the final answer.
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// Output mode: text (default), json (one JSON event per line; reads JSON commands on stdin
    /// when no prompt is given), or rpc (JSON commands with ids on stdin, responses and events out).
    #[arg(long, value_enum, default_value_t = Mode::Text)]
    pub mode: Mode,

    #[command(flatten)]
    pub model: ModelArgs,

    #[command(flatten)]
    pub agent: AgentArgs,

    /// Work in this directory instead of the current one.
    #[arg(short = 'C', long = "cwd", value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,

    /// The data folder (models.json, later sessions). Default: $ARBOR_DATA_DIR, else the OS data folder.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,

    #[command(flatten)]
    pub sessions: SessionArgs,

    /// The prompt(s); each is one user message, sent after the previous answer.
    #[arg(value_name = "PROMPT")]
    pub prompts: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// The provider, from the catalogue (see `arbor models`).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,

    /// The wire protocol: openai-completions, openai-responses, anthropic-messages or
    /// google-generative-ai. Overrides the provider's; with --base-url, reaches any endpoint.
    #[arg(long, value_name = "KIND")]
    pub api: Option<arbor_protocol::Api>,

    /// The model id; PROVIDER/ID names the provider too.
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,

    /// The endpoint's base URL (OpenAI-style includes /v1; Anthropic and Google do not).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The API key; else the provider's usual environment variable.
    #[arg(long, value_name = "KEY", hide_env_values = true)]
    pub api_key: Option<String>,

    /// How hard the model thinks: off, minimal, low, medium or high.
    #[arg(long, value_name = "LEVEL", default_value = "off")]
    pub thinking: arbor_protocol::ThinkingLevel,
}

/// Which stored session a run continues. Default: a new session stored in DATA_DIR/arbor.db.
#[derive(Debug, Clone, Default, Args)]
pub struct SessionArgs {
    /// Continue the most recent session of this working directory's project.
    #[arg(short = 'c', long = "continue", conflicts_with_all = ["resume", "no_session"])]
    pub continue_latest: bool,

    /// Resume the session with this id (a unique prefix is enough; see `arbor sessions`).
    #[arg(
        short = 'r',
        long = "resume",
        value_name = "ID",
        conflicts_with = "no_session"
    )]
    pub resume: Option<String>,

    /// Store nothing: the conversation lives in memory only.
    #[arg(long)]
    pub no_session: bool,

    /// Work in a git worktree of this project on its own branch `arbor/NAME`: the worktree
    /// NAME (made when it does not exist), or a new one (agent-1, agent-2, …).
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,

    /// The branch a new worktree starts from (default: the branch the project is on).
    #[arg(long, value_name = "BRANCH", requires = "worktree")]
    pub base: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    Text,
    Json,
    Rpc,
}

#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The tools the model may use, comma-separated.
    #[arg(
        long,
        value_name = "LIST",
        default_value = "read,write,edit,bash,ls,grep,find,js,create_tool",
        conflicts_with = "no_tools"
    )]
    pub tools: String,

    /// Offer the model no tools at all.
    #[arg(long)]
    pub no_tools: bool,

    /// Replace the built-in system prompt (context files, date and directory still follow).
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,

    /// Add text to the end of the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,

    /// Let tool processes see this environment variable although it holds a key (repeatable).
    /// By default every provider's key variable is withheld from `bash`.
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,

    /// How far the model may reach for this run: `read-only` (reads; commands ask), `workspace`
    /// (edits the project; commands sandboxed without network; the default, but a cloned
    /// repository starts read-only until trusted) or `full` (no sandbox; deny rules still hold).
    #[arg(long, value_name = "MODE", value_parser = parse_permission_mode)]
    pub permission_mode: Option<PermissionMode>,

    /// Allow what a rule covers for this run, e.g. `--allow 'Bash(cargo test *)'` (repeatable).
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,

    /// Ask before what a rule covers, for this run (repeatable).
    #[arg(long = "ask", value_name = "RULE")]
    pub ask: Vec<String>,

    /// Refuse what a rule covers, for this run, e.g. `--deny 'Bash(git push *)'` (repeatable).
    #[arg(long = "deny", value_name = "RULE")]
    pub deny: Vec<String>,
}

fn parse_permission_mode(text: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(text)
        .ok_or_else(|| format!("`{text}` is not a mode: read-only, workspace or full"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    Branch,
    Tree,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the model catalogue (built in, plus models.json in the data folder).
    Models {
        /// Only this provider's models.
        #[arg(long, value_name = "NAME")]
        provider: Option<String>,
    },
    /// List stored sessions of this working directory's project, most recent first.
    Sessions {
        /// Print JSON (an array of sessions) instead of text.
        #[arg(long)]
        json: bool,
        /// Sessions of every project.
        #[arg(long)]
        all: bool,
    },
    /// Show a session's tree: node ids, roles, first lines, labels, the current leaf marked.
    Tree {
        /// The session id (a unique prefix is enough).
        #[arg(value_name = "ID")]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Export a session: Markdown, JSONL (lossless, one node per line) or one self-contained
    /// HTML file (works offline, shows tool calls and the tree).
    Export {
        /// The session id (a unique prefix is enough).
        #[arg(value_name = "ID")]
        id: String,
        /// markdown, jsonl or html.
        #[arg(long, value_name = "FORMAT", default_value = "markdown")]
        format: arbor_app::export::ExportFormat,
        /// branch (the path to the current leaf) or tree (every branch). Default: branch for
        /// Markdown, tree for JSONL and HTML.
        #[arg(long, value_enum, value_name = "SCOPE")]
        scope: Option<ScopeArg>,
        /// Write to FILE (atomically) instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
    /// Import a JSONL export as a new session of this working directory's project.
    Import {
        #[arg(value_name = "FILE")]
        file: std::path::PathBuf,
    },
    /// The files that differ between two nodes' recorded states (ids from `arbor tree`): unified
    /// diffs, or one line per file with --stat.
    Diff {
        /// The node to compare from (a unique prefix is enough).
        #[arg(value_name = "NODE_A")]
        from: String,
        /// The node to compare to.
        #[arg(value_name = "NODE_B")]
        to: String,
        /// One line per file: status, lines added and removed, path.
        #[arg(long)]
        stat: bool,
    },
    /// Bring this project's files back to a node's recorded state: shows what will be written
    /// and deleted, then asks (files changed outside Arbor are marked). The present is kept:
    /// `arbor restore --undo` brings it back.
    Restore {
        /// The node (a unique prefix is enough).
        #[arg(
            value_name = "NODE",
            required_unless_present = "undo",
            conflicts_with = "undo"
        )]
        node: Option<String>,
        /// Undo the last restore instead.
        #[arg(long)]
        undo: bool,
        /// Restore without asking.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Check the data folder's database in full (pages, indexes, the full-text index) and say
    /// what to do about any damage. Reads only; exits 1 when damage is found.
    Doctor,
    /// Full-text search over the messages of every stored session.
    Search {
        /// Words that must all appear (a trailing * matches a prefix).
        #[arg(value_name = "QUERY", required = true, num_args = 1..)]
        query: Vec<String>,
        /// Print JSON (an array of hits) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Clone a git repository (owner/repo, an HTTPS URL, file:// or a path) into DIR, else into
    /// the workspaces folder (`<data dir>/workspaces/<owner>/<repo>`). Private GitHub
    /// repositories use the token of `arbor auth set github` (or $GITHUB_TOKEN).
    Clone {
        /// owner/repo, https://HOST/OWNER/REPO(.git), file://PATH or a local path.
        url: String,
        /// The folder to create (default: in the workspaces folder).
        dir: Option<std::path::PathBuf>,
        /// Only the last N commits.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        depth: Option<u32>,
        /// The branch to check out (default: the remote's default branch).
        #[arg(long, value_name = "NAME")]
        branch: Option<String>,
        /// Print progress and the result as JSON lines.
        #[arg(long)]
        json: bool,
    },
    /// The model's tools of this project: list them (built-in, approved, pending, invalid), show
    /// one with its files, approve, reject or revoke one, and the history of their runs.
    Tools {
        #[command(subcommand)]
        action: Option<ToolsAction>,
    },
    /// Permission rules: list the rules in force for this folder (with where each comes
    /// from), the mode and the sandbox; add a user rule (`--project`: this project's) with
    /// `allow`, `ask` or `deny`, or remove one.
    Permissions {
        #[command(subcommand)]
        action: Option<PermissionsAction>,
        /// The rule is this project's (saved in Arbor's store), not the user's (settings).
        #[arg(long, global = true)]
        project: bool,
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// This project's worktrees: list, new, remove (archive, a snapshot kept), restore, prune,
    /// and the setup command new ones run.
    Worktrees {
        #[command(subcommand)]
        action: Option<crate::worktrees::WorktreesAction>,
    },
    /// What a worktree changed against its base: committed, and not yet committed.
    Review {
        /// The worktree, or a session working in one (default: the one the current folder is).
        name: Option<String>,
        /// One line per file.
        #[arg(long)]
        stat: bool,
        #[arg(long)]
        json: bool,
    },
    /// Commit everything in a worktree on its branch, as your git identity.
    Commit {
        name: Option<String>,
        #[arg(short = 'm', long = "message", value_name = "MESSAGE")]
        message: String,
    },
    /// Merge a worktree's branch into its base branch (fast-forward, or a merge commit; a
    /// conflict changes nothing and exits 1).
    Merge { name: Option<String> },
    /// Push a worktree's branch to origin over HTTPS (the GitHub token only to its host).
    Push { name: Option<String> },
    /// MCP servers: list, add, remove, enable, disable, approve (a project's definition and a
    /// server's tools), log, secret.
    Mcp {
        #[command(subcommand)]
        action: Option<crate::mcp::McpAction>,
    },
    /// Manage API keys in the OS keychain (and the GitHub token, account `github`).
    Auth {
        #[command(subcommand)]
        action: AuthAction,
    },
}

#[derive(Debug, Subcommand)]
pub enum PermissionsAction {
    /// The rules in force here, the mode and the sandbox (the default).
    List,
    /// Allow what RULE covers, e.g. `arbor permissions allow 'Bash(cargo test *)'`.
    Allow { rule: String },
    /// Ask before what RULE covers.
    Ask { rule: String },
    /// Refuse what RULE covers.
    Deny { rule: String },
    /// Remove a saved rule (from whichever list holds it).
    Remove { rule: String },
}

#[derive(Debug, Subcommand)]
pub enum ToolsAction {
    /// Every tool with its status (the default).
    List {
        #[arg(long)]
        json: bool,
    },
    /// A tool with its files (a change: the diff against the approved version).
    Show { name: String },
    /// Approve a pending tool: its files are written to .tools/NAME/ and pinned.
    Approve { name: String },
    /// Reject a pending tool.
    Reject {
        name: String,
        /// Why (the model reads it when it is waiting).
        #[arg(long)]
        reason: Option<String>,
    },
    /// Take a tool's approval back.
    Revoke { name: String },
    /// The runs of the model's tools, newest first.
    History {
        name: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuthAction {
    /// Keep a provider's key in the OS keychain. The key is read from standard input, or from
    /// a prompt that does not echo it; never from an argument.
    Set {
        /// A provider id (see `arbor models`), or `github`.
        provider: String,
        /// Keep the key for this process only when no keychain is reachable (useless for a
        /// one-shot command; kept for scripts that test the path).
        #[arg(long, hide = true)]
        run_only: bool,
    },
    /// Where each provider's key comes from: env, keychain or none (never the key).
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Remove a provider's key from the OS keychain.
    Remove { provider: String },
    /// Send one cheap request with the provider's key and say whether it works.
    Test { provider: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_print_mode_with_every_option() {
        let cli = Cli::try_parse_from([
            "arbor",
            "-p",
            "--provider",
            "openai",
            "--api",
            "openai-completions",
            "--model",
            "gpt-5",
            "--base-url",
            "http://x/v1",
            "--api-key",
            "k",
            "--thinking",
            "high",
            "-C",
            "/tmp",
            "--data-dir",
            "/d",
            "one",
            "two",
        ])
        .unwrap();
        assert!(cli.print);
        assert_eq!(cli.prompts, ["one", "two"]);
        assert_eq!(cli.model.api, Some(arbor_protocol::Api::OpenAiCompletions));
        assert_eq!(cli.model.thinking, arbor_protocol::ThinkingLevel::High);
        assert_eq!(cli.mode, Mode::Text);
        assert!(!cli.agent.no_tools);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        for args in [
            &["arbor", "-p", "--thinking", "max", "x"][..],
            &["arbor", "-p", "--api", "smoke", "x"][..],
            &["arbor", "--no-such-flag"][..],
            &["arbor", "--mode", "xml"][..],
            &["arbor", "--no-tools", "--tools", "read"][..],
            &["arbor", "-c", "-r", "abc", "-p", "x"][..],
            &["arbor", "-c", "--no-session", "-p", "x"][..],
            &["arbor", "tree"][..],
        ] {
            let error = Cli::try_parse_from(args).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{args:?}");
        }
    }
}
