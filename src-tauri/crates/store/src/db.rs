//! Opening the database: the data folder, pragmas, the "is this ours?" check and migrations.
//! Also the two transaction helpers every other module goes through.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::error::{Result, StoreError};

/// The database file's name inside the data folder.
pub const DB_FILE_NAME: &str = "arbor.db";

/// How long a statement waits for another connection's lock before failing with
/// [`StoreError::Busy`]. Write transactions are short, so this is only reached when something
/// holds the lock abnormally long.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// `PRAGMA application_id` of an Arbor database ('ARBR'), set by the first migration.
pub const APPLICATION_ID: i32 = 0x4152_4252;

/// Forward-only migrations; entry `i` upgrades schema version `i` to `i + 1`.
/// Never edit a released entry: append a new file.
const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../migrations/0001_init.sql")),
    ("0002_fts", include_str!("../migrations/0002_fts.sql")),
    (
        "0003_outline",
        include_str!("../migrations/0003_outline.sql"),
    ),
    (
        "0004_node_code",
        include_str!("../migrations/0004_node_code.sql"),
    ),
    ("0005_tools", include_str!("../migrations/0005_tools.sql")),
    (
        "0006_permissions",
        include_str!("../migrations/0006_permissions.sql"),
    ),
    (
        "0007_worktrees",
        include_str!("../migrations/0007_worktrees.sql"),
    ),
    (
        "0008_project_prompt",
        include_str!("../migrations/0008_project_prompt.sql"),
    ),
    ("0009_mcp", include_str!("../migrations/0009_mcp.sql")),
    (
        "0010_fts_pending",
        include_str!("../migrations/0010_fts_pending.sql"),
    ),
];

/// The schema version this build creates and understands (`PRAGMA user_version`).
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// A connection to one Arbor database. Cheap operations, each its own transaction.
///
/// `Store` is `Send` but not `Sync`: share it behind a `Mutex`, or open one per thread/process
/// (several connections and processes writing the same file is supported).
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    /// What the quick check run in the background (a large database) found: writes refuse
    /// once it reports damage.
    pub(crate) damage: Arc<Mutex<Option<Vec<String>>>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// Another connection to an open [`Store`]'s database, not opened yet ([`Store::another_later`]).
#[derive(Debug, Clone)]
pub struct AnotherConnection {
    path: PathBuf,
    damage: Arc<Mutex<Option<Vec<String>>>>,
}

impl AnotherConnection {
    /// Opens the connection (as [`Store::open_another`]).
    pub fn open(&self) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags)
            .map_err(|e| open_error(&self.path, "cannot open the database file", e))?;
        let store = Store {
            conn,
            path: self.path.clone(),
            damage: Arc::clone(&self.damage),
        };
        store.configure()?;
        Ok(store)
    }
}

impl Store {
    /// Opens (creating if needed) `DATA_DIR/arbor.db`, creating the folder too, and brings the
    /// schema up to date.
    pub fn open(data_dir: &Path) -> Result<Store> {
        prepare_data_dir(data_dir)?;
        Store::open_file(&data_dir.join(DB_FILE_NAME))
    }

