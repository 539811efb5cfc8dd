//! Worktrees at the terminal: `arbor worktrees [list|new|remove|restore|prune|setup]`,
//! `arbor review`, `arbor commit`, `arbor merge`, `arbor push`, and `arbor --worktree [NAME]`
//! (a session in a new or existing worktree). A worktree is named, or found from the folder
//! the command runs in.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arbor_app::ArborApp;
use arbor_protocol::views::worktrees::{
    MergeOutcome, ReviewFile, WorktreeReview, WorktreeState, WorktreeView,
};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum WorktreesAction {
    /// Every worktree of this project with its branch, state and changes (the default).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Make a worktree on a new branch `arbor/NAME` (and run the setup command once approved).
    New {
        /// Default: agent-1, agent-2, …
        name: Option<String>,
        /// The branch to start from (default: the branch the project is on).
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
    },
    /// Archive a worktree: its files are kept in a snapshot, then its folder is removed (the
    /// branch and its sessions stay). Shows what the snapshot keeps first.
    Remove {
        name: String,
        /// Do not ask.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Bring an archived worktree back, its files as they were.
    Restore { name: String },
    /// Forget worktrees whose folder was deleted by hand (their branches stay).
    Prune,
    /// Show the project's setup command (`.arbor/worktree.toml`); `--approve` pins it, and
    /// NAME runs it in that worktree.
    Setup {
        name: Option<String>,
        #[arg(long)]
        approve: bool,
    },
}

fn app(data_dir: &Path) -> anyhow::Result<ArborApp> {
    Ok(ArborApp::open(Some(data_dir))?)
}

/// The worktree NAME (or the worktree of the session NAME, an id or its prefix), or the one
/// the current folder is.
fn name_or_here(app: &ArborApp, cwd: &Path, name: Option<&str>) -> anyhow::Result<String> {
    if let Some(name) = name {
        if app.worktree(cwd, name).is_err() {
            if let Ok(Some(worktree)) = app.session_worktree(name) {
                return Ok(worktree);
            }
        }
        return Ok(name.to_owned());
    }
    match app.worktree_at(cwd)? {
        Some(worktree) => Ok(worktree.row.name),
        None => anyhow::bail!(
            "{} is not a worktree: name one (`arbor worktrees list` shows them)",
            cwd.display()
        ),
    }
}

/// The data folder's app and the worktree NAME, or the one the current folder is.
fn open_named(
    data_dir: &Path,
    cwd: &Path,
    name: Option<&str>,
) -> anyhow::Result<(ArborApp, String)> {
    let app = app(data_dir)?;
    let name = name_or_here(&app, cwd, name)?;
    Ok((app, name))
}

/// A commit id as people quote it.
fn short(commit: &str) -> &str {
    &commit[..12.min(commit.len())]
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b => format!("{} KB", b.div_ceil(1024)),
    }
}

fn line(view: &WorktreeView) -> String {
    let state = match view.state {
        WorktreeState::Active => format!(
            "{} uncommitted, {}",
            view.uncommitted,
            size(view.size_bytes)
        ),
        WorktreeState::Archived => "archived".to_owned(),
    };
    let mut text = format!(
        "{}  {}  from {}  +{} -{}  {state}",
        view.name, view.branch, view.base_branch, view.ahead, view.behind
    );
    if let Some(problem) = &view.problem {
        text.push_str(&format!("  ({problem})"));
    }
    text
}

