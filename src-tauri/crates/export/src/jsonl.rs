//! The JSONL format: writing, validating and importing, and the round-trip normalisation.

use std::collections::HashMap;
use std::path::Path;

use arbor_store::{ImportedNode, ImportedSession, NodeKind, Session, Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::Loaded;

/// The JSONL format version this build writes and reads.
pub const JSONL_VERSION: u64 = 1;

/// The `type` of the header line.
const HEADER_TYPE: &str = "arbor_session";
/// The `type` of a node line.
const NODE_TYPE: &str = "node";

/// Why an import failed. Lines are 1-based; line 1 is the header.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("the file is empty; expected an Arbor session export (JSONL)")]
    Empty,

    #[error("the file is not UTF-8 text (invalid byte at offset {offset}); expected an Arbor session export (JSONL)")]
    NotUtf8 { offset: usize },

    #[error("line {line} is not JSON ({reason}); expected an Arbor session export (JSONL, one JSON object per line)")]
    NotJsonl { line: usize, reason: String },

    #[error("not an Arbor session export: {reason} (line 1 must be a header with \"type\":\"arbor_session\")")]
    NotArborExport { reason: String },

    #[error("unsupported Arbor export version {found} (this Arbor reads version {supported}); upgrade Arbor")]
    UnsupportedVersion { found: String, supported: u64 },

    #[error("the file is truncated: {reason}; export the session again")]
    Truncated { reason: String },

    #[error("line {line}: {reason}")]
    InvalidLine { line: usize, reason: String },

    #[error("line {line}: node id {id:?} was already used on line {first_line}")]
    DuplicateId {
        line: usize,
        id: String,
        first_line: usize,
    },

    #[error(
        "line {line}: node {id:?} has parent {parent:?}, which is not among the nodes before it"
    )]
    MissingParent {
        line: usize,
        id: String,
        parent: String,
    },

    #[error("importing line {line} failed: {source}")]
    Write {
        line: usize,
        #[source]
        source: StoreError,
    },

    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    #[serde(rename = "type")]
    kind: String,
    version: u64,
    session: HeaderSession,
}

#[derive(Debug, Serialize, Deserialize)]
struct HeaderSession {
    id: String,
    title: String,
    #[serde(default)]
    title_is_custom: bool,
    model: Option<String>,
    thinking_level: Option<String>,
    created_at: i64,
    updated_at: i64,
    current_leaf: Option<String>,
    project_root: String,
    node_count: u64,
}

/// A node line as written: `content` and `usage` are the stored JSON text, copied as is.
#[derive(Debug, Serialize)]
struct NodeLineOut<'a> {
    #[serde(rename = "type")]
    kind_tag: &'static str,
    id: &'a str,
    session_id: &'a str,
    parent_id: Option<&'a str>,
    kind: NodeKind,
    role: Option<&'a str>,
    content: &'a RawValue,
    text: &'a str,
    usage: Option<&'a RawValue>,
    aborted: bool,
    first_kept_id: Option<&'a str>,
    tokens_before: Option<u64>,
    created_at: i64,
    label: Option<&'a str>,
}

/// A node line as read (its `type` is checked before).
#[derive(Debug, Deserialize)]
struct NodeLine {
    id: String,
    session_id: String,
    parent_id: Option<String>,
    kind: NodeKind,
    role: Option<String>,
    content: Value,
    text: String,
    usage: Option<Value>,
    aborted: bool,
    first_kept_id: Option<String>,
    tokens_before: Option<u64>,
    created_at: i64,
    label: Option<String>,
}

/// Writes the JSONL export.
pub(super) fn write(loaded: &Loaded) -> Result<String, StoreError> {
    let s = &loaded.session;
    let header = Header {
        kind: HEADER_TYPE.into(),
        version: JSONL_VERSION,
        session: HeaderSession {
            id: s.id.clone(),
            title: s.title.clone(),
            title_is_custom: s.title_is_custom,
            model: s.model.clone(),
            thinking_level: s.thinking_level.clone(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            current_leaf: s.leaf_id.clone(),
            project_root: loaded.project_root.clone(),
            node_count: loaded.nodes.len() as u64,
        },
    };
    let mut out = serde_json::to_string(&header)?;
    out.push('\n');
    for (n, label) in &loaded.nodes {
        let line = NodeLineOut {
            kind_tag: NODE_TYPE,
            id: &n.id,
            session_id: &n.session_id,
            parent_id: n.parent_id.as_deref(),
            kind: n.kind,
            role: n.role.as_deref(),
            content: &n.content,
            text: &n.text,
            usage: n.usage.as_deref(),
            aborted: n.aborted,
            first_kept_id: n.first_kept_id.as_deref(),
            tokens_before: n.tokens_before,
            created_at: n.created_at,
            label: label.as_deref(),
        };
        out.push_str(&serde_json::to_string(&line)?);
        out.push('\n');
    }
    Ok(out)
}

/// A validated export.
struct Parsed {
    header: HeaderSession,
    /// `(line number, node)`, in file order.
    nodes: Vec<(usize, NodeLine)>,
}

/// Splits into numbered, non-blank lines; parses each as JSON.
fn json_lines(bytes: &[u8]) -> Result<Vec<(usize, Value)>, ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ImportError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(ImportError::Empty);
    }
    let ends_with_newline = text.ends_with('\n');
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let last = lines.last().map_or(0, |(n, _)| *n);
    let mut out = Vec::with_capacity(lines.len());
    for (line, l) in lines {
        match serde_json::from_str::<Value>(l) {
            Ok(v) => out.push((line, v)),
            Err(e) if e.is_eof() && line == last && !ends_with_newline && line > 1 => {
                return Err(ImportError::Truncated {
                    reason: format!("line {line} ends in the middle of a JSON value"),
                })
            }
            Err(e) => {
                return Err(ImportError::NotJsonl {
                    line,
                    reason: e.to_string(),
                })
            }
        }
    }
    Ok(out)
}