    /// Opens `DATA_DIR/arbor.db` only to read it (listings, trees, search, export, `doctor`):
    /// works in a read-only data folder or on a read-only file system, never creates or
    /// migrates anything, and skips the quick check so a damaged database can still be read
    /// (each read fails on its own damaged pages). A database of an older schema must be
    /// opened for writing once to be upgraded.
    pub fn open_read_only(data_dir: &Path) -> Result<Store> {
        let path = data_dir.join(DB_FILE_NAME);
        if !path.is_file() {
            return Err(StoreError::DataDir {
                path: path.clone(),
                reason: "there is no database here yet (nothing was stored)".into(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let open = |uri: String| -> Result<Store> {
            let conn = Connection::open_with_flags(&uri, flags)
                .map_err(|e| open_error(&path, "cannot open the database file", e))?;
            let store = Store {
                conn,
                path: path.clone(),
                damage: Arc::default(),
            };
            store.check_header(true)?;
            Ok(store)
        };
        let uri = format!("file:{}", uri_path(&path));
        match open(uri.clone()) {
            Ok(store) => Ok(store),
            // In a read-only folder SQLite cannot create the WAL's shared-memory file: read
            // the file as immutable instead (nobody can be writing to a folder nobody can
            // write to).
            Err(_) => open(format!("{uri}?immutable=1")),
        }
    }

    /// Opens (creating if needed) the database at `path`; its folder must exist.
    pub fn open_file(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| open_error(path, "cannot open the database file", e))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
            damage: Arc::default(),
        };
        store.configure()?;
        store.check_at_open()?;
        store.migrate()?;
        Ok(store)
    }

    /// Another connection to this store's database, for a part of the app that writes on its
    /// own (the model's tools' approvals, say): the database was checked and migrated when this
    /// one opened, so it is not again, and damage either connection's check finds is seen by
    /// both.
    pub fn open_another(&self) -> Result<Store> {
        self.another_later().open()
    }

    /// What [`Store::open_another`] needs, to open that connection only when it is first used:
    /// a connection costs a read of the schema (about 0.4 ms), which a part that seldom writes
    /// (most runs of `arbor -p` never touch the model's tools' approvals) need not pay.
    pub fn another_later(&self) -> AnotherConnection {
        AnotherConnection {
            path: self.path.clone(),
            damage: Arc::clone(&self.damage),
        }
    }

    /// The database file this store writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open database (equals [`SCHEMA_VERSION`] after `open`).
    pub fn schema_version(&self) -> Result<u32> {
        Ok(self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// Runs SQLite's and FTS5's consistency checks; returns the problems found (empty = healthy).
    pub fn check_integrity(&self) -> Result<Vec<String>> {
        // Each check that cannot even run (a damaged page stops it) is itself a problem found.
        let mut problems = Vec::new();
        let integrity = self
            .conn
            .prepare("PRAGMA integrity_check")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<String>>>()
            });
        match integrity {
            Ok(rows) => problems.extend(rows.into_iter().filter(|row| row != "ok")),
            Err(e) => problems.push(format!("integrity check stopped: {e}")),
        }
        let foreign = self
            .conn
            .prepare("PRAGMA foreign_key_check")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| {
                    Ok(format!(
                        "foreign key violation in {} row {:?} -> {}",
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, String>(2)?
                    ))
                })?
                .collect::<rusqlite::Result<Vec<String>>>()
            });
        match foreign {
            Ok(rows) => problems.extend(rows),
            Err(e) => problems.push(format!("foreign key check stopped: {e}")),
        }
        // FTS5's check is run as a write; a read-only connection (`arbor doctor`) checks the
        // same through a query that reads every row of the index.
        let fts = if self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            self.conn
                .query_row("SELECT count(*) FROM nodes_fts", [], |r| r.get::<_, i64>(0))
                .map(|_| ())
        } else {
            // FTS5 compares the index with every node: the nodes waiting to be indexed are
            // indexed first.
            if let Err(e) = self.index_pending() {
                problems.push(format!(
                    "full-text index: cannot index the newest nodes: {e}"
                ));
            }
            self.conn
                .execute(
                    "INSERT INTO nodes_fts(nodes_fts) VALUES ('integrity-check')",
                    [],
                )
                .map(|_| ())
        };
        if let Err(e) = fts {
            problems.push(format!("full-text index: {e}"));
        }
        Ok(problems)
    }

    /// Reads the header and checks the file is Arbor's; `reading`: also that its schema is the
    /// one this build reads (a reader cannot migrate).
    fn check_header(&self, reading: bool) -> Result<(u32, i64)> {
        let c = &self.conn;
        c.busy_timeout(BUSY_TIMEOUT)?;
        c.set_prepared_statement_cache_capacity(64);
        let header = c
            .pragma_query_value(None, "application_id", |r| r.get::<_, i32>(0))
            .and_then(|app| {
                let version: u32 = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
                let tables: i64 =
                    c.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
                Ok((app, version, tables))
            });
        let (app, version, tables) =
            header.map_err(|e| open_error(&self.path, "cannot read the database", e))?;
        if app != APPLICATION_ID && (version != 0 || tables != 0) {
            return Err(StoreError::NotArborDatabase {
                path: self.path.clone(),
                reason: "it is an SQLite database of another program".into(),
            });
        }
        if reading && version > SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew {
                path: self.path.clone(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if reading && version < SCHEMA_VERSION {
            return Err(StoreError::ReadOnly {
                path: folder_of(&self.path),
                reason: format!(
                    "its database has schema version {version} and must be upgraded to \
                     {SCHEMA_VERSION} by opening it once with write access"
                ),
            });
        }
        Ok((version, tables))
    }

    fn configure(&self) -> Result<()> {
        // Look before touching anything: a foreign or corrupt file must not be converted to WAL.
        self.check_header(false)?;
        let c = &self.conn;
        let mode: String = c
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(|e| open_error(&self.path, "cannot switch to WAL", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::DataDir {
                path: self.path.clone(),
                reason: format!("the file system does not support SQLite's WAL mode (got {mode})"),
            });
        }
        // WAL + NORMAL: a commit is durable against a process crash (kill -9), and only the last
        // commits can be lost on power failure; the database is never corrupted either way.
        c.pragma_update(None, "synchronous", "NORMAL")?;
        c.pragma_update(None, "foreign_keys", "ON")?;
        // Read pages straight from the OS page cache instead of copying them through SQLite's
        // 2 MB cache: building a 10k-node context measured ~20% faster. (Address space only.)
        c.pragma_update(None, "mmap_size", 256 * 1024 * 1024)?;
        // The cache then holds mostly pages read from the write-ahead log (the map cannot serve
        // them), and each connection keeps its own: 1 MiB each instead of SQLite's 2. The
        // desktop keeps several connections for hours; a short run never fills one.
        c.pragma_update(None, "cache_size", -1024)?;
        // Closing never folds the write-ahead log into the database: SQLite's automatic
        // checkpoint (every 1,000 pages) keeps the log bounded. A checkpoint at close cost a short
        // run (`arbor -p`) about 1.6 ms: three syncs at exit, then a new log created and its
        // folder synced at the next start (measured against leaving the log, `bench-cli.sh`).
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        Ok(())
    }

    fn migrate(&self) -> Result<()> {
        let current = self.schema_version()?;
        if current == SCHEMA_VERSION {
            return Ok(());
        }
        self.write(|c| {
            // Re-read under the write lock: another process may have migrated meanwhile.
            let current: u32 = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if current > SCHEMA_VERSION {
                return Err(StoreError::SchemaTooNew {
                    path: self.path.clone(),
                    found: current,
                    supported: SCHEMA_VERSION,
                });
            }
            for (i, (name, sql)) in MIGRATIONS.iter().enumerate().skip(current as usize) {
                c.execute_batch(sql)
                    .map_err(|e| StoreError::Corrupt(format!("migration {name} failed: {e}")))?;
                c.pragma_update(None, "user_version", i as u32 + 1)?;
            }
            Ok(())
        })
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so two
    /// writers queue on the busy timeout instead of failing on a read→write upgrade.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let found = self.damage.lock().ok().and_then(|slot| slot.clone());
        if let Some(problems) = found {
            return Err(StoreError::Damaged {
                path: self.path.clone(),
                problems,
            });
        }
        self.transaction("BEGIN IMMEDIATE", f)
    }

    /// Runs `f` in a read transaction, so multi-statement reads see one snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.transaction("BEGIN DEFERRED", f)
    }

    fn transaction<T>(&self, begin: &str, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.conn
            .execute_batch(begin)
            .map_err(|e| self.classify(e.into()))?;
        let result = f(&self.conn).and_then(|v| {
            self.conn.execute_batch("COMMIT")?;
            Ok(v)
        });
        if result.is_err() && !self.conn.is_autocommit() {
            // Best effort: if even ROLLBACK fails the connection is unusable and the next call
            // reports that; the database itself stays consistent either way.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        result.map_err(|e| self.classify(e))
    }

    /// Turns a read-only failure into an error that names the data folder.
    fn classify(&self, e: StoreError) -> StoreError {
        match e {
            StoreError::Sqlite(inner)
                if matches!(
                    inner.sqlite_error_code(),
                    Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
                ) =>
            {
                StoreError::ReadOnly {
                    path: folder_of(&self.path),
                    reason: inner.to_string(),
                }
            }
            other => other,
        }
    }
}

/// `path` for an SQLite `file:` URI (the characters URIs reserve, percent-encoded).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'?' | b'#' | b'%' => out.push_str(&format!("%{byte:02X}")),
            _ => out.push(char::from(byte)),
        }
    }
    out
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Maps an error met while opening to the clearest variant.
fn open_error(path: &Path, what: &str, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotArborDatabase {
            path: path.to_path_buf(),
            reason: "the file is not an SQLite database or is damaged".into(),
        },
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly {
            path: folder_of(path),
            reason: format!("{what}: {e}"),
        },
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => StoreError::DataDir {
            path: path.to_path_buf(),
            reason: format!("{what}: {e}"),
        },
        _ => StoreError::from(e),
    }
}

/// Creates the data folder and proves it is writable, so a read-only folder fails here with
/// its name rather than later with an SQLite message.
fn prepare_data_dir(dir: &Path) -> Result<()> {
    let io_err = |e: std::io::Error, what: &str| -> StoreError {
        match e.kind() {
            ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => StoreError::ReadOnly {
                path: dir.to_path_buf(),
                reason: format!("{what}: {e}"),
            },
            _ => StoreError::DataDir {
                path: dir.to_path_buf(),
                reason: format!("{what}: {e}"),
            },
        }
    };
    if dir.exists() && !dir.is_dir() {
        return Err(StoreError::DataDir {
            path: dir.to_path_buf(),
            reason: "it is a file, not a folder".into(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| io_err(e, "cannot create it"))?;
    let probe = dir.join(format!(".arbor-write-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&probe)
        .map_err(|e| io_err(e, "cannot create files in it"))?;
    // The probe proved the point; failing to remove it is harmless.
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
