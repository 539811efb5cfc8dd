//! Ids and timestamps. Ids are UUID v7 strings (lowercase, hyphenated): they sort by creation
//! time, so `ORDER BY id` is chronological and a short prefix is usually unique.

use rusqlite::Connection;

use crate::error::{Result, StoreError};

/// How many candidates an ambiguous-prefix error lists.
const MAX_CANDIDATES: usize = 8;

/// A fresh time-ordered id.
pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Normalises a user-typed id or prefix (trimmed, lowercased) and rejects anything that cannot
/// be part of an id, which also keeps it from meaning anything special in SQL comparisons.
pub(crate) fn normalize(kind: &'static str, input: &str) -> Result<String> {
    let s = input.trim().to_ascii_lowercase();
    if s.is_empty() || s.len() > 36 || !s.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        return Err(StoreError::InvalidId {
            kind,
            id: input.to_string(),
        });
    }
    Ok(s)
}

/// Which table a prefix is resolved in.
#[derive(Clone, Copy)]
pub(crate) enum IdTable {
    Sessions,
    /// Nodes of one session (the `&str` is the session id).
    Nodes,
    Projects,
    ToolApprovals,
}

/// Resolves a unique id prefix to the full id. Full ids resolve to themselves (if they exist).
pub(crate) fn resolve(
    conn: &Connection,
    table: IdTable,
    session: Option<&str>,
    input: &str,
) -> Result<String> {
    let (kind, sql) = match table {
        IdTable::Sessions => (
            "session",
            "SELECT id FROM sessions WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        ),
        IdTable::Projects => (
            "project",
            "SELECT id FROM projects WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        ),
        IdTable::ToolApprovals => (
            "tool approval",
            "SELECT id FROM tool_approvals WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        ),
        IdTable::Nodes => (
            "node",
            "SELECT id FROM nodes WHERE id >= ?1 AND id < ?2 \
             AND (?4 IS NULL OR session_id = ?4) ORDER BY id LIMIT ?3",
        ),
    };
    let prefix = normalize(kind, input)?;
    // Ids only use [0-9a-f-], all below '~', so [prefix, prefix + "~") is exactly "starts with
    // prefix" and uses the primary-key index.
    let upper = format!("{prefix}~");
    let limit = i64::try_from(MAX_CANDIDATES + 1).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(sql)?;
    let mut found: Vec<String> = match table {
        IdTable::Nodes => stmt
            .query_map(rusqlite::params![prefix, upper, limit, session], |r| {
                r.get(0)
            })?
            .collect::<rusqlite::Result<_>>()?,
        _ => stmt
            .query_map(rusqlite::params![prefix, upper, limit], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?,
    };
    match found.len() {
        0 => Err(StoreError::NotFound {
            kind,
            id: input.to_string(),
        }),
        1 => Ok(found.remove(0)),
        _ => {
            if found.len() > MAX_CANDIDATES {
                found.truncate(MAX_CANDIDATES);
                found.push("…".into());
            }
            Err(StoreError::AmbiguousId {
                kind,
                prefix: input.to_string(),
                candidates: found,
            })
        }
    }
}