fn typed<T: serde::de::DeserializeOwned>(line: usize, v: Value) -> Result<T, ImportError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        ImportError::InvalidLine {
            line,
            reason: if path == "." {
                inner.to_string()
            } else {
                format!("field `{path}`: {inner}")
            },
        }
    })
}

/// Validates a whole export without touching any store.
fn parse(bytes: &[u8]) -> Result<Parsed, ImportError> {
    let mut lines = json_lines(bytes)?.into_iter();
    let Some((first, header)) = lines.next() else {
        return Err(ImportError::Empty);
    };
    let tag = header.get("type").and_then(Value::as_str);
    if tag != Some(HEADER_TYPE) {
        return Err(ImportError::NotArborExport {
            reason: match tag {
                Some(t) => format!("line {first} has \"type\":{t:?}"),
                None => format!("line {first} has no \"type\" field"),
            },
        });
    }
    match header.get("version") {
        Some(v) if v.as_u64() == Some(JSONL_VERSION) => {}
        Some(v) => {
            return Err(ImportError::UnsupportedVersion {
                found: v.to_string(),
                supported: JSONL_VERSION,
            })
        }
        None => {
            return Err(ImportError::InvalidLine {
                line: first,
                reason: "the header has no \"version\"".into(),
            })
        }
    }
    let header: Header = typed(first, header)?;
    let header = header.session;

    let mut seen: HashMap<String, usize> = HashMap::new();
    // For compaction checks: parent of every node seen so far.
    let mut parents: HashMap<String, Option<String>> = HashMap::new();
    let mut nodes = Vec::new();
    for (line, v) in lines {
        let tag = v.get("type").and_then(Value::as_str);
        if tag != Some(NODE_TYPE) {
            return Err(ImportError::InvalidLine {
                line,
                reason: match tag {
                    Some(HEADER_TYPE) => "a second header; expected a node".into(),
                    Some(t) => format!("unknown line type {t:?}; expected \"node\""),
                    None => "no \"type\" field; expected a node".into(),
                },
            });
        }
        let node: NodeLine = typed(line, v)?;
        if node.id.trim().is_empty() {
            return Err(ImportError::InvalidLine {
                line,
                reason: "empty node id".into(),
            });
        }
        if let Some(&first_line) = seen.get(&node.id) {
            return Err(ImportError::DuplicateId {
                line,
                id: node.id,
                first_line,
            });
        }
        if node.session_id != header.id {
            return Err(ImportError::InvalidLine {
                line,
                reason: format!(
                    "node {:?} belongs to session {:?}, not to the exported session {:?}",
                    node.id, node.session_id, header.id
                ),
            });
        }
        if let Some(parent) = &node.parent_id {
            if !seen.contains_key(parent) {
                return Err(ImportError::MissingParent {
                    line,
                    id: node.id,
                    parent: parent.clone(),
                });
            }
        }
        match (node.kind, &node.first_kept_id) {
            (NodeKind::Compaction, None) => {
                return Err(ImportError::InvalidLine {
                    line,
                    reason: format!("compaction node {:?} has no first_kept_id", node.id),
                })
            }
            (NodeKind::Compaction, Some(kept)) => {
                // The kept node must be the parent or one of its ancestors.
                let mut at = node.parent_id.clone();
                let mut found = false;
                while let Some(a) = at {
                    if &a == kept {
                        found = true;
                        break;
                    }
                    at = parents.get(&a).cloned().flatten();
                }
                if !found {
                    return Err(ImportError::InvalidLine {
                        line,
                        reason: format!(
                            "compaction node {:?} keeps from {kept:?}, which is not on the path before it",
                            node.id
                        ),
                    });
                }
            }
            (kind, Some(_)) => {
                return Err(ImportError::InvalidLine {
                    line,
                    reason: format!(
                        "node {:?} of kind {} has a first_kept_id (only compaction nodes do)",
                        node.id,
                        kind.as_str()
                    ),
                })
            }
            _ => {}
        }
        seen.insert(node.id.clone(), line);
        parents.insert(node.id.clone(), node.parent_id.clone());
        nodes.push((line, node));
    }
    if (nodes.len() as u64) < header.node_count {
        return Err(ImportError::Truncated {
            reason: format!(
                "the header announces {} nodes but the file holds {}",
                header.node_count,
                nodes.len()
            ),
        });
    }
    if (nodes.len() as u64) > header.node_count {
        return Err(ImportError::InvalidLine {
            line: first,
            reason: format!(
                "the header announces {} nodes but the file holds {}",
                header.node_count,
                nodes.len()
            ),
        });
    }
    if let Some(leaf) = &header.current_leaf {
        if !seen.contains_key(leaf) {
            return Err(ImportError::InvalidLine {
                line: first,
                reason: format!("current_leaf {leaf:?} is not a node of the file"),
            });
        }
    }
    Ok(Parsed { header, nodes })
}

