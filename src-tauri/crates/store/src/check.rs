//! The quick check a writer's `open` runs: damaged pages refuse writing (`StoreError::Damaged`)
//! with what to do. A small database is checked before `open` returns; a larger one in the
//! background, and writes refuse once the check has found damage.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::error::{Result, StoreError};
use crate::Store;

/// A database up to this size (its file and its write-ahead log together: the check reads the
/// pages the log holds too) is quick-checked before `open` returns (well under a millisecond);
/// a larger one in the background, so a session's first request is not held up by it (the
/// check reads every page: 156 MB takes about 200 ms, which every `arbor -p` run would pay
/// before its request).
const CHECK_BEFORE_OPEN_MAX_BYTES: u64 = 512 * 1024;

impl Store {
    /// Checks the database as [`Store::open_file`] does: before returning when it is small, in
    /// the background otherwise.
    pub(crate) fn check_at_open(&self) -> Result<()> {
        let size_of = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
        let size = size_of(&self.path) + size_of(&wal_of(&self.path));
        if size <= CHECK_BEFORE_OPEN_MAX_BYTES {
            self.quick_check()
        } else {
            self.quick_check_in_background();
            Ok(())
        }
    }

    /// SQLite's quick check (pages, records and the b-trees, without comparing indexes to
    /// tables): damaged pages refuse the open for writing, with what to do.
    fn quick_check(&self) -> Result<()> {
        match quick_check_problems(&self.conn) {
            None => Ok(()),
            Some(problems) => Err(StoreError::Damaged {
                path: self.path.clone(),
                problems,
            }),
        }
    }

    /// [`Store::quick_check`] on a connection of its own, off the caller's thread: damage it
    /// finds makes every later write refuse (`Damaged`). A check that cannot start finds
    /// nothing (the writes themselves still fail on damaged pages).
    fn quick_check_in_background(&self) {
        let (path, damage) = (self.path.clone(), self.damage.clone());
        let _detached = std::thread::Builder::new()
            .name("arbor-store-check".into())
            .spawn(move || {
                lower_this_threads_priority();
                // After the session's first request is out: a run then waits on the provider
                // for seconds, and the check's reading costs it nothing; a run over sooner
                // (`arbor -p` against a local model) does not pay for it at all.
                std::thread::sleep(BACKGROUND_CHECK_DELAY);
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let Ok(conn) = Connection::open_with_flags(&path, flags) else {
                    return;
                };
                if let Some(problems) = quick_check_problems(&conn) {
                    if let Ok(mut slot) = damage.lock() {
                        *slot = Some(problems);
                    }
                }
            });
    }
}

/// How long after `open` the background quick check starts.
const BACKGROUND_CHECK_DELAY: std::time::Duration = std::time::Duration::from_millis(500);

/// The background check reads the whole database: it must not take a core from the session's
/// first request (`arbor -p` is over in tens of milliseconds on two cores), so its thread
/// runs at the lowest priority. Linux sets a priority per thread; elsewhere it keeps the
/// process's.
#[cfg(target_os = "linux")]
fn lower_this_threads_priority() {
    let thread = rustix::thread::gettid();
    // A refusal (a seccomp filter, say) only leaves the usual priority.
    let _ = rustix::process::setpriority_process(Some(thread), 19);
}

#[cfg(not(target_os = "linux"))]
fn lower_this_threads_priority() {}

/// The problems `PRAGMA quick_check` reports (`None`: healthy); a check that stops on a
/// damaged page is a problem too.
///
/// The check runs table by table, over every table stored in pages (the schema, each table
/// with its indexes, the full-text index's own tables). A check of the whole file would also
/// run FTS5's consistency check, which tokenizes every stored message again to compare it with
/// the index: most of the check's time (0.7 ms against 0.2 ms on a 400 KB database), for what
/// `arbor doctor` checks anyway. What the table by table check leaves out: the list of free
/// pages, which holds no data.
/// At most this many problems are reported (the first ones say enough).
const MAX_PROBLEMS: usize = 20;

fn quick_check_problems(conn: &Connection) -> Option<Vec<String>> {
    let check = || -> rusqlite::Result<Vec<String>> {
        let tables = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0")?
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        let mut problems = Vec::new();
        for table in std::iter::once("sqlite_schema".to_owned()).chain(tables) {
            let pragma = format!("PRAGMA quick_check(\"{}\")", table.replace('"', "\"\""));
            let rows = conn
                .prepare(&pragma)?
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            problems.extend(rows.into_iter().filter(|row| row != "ok"));
            if problems.len() >= MAX_PROBLEMS {
                problems.truncate(MAX_PROBLEMS);
                break;
            }
        }
        Ok(problems)
    };
    let problems = check().unwrap_or_else(|e| vec![e.to_string()]);
    (!problems.is_empty()).then_some(problems)
}

/// The write-ahead log beside the database at `path`.
fn wal_of(path: &Path) -> PathBuf {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}
