//! `arbor-export` — export and import of sessions (DESIGN §8, issue 5). Reads and writes the
//! store; knows nothing of live sessions.
//!
//! [`export_session`] writes a stored session in one of three [`ExportFormat`]s, for one
//! [`ExportScope`] (the current branch, or the whole tree); [`import_jsonl`] reads a JSONL export
//! back as a **new** session.
//!
//! # JSONL (lossless, version 1)
//!
//! Line 1 is the header, then one node per line, parents before children (store creation
//! order), every line ending in `\n`:
//!
//! ```text
//! {"type":"arbor_session","version":1,"session":{"id","title","title_is_custom","model",
//!   "thinking_level","created_at","updated_at","current_leaf","project_root","node_count"}}
//! {"type":"node","id","session_id","parent_id","kind","role","content","text","usage",
//!   "aborted","first_kept_id","tokens_before","created_at","label"}
//! ```
//!
//! `content` and `usage` are the stored JSON text, copied as is (not re-serialized); `label`
//! is the node's label (or `null`); `node_count` lets import detect a file cut at a line
//! boundary. With [`ExportScope::CurrentBranch`] only the path root → leaf is written.
//!
//! # Import
//!
//! [`import_jsonl`] validates the whole file first (header, every line, ids unique, each parent
//! and compaction `first_kept_id` among the nodes before it, the leaf known, the node count),
//! reporting the 1-based line of the first problem ([`ImportError`]). Only then does it write,
//! with [`arbor_store::Store::import_session`]: a new session in the project of
//! `project_root`, created with all its nodes, labels, search entries and leaf in **one**
//! transaction, so a failure, or the process being killed, leaves either the whole session or
//! nothing. New ids are given in file order (old → new mapped for parents, `first_kept_id`,
//! the leaf, and any JSON string in `content` equal to a node id of the file, such as a
//! compaction's `content.first_kept_id`); kept as they are: the order, kinds, roles,
//! contents, texts, usage, aborted flags, labels, model, thinking level, title (and whether it
//! was renamed), and the **timestamps** of the session (`created_at`, `updated_at`: an imported
//! session keeps its place in recency order) and of every node.
//!
//! **Not preserved:** ids (new ones), and the time each label was set (not exported; labels
//! are stamped with the session's `updated_at`).
//!
//! # Round trip
//!
//! export → import → export gives the same file after [`normalize_jsonl`], which replaces the
//! session id by `"session"` and each node id by `"node-N"` (N = its line order, 1-based)
//! wherever it appears as a whole JSON string (ids, parents, leaf, `first_kept_id`, inside
//! `content`). Nothing else changes: timestamps, contents and labels come back byte for byte.
//!
//! # Markdown and HTML
//!
//! Markdown: a title and metadata, then one heading per message (user, assistant, tool result,
//! compaction summary, ...); thinking as a quote, tool calls as fenced JSON, tool results in
//! fenced blocks capped at [`MARKDOWN_RESULT_MAX_LINES`] lines / [`MARKDOWN_RESULT_MAX_CHARS`]
//! characters with a note. With the whole tree, each fork opens nested "Branch" sections.
//!
//! HTML: one self-contained file (inline CSS and JS, no external URL, works offline): the
//! conversation with collapsible (`<details>`) thinking, tool calls and results, and the tree as
//! a nested list with the current leaf marked; clicking a tree entry shows the path to it. All
//! content is HTML-escaped.

mod html;
mod jsonl;
mod markdown;
mod render;

use arbor_error_code::ErrorCode;
use arbor_store::{Node, Session, Store, StoreError};

pub use jsonl::{import_jsonl, normalize_jsonl, ImportError, JSONL_VERSION};
pub use markdown::{MARKDOWN_RESULT_MAX_CHARS, MARKDOWN_RESULT_MAX_LINES};

/// Which part of a session to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExportScope {
    /// The path from the root to the current leaf.
    #[default]
    CurrentBranch,
    /// Every node of the tree.
    WholeTree,
}

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Lossless JSON Lines; can be imported again.
    Jsonl,
    Markdown,
    /// A self-contained HTML page.
    Html,
}

impl ExportFormat {
    /// Every format, in a stable order.
    pub const ALL: [ExportFormat; 3] = [
        ExportFormat::Markdown,
        ExportFormat::Jsonl,
        ExportFormat::Html,
    ];

