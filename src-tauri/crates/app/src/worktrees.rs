//! Worktrees on [`ArborApp`]: a project's worktrees (each its own git worktree on
//! `arbor/<name>` in `<worktrees folder>/<project>/<name>`, and its own project row, so its
//! sessions, code state and tool history work as any folder's), the setup command that
//! prepares a new one, archiving (a snapshot first, then the folder goes; nothing is removed
//! without one) and restoring, the review of what one changed, commit, merge and push.
//!
//! Every method takes the project's root — or a worktree's folder, which answers for the
//! project it was made from — and a worktree's name.

use std::path::{Path, PathBuf};

use arbor_coding::snapshots::SnapshotId;
use arbor_coding::worktrees::{self as git, NewWorktree};
use arbor_protocol::views::worktrees::{
    ArchivePreview, CommitResult, MergeOutcome, PushResult, WorktreeCreated, WorktreeFork,
    WorktreeReview, WorktreeState, WorktreeView,
};
use arbor_store::{NewWorktreeRow, Project, WorktreeRow};

use crate::{AppError, ArborApp};

/// The default worktrees folder inside the data folder.
pub const WORKTREES_DIR: &str = "worktrees";

/// A worktree as stored, with the main checkout it belongs to.
#[derive(Debug, Clone)]
pub struct Worktree {
    pub row: WorktreeRow,
    /// The project's main checkout.
    pub main_root: PathBuf,
    pub path: PathBuf,
}

impl Worktree {
    pub fn is_archived(&self) -> bool {
        self.row.archived_at.is_some()
    }
}

/// The folder name a project's worktrees go under: its folder's name and a short id, so two
/// projects called `app` do not share one.
fn project_folder(project: &Project) -> String {
    let name: String = Path::new(&project.root)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let short: String = project.id.chars().rev().take(8).collect();
    format!("{}-{short}", name.trim_start_matches('.'))
}

pub(crate) fn view(worktree: &Worktree) -> WorktreeView {
    let row = &worktree.row;
    let mut view = WorktreeView {
        name: row.name.clone(),
        path: row.root.clone(),
        branch: row.branch.clone(),
        base_branch: row.base_branch.clone(),
        base_commit: row.base_commit.clone(),
        state: if worktree.is_archived() {
            WorktreeState::Archived
        } else {
            WorktreeState::Active
        },
        ahead: 0,
        behind: 0,
        uncommitted: 0,
        size_bytes: 0,
        created_at: row.created_at,
        archived_at: row.archived_at,
        problem: None,
    };
    if worktree.is_archived() {
        if let Ok((ahead, behind)) =
            git::ahead_behind(&worktree.main_root, &row.branch, &row.base_branch)
        {
            (view.ahead, view.behind) = (ahead, behind);
        }
        return view;
    }
    match git::status(
        &worktree.main_root,
        &worktree.path,
        &row.branch,
        &row.base_branch,
    ) {
        Ok(status) => {
            view.ahead = status.ahead;
            view.behind = status.behind;
            view.uncommitted = status.uncommitted.len();
            view.size_bytes = status.size_bytes;
        }
        Err(error) => view.problem = Some(error.to_string()),
    }
    view
}

impl ArborApp {
    /// Where new worktrees go: the settings' folder, else `<data dir>/worktrees`.
    pub fn worktrees_dir(&self) -> PathBuf {
        self.settings()
            .worktrees_dir
            .map(PathBuf::from)
            .unwrap_or_else(|| self.data_dir.join(WORKTREES_DIR))
    }

    /// The project of `root`; a worktree's folder answers the project it was made from.
    pub(crate) fn main_project(&self, root: &Path) -> Result<Project, AppError> {
        let store = self.store();
        let project = store.open_project(root, None)?;
        match store.worktree_of_project(&project.id)? {
            Some(worktree) => Ok(store.get_project(&worktree.main_project_id)?),
            None => Ok(project),
        }
    }

    fn to_worktree(main: &Project, row: WorktreeRow) -> Worktree {
        Worktree {
            main_root: PathBuf::from(&main.root),
            path: PathBuf::from(&row.root),
            row,
        }
    }

