//! Full-text search over node text (FTS5), across all projects.

use rusqlite::params;

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::{resolve, IdTable};
use crate::model::{NodeKind, SearchHit, SearchOptions};

const DEFAULT_LIMIT: usize = 50;

/// Nodes indexed per transaction by [`Store::index_pending`].
const INDEX_BATCH: i64 = 500;

/// Turns what a user typed into a safe FTS5 query: every whitespace-separated word becomes a
/// quoted phrase (so `"`, `*`, `-`, `:`, `(`, `OR`, `NEAR` … are plain text), all words must
/// match, and a trailing `*` keeps its prefix meaning. Words without a letter or digit are
/// dropped since they cannot match a token. `None` when nothing searchable is left.
pub fn fts_query(input: &str) -> Option<String> {
    let terms: Vec<String> = input
        .split_whitespace()
        .filter_map(|word| {
            let core = word.trim_end_matches('*');
            if !core.chars().any(char::is_alphanumeric) {
                return None;
            }
            let star = if core.len() < word.len() { "*" } else { "" };
            Some(format!("\"{}\"{star}", core.replace('"', "\"\"")))
        })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

impl Store {
    /// Nodes whose text matches every word of `query`, best match first. The query is plain
    /// text (see [`fts_query`]); a query with nothing searchable returns no hits.
    ///
    /// Nodes stored since the last search are indexed first ([`Store::index_pending`]); a
    /// read-only connection cannot, and finds only what earlier searches indexed (open the
    /// store for writing to index them, as [`Store::index_pending_in`] does).
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<SearchHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
        if !self.is_read_only() {
            match self.index_pending() {
                // A damaged database refuses writes; what is indexed can still be searched.
                Ok(_) | Err(StoreError::Damaged { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        let limit = i64::try_from(options.limit.unwrap_or(DEFAULT_LIMIT)).unwrap_or(i64::MAX);
        self.read(|c| {
            let session = options
                .session_id
                .as_deref()
                .map(|s| resolve(c, IdTable::Sessions, None, s))
                .transpose()?;
            let mut stmt = c.prepare_cached(
                "SELECT s.project_id, p.root, s.id, s.title, n.id, n.kind,
                        snippet(nodes_fts, 0, '[', ']', '…', 12), n.created_at
                 FROM nodes_fts f
                 JOIN nodes n ON n.seq = f.rowid
                 JOIN sessions s ON s.id = n.session_id
                 JOIN projects p ON p.id = s.project_id
                 WHERE nodes_fts MATCH ?1
                   AND (?2 IS NULL OR s.project_id = ?2)
                   AND (?3 IS NULL OR s.id = ?3)
                 ORDER BY f.rank, n.seq DESC
                 LIMIT ?4",
            )?;
            let rows = stmt.query_map(params![fts, options.project_id, session, limit], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, i64>(7)?,
                ))
            })?;
            let mut hits = Vec::new();
            for row in rows {
                let (
                    project_id,
                    project_root,
                    session_id,
                    session_title,
                    node_id,
                    kind,
                    snippet,
                    created_at,
                ) = row?;
                hits.push(SearchHit {
                    project_id,
                    project_root,
                    session_id,
                    session_title,
                    node_id,
                    kind: NodeKind::parse(&kind)?,
                    snippet,
                    created_at,
                });
            }
            Ok(hits)
        })
    }

    /// Indexes for search the nodes stored since the last search (stored nodes wait in
    /// `nodes_fts_pending`: indexing each as it is stored cost every stored message about a
    /// millisecond of FTS5 work). Returns how many were indexed; a store with nothing pending
    /// is not written to. Each batch of 500 nodes is one transaction, indexed and
    /// taken off the list together, so a long backlog holds other writers up a batch at a time.
    pub fn index_pending(&self) -> Result<usize> {
        let mut indexed = 0;
        loop {
            let pending: bool = self.conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM nodes_fts_pending)",
                [],
                |r| r.get(0),
            )?;
            if !pending {
                return Ok(indexed);
            }
            indexed += self.write(|c| {
                let batch = c
                    .prepare_cached(
                        "INSERT INTO nodes_fts(rowid, text)
                         SELECT n.seq, n.text
                         FROM (SELECT seq FROM nodes_fts_pending ORDER BY seq LIMIT ?1) p
                         JOIN nodes n ON n.seq = p.seq",
                    )?
                    .execute([INDEX_BATCH])?;
                c.prepare_cached(
                    "DELETE FROM nodes_fts_pending WHERE seq IN
                     (SELECT seq FROM nodes_fts_pending ORDER BY seq LIMIT ?1)",
                )?
                .execute([INDEX_BATCH])?;
                Ok(batch)
            })?;
        }
    }

    /// [`Store::index_pending`] for a reader whose own connection is read-only: a connection
    /// for writing is opened for it. Nothing is indexed (and `Ok(0)` returned) when the data
    /// folder cannot be written or the database is damaged (it refuses writes): its searches
    /// then find what was indexed before.
    pub fn index_pending_in(data_dir: &std::path::Path) -> Result<usize> {
        match Store::open(data_dir).and_then(|writer| writer.index_pending()) {
            Err(StoreError::ReadOnly { .. } | StoreError::Damaged { .. }) => Ok(0),
            indexed => indexed,
        }
    }

    /// Whether this connection only reads ([`Store::open_read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true)
    }
}