    /// The name used on the command line (`markdown`, `jsonl`, `html`).
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Markdown => "markdown",
            ExportFormat::Html => "html",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Markdown => "md",
            ExportFormat::Html => "html",
        }
    }
}

impl ExportFormat {
    /// `markdown`/`md`, `jsonl`, `html`/`htm` (case-insensitive).
    pub fn parse(name: &str) -> Result<Self, UnknownExportOption> {
        match name.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" => Ok(ExportFormat::Markdown),
            "jsonl" => Ok(ExportFormat::Jsonl),
            "html" | "htm" => Ok(ExportFormat::Html),
            _ => Err(UnknownExportOption::Format(name.to_owned())),
        }
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = UnknownExportOption;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ExportFormat::parse(s)
    }
}

impl ExportScope {
    /// `branch` or `tree`.
    pub fn parse(name: &str) -> Result<Self, UnknownExportOption> {
        match name.trim().to_ascii_lowercase().as_str() {
            "branch" => Ok(ExportScope::CurrentBranch),
            "tree" => Ok(ExportScope::WholeTree),
            _ => Err(UnknownExportOption::Scope(name.to_owned())),
        }
    }

    /// What a format exports when no scope is named: Markdown the current branch (it reads
    /// as one conversation), JSONL and HTML the whole tree.
    pub fn default_for(format: ExportFormat) -> Self {
        match format {
            ExportFormat::Markdown => ExportScope::CurrentBranch,
            ExportFormat::Jsonl | ExportFormat::Html => ExportScope::WholeTree,
        }
    }
}

/// An export format or scope name that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownExportOption {
    #[error("unknown export format {0:?}: use markdown, jsonl or html")]
    Format(String),
    #[error("unknown export scope {0:?}: use branch or tree")]
    Scope(String),
}

impl UnknownExportOption {
    pub fn code(&self) -> ErrorCode {
        ErrorCode::InvalidExportOption
    }
}

/// Writing an export file failed; nothing was left half-written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: std::path::PathBuf,
    pub source: std::io::Error,
}

/// Writes through a temporary file in the same folder and a rename: the file is either the old
/// one or the whole new text, never half of it.
pub fn write_atomically(path: &std::path::Path, text: &str) -> Result<(), WriteError> {
    arbor_fs::write_atomic(path, text.as_bytes()).map_err(|source| WriteError {
        path: path.to_owned(),
        source,
    })
}

/// A session loaded for export: its nodes in creation order (parents first) with labels.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub session: Session,
    pub project_root: String,
    pub nodes: Vec<(Node, Option<String>)>,
    /// Nodes that could not be read from a damaged database and are left out.
    pub unreadable: Vec<String>,
}

impl Loaded {
    /// The session's nodes; when the database is damaged, every node that can still be read
    /// (one by one, over the outline index), the others listed in `unreadable`.
    fn load(store: &Store, session_id: &str, scope: ExportScope) -> Result<Loaded, StoreError> {
        match Self::load_whole(store, session_id, scope) {
            Err(error) if error.is_damage() => Self::load_readable(store, session_id, scope),
            other => other,
        }
    }

    fn load_readable(
        store: &Store,
        session_id: &str,
        scope: ExportScope,
    ) -> Result<Loaded, StoreError> {
        let (session, outline) = store.session_outline(session_id)?;
        let project_root = store.get_project(&session.project_id)?.root;
        let wanted: Vec<&arbor_store::OutlineNode> = match scope {
            ExportScope::WholeTree => outline.iter().collect(),
            ExportScope::CurrentBranch => {
                let by_id: std::collections::HashMap<&str, &arbor_store::OutlineNode> =
                    outline.iter().map(|n| (n.id.as_str(), n)).collect();
                let mut path = Vec::new();
                let mut at = session.leaf_id.as_deref();
                while let Some(node) = at.and_then(|id| by_id.get(id)) {
                    path.push(*node);
                    at = node.parent_id.as_deref();
                }
                path.reverse();
                path
            }
        };
        let mut nodes = Vec::new();
        let mut unreadable = Vec::new();
        for entry in wanted {
            match store.get_node(&entry.id) {
                Ok(node) => nodes.push((node, entry.label.clone())),
                Err(error) if error.is_damage() => unreadable.push(entry.id.clone()),
                Err(error) => return Err(error),
            }
        }
        Ok(Loaded {
            session,
            project_root,
            nodes,
            unreadable,
        })
    }

