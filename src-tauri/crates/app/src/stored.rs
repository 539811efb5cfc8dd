//! [`StoredSessions`]: a data folder's stored sessions without a live session — what the CLI's
//! `sessions`, `tree`, `search`, `export`, `import`, `diff`, `restore` and `doctor` work on,
//! through the session API like every other front end (the CLI names no store type).
//!
//! Listings and exports open the database read-only when it exists, so a read-only data folder
//! or a damaged file still lists and exports (a damaged database refuses every write); import
//! and the code commands open it for writing.

use std::path::{Path, PathBuf};

use arbor_coding::export::{
    export_session_readable, import_jsonl, ExportFormat, ExportScope, SessionExport,
};
use arbor_coding::SessionRecorder;
use arbor_protocol::views::branch::{SearchHit, SessionTreeView};
use arbor_protocol::views::SessionListItem;
use arbor_store::{SearchOptions, Store, DB_FILE_NAME};

use crate::{code_tracker, search_hits, session_list_items, stored_tree_view, AppError};

/// The stored sessions of one data folder (see the module docs).
#[derive(Debug)]
pub struct StoredSessions {
    store: Store,
    data_dir: PathBuf,
}

/// A session made by [`StoredSessions::import_jsonl`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedSession {
    pub id: String,
    pub title: String,
}

/// What [`StoredSessions::check_integrity`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseCheck {
    /// Nothing stored yet: nothing to check.
    NoDatabase(PathBuf),
    /// Pages, indexes and the full-text index are sound.
    Sound(PathBuf),
    /// What is wrong, one line each.
    Damaged(PathBuf, Vec<String>),
}

/// Why a code command cannot use a node from here.
#[derive(Debug, thiserror::Error)]
pub enum WrongProject {
    #[error("{} has no Arbor sessions: run this in the project's folder (or with -C DIR)", .0.display())]
    NoSessionsHere(PathBuf),
    #[error("node {node} belongs to the project at {root}: run this there (or with -C {root})")]
    OtherProject { node: String, root: String },
}

impl StoredSessions {
    /// For reading: read-only when the database exists, else a new one (an empty listing).
    pub fn open_for_reading(data_dir: &Path) -> Result<Self, AppError> {
        let store = if data_dir.join(DB_FILE_NAME).is_file() {
            Store::open_read_only(data_dir)?
        } else {
            Store::open(data_dir)?
        };
        Ok(Self {
            store,
            data_dir: data_dir.to_owned(),
        })
    }

    /// For a run's permissions (`--no-session`): opened as for storing, but only when the
    /// data folder has a database (`None`: nothing was ever stored, so nothing was saved).
    pub fn open_if_stored(data_dir: &Path) -> Result<Option<Self>, AppError> {
        if !data_dir.join(DB_FILE_NAME).exists() {
            return Ok(None);
        }
        Self::open(data_dir).map(Some)
    }

    pub(crate) fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// For writing (import, the code commands).
    pub fn open(data_dir: &Path) -> Result<Self, AppError> {
        Ok(Self {
            store: Store::open(data_dir)?,
            data_dir: data_dir.to_owned(),
        })
    }

    /// The whole database checked (`arbor doctor`), read-only; a missing database is not
    /// created.
    pub fn check_integrity(data_dir: &Path) -> Result<DatabaseCheck, AppError> {
        let path = data_dir.join(DB_FILE_NAME);
        if !path.is_file() {
            return Ok(DatabaseCheck::NoDatabase(path));
        }
        let problems = Store::open_read_only(data_dir)?.check_integrity()?;
        Ok(if problems.is_empty() {
            DatabaseCheck::Sound(path)
        } else {
            DatabaseCheck::Damaged(path, problems)
        })
    }

    /// The sessions of the project at `project_root` (none when it has no sessions), or of
    /// every project, most recent first.
    pub fn list(&self, project_root: Option<&Path>) -> Result<Vec<SessionListItem>, AppError> {
        let summaries = match project_root {
            None => self.store.list_sessions(None, None)?,
            Some(root) => match self.store.find_project(root)? {
                Some(project) => self.store.list_sessions(Some(&project.id), None)?,
                None => Vec::new(),
            },
        };
        Ok(session_list_items(&self.store, summaries)?)
    }

    /// A session's tree (an id or a unique prefix) with its title.
    pub fn tree(&self, session_id: &str) -> Result<(String, SessionTreeView), AppError> {
        stored_tree_view(&self.store, session_id)
    }

    /// Full-text search over every stored message.
    pub fn search(&self, query: &str) -> Result<Vec<SearchHit>, AppError> {
        if self.store.is_read_only() {
            // What was stored since the last search is indexed first, which takes a write.
            Store::index_pending_in(&self.data_dir)?;
        }
        Ok(search_hits(&self.store, query, &SearchOptions::default())?)
    }

    /// A session exported; messages a damaged database cannot read are left out and named.
    pub fn export(
        &self,
        session_id: &str,
        scope: ExportScope,
        format: ExportFormat,
    ) -> Result<SessionExport, AppError> {
        Ok(export_session_readable(
            &self.store,
            session_id,
            scope,
            format,
        )?)
    }

    /// A lossless JSONL export stored again as a new session of the project at `project_root`.
    pub fn import_jsonl(
        &self,
        bytes: &[u8],
        project_root: &Path,
    ) -> Result<ImportedSession, AppError> {
        let session = import_jsonl(&self.store, bytes, project_root)?;
        Ok(ImportedSession {
            id: session.id,
            title: session.title,
        })
    }

    /// A recorder over the project at `cwd` with its snapshots, for the code commands on
    /// `nodes` (ids or prefixes), which must be that project's.
    pub fn code_recorder(self, cwd: &Path, nodes: &[&str]) -> Result<SessionRecorder, AppError> {
        let root = cwd
            .canonicalize()
            .map_err(|source| crate::ProjectError::Io {
                path: cwd.display().to_string(),
                source,
            })?;
        let store = self.store;
        let project = store
            .find_project(&root)?
            .ok_or_else(|| WrongProject::NoSessionsHere(root.clone()))?;
        for node in nodes {
            let found = store.get_node(node)?;
            let session = store.get_session(&found.session_id)?;
            if session.project_id != project.id {
                let other = store.get_project(&session.project_id)?;
                return Err(WrongProject::OtherProject {
                    node: found.id,
                    root: other.root,
                }
                .into());
            }
        }
        let recorder = SessionRecorder::new(store, &root)?;
        recorder.set_code_tracker(Some(code_tracker(&self.data_dir, &project)));
        Ok(recorder)
    }

    /// The store itself, for a live session to record into
    /// ([`crate::LiveSession::connect_store`]).
    pub fn into_store(self) -> Store {
        self.store
    }
}
