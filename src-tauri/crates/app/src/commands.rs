//! The commands of a [`LiveSession`] — the set the CLI's RPC mode speaks (`docs/rpc.md`) and
//! the desktop shell calls. Each answers with a typed struct from [`super::responses`].
//!
//! Runs (`prompt`, `regenerate`) start in the background and answer once started; their
//! progress arrives on the session's event stream. Commands on the stored tree are refused
//! while a run is active, and (except `compact`) when nothing is stored.

use arbor_agent::RunOutcome;
use arbor_llm::ImageContent;
use arbor_protocol::views::attachments::DocumentAttachment;
use arbor_store::NodeKind;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::live::LiveSession;
use crate::responses::{
    AbortInfo, CompactionInfo, ExportInfo, ForkInfo, LabelInfo, NavigationInfo, RegenerateInfo,
    RenameInfo, SessionsInfo, SwitchInfo, TreeInfo,
};
use crate::AppError;
use arbor_coding::compaction::navigate_with_summary;
use arbor_coding::export::{export_session, ExportFormat, ExportScope};
use arbor_coding::SessionRecorder;

/// A run started in the background: its outcome, or why it could not run.
pub type RunHandle = JoinHandle<Result<RunOutcome, arbor_agent::AgentError>>;

impl LiveSession {
    /// Starts a run with a new user message; refused while one is active.
    pub fn start_prompt(
        &self,
        message: String,
        images: Vec<ImageContent>,
    ) -> Result<RunHandle, AppError> {
        self.start_prompt_with_documents(message, images, Vec::new())
    }

    /// [`LiveSession::start_prompt`] with documents read by [`crate::read_document`]: each
    /// one's text is a part of the user message of its own, after the typed text and before
    /// the images, so the model reads the file's name and page markers with it.
    pub fn start_prompt_with_documents(
        &self,
        message: String,
        images: Vec<ImageContent>,
        documents: Vec<DocumentAttachment>,
    ) -> Result<RunHandle, AppError> {
        let message = crate::documents::user_message(message, images, documents)?;
        self.prepare_run()?;
        let agent = self.agent.clone();
        Ok(tokio::spawn(async move {
            agent.prompt_messages(vec![message]).await
        }))
    }

    /// What must happen before any run, whichever front end starts it: refused while one is
    /// active; after a failed store write the conversation in memory goes back to what is
    /// stored; a tool of the model's whose files changed since the last run is not offered.
    pub fn prepare_run(&self) -> Result<(), AppError> {
        if self.agent.is_streaming() {
            return Err(AppError::Busy);
        }
        if let Some(recorder) = &self.recorder {
            recorder.recover(&self.agent)?;
            // Say so before the run when another process wrote meanwhile (a best effort:
            // the run itself goes on from this session's own place either way).
            let _ = recorder.check_written_elsewhere();
        }
        self.refresh_tools();
        Ok(())
    }

    /// While idle: sends `session_written_elsewhere` on the stream when another process wrote
    /// to this session since this one last wrote or moved in it (the desktop checks every few
    /// seconds). Returns whether it did; never during a run (its own writes would race).
    pub fn check_written_elsewhere(&self) -> bool {
        if self.agent.is_streaming() {
            return false;
        }
        self.recorder
            .as_ref()
            .is_some_and(|recorder| recorder.check_written_elsewhere().unwrap_or(false))
    }

    /// Why the last run could not be stored, if a store write failed (the run was stopped).
    pub fn store_failure(&self) -> Option<String> {
        self.recorder
            .as_ref()
            .and_then(SessionRecorder::store_failed)
    }

    /// Delivered after the running tool call(s) finish.
    pub fn steer(&self, message: String) {
        self.agent.steer(message);
    }

    /// Delivered when the agent would otherwise stop.
    pub fn follow_up(&self, message: String) {
        self.agent.follow_up(message);
    }