    fn load_whole(
        store: &Store,
        session_id: &str,
        scope: ExportScope,
    ) -> Result<Loaded, StoreError> {
        let tree = store.session_tree(session_id)?;
        let session = tree.session;
        let project_root = store.get_project(&session.project_id)?.root;
        let labels: std::collections::HashMap<String, Option<String>> = tree
            .nodes
            .iter()
            .map(|n| (n.id.clone(), n.label.clone()))
            .collect();
        let label_of = |id: &str| labels.get(id).cloned().flatten();
        let nodes = match scope {
            ExportScope::CurrentBranch => match &session.leaf_id {
                None => Vec::new(),
                Some(leaf) => store
                    .path_to(&session.id, leaf)?
                    .into_iter()
                    .map(|n| {
                        let label = label_of(&n.id);
                        (n, label)
                    })
                    .collect(),
            },
            ExportScope::WholeTree => tree
                .nodes
                .iter()
                .map(|t| Ok((store.get_node(&t.id)?, t.label.clone())))
                .collect::<Result<_, StoreError>>()?,
        };
        Ok(Loaded {
            session,
            project_root,
            nodes,
            unreadable: Vec::new(),
        })
    }
}

/// Exports the path from the root to `node_id` (id or unique prefix) of `session_id` in
/// `format`, as the current branch would be if `node_id` were the leaf (a JSONL export's
/// `current_leaf` is `node_id`).
pub fn export_branch(
    store: &Store,
    session_id: &str,
    node_id: &str,
    format: ExportFormat,
) -> Result<String, StoreError> {
    let tree = store.session_tree(session_id)?;
    let labels: std::collections::HashMap<&str, Option<String>> = tree
        .nodes
        .iter()
        .map(|n| (n.id.as_str(), n.label.clone()))
        .collect();
    let path = store.path_to(&tree.session.id, node_id)?;
    let mut session = tree.session.clone();
    session.leaf_id = path.last().map(|n| n.id.clone());
    let loaded = Loaded {
        project_root: store.get_project(&session.project_id)?.root,
        session,
        nodes: path
            .into_iter()
            .map(|n| {
                let label = labels.get(n.id.as_str()).cloned().flatten();
                (n, label)
            })
            .collect(),
        unreadable: Vec::new(),
    };
    match format {
        ExportFormat::Jsonl => jsonl::write(&loaded),
        ExportFormat::Markdown => Ok(markdown::write(&loaded, ExportScope::CurrentBranch)),
        ExportFormat::Html => Ok(html::write(&loaded)),
    }
}

/// Exports `session_id` (id or unique prefix) in `format`. Every format is UTF-8 text.
pub fn export_session(
    store: &Store,
    session_id: &str,
    scope: ExportScope,
    format: ExportFormat,
) -> Result<String, StoreError> {
    export_session_readable(store, session_id, scope, format).map(|export| export.text)
}

/// An export, and the nodes a damaged database could not give (left out).
#[derive(Debug, Clone)]
pub struct SessionExport {
    pub text: String,
    pub unreadable: Vec<String>,
}

/// [`export_session`] that goes on past damaged pages: what can be read is exported, and the
/// ids of the nodes that could not be are handed back for a note.
pub fn export_session_readable(
    store: &Store,
    session_id: &str,
    scope: ExportScope,
    format: ExportFormat,
) -> Result<SessionExport, StoreError> {
    let loaded = Loaded::load(store, session_id, scope)?;
    let text = match format {
        ExportFormat::Jsonl => jsonl::write(&loaded)?,
        ExportFormat::Markdown => markdown::write(&loaded, scope),
        ExportFormat::Html => html::write(&loaded),
    };
    Ok(SessionExport {
        text,
        unreadable: loaded.unreadable,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::html::escape;
    use super::render::cap;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape("<script>a & 'b' \"c\"</script>"),
            "&lt;script&gt;a &amp; &#39;b&#39; &quot;c&quot;&lt;/script&gt;"
        );
    }

    #[test]
    fn cap_keeps_short_text_and_notes_cuts() {
        assert_eq!(cap("a\nb", 5, 100), ("a\nb".to_string(), None));
        let (kept, note) = cap("1\n2\n3\n4", 2, 100);
        assert_eq!(kept, "1\n2");
        assert_eq!(note.unwrap(), "2 more lines not shown (4 lines in all)");
        let (kept, note) = cap(&"x".repeat(50), 5, 10);
        assert_eq!(kept, "x".repeat(10));
        assert!(note.unwrap().contains("cut at 10 characters"));
    }
}
