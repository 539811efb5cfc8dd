//! Changes to the current session beyond recording messages: appending summary nodes, labels,
//! and stepping back from a failed answer before it is retried.

use arbor_store::{NewNode, Node, NodeKind};

use super::recorder::{SessionRecorder, SessionsError};

impl SessionRecorder {
    /// The current session's context nodes (see [`arbor_store::Store::context`]); empty before
    /// the first message.
    pub fn context_nodes(&self) -> Result<Vec<Node>, SessionsError> {
        let inner = self.lock();
        match (&inner.session_id, &inner.leaf) {
            (Some(id), Some(leaf)) => Ok(inner.store.context_at(id, leaf)?),
            _ => Ok(Vec::new()),
        }
    }

    /// Appends `node` under the current leaf (creating the session if needed), moves the leaf
    /// to it and reports it as `node_appended`.
    pub fn append_node(&self, node: NewNode) -> Result<Node, SessionsError> {
        let node = self.append(node)?;
        self.emit_appended(&node);
        Ok(node)
    }

    /// Labels `node` (id or unique prefix in the current session); `None` or an empty label
    /// removes it.
    pub fn label(&self, node: &str, label: Option<&str>) -> Result<String, SessionsError> {
        let session_id = self.current_session_id()?;
        let inner = self.lock();
        let id = inner.store.resolve_node_id(&session_id, node)?;
        let label = label.map(str::trim).filter(|l| !l.is_empty());
        inner.store.set_label(&session_id, &id, label)?;
        Ok(id)
    }

    /// Moves the leaf back above the last answer on the current branch — a failed one about to
    /// be asked for again — and the not-run tool results after it, so the retry becomes its
    /// sibling. Nothing is deleted: the failed answer stays in the tree. `Ok(false)` when
    /// there was nothing to step back from (no session, or the branch does not end in an
    /// answer).
    pub fn step_back_from_last_answer(&self) -> Result<bool, SessionsError> {
        let Some(session_id) = self.session_id() else {
            return Ok(false);
        };
        let mut inner = self.lock();
        let Some(leaf) = inner.leaf.clone() else {
            return Ok(false);
        };
        let path = inner.store.path_to(&session_id, &leaf)?;
        let trailing_results = path
            .iter()
            .rev()
            .take_while(|n| n.kind == NodeKind::ToolResult)
            .count();
        let Some(answer) = path.iter().rev().nth(trailing_results) else {
            return Ok(false);
        };
        if answer.kind != NodeKind::Assistant {
            return Ok(false);
        }
        inner
            .store
            .set_leaf(&session_id, answer.parent_id.as_deref())?;
        inner.leaf = answer.parent_id.clone();
        Ok(true)
    }

    /// Makes `node` (id or unique prefix in the current session) the leaf, whatever its kind,
    /// and loads the path to it into `agent`: the next prompt or continuation goes on from
    /// there. (Unlike [`SessionRecorder::navigate`], a user message is not handed back for
    /// editing.)
    pub fn go_to(&self, agent: &arbor_agent::Agent, node: &str) -> Result<String, SessionsError> {
        if agent.is_streaming() {
            return Err(SessionsError::Busy);
        }
        let session_id = self.current_session_id()?;
        let id = {
            let mut inner = self.lock();
            let id = inner.store.resolve_node_id(&session_id, node)?;
            inner.store.set_leaf(&session_id, Some(&id))?;
            inner.leaf = Some(id.clone());
            id
        };
        self.load_into(agent)?;
        Ok(id)
    }

    /// The node `node` names in the current session.
    pub fn node(&self, node: &str) -> Result<Node, SessionsError> {
        let session_id = self.current_session_id()?;
        let inner = self.lock();
        let id = inner.store.resolve_node_id(&session_id, node)?;
        Ok(inner.store.get_node(&id)?)
    }
}