/// Replaces every JSON string equal to a key of `map` by its value.
fn remap_strings(v: &mut Value, map: &HashMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(new) = map.get(s.as_str()) {
                *s = new.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| remap_strings(i, map)),
        Value::Object(fields) => fields.values_mut().for_each(|f| remap_strings(f, map)),
        _ => {}
    }
}

/// The store's form of a validated export: nodes refer to each other by index, and keep their
/// file ids as `source_id` so that ids inside `content` are remapped too.
fn to_imported(parsed: Parsed) -> (ImportedSession, Vec<usize>) {
    let index: HashMap<String, usize> = parsed
        .nodes
        .iter()
        .enumerate()
        .map(|(i, (_, n))| (n.id.clone(), i))
        .collect();
    let at = |id: &Option<String>| id.as_ref().and_then(|id| index.get(id).copied());
    let h = parsed.header;
    let leaf = at(&h.current_leaf);
    let mut lines = Vec::with_capacity(parsed.nodes.len());
    let mut nodes = Vec::with_capacity(parsed.nodes.len());
    for (line, n) in parsed.nodes {
        lines.push(line);
        nodes.push(ImportedNode {
            parent: at(&n.parent_id),
            first_kept: at(&n.first_kept_id),
            source_id: Some(n.id),
            kind: n.kind,
            role: n.role,
            content: n.content,
            text: n.text,
            usage: n.usage,
            aborted: n.aborted,
            tokens_before: n.tokens_before,
            created_at: n.created_at,
            label: n.label,
        });
    }
    let session = ImportedSession {
        // A blank title is never a renamed one: the first prompt gives it, as for a new session.
        title_is_custom: h.title_is_custom && !h.title.trim().is_empty(),
        title: h.title,
        model: h.model,
        thinking_level: h.thinking_level,
        created_at: h.created_at,
        updated_at: h.updated_at,
        leaf,
        nodes,
    };
    (session, lines)
}

/// Imports a JSONL export as a new session of the project at `project_root` (created if
/// needed), in one store transaction. See the module docs for what is validated, kept and
/// renewed.
pub fn import_jsonl(
    store: &Store,
    bytes: &[u8],
    project_root: &Path,
) -> Result<Session, ImportError> {
    let parsed = parse(bytes)?;
    let (session, lines) = to_imported(parsed);
    let project = store.open_project(project_root, None)?;
    store
        .import_session(&project.id, session)
        .map_err(|e| match e {
            StoreError::InvalidImport { index, .. } => ImportError::Write {
                line: lines.get(index).copied().unwrap_or(1),
                source: e,
            },
            e => ImportError::Store(e),
        })
}

/// Normalises a JSONL export for comparison (see the module docs): the session id becomes
/// `"session"` and node ids `"node-N"` in line order, wherever a whole JSON string equals one.
/// Everything else, timestamps included, is left as it is.
pub fn normalize_jsonl(text: &str) -> Result<String, ImportError> {
    let lines = json_lines(text.as_bytes())?;
    let mut map: HashMap<String, String> = HashMap::new();
    let mut count = 0usize;
    for (i, (_, v)) in lines.iter().enumerate() {
        if i == 0 {
            if let Some(id) = v.pointer("/session/id").and_then(Value::as_str) {
                map.insert(id.to_string(), "session".into());
            }
        } else if let Some(id) = v.get("id").and_then(Value::as_str) {
            count += 1;
            map.insert(id.to_string(), format!("node-{count}"));
        }
    }
    let mut out = String::new();
    for (i, (_, mut v)) in lines.into_iter().enumerate() {
        remap_strings(&mut v, &map);
        out.push_str(
            &serde_json::to_string(&v).map_err(|e| ImportError::InvalidLine {
                line: i + 1,
                reason: e.to_string(),
            })?,
        );
        out.push('\n');
    }
    Ok(out)
}