pub fn run(
    data_dir: &Path,
    cwd: &Path,
    action: Option<&WorktreesAction>,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let app = app(data_dir)?;
    match action.unwrap_or(&WorktreesAction::List { json: false }) {
        WorktreesAction::List { json } => {
            let views = app.worktrees(cwd)?;
            if *json {
                writeln!(out, "{}", serde_json::to_string(&views)?)?;
            } else if views.is_empty() {
                writeln!(out, "no worktrees: `arbor worktrees new` makes one")?;
            } else {
                for view in &views {
                    writeln!(out, "{}", line(view))?;
                }
            }
        }
        WorktreesAction::New { name, base } => {
            let path = create(&app, cwd, name.as_deref(), base.as_deref(), out)?;
            writeln!(out, "{}", path.display())?;
        }
        WorktreesAction::Remove { name, yes } => {
            let preview = app.archive_preview(cwd, name)?;
            writeln!(
                out,
                "archiving {name}: {} uncommitted file(s) kept in a snapshot; {} of ignored files \
                 (build output, dependencies) not kept; {} commit(s) not merged stay on its branch",
                preview.uncommitted.len(),
                size(preview.ignored_bytes),
                preview.unmerged_commits
            )?;
            for file in &preview.uncommitted {
                writeln!(out, "  {file}")?;
            }
            if !*yes && !confirm(out, "Remove the folder? [y/N] ")? {
                writeln!(out, "nothing removed")?;
                return Ok(ExitCode::from(1));
            }
            let view = app.archive_worktree(cwd, name)?;
            writeln!(
                out,
                "archived: {}  (`arbor worktrees restore {name}` brings it back)",
                line(&view)
            )?;
        }
        WorktreesAction::Restore { name } => {
            let view = app.restore_worktree(cwd, name)?;
            writeln!(out, "restored: {}\n{}", line(&view), view.path)?;
        }
        WorktreesAction::Prune => {
            let pruned = app.prune_worktrees(cwd)?;
            writeln!(
                out,
                "pruned {} worktree(s) whose folder was gone",
                pruned.len()
            )?;
            for name in pruned {
                writeln!(out, "  {name}")?;
            }
        }
        WorktreesAction::Setup { name, approve } => {
            let Some(setup) = app.worktree_setup(cwd)? else {
                writeln!(
                    out,
                    "this project names no setup command (.arbor/worktree.toml)"
                )?;
                return Ok(ExitCode::SUCCESS);
            };
            if *approve && !setup.approved {
                app.approve_worktree_setup(cwd, &setup.hash)?;
            }
            let approved = setup.approved || *approve;
            writeln!(
                out,
                "setup: {}  ({})",
                setup.command,
                if approved {
                    "approved"
                } else {
                    "not approved: --approve pins it"
                }
            )?;
            if let (Some(name), true) = (name, approved) {
                return run_setup(&app, cwd, name, out);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn confirm(out: &mut dyn Write, question: &str) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Ok(false);
    }
    write!(out, "{question}")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

fn run_setup(
    app: &ArborApp,
    cwd: &Path,
    name: &str,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let outcome = app.run_worktree_setup(cwd, name, &mut |line| {
        let _ = writeln!(out, "  | {line}");
    })?;
    let how = if outcome.sandboxed {
        "in the sandbox"
    } else {
        "without a sandbox (none on this machine)"
    };
    match outcome.exit_code {
        Some(0) => {
            writeln!(out, "setup finished {how}")?;
            Ok(ExitCode::SUCCESS)
        }
        Some(code) => {
            writeln!(
                out,
                "setup failed with exit status {code} ({how}); the worktree is there"
            )?;
            Ok(ExitCode::from(1))
        }
        None => {
            writeln!(out, "setup was stopped (timed out: {})", outcome.timed_out)?;
            Ok(ExitCode::from(1))
        }
    }
}

/// Makes a worktree, says what was copied, and runs the setup command when it is approved
/// (asking on a terminal when it is not). Answers the worktree's folder.
pub fn create(
    app: &ArborApp,
    cwd: &Path,
    name: Option<&str>,
    base: Option<&str>,
    out: &mut dyn Write,
) -> anyhow::Result<PathBuf> {
    let made = app.create_worktree(cwd, name, base)?;
    let view = &made.worktree;
    writeln!(
        out,
        "worktree {} on {} (from {})",
        view.name, view.branch, view.base_branch
    )?;
    if !made.included.is_empty() {
        writeln!(
            out,
            "copied from the main checkout: {}",
            made.included.join(", ")
        )?;
    }
    if let Some(setup) = &made.setup {
        let approved = setup.approved || {
            writeln!(out, "the project's setup command: {}", setup.command)?;
            let yes = confirm(out, "Run it in new worktrees (in the sandbox)? [y/N] ")?;
            if yes {
                app.approve_worktree_setup(cwd, &setup.hash)?;
            } else {
                writeln!(
                    out,
                    "setup not run: `arbor worktrees setup {} --approve` runs it",
                    view.name
                )?;
            }
            yes
        };
        if approved {
            // A failed setup is reported; the worktree stays usable.
            let _ = run_setup(app, cwd, &view.name, out)?;
        }
    }
    Ok(PathBuf::from(&view.path))
}

/// `arbor --worktree [NAME]`: the folder of the worktree NAME (made when it does not exist),
/// or of a new one.
pub fn for_session(
    data_dir: &Path,
    cwd: &Path,
    name: &str,
    base: Option<&str>,
) -> anyhow::Result<PathBuf> {
    let app = app(data_dir)?;
    if !name.is_empty() {
        if let Ok(existing) = app.worktree(cwd, name) {
            if existing.is_archived() {
                app.restore_worktree(cwd, name)?;
            }
            return Ok(existing.path);
        }
    }
    let name = (!name.is_empty()).then_some(name);
    create(&app, cwd, name, base, &mut std::io::stderr().lock())
}

fn print_files(files: &[ReviewFile], stat: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    for file in files {
        let change = &file.change;
        writeln!(
            out,
            "{:>9} +{} -{}  {}",
            format!("{:?}", change.status).to_lowercase(),
            change.added,
            change.removed,
            change.path
        )?;
        if stat {
            continue;
        }
        for hunk in &file.hunks {
            writeln!(out, "{}", hunk.header)?;
            write!(out, "{}", hunk.lines)?;
        }
        if file.truncated {
            writeln!(out, "… (longer than a review shows)")?;
        }
    }
    Ok(())
}

fn print_review(review: &WorktreeReview, stat: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "{} ({}) against {}",
        review.name, review.branch, review.base_branch
    )?;
    writeln!(out, "committed ({} files):", review.committed.len())?;
    print_files(&review.committed, stat, out)?;
    writeln!(out, "not committed ({} files):", review.uncommitted.len())?;
    print_files(&review.uncommitted, stat, out)
}

/// `arbor review [NAME]`.
pub fn review(
    data_dir: &Path,
    cwd: &Path,
    name: Option<&str>,
    stat: bool,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let (app, name) = open_named(data_dir, cwd, name)?;
    let review = app.review_worktree(cwd, &name)?;
    if json {
        writeln!(out, "{}", serde_json::to_string(&review)?)?;
    } else {
        print_review(&review, stat, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `arbor commit [NAME] -m MESSAGE`.
pub fn commit(
    data_dir: &Path,
    cwd: &Path,
    name: Option<&str>,
    message: &str,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let (app, name) = open_named(data_dir, cwd, name)?;
    let done = app.commit_worktree(cwd, &name, message)?;
    writeln!(
        out,
        "committed {} file(s) on {}: {}",
        done.files,
        done.branch,
        short(&done.commit)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `arbor merge [NAME]`: exit status 1 on a conflict (nothing changed).
pub fn merge(
    data_dir: &Path,
    cwd: &Path,
    name: Option<&str>,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let (app, name) = open_named(data_dir, cwd, name)?;
    let worktree = app.worktree(cwd, &name)?;
    let base = worktree.row.base_branch.clone();
    match app.merge_worktree(cwd, &name)? {
        MergeOutcome::FastForward { commit } => {
            writeln!(out, "{base} fast-forwarded to {}", short(&commit))?
        }
        MergeOutcome::Merged { commit } => writeln!(out, "merged into {base}: {}", short(&commit))?,
        MergeOutcome::UpToDate => writeln!(out, "{base} already has every commit of {name}")?,
        MergeOutcome::Conflict { files } => {
            writeln!(
                out,
                "not merged: {} and {base} both changed {}; nothing was changed",
                worktree.row.branch,
                files.join(", ")
            )?;
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `arbor push [NAME]`.
pub fn push(
    data_dir: &Path,
    cwd: &Path,
    name: Option<&str>,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let (app, name) = open_named(data_dir, cwd, name)?;
    let pushed = app.push_worktree(cwd, &name)?;
    writeln!(out, "pushed {} to {}", pushed.branch, pushed.url)?;
    Ok(ExitCode::SUCCESS)
}