    /// Takes a queued steer (`follow_up: false`) or follow-up back before it is delivered:
    /// whether it was still queued (it is not once delivered).
    pub fn unqueue(&self, follow_up: bool, text: &str) -> bool {
        let kind = if follow_up {
            arbor_agent::QueueKind::FollowUp
        } else {
            arbor_agent::QueueKind::Steering
        };
        self.agent.unqueue(kind, text)
    }

    /// Cancels the run; queued steering and follow-ups are dropped (their texts come back).
    pub fn abort(&self) -> AbortInfo {
        let dropped = self.agent.abort();
        AbortInfo {
            undelivered: dropped.texts(),
            dropped_steering: dropped.steering.len(),
            dropped_follow_ups: dropped.follow_ups.len(),
        }
    }

    /// Clears the conversation; the next message starts a new stored session.
    pub fn new_session(&self) -> Result<(), AppError> {
        match &self.recorder {
            Some(recorder) => recorder.new_session(&self.agent)?,
            None => self.agent.clear_messages().map_err(|_| AppError::Busy)?,
        }
        Ok(())
    }

    /// RPC `get_tree`: [`LiveSession::tree_view`], `null` before the first message (and an
    /// error without sessions, as every stored-session command).
    pub fn tree(&self) -> Result<TreeInfo, AppError> {
        self.recorder()?;
        let view = self.tree_view()?;
        Ok(TreeInfo {
            tree: view.session_id.is_some().then_some(view),
        })
    }

    /// Goes to a node: the one way every front end moves in the tree (RPC `navigate`, `/goto`,
    /// the tree panel, a branch switcher, a search hit), `to` saying where exactly; the next
    /// prompt continues from there. (With a summary of the branch left behind:
    /// [`LiveSession::start_navigate_summarized`]; with the node's files:
    /// [`LiveSession::navigate_with_files`].)
    pub fn navigate(&self, node_id: &str, to: NavigateTo) -> Result<NavigationInfo, AppError> {
        let recorder = self.recorder()?;
        let navigation = match to {
            NavigateTo::Node => recorder.navigate(&self.agent, node_id)?,
            NavigateTo::Exactly => arbor_coding::Navigation {
                leaf_id: Some(recorder.go_to(&self.agent, node_id)?),
                editor_text: None,
            },
            NavigateTo::NewestLeaf => {
                let session_id = recorder
                    .session_id()
                    .ok_or(AppError::Sessions(arbor_coding::SessionsError::NoSession))?;
                let leaf = recorder.with_store(|store| {
                    crate::view::newest_leaf_under(store, &session_id, node_id)
                })?;
                recorder.navigate(&self.agent, &leaf)?
            }
        };
        Ok(self.navigation_info(navigation))
    }

    /// Goes to a node, carrying a summary of the branch left behind (asks the model; `cancel`
    /// stops it).
    pub async fn navigate_summarized(
        &self,
        node_id: &str,
        cancel: &CancellationToken,
    ) -> Result<NavigationInfo, AppError> {
        self.recorder()?;
        let compactor = self.compactor()?;
        let navigation =
            navigate_with_summary(&compactor, &self.agent, node_id, true, cancel).await?;
        Ok(self.navigation_info(navigation))
    }

    fn navigation_info(&self, navigation: arbor_coding::Navigation) -> NavigationInfo {
        NavigationInfo {
            session_id: self.recorder.as_ref().and_then(|r| r.session_id()),
            leaf_id: navigation.leaf_id,
            editor_text: navigation.editor_text,
            message_count: self.agent.messages().len(),
        }
    }

    /// [`LiveSession::compact`] in the background: the handle resolves with its outcome
    /// (`cancel` stops it), so a front end can go on reading input meanwhile.
    pub fn start_compact(
        &self,
        focus: Option<String>,
        cancel: CancellationToken,
    ) -> Result<JoinHandle<Result<CompactionInfo, AppError>>, AppError> {
        let compactor = self.compactor()?;
        if self.agent.is_streaming() {
            return Err(AppError::Busy);
        }
        let agent = self.agent.clone();
        Ok(tokio::spawn(async move {
            let done = compactor
                .compact_agent(&agent, focus.as_deref(), &cancel)
                .await?;
            Ok(compaction_info(done, &agent))
        }))
    }

