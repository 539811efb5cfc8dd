//! Branch summaries: when the user leaves a branch, a short summary of it can be carried to
//! where they go (a `branch_summary` node, which the model sees as a user message).

use std::collections::HashSet;

use arbor_agent::Agent;
use arbor_llm::{LlmError, RequestOptions};
use arbor_store::{NewNode, NodeKind};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::summary::{write_summary, SummaryKind, SummaryRequest};
use super::{CompactionError, Compactor};
use crate::sessions::{node_to_message, Navigation};

/// [`crate::SessionRecorder::navigate`], and with `summarize` a summary of the branch being
/// left — the nodes on the old path that are not on the new one — appended where the
/// navigation lands (the new leaf is then the summary node; a user message handed back for
/// editing is resent under it). Nothing to summarise (moving down the same path) adds nothing.
pub async fn navigate_with_summary(
    compactor: &Compactor,
    agent: &Agent,
    target: &str,
    summarize: bool,
    cancel: &CancellationToken,
) -> Result<Navigation, CompactionError> {
    let recorder = compactor.recorder().ok_or(CompactionError::NoSession)?;
    if agent.is_streaming() {
        return Err(CompactionError::Busy);
    }
    let old_leaf = recorder.leaf();
    let mut navigation = recorder.navigate(agent, target)?;
    let (Some(old_leaf), true) = (old_leaf, summarize) else {
        return Ok(navigation);
    };
    if let Some(summary) = summarize_left_branch(compactor, agent, &old_leaf, cancel).await? {
        navigation.leaf_id = Some(summary);
    }
    Ok(navigation)
}

/// Carries a summary of the branch that ended at `old_leaf` — its nodes that are not on the
/// current path — to the current leaf, as a `branch_summary` node that becomes the leaf.
/// Returns the summary node's id, or `None` when nothing was left (the current path goes
/// through `old_leaf`). Used after a plain navigation, when the user accepts the offer to
/// summarise the branch they left.
pub async fn summarize_left_branch(
    compactor: &Compactor,
    agent: &Agent,
    old_leaf: &str,
    cancel: &CancellationToken,
) -> Result<Option<String>, CompactionError> {
    let recorder = compactor.recorder().ok_or(CompactionError::NoSession)?;
    if agent.is_streaming() {
        return Err(CompactionError::Busy);
    }
    let current_leaf = recorder.leaf();
    let session_id = recorder.session_id().ok_or(CompactionError::NoSession)?;
    let (old_path, new_path) = recorder
        .with_store(|store| {
            let old = store.path_to(&session_id, old_leaf)?;
            let new = match &current_leaf {
                Some(leaf) => store.path_to(&session_id, leaf)?,
                None => Vec::new(),
            };
            Ok::<_, arbor_store::StoreError>((old, new))
        })
        .map_err(crate::SessionsError::from)?;
    let on_new_path: HashSet<&str> = new_path.iter().map(|n| n.id.as_str()).collect();
    let mut left = Vec::new();
    for node in old_path
        .iter()
        .filter(|n| !on_new_path.contains(n.id.as_str()))
    {
        if let Some(message) = node_to_message(node).map_err(crate::SessionsError::from)? {
            left.push(message);
        }
    }
    if left.is_empty() {
        return Ok(None);
    }
    let state = agent.state();
    let options = RequestOptions {
        thinking: state.thinking_level,
        ..state.request_options.clone()
    };
    let request = SummaryRequest {
        messages: &left,
        previous: None,
        focus: None,
        kind: SummaryKind::Branch,
    };
    let summary = write_summary(compactor.client(), &state.model, &options, &request, cancel)
        .await
        .map_err(|error| match error {
            LlmError::Aborted => CompactionError::Aborted,
            other => CompactionError::Summary(other),
        })?;
    let node = recorder.append_node(NewNode::new(
        NodeKind::BranchSummary,
        json!({ "summary": summary, "from_id": old_leaf }),
        summary.clone(),
    ))?;
    recorder.load_into(agent)?;
    Ok(Some(node.id))
}
