//! What a window's tree panel shows: every node of the session with its parent, kind, first line
//! and label, and the current leaf — and going to a node from it.

use arbor_protocol::CodingEvent;
use tokio_util::sync::CancellationToken;

use crate::commands::deliver_export;
use crate::responses::ExportInfo;

use super::{AppError, LiveSession, SessionView};
use crate::commands::NavigateTo;
use crate::view::{entry_of_node, node_kind, BranchEntry};
use arbor_coding::compaction::summarize_left_branch;
use arbor_coding::export::{export_branch, ExportFormat};
pub use arbor_protocol::views::branch::{
    NodeVisit, SessionTreeDelta, SessionTreeView, TreeNodeView,
};

impl LiveSession {
    /// The whole tree of the current session (empty before its first message).
    pub fn tree_view(&self) -> Result<SessionTreeView, AppError> {
        self.tree_view_from(0)
    }

    /// The nodes from index `since` on (see [`SessionTreeDelta`]); `since` past the end gives
    /// none. Only those nodes are read.
    pub fn tree_since(&self, since: usize) -> Result<SessionTreeDelta, AppError> {
        let SessionTreeView {
            session_id,
            leaf_id,
            nodes,
        } = self.tree_view_from(since)?;
        let from = match (&session_id, &self.recorder) {
            (Some(id), Some(recorder)) if nodes.is_empty() && since > 0 => {
                since.min(recorder.with_store(|store| store.node_count(id))?)
            }
            _ => since,
        };
        Ok(SessionTreeDelta {
            session_id,
            leaf_id,
            from,
            nodes,
        })
    }

    /// The tree with only its nodes from index `from` on.
    fn tree_view_from(&self, from: usize) -> Result<SessionTreeView, AppError> {
        let empty = SessionTreeView {
            session_id: None,
            leaf_id: None,
            nodes: Vec::new(),
        };
        let Some(recorder) = &self.recorder else {
            return Ok(empty);
        };
        let Some(session_id) = recorder.session_id() else {
            return Ok(empty);
        };
        let (_, mut view) =
            recorder.with_store(|store| stored_tree_view_from(store, &session_id, from))?;
        // This window's own place (another process may have moved the stored leaf).
        view.leaf_id = recorder.leaf();
        Ok(view)
    }

    /// The current session's title (`None` before its first message, or without sessions).
    pub fn session_title(&self) -> Result<Option<String>, AppError> {
        match &self.recorder {
            Some(recorder) => Ok(recorder.session()?.map(|session| session.title)),
            None => Ok(None),
        }
    }

    /// [`LiveSession::navigate`] to `node_id` and the branch shown there (the tree panel's and a
    /// restore's "go there too").
    pub fn visit_node(&self, node_id: &str) -> Result<NodeVisit, AppError> {
        let navigation = self.navigate(node_id, NavigateTo::Node)?;
        Ok(NodeVisit {
            view: self.view()?,
            editor_text: navigation.editor_text,
        })
    }

    /// One node with its message (a tree's hover preview, "copy").
    pub fn node_entry(&self, node_id: &str) -> Result<BranchEntry, AppError> {
        let recorder = self.recorder()?;
        let session_id = recorder.session_id().ok_or(AppError::NothingToExport)?;
        let (node, label) = recorder.with_store(|store| {
            let id = store.resolve_node_id(&session_id, node_id)?;
            let label = store.label_of(&id)?;
            Ok::<_, arbor_store::StoreError>((store.get_node(&id)?, label))
        })?;
        entry_of_node(node, label, Vec::new())
    }

    /// The path from the root to `node_id` in `format`, written atomically to `path` when
    /// given (else handed back).
    pub fn export_branch(
        &self,
        node_id: &str,
        format: ExportFormat,
        path: Option<&std::path::Path>,
    ) -> Result<ExportInfo, AppError> {
        let recorder = self.recorder()?;
        let session_id = recorder.session_id().ok_or(AppError::NothingToExport)?;
        let text =
            recorder.with_store(|store| export_branch(store, &session_id, node_id, format))?;
        deliver_export(session_id, text, path)
    }

    /// After going elsewhere in the tree: carries a summary of the branch that ended at
    /// `old_leaf` to the current leaf (asks the model; `cancel` stops it), and returns the
    /// branch shown. Nothing left behind adds nothing.
    pub async fn summarize_left(
        &self,
        old_leaf: &str,
        cancel: &CancellationToken,
    ) -> Result<SessionView, AppError> {
        self.recorder()?;
        let compactor = self.compactor()?;
        summarize_left_branch(&compactor, &self.agent, old_leaf, cancel).await?;
        self.view()
    }
}

/// A stored session's tree as front ends show it, with the session's title (the CLI's `arbor
/// tree`, which reads the store without a live session): the same view as
/// [`LiveSession::tree_view`], with the stored leaf.
pub fn stored_tree_view(
    store: &arbor_store::Store,
    session_id: &str,
) -> Result<(String, SessionTreeView), AppError> {
    Ok(stored_tree_view_from(store, session_id, 0)?)
}

/// [`stored_tree_view`] from the `from`-th node on.
fn stored_tree_view_from(
    store: &arbor_store::Store,
    session_id: &str,
    from: usize,
) -> Result<(String, SessionTreeView), arbor_store::StoreError> {
    let tree = store.session_tree_from(session_id, from)?;
    let usage = store.node_usage(&tree.session.id)?;
    let nodes = tree
        .nodes
        .into_iter()
        .map(|node| {
            let figures = usage.get(&node.id).copied().unwrap_or_default();
            tree_node_view(node, figures)
        })
        .collect();
    Ok((
        tree.session.title,
        SessionTreeView {
            session_id: Some(tree.session.id),
            leaf_id: tree.session.leaf_id,
            nodes,
        },
    ))
}

/// A stored node's tree row and usage as the tree panel shows it.
fn tree_node_view(node: arbor_store::TreeNode, usage: arbor_store::NodeUsage) -> TreeNodeView {
    // A record that does not parse shows no files rather than failing the tree.
    let files = node
        .files
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default();
    TreeNodeView {
        files,
        tokens: usage.tokens,
        cost: usage.cost,
        id: node.id,
        parent_id: node.parent_id,
        kind: node_kind(node.kind),
        first_line: node.first_line,
        label: node.label,
        aborted: node.aborted,
    }
}

/// `event` with what front ends need of a stored node filled in (its siblings and tree view),
/// read from `store`; any other event, or a node that cannot be read, goes on as it is (the
/// front end then reads the tree as before).
pub(crate) fn with_node_views(store: &arbor_store::Store, event: &CodingEvent) -> CodingEvent {
    let CodingEvent::NodeAppended {
        node_id,
        parent_id,
        session_id,
        ..
    } = event
    else {
        return event.clone();
    };
    match store.appended_node(node_id) {
        Ok(appended) => CodingEvent::NodeAppended {
            node_id: node_id.clone(),
            parent_id: parent_id.clone(),
            session_id: session_id.clone(),
            sibling_ids: Some(appended.sibling_ids),
            node: Some(tree_node_view(appended.node, appended.usage)),
        },
        Err(_) => event.clone(),
    }
}
