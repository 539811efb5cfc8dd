//! Two branches of a session side by side: the paths to two nodes split at their deepest
//! common node, each part below it with its entries, and the tokens and cost of each branch.

use arbor_store::OutlineNode;

use super::{AppError, LiveSession};
use crate::view::{entries_of_path, path_in_outline};
pub use arbor_protocol::views::branch::{BranchComparison, ComparedBranch};

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
