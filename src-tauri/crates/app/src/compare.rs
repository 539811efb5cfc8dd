//! Two branches of a session side by side: the paths to two nodes split at their deepest
//! common node, each part below it with its entries, and the tokens and cost of each branch.

use serde::Serialize;

use arbor_store::OutlineNode;

use super::{AppError, LiveSession};
use crate::view::{entries_of_path, path_in_outline, BranchEntry};

/// The paths to two nodes from where they part.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BranchComparison {
    pub session_id: String,
    /// The deepest node both paths go through (`None`: they share no node).
    pub ancestor_id: Option<String>,
    /// How many nodes the two paths share (root down to the ancestor).
    pub shared_nodes: usize,
    pub left: ComparedBranch,
    pub right: ComparedBranch,
}

/// One side of a [`BranchComparison`].
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ComparedBranch {
    /// The node the branch was compared at (resolved from an id or prefix).
    pub node_id: String,
    /// The nodes below the common ancestor down to `node_id`, in order.
    pub entries: Vec<BranchEntry>,
    /// Tokens and US dollars of the whole path, root to `node_id`.
    pub tokens: u64,
    pub cost: f64,
    /// Tokens and US dollars of `entries` alone (what this branch added after the split).
    pub own_tokens: u64,
    pub own_cost: f64,
}

impl LiveSession {
    /// Compares the branch ending at `left` with the one ending at `right` (ids or unique
    /// prefixes of nodes of the current session).
    pub fn compare_branches(&self, left: &str, right: &str) -> Result<BranchComparison, AppError> {
        let recorder = self.recorder()?;
        let session_id = recorder.session_id().ok_or(AppError::NothingToExport)?;
        recorder.with_store(|store| {
            // Both paths walked on the outline; only the nodes after the split are read whole.
            let (_, outline) = store.session_outline(&session_id)?;
            let usage = store.node_usage(&session_id)?;
            let left_path = path_in_outline(&outline, &store.resolve_node_id(&session_id, left)?)?;
            let right_path =
                path_in_outline(&outline, &store.resolve_node_id(&session_id, right)?)?;
            let shared = left_path
                .iter()
                .zip(&right_path)
                .take_while(|(a, b)| a.id == b.id)
                .count();
            let ancestor_id = shared
                .checked_sub(1)
                .and_then(|at| left_path.get(at))
                .map(|node| node.id.clone());
            let figures = |path: &[&OutlineNode]| {
                path.iter()
                    .filter_map(|node| usage.get(&node.id))
                    .fold((0u64, 0f64), |(t, c), u| (t + u.tokens, c + u.cost))
            };
            let side = |path: &[&OutlineNode]| -> Result<ComparedBranch, AppError> {
                let (tokens, cost) = figures(path);
                let own = &path[shared..];
                let (own_tokens, own_cost) = figures(own);
                let ids: Vec<String> = own.iter().map(|node| node.id.clone()).collect();
                Ok(ComparedBranch {
                    node_id: path.last().map(|n| n.id.clone()).unwrap_or_default(),
                    entries: entries_of_path(&outline, store.get_nodes(&ids)?)?,
                    tokens,
                    cost,
                    own_tokens,
                    own_cost,
                })
            };
            Ok(BranchComparison {
                session_id: session_id.clone(),
                ancestor_id,
                shared_nodes: shared,
                left: side(&left_path)?,
                right: side(&right_path)?,
            })
        })
    }
}