    /// [`LiveSession::navigate_summarized`] in the background (see
    /// [`LiveSession::start_compact`]).
    pub fn start_navigate_summarized(
        &self,
        node_id: String,
        cancel: CancellationToken,
    ) -> Result<JoinHandle<Result<NavigationInfo, AppError>>, AppError> {
        let recorder = self.recorder()?.clone();
        let compactor = self.compactor()?;
        if self.agent.is_streaming() {
            return Err(AppError::Busy);
        }
        let agent = self.agent.clone();
        Ok(tokio::spawn(async move {
            let navigation =
                navigate_with_summary(&compactor, &agent, &node_id, true, &cancel).await?;
            Ok(NavigationInfo {
                session_id: recorder.session_id(),
                leaf_id: navigation.leaf_id,
                editor_text: navigation.editor_text,
                message_count: agent.messages().len(),
            })
        }))
    }

    /// Summarises the older conversation now (works unstored too, in memory).
    pub async fn compact(
        &self,
        focus: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionInfo, AppError> {
        let compactor = self.compactor()?;
        let done = compactor.compact_agent(&self.agent, focus, cancel).await?;
        Ok(compaction_info(done, &self.agent))
    }

    pub fn label(&self, node_id: &str, label: Option<&str>) -> Result<LabelInfo, AppError> {
        let id = self.recorder()?.label(node_id, label)?;
        Ok(LabelInfo {
            node_id: id,
            label: label.filter(|l| !l.trim().is_empty()).map(str::to_owned),
        })
    }

    /// The session as text (`format`, `scope` as [`ExportFormat::parse`] and
    /// [`ExportScope::parse`] read them); written atomically to `path` when given.
    pub fn export(
        &self,
        format: ExportFormat,
        scope: Option<ExportScope>,
        path: Option<&std::path::Path>,
    ) -> Result<ExportInfo, AppError> {
        let recorder = self.recorder()?;
        let session_id = recorder.session_id().ok_or(AppError::NothingToExport)?;
        let scope = scope.unwrap_or_else(|| ExportScope::default_for(format));
        let text =
            recorder.with_store(|store| export_session(store, &session_id, scope, format))?;
        deliver_export(session_id, text, path)
    }

    pub fn fork(&self, node_id: Option<&str>) -> Result<ForkInfo, AppError> {
        let forked = self.recorder()?.fork(&self.agent, node_id)?;
        Ok(ForkInfo {
            session_id: forked.id,
            leaf_id: forked.leaf_id,
            message_count: self.agent.messages().len(),
        })
    }

    pub fn switch_session(&self, session_id: &str) -> Result<SwitchInfo, AppError> {
        let switched = self.recorder()?.switch_session(&self.agent, session_id)?;
        Ok(SwitchInfo {
            session_id: switched.id,
            title: switched.title,
            leaf_id: switched.leaf_id,
            message_count: self.agent.messages().len(),
        })
    }

    /// This project's sessions (every project's with `all`), most recent first — the same
    /// items as [`crate::ArborApp::project_sessions`].
    pub fn list_sessions(&self, all: bool) -> Result<SessionsInfo, AppError> {
        let recorder = self.recorder()?;
        let summaries = recorder.list_sessions(all)?;
        let sessions = recorder.with_store(|store| crate::session_list_items(store, summaries))?;
        Ok(SessionsInfo { sessions })
    }

    /// Asks again from the last user message of the branch (a sibling answer); the run starts
    /// in the background.
    pub fn regenerate(&self) -> Result<(RegenerateInfo, RunHandle), AppError> {
        self.prepare_run()?;
        let user_node_id = self.recorder()?.regenerate(&self.agent)?;
        let agent = self.agent.clone();
        let run = tokio::spawn(async move { agent.continue_run().await });
        Ok((RegenerateInfo { user_node_id }, run))
    }

    pub fn rename_session(&self, title: &str) -> Result<RenameInfo, AppError> {
        let renamed = self.recorder()?.rename(title)?;
        Ok(RenameInfo {
            session_id: renamed.id,
            title: renamed.title,
        })
    }

    /// Sends `message` in place of the user message `node_id`: a sibling branch under the same
    /// parent, with the documents and images the original carried (an edit changes what was
    /// typed, not what was attached). The run starts in the background.
    pub fn edit_message(&self, node_id: &str, message: String) -> Result<RunHandle, AppError> {
        let recorder = self.recorder()?;
        let original = recorder.node(node_id)?;
        if original.kind != NodeKind::User {
            return Err(AppError::NotAUserMessage(node_id.to_owned()));
        }
        let attached = match arbor_coding::sessions::node_to_message(&original) {
            Ok(Some(arbor_agent::AgentMessage::User(user))) => {
                crate::documents::attachments_of(user)
            }
            _ => Vec::new(),
        };
        recorder.navigate(&self.agent, node_id)?;
        let edited = crate::documents::with_attachments(message, attached);
        self.prepare_run()?;
        let agent = self.agent.clone();
        Ok(tokio::spawn(async move {
            agent.prompt_messages(vec![edited]).await
        }))
    }

    /// Asks again for the answer `node_id` (`None`: the branch's last answer): the leaf moves
    /// to the answer's parent and the model is asked from there, so the new answer is its
    /// sibling. The run starts in the background.
    pub fn regenerate_at(&self, node_id: Option<&str>) -> Result<RunHandle, AppError> {
        let Some(node_id) = node_id else {
            return self.regenerate().map(|(_, run)| run);
        };
        let recorder = self.recorder()?;
        let answer = recorder.node(node_id)?;
        let parent = match (answer.kind, answer.parent_id) {
            (NodeKind::Assistant, Some(parent)) => parent,
            _ => return Err(AppError::NotAnAnswer(node_id.to_owned())),
        };
        self.prepare_run()?;
        recorder.go_to(&self.agent, &parent)?;
        let agent = self.agent.clone();
        Ok(tokio::spawn(async move { agent.continue_run().await }))
    }
}

/// Where [`LiveSession::navigate`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavigateTo {
    /// The node (a tree's node, RPC `navigate`, `/goto`): to a user message, the leaf moves to
    /// its parent and its text comes back for editing (sending it makes a sibling branch).
    Node,
    /// The node itself as the leaf, a user message too (a search hit).
    Exactly,
    /// The newest leaf under the node (a `‹ 2/3 ›` switcher's sibling: its branch as last left).
    NewestLeaf,
}

/// What a compaction did, with the conversation's length after it.
fn compaction_info(
    done: arbor_coding::compaction::Compaction,
    agent: &arbor_agent::Agent,
) -> CompactionInfo {
    CompactionInfo {
        summary: done.summary,
        tokens_before: done.tokens_before,
        tokens_after: done.tokens_after,
        node_id: done.node_id,
        message_count: agent.messages().len(),
    }
}

/// An export's text, written atomically to `path` when given, else handed back.
pub(super) fn deliver_export(
    session_id: String,
    text: String,
    path: Option<&std::path::Path>,
) -> Result<ExportInfo, AppError> {
    match path {
        Some(path) => {
            arbor_coding::export::write_atomically(path, &text)?;
            Ok(ExportInfo {
                session_id,
                content: None,
                path: Some(path.to_owned()),
                bytes: Some(text.len()),
            })
        }
        None => Ok(ExportInfo {
            session_id,
            content: Some(text),
            path: None,
            bytes: None,
        }),
    }
}
