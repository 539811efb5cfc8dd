//! What a chat window shows of a live session: the current branch as entries with their node
//! ids and siblings ([`SessionView`]), and the header's figures ([`SessionState`]).

use std::collections::HashMap;

use arbor_store::{NodeKind as StoredKind, OutlineNode, Store};

use crate::live::LiveSession;
use crate::AppError;
use arbor_coding::compaction::tokens::context_tokens;
use arbor_coding::sessions::node_to_message;
pub use arbor_protocol::views::branch::{BranchEntry, BranchPage, NodeKind, SessionView};
pub use arbor_protocol::views::SessionState;

/// How many entries, from the end of the branch, a [`SessionView`] carries (a little more when
/// the cut would separate tool results from the call before them). A 10,000-node branch would
/// otherwise cross to the window as megabytes of JSON on every visit; the chat asks for the
/// entries before these with [`LiveSession::earlier_entries`] when the user scrolls back.
pub const VIEW_TAIL: usize = 200;

impl LiveSession {
    /// The session's state (the chat header; RPC `get_state`).
    pub fn session_state(&self) -> SessionState {
        let state = self.agent.state();
        let context = match &self.compactor {
            Some(compactor) => compactor.context_tokens(&state.messages),
            None => context_tokens(&state.messages, 0),
        };
        let cost = self
            .recorder
            .as_ref()
            .and_then(|recorder| {
                let session = recorder.session_id()?;
                let project = recorder.project().id;
                recorder
                    .with_store(|store| store.session_stats(&project))
                    .ok()?
                    .get(&session)
                    .map(|stats| stats.cost)
            })
            .unwrap_or(0.0);
        SessionState {
            provider: state.model.provider.clone(),
            model: state.model.id.clone(),
            api: state.model.api,
            thinking_level: state.thinking_level,
            reasoning: state.model.reasoning,
            images: state.model.images,
            is_streaming: state.is_streaming,
            message_count: state.messages.len(),
            tools: self.tool_names.clone(),
            cwd: self.cwd.display().to_string(),
            error: state.error.clone(),
            pending_tool_calls: state.pending_tool_calls.iter().cloned().collect(),
            key_source: self.selection.key_source.name(),
            context_tokens: context,
            context_window: state.model.context_window,
            cost,
            plan_mode: self.plan_mode(),
        }
    }

    /// The current branch with its siblings, and the state.
    pub fn view(&self) -> Result<SessionView, AppError> {
        let state = self.session_state();
        let session = match &self.recorder {
            Some(recorder) => recorder.session()?.map(|s| (recorder, s)),
            None => None,
        };
        let Some((recorder, session)) = session else {
            // Not stored, or a new session before its first message.
            return Ok(SessionView {
                session_id: None,
                title: None,
                entries: Vec::new(),
                earlier: 0,
                state,
            });
        };
        let leaf = recorder.leaf();
        let page = recorder.with_store(|store| {
            branch_page(store, &session.id, leaf.as_deref(), None, VIEW_TAIL)
        })?;
        Ok(SessionView {
            session_id: Some(session.id),
            title: Some(session.title),
            entries: page.entries,
            earlier: page.earlier,
            state,
        })
    }

    /// Up to `count` entries of the current branch just before `before` (a node id on it), for
    /// a chat that scrolls back past what its view carried.
    pub fn earlier_entries(&self, before: &str, count: usize) -> Result<BranchPage, AppError> {
        let recorder = self.recorder()?;
        let session_id = recorder.session_id().ok_or(AppError::NothingToExport)?;
        let leaf = recorder.leaf();
        recorder.with_store(|store| {
            branch_page(store, &session_id, leaf.as_deref(), Some(before), count)
        })
    }
}

/// Up to `count` entries of the branch ending at `leaf` (the live session's own place), just
/// before `before` (`None`: at the leaf). The start moves back over tool results, so each comes with the call it answers. The
/// branch is walked on the session's outline; only the page's nodes are read whole.
fn branch_page(
    store: &Store,
    session_id: &str,
    leaf: Option<&str>,
    before: Option<&str>,
    count: usize,
) -> Result<BranchPage, AppError> {
    let (_, outline) = store.session_outline(session_id)?;
    let Some(leaf) = leaf else {
        return Ok(BranchPage {
            entries: Vec::new(),
            earlier: 0,
        });
    };
    let path = path_in_outline(&outline, leaf)?;
    let end = match before {
        None => path.len(),
        Some(id) => path
            .iter()
            .position(|node| node.id == id)
            .ok_or_else(|| AppError::NotOnBranch(id.to_owned()))?,
    };
    let mut start = end.saturating_sub(count);
    while start > 0 && path[start].kind == StoredKind::ToolResult {
        start -= 1;
    }
    let ids: Vec<String> = path[start..end].iter().map(|n| n.id.clone()).collect();
    Ok(BranchPage {
        entries: entries_of_path(&outline, store.get_nodes(&ids)?)?,
        earlier: start,
    })
}

