//! Full-text search over node text (FTS5), across all projects.

use rusqlite::params;

use crate::db::Store;
use crate::error::Result;
use crate::ids::{resolve, IdTable};
use crate::model::{NodeKind, SearchHit, SearchOptions};

const DEFAULT_LIMIT: usize = 50;

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
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<SearchHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
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
}