    /// The worktree `name` of the project of `root`.
    pub fn worktree(&self, root: &Path, name: &str) -> Result<Worktree, AppError> {
        let main = self.main_project(root)?;
        let row = self
            .store()
            .worktree(&main.id, name)?
            .ok_or_else(|| AppError::NoSuchWorktree(name.to_owned()))?;
        Ok(Self::to_worktree(&main, row))
    }

    /// The name of the worktree the stored session `session_id` works in, if any.
    pub fn session_worktree(&self, session_id: &str) -> Result<Option<String>, AppError> {
        let store = self.store();
        let session = store.get_session(session_id)?;
        Ok(store
            .worktree_of_project(&session.project_id)?
            .map(|w| w.name))
    }

    /// The worktree whose folder is `root`, if it is one.
    pub fn worktree_at(&self, root: &Path) -> Result<Option<Worktree>, AppError> {
        let store = self.store();
        let Some(project) = store.find_project(root)? else {
            return Ok(None);
        };
        let Some(row) = store.worktree_of_project(&project.id)? else {
            return Ok(None);
        };
        let main = store.get_project(&row.main_project_id)?;
        Ok(Some(Self::to_worktree(&main, row)))
    }

    fn active_worktree(&self, root: &Path, name: &str) -> Result<Worktree, AppError> {
        let worktree = self.worktree(root, name)?;
        if worktree.is_archived() {
            return Err(AppError::WorktreeArchived(name.to_owned()));
        }
        Ok(worktree)
    }

    /// The project's worktrees with their state (ahead/behind, uncommitted files, size).
    pub fn worktrees(&self, root: &Path) -> Result<Vec<WorktreeView>, AppError> {
        let main = self.main_project(root)?;
        let rows = self.store().worktrees(&main.id)?;
        Ok(rows
            .into_iter()
            .map(|row| view(&Self::to_worktree(&main, row)))
            .collect())
    }

    /// A name no worktree of the project has: `agent-1`, `agent-2`, …
    fn next_worktree_name(&self, main: &Project) -> Result<String, AppError> {
        let taken: Vec<String> = self
            .store()
            .worktrees(&main.id)?
            .into_iter()
            .map(|w| w.name)
            .collect();
        let folder = self.worktrees_dir().join(project_folder(main));
        Ok((1..)
            .map(|n| format!("agent-{n}"))
            .find(|name| !taken.contains(name) && !folder.join(name).exists())
            .unwrap_or_else(|| "agent".to_owned()))
    }

