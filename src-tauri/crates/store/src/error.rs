//! The store's error type. Every message says what went wrong *and* what to do about it, because
//! front ends show these to users as they are.

use std::path::PathBuf;

/// Everything the store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data folder cannot be created or is not a folder.
    #[error("cannot use data folder {path}: {reason}; pass another folder with --data-dir or ARBOR_DATA_DIR")]
    DataDir { path: PathBuf, reason: String },

    /// The data folder (or the database in it) cannot be written.
    #[error("data folder {path} is read-only ({reason}); make it writable or pass another folder with --data-dir or ARBOR_DATA_DIR")]
    ReadOnly { path: PathBuf, reason: String },

    /// The file exists but is not an Arbor database (corrupt, or another program's file).
    #[error(
        "{path} is not an Arbor database ({reason}); move it aside or pass another --data-dir"
    )]
    NotArborDatabase { path: PathBuf, reason: String },

    /// The database was written by a newer Arbor with a schema this build does not know.
    #[error("{path} uses schema version {found}, newer than this Arbor understands ({supported}); upgrade Arbor")]
    SchemaTooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },

    /// No row with this id (or id prefix).
    #[error("no {kind} with id {id:?}; list ids with `arbor sessions` or `arbor tree`")]
    NotFound { kind: &'static str, id: String },

    /// An id prefix matches more than one row.
    #[error("id prefix {prefix:?} matches several {kind}s ({}); type more characters", candidates.join(", "))]
    AmbiguousId {
        kind: &'static str,
        prefix: String,
        candidates: Vec<String>,
    },

    /// The string cannot be an id (or an id prefix) at all.
    #[error("{id:?} is not a valid {kind} id: ids are lowercase hex digits and dashes")]
    InvalidId { kind: &'static str, id: String },

    /// A node id that exists, but in another session.
    #[error(
        "node {node} is not part of session {session}; pick a node from `arbor tree {session}`"
    )]
    NodeNotInSession { node: String, session: String },

    /// Another process kept the database locked for longer than the busy timeout.
    #[error("the database is busy (another Arbor process held its lock for more than {seconds} s); try again")]
    Busy { seconds: u64 },

    /// The caller passed something the store refuses (empty title, bad compaction, ...).
    #[error("invalid input: {0}")]
    InvalidInput(String),

    /// A node of [`crate::Store::import_session`] is inconsistent (index counted from 0).
    #[error("cannot import node {index} (counting from 0): {reason}; nothing was imported")]
    InvalidImport { index: usize, reason: String },

    /// A stored value does not decode (e.g. content that is not JSON).
    #[error("stored data is damaged: {0}")]
    Corrupt(String),

    /// SQLite's quick check found damaged pages at open: writing could spread the damage.
    #[error(
        "{path} is damaged ({}): run `arbor doctor` for a full check; `arbor sessions` and \
         `arbor export` still read what they can (unreadable messages are left out, with a \
         note); then move the file aside to start afresh, or restore it from a backup",
        problems.join("; ")
    )]
    Damaged {
        path: PathBuf,
        problems: Vec<String>,
    },

    /// The disk holding the database is full: nothing more was stored.
    #[error("the disk holding Arbor's database is full, so nothing more could be stored; free some space and try again")]
    DiskFull,

    /// A value is larger than SQLite accepts.
    #[error("a message is too large to store ({0}); nothing of it was stored")]
    TooBig(String),

    /// Any other SQLite failure.
    #[error("database error: {0}")]
    Sqlite(#[source] rusqlite::Error),
}

impl StoreError {
    /// Whether this is damage in the database file (a page or a value that cannot be read),
    /// as opposed to a missing id, a busy lock or bad input: a reader can skip what is damaged.
    pub fn is_damage(&self) -> bool {
        match self {
            StoreError::Corrupt(_) | StoreError::Damaged { .. } => true,
            StoreError::NotArborDatabase { .. } => false,
            StoreError::Sqlite(inner) => matches!(
                inner.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            ),
            _ => false,
        }
    }
}

/// Shorthand used throughout the crate.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy {
                seconds: crate::db::BUSY_TIMEOUT.as_secs(),
            },
            Some(ErrorCode::DiskFull) => StoreError::DiskFull,
            Some(ErrorCode::TooBig) => StoreError::TooBig(e.to_string()),
            _ => match e {
                rusqlite::Error::FromSqlConversionFailure(col, _, inner) => {
                    StoreError::Corrupt(format!("column {col}: {inner}"))
                }
                e => StoreError::Sqlite(e),
            },
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(format!("invalid JSON: {e}"))
    }
}