/// The outline's nodes from the root down to `leaf`, root first.
pub(super) fn path_in_outline<'a>(
    outline: &'a [OutlineNode],
    leaf: &str,
) -> Result<Vec<&'a OutlineNode>, AppError> {
    let by_id: HashMap<&str, &OutlineNode> = outline.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut path = Vec::new();
    let mut at = Some(leaf);
    while let Some(id) = at {
        let node = by_id
            .get(id)
            .copied()
            .ok_or_else(|| arbor_store::StoreError::NotFound {
                kind: "node",
                id: id.to_owned(),
            })?;
        if path.len() > outline.len() {
            return Err(arbor_store::StoreError::Corrupt(format!(
                "the parent links of the session form a cycle at {id}"
            ))
            .into());
        }
        path.push(node);
        at = node.parent_id.as_deref();
    }
    path.reverse();
    Ok(path)
}

/// `path` (nodes of the session whose `outline` is given, in order) as entries with their
/// labels and siblings.
pub(super) fn entries_of_path(
    outline: &[OutlineNode],
    path: Vec<arbor_store::Node>,
) -> Result<Vec<BranchEntry>, AppError> {
    let mut children: HashMap<Option<&str>, Vec<(&str, StoredKind)>> = HashMap::new();
    let mut labels = HashMap::new();
    for node in outline {
        children
            .entry(node.parent_id.as_deref())
            .or_default()
            .push((node.id.as_str(), node.kind));
        labels.insert(node.id.as_str(), node.label.clone());
    }
    let mut entries = Vec::with_capacity(path.len());
    for node in path {
        let sibling_ids = children
            .get(&node.parent_id.as_deref())
            .map(|list| {
                list.iter()
                    .filter(|(_, kind)| *kind == node.kind)
                    .map(|(id, _)| (*id).to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let label = labels.get(node.id.as_str()).cloned().flatten();
        entries.push(entry_of_node(node, label, sibling_ids)?);
    }
    Ok(entries)
}

/// One stored node as an entry.
pub(super) fn entry_of_node(
    node: arbor_store::Node,
    label: Option<String>,
    sibling_ids: Vec<String>,
) -> Result<BranchEntry, AppError> {
    let summary = matches!(
        node.kind,
        StoredKind::Compaction | StoredKind::BranchSummary
    )
    .then(|| node.text.clone());
    Ok(BranchEntry {
        message: node_to_message(&node).map_err(arbor_store::StoreError::from)?,
        label,
        sibling_ids,
        summary,
        tokens_before: node.tokens_before,
        aborted: node.aborted,
        kind: node_kind(node.kind),
        parent_id: node.parent_id,
        node_id: node.id,
    })
}

/// The most recently created leaf in the subtree of `node_id` (the node itself if it has no
/// children).
pub(crate) fn newest_leaf_under(
    store: &Store,
    session_id: &str,
    node_id: &str,
) -> Result<String, AppError> {
    let start = store.resolve_node_id(session_id, node_id)?;
    let tree = store.session_tree(session_id)?;
    let mut children: HashMap<&str, Vec<&arbor_store::TreeNode>> = HashMap::new();
    for node in &tree.nodes {
        if let Some(parent) = node.parent_id.as_deref() {
            children.entry(parent).or_default().push(node);
        }
    }
    // Depth-first over the subtree; the newest leaf wins (ties: the later in store order).
    let mut best: Option<(i64, usize, &str)> = None;
    let order: HashMap<&str, usize> = tree
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let mut stack = vec![start.as_str()];
    while let Some(id) = stack.pop() {
        match children.get(id) {
            Some(kids) if !kids.is_empty() => stack.extend(kids.iter().map(|k| k.id.as_str())),
            _ => {
                let node = tree.nodes.get(order.get(id).copied().unwrap_or(0));
                let created = node.map_or(0, |n| n.created_at);
                let rank = (created, order.get(id).copied().unwrap_or(0), id);
                if best.is_none_or(|b| (rank.0, rank.1) > (b.0, b.1)) {
                    best = Some(rank);
                }
            }
        }
    }
    Ok(best.map_or(start.clone(), |(_, _, id)| id.to_owned()))
}

/// A stored node's kind as front ends are shown it.
pub fn node_kind(kind: StoredKind) -> NodeKind {
    match kind {
        StoredKind::User => NodeKind::User,
        StoredKind::Assistant => NodeKind::Assistant,
        StoredKind::ToolResult => NodeKind::ToolResult,
        StoredKind::ModelChange => NodeKind::ModelChange,
        StoredKind::ThinkingLevelChange => NodeKind::ThinkingLevelChange,
        StoredKind::Compaction => NodeKind::Compaction,
        StoredKind::BranchSummary => NodeKind::BranchSummary,
        StoredKind::Label => NodeKind::Label,
    }
}
