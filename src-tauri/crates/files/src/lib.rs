//! `arbor-files`: the project's files as people browse them — not as tools read them.
//!
//! Map:
//! - `index.rs`: [`FileIndex`], the project's non-ignored files walked once (`ignore`, in
//!   parallel) and kept warm: the composer's `@` finder matches a query against it with
//!   `nucleo-matcher`; a query on an index older than [`STALE_AFTER`] answers at once from it and
//!   walks again in the background.
//! - `folder.rs`: [`list_folder`], one folder of the files panel with ignored entries marked.
//! - `preview.rs`: [`preview`], a read-only look at one file (text, a document's text, an image),
//!   capped.
//!
//! Paths cross as relative, `/`-separated strings; every path a front end sends is resolved and
//! must stay inside the project (links included) and outside the folders the caller excludes
//! (Arbor's own data). Secrets are the caller's concern: it checks its secret paths and redacts.

mod folder;
mod index;
mod paths;
mod preview;

use std::path::PathBuf;

use arbor_error_code::ErrorCode;

pub use folder::{list_folder, MAX_FOLDER_ENTRIES};
pub use index::{FileIndex, MAX_INDEXED_FILES, STALE_AFTER};
pub use paths::resolve_inside;
pub use preview::{preview, text_of, MAX_PREVIEW_BYTES};

#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("{path} is outside the project: only the project's files are shown")]
    Outside { path: String },
    #[error("{path} is Arbor's own data, not a project file")]
    ArborOwned { path: String },
    #[error("{path} does not exist (it may have been moved or deleted)")]
    NotFound { path: String },
    #[error("{path} is not a folder")]
    NotAFolder { path: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl FilesError {
    pub fn code(&self) -> ErrorCode {
        match self {
            FilesError::Outside { .. } => ErrorCode::InvalidPath,
            FilesError::ArborOwned { .. } => ErrorCode::PermissionDenied,
            FilesError::NotFound { .. } => ErrorCode::NotFound,
            FilesError::NotAFolder { .. } => ErrorCode::NotADirectory,
            FilesError::Io { .. } => ErrorCode::Io,
        }
    }
}

/// Folders never shown or indexed, whatever the ignore files say: the caller's (Arbor's data)
/// plus every `.git`.
#[derive(Debug, Clone, Default)]
pub struct Excluded(pub Vec<PathBuf>);

impl Excluded {
    pub(crate) fn contains(&self, path: &std::path::Path) -> bool {
        path.file_name().is_some_and(|name| name == ".git")
            || self.0.iter().any(|folder| path.starts_with(folder))
    }
}