    /// Makes a worktree of the project at `root` on a new branch `arbor/<name>` from `base`
    /// (`None`: the branch the main checkout is on), copies the files `.worktreeinclude` names,
    /// and says whether the project's setup command still waits for approval. The setup
    /// command itself runs with [`ArborApp::run_worktree_setup`].
    pub fn create_worktree(
        &self,
        root: &Path,
        name: Option<&str>,
        base: Option<&str>,
    ) -> Result<WorktreeCreated, AppError> {
        let main = self.main_project(root)?;
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => name.to_owned(),
            None => self.next_worktree_name(&main)?,
        };
        git::validate_name(&name)?;
        let main_root = PathBuf::from(&main.root);
        let folder = self.worktrees_dir().join(project_folder(&main)).join(&name);
        // No base named: the settings say the project's branch, or the remote's default one.
        let base = match base.map(str::trim).filter(|b| !b.is_empty()) {
            Some(base) => Some(base.to_owned()),
            None if self.settings().worktree_base.as_deref() == Some("remote") => {
                git::remote_default_branch(&main_root)
            }
            None => None,
        };
        let made = git::create(&NewWorktree {
            repo_root: main_root.clone(),
            name: name.clone(),
            base,
            folder: folder.clone(),
        })?;
        let recorded = self.store().add_worktree(&NewWorktreeRow {
            main_project_id: &main.id,
            root: &made.path,
            name: &name,
            branch: &made.branch,
            base_branch: &made.base_branch,
            base_commit: &made.base_commit,
        });
        let row = match recorded {
            Ok(row) => row,
            Err(error) => {
                // Nothing half-made: a worktree the store does not know is taken away again.
                let _ = git::discard_new(&main_root, &name, &made.path);
                return Err(error.into());
            }
        };
        let included = git::copy_included(&main_root, &made.path)?;
        let worktree = Self::to_worktree(&main, row);
        Ok(WorktreeCreated {
            worktree: view(&worktree),
            included,
            setup: self.worktree_setup(&main_root)?,
        })
    }

    /// `worktree`'s view with its row read again (after archiving or restoring it).
    fn view_again(&self, worktree: Worktree) -> Result<WorktreeView, AppError> {
        let row = self
            .store()
            .worktree_of_project(&worktree.row.project_id)?
            .ok_or_else(|| AppError::NoSuchWorktree(worktree.row.name.clone()))?;
        Ok(view(&Worktree { row, ..worktree }))
    }

    /// Carries the branch of `session_id` that ends at `node_id` on in a new worktree: the
    /// worktree is made from the project's branch, then its files are brought to the code
    /// state that node saw (when one was recorded), and a new session of the worktree holds
    /// the branch's messages.
    pub fn fork_into_worktree(
        &self,
        root: &Path,
        session_id: &str,
        node_id: &str,
        name: Option<&str>,
    ) -> Result<WorktreeFork, AppError> {
        let (source_project, code) = {
            let store = self.store();
            let session = store.get_session(session_id)?;
            (
                store.get_project(&session.project_id)?,
                store.code_at(node_id)?,
            )
        };
        let created = self.create_worktree(root, name, None)?;
        let path = PathBuf::from(&created.worktree.path);
        if let Some(code) = code {
            let tracker =
                crate::code_state::code_tracker_in(&self.data_dir, &source_project, &path);
            tracker.write_into_workspace(&SnapshotId(code.snapshot))?;
            git::copy_included(Path::new(&self.main_project(root)?.root), &path)?;
        }
        let store = self.store();
        let project = store
            .find_project(&path)?
            .ok_or_else(|| AppError::NoSuchWorktree(created.worktree.name.clone()))?;
        let session = store.fork_session_into(session_id, Some(node_id), Some(&project.id))?;
        drop(store);
        Ok(WorktreeFork {
            created,
            session_id: session.id,
        })
    }

    /// What archiving the worktree would lose without its snapshot.
    pub fn archive_preview(&self, root: &Path, name: &str) -> Result<ArchivePreview, AppError> {
        let worktree = self.active_worktree(root, name)?;
        let uncommitted = git::uncommitted_files(&worktree.path)?;
        let (ahead, _) = git::ahead_behind(
            &worktree.main_root,
            &worktree.row.branch,
            &worktree.row.base_branch,
        )?;
        let total = git::folder_size(&worktree.path);
        let kept: u64 = ignore::WalkBuilder::new(&worktree.path)
            .hidden(false)
            .require_git(false)
            .build()
            .flatten()
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
            .filter_map(|entry| entry.metadata().ok().map(|m| m.len()))
            .sum();
        Ok(ArchivePreview {
            name: name.to_owned(),
            uncommitted,
            ignored_bytes: total.saturating_sub(kept),
            unmerged_commits: ahead,
        })
    }

    /// Archives the worktree: its files (committed or not, ignored ones aside) are kept in a
    /// snapshot first, then its folder is removed; its branch and sessions stay. A folder too
    /// large to snapshot is not removed.
    pub fn archive_worktree(&self, root: &Path, name: &str) -> Result<WorktreeView, AppError> {
        let worktree = self.active_worktree(root, name)?;
        let project = self.store().get_project(&worktree.row.project_id)?;
        let tracker = crate::code_tracker(&self.data_dir, &project);
        let snapshot = tracker.take()?.ok_or_else(|| {
            AppError::Unsupported(format!(
                "{} is too large to snapshot, so it is not removed: nothing is deleted without \
                 a snapshot",
                worktree.path.display()
            ))
        })?;
        tracker.keep(&format!("archive/{name}"), &snapshot)?;
        // Every file git does not keep must be in the snapshot (a file over the size cap or
        // matched by the settings' snapshot ignores is not): otherwise nothing is removed.
        let kept: std::collections::HashSet<String> = tracker
            .changes(None, &snapshot)?
            .into_iter()
            .map(|change| change.path)
            .collect();
        let missing: Vec<String> = git::uncommitted_files(&worktree.path)?
            .into_iter()
            .filter(|path| worktree.path.join(path).is_file() && !kept.contains(path))
            .collect();
        if !missing.is_empty() {
            return Err(AppError::Unsupported(format!(
                "{} cannot be kept in a snapshot (too large, or left out by the snapshot \
                 ignores), so nothing was removed: commit or move them first",
                missing.join(", ")
            )));
        }
        // Recorded before the folder goes, so a restore always finds the snapshot.
        self.store()
            .set_worktree_archived(&worktree.row.project_id, true, Some(&snapshot.0))?;
        if let Err(error) = git::remove_folder(&worktree.main_root, name, &worktree.path) {
            let _ = self
                .store()
                .set_worktree_archived(&worktree.row.project_id, false, None);
            return Err(error.into());
        }
        self.view_again(worktree)
    }

    /// Brings an archived worktree back: its branch checked out again in its folder, then the
    /// files of its snapshot written over it, and `.worktreeinclude`'s files copied again.
    pub fn restore_worktree(&self, root: &Path, name: &str) -> Result<WorktreeView, AppError> {
        let worktree = self.worktree(root, name)?;
        if !worktree.is_archived() {
            return Ok(view(&worktree));
        }
        git::add_back(&worktree.main_root, name, &worktree.path)?;
        if let Some(snapshot) = &worktree.row.archived_snapshot {
            let project = self.store().get_project(&worktree.row.project_id)?;
            let tracker = crate::code_tracker(&self.data_dir, &project);
            tracker.restore(&SnapshotId(snapshot.clone()), None, true)?;
        }
        git::copy_included(&worktree.main_root, &worktree.path)?;
        self.store()
            .set_worktree_archived(&worktree.row.project_id, false, None)?;
        self.view_again(worktree)
    }

    /// Worktrees whose folder was removed by hand: git's record of them is pruned and they are
    /// marked archived (only their branch is left). Answers their names.
    pub fn prune_worktrees(&self, root: &Path) -> Result<Vec<String>, AppError> {
        let main = self.main_project(root)?;
        let rows = self.store().worktrees(&main.id)?;
        let mut pruned = Vec::new();
        for row in rows {
            let worktree = Self::to_worktree(&main, row);
            if worktree.is_archived() || worktree.path.exists() {
                continue;
            }
            git::remove_folder(&worktree.main_root, &worktree.row.name, &worktree.path)?;
            self.store()
                .set_worktree_archived(&worktree.row.project_id, true, None)?;
            pruned.push(worktree.row.name);
        }
        Ok(pruned)
    }

    /// What the worktree changed against its base: committed and not.
    pub fn review_worktree(&self, root: &Path, name: &str) -> Result<WorktreeReview, AppError> {
        let worktree = self.active_worktree(root, name)?;
        Ok(git::review(
            name,
            &worktree.path,
            &worktree.row.branch,
            &worktree.row.base_branch,
        )?)
    }

    /// Takes back an uncommitted change: one hunk (its id as the review showed it), or the
    /// whole file. Answers the review after it.
    pub fn discard_in_worktree(
        &self,
        root: &Path,
        name: &str,
        file: &str,
        hunk: Option<&str>,
    ) -> Result<WorktreeReview, AppError> {
        let worktree = self.active_worktree(root, name)?;
        match hunk {
            Some(hunk) => git::discard_hunk(&worktree.path, file, hunk)?,
            None => git::discard_file(&worktree.path, file)?,
        }
        self.review_worktree(root, name)
    }

    /// Commits everything in the worktree with the user's message, as the user's git identity.
    pub fn commit_worktree(
        &self,
        root: &Path,
        name: &str,
        message: &str,
    ) -> Result<CommitResult, AppError> {
        let worktree = self.active_worktree(root, name)?;
        Ok(git::commit_all(&worktree.path, message)?)
    }

    /// Merges the worktree's branch into its base branch (see
    /// [`arbor_coding::worktrees::merge_into_base`]).
    pub fn merge_worktree(&self, root: &Path, name: &str) -> Result<MergeOutcome, AppError> {
        let worktree = self.worktree(root, name)?;
        Ok(git::merge_into_base(
            &worktree.main_root,
            &worktree.row.branch,
            &worktree.row.base_branch,
        )?)
    }

    /// Pushes the worktree's branch to `origin`, with the GitHub token for its host only.
    pub fn push_worktree(&self, root: &Path, name: &str) -> Result<PushResult, AppError> {
        let worktree = self.worktree(root, name)?;
        let token = self.clone_token();
        Ok(git::push_branch(
            &worktree.main_root,
            &worktree.row.branch,
            token.as_ref(),
        )?)
    }
}
