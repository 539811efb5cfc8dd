//! [`Compactor`]: summarises the older part of a conversation and stores the summary as a
//! compaction node (or keeps it in memory when the conversation is not stored).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use arbor_agent::{Agent, AgentMessage};
use arbor_llm::{LlmClient, LlmError, Model, RequestOptions};
use arbor_store::{NewNode, Node, NodeKind};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::cut::find_cut;
use super::summary::{write_summary, FileLists, SummaryKind, SummaryRequest};
use super::{tokens, CompactionError, CompactionReason, CompactionSettings};
use crate::sessions::{
    compaction_summary_message, is_compaction_summary, message_text, CodingEvent, EventSink,
    SessionRecorder,
};

/// Where the exact file lists start in a stored summary (the model does not rewrite them).
const FILES_HEADING: &str = "\n\n## Files read\n";

/// What a compaction did.
#[derive(Debug, Clone)]
pub struct Compaction {
    /// The summary as the model sees it (the model's text, then the exact file lists).
    pub summary: String,
    pub tokens_before: u64,
    /// The estimated context after the compaction.
    pub tokens_after: u64,
    /// The compaction node, when the conversation is stored.
    pub node_id: Option<String>,
    /// The conversation from now on: the summary, then the messages kept verbatim.
    pub messages: Vec<AgentMessage>,
}

/// The summary a conversation starts with, to merge into the next one.
struct Previous {
    /// The model-written part (without the file lists).
    body: String,
    files: FileLists,
}

/// The compaction this compactor made last, to recognise its summary at the head of the
/// conversation.
struct LastCompaction {
    summary_message: AgentMessage,
    body: String,
    files: FileLists,
    /// How many messages (summary + kept) the conversation had right after it: answers before
    /// this index were counted by the provider with the whole history, so their usage is stale.
    boundary: usize,
}

/// Compacts conversations for one agent: on demand ([`Compactor::compact_agent`]) and, through
/// [`crate::SessionRequestHook`], when the context nears the window or overflows it.
pub struct Compactor {
    client: LlmClient,
    settings: CompactionSettings,
    recorder: Option<SessionRecorder>,
    sink: Mutex<Option<EventSink>>,
    last: Mutex<Option<LastCompaction>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Compactor {
    /// Summaries are written by the conversation's own model through `client`. With a
    /// `recorder`, compactions are stored as nodes of its current session.
    pub fn new(
        client: LlmClient,
        settings: CompactionSettings,
        recorder: Option<SessionRecorder>,
    ) -> Self {
        Self {
            client,
            settings,
            recorder,
            sink: Mutex::new(None),
            last: Mutex::new(None),
        }
    }

    /// Where compaction (and, for the request hook, retry) events go.
    pub fn set_sink(&self, sink: Option<EventSink>) {
        *lock(&self.sink) = sink;
    }

    pub fn settings(&self) -> &CompactionSettings {
        &self.settings
    }

    pub fn recorder(&self) -> Option<&SessionRecorder> {
        self.recorder.as_ref()
    }

    pub fn client(&self) -> &LlmClient {
        &self.client
    }

    pub(crate) fn emit(&self, event: &CodingEvent) {
        let sink = lock(&self.sink).clone();
        if let Some(sink) = sink {
            sink(event);
        }
    }

    /// The tokens `messages` take in the model's context (provider usage where it still
    /// applies, estimates for the rest).
    pub fn context_tokens(&self, messages: &[AgentMessage]) -> u64 {
        tokens::context_tokens(messages, self.trusted_from(messages))
    }

    fn trusted_from(&self, messages: &[AgentMessage]) -> usize {
        match messages.first() {
            Some(first) if is_compaction_summary(first) => match &*lock(&self.last) {
                Some(last) if &last.summary_message == first => last.boundary,
                // A summary this compactor did not make (a resumed session): estimate all.
                _ => messages.len(),
            },
            _ => 0,
        }
    }

    /// Whether `messages` pass the threshold for `model` (see [`CompactionSettings`]).
    pub fn needs_compaction(&self, messages: &[AgentMessage], model: &Model) -> bool {
        self.settings.enabled
            && self
                .settings
                .threshold(model.context_window)
                .is_some_and(|threshold| self.context_tokens(messages) > threshold)
    }

    /// Compacts an idle agent's conversation (the manual `/compact [focus]`) with its model
    /// and key, and loads the result into it.
    pub async fn compact_agent(
        &self,
        agent: &Agent,
        focus: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<Compaction, CompactionError> {
        if agent.is_streaming() {
            return Err(CompactionError::Busy);
        }
        let state = agent.state();
        let options = RequestOptions {
            thinking: state.thinking_level,
            ..state.request_options.clone()
        };
        let compaction = self
            .compact(
                &state.messages,
                &state.model,
                &options,
                CompactionReason::Manual,
                focus,
                cancel,
            )
            .await?;
        agent
            .replace_messages(compaction.messages.clone())
            .map_err(|_| CompactionError::Busy)?;
        Ok(compaction)
    }

    /// Summarises all but about the last [`CompactionSettings::keep_recent_tokens`] of
    /// `messages` (merging the summary they start with, if any), stores the compaction and
    /// returns the new conversation. Reports `compaction_start` and `compaction_end`.
    pub async fn compact(
        &self,
        messages: &[AgentMessage],
        model: &Model,
        options: &RequestOptions,
        reason: CompactionReason,
        focus: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<Compaction, CompactionError> {
        let tokens_before = self.context_tokens(messages);
        self.emit(&CodingEvent::CompactionStart { reason });
        let result = self
            .run(messages, model, options, focus, tokens_before, cancel)
            .await;
        self.emit(&match &result {
            Ok(done) => CodingEvent::CompactionEnd {
                reason,
                tokens_before,
                tokens_after: Some(done.tokens_after),
                summary: Some(done.summary.clone()),
                node_id: done.node_id.clone(),
                error: None,
            },
            Err(error) => CodingEvent::CompactionEnd {
                reason,
                tokens_before,
                tokens_after: None,
                summary: None,
                node_id: None,
                error: Some(error.to_string()),
            },
        });
        result
    }

    async fn run(
        &self,
        messages: &[AgentMessage],
        model: &Model,
        options: &RequestOptions,
        focus: Option<&str>,
        tokens_before: u64,
        cancel: &CancellationToken,
    ) -> Result<Compaction, CompactionError> {
        let stored = self.stored_nodes(messages)?;
        let previous = self.previous(messages, stored.as_deref());
        let start = usize::from(previous.is_some());
        let keep = self.settings.keep_tokens(model.context_window);
        let cut = find_cut(messages, start, keep)
            .or_else(|| find_cut(messages, start, 0))
            .ok_or(CompactionError::NothingToCompact {
                tokens: tokens_before,
            })?;
        let summarised = &messages[start..cut];
        let mut files = previous
            .as_ref()
            .map(|p| p.files.clone())
            .unwrap_or_default();
        files.add_calls(summarised);
        let request = SummaryRequest {
            messages: summarised,
            previous: previous.as_ref().map(|p| p.body.as_str()),
            focus,
            kind: SummaryKind::Compaction,
        };
        let body = write_summary(&self.client, model, options, &request, cancel)
            .await
            .map_err(|error| match error {
                LlmError::Aborted => CompactionError::Aborted,
                other => CompactionError::Summary(other),
            })?;
        if cancel.is_cancelled() {
            return Err(CompactionError::Aborted);
        }
        let summary = format!("{body}\n\n{}", files.to_markdown());
        let (after, node_id) = match (stored, &self.recorder) {
            (Some(nodes), Some(recorder)) => {
                let first_kept = nodes[cut].id.clone();
                let mut node =
                    NewNode::compaction(summary.clone(), first_kept.clone(), tokens_before);
                node.content = json!({
                    "summary": summary,
                    "first_kept_id": first_kept,
                    "tokens_before": tokens_before,
                    "details": files,
                });
                let node = recorder.append_node(node)?;
                (recorder.context()?, Some(node.id))
            }
            _ => {
                let mut after = vec![compaction_summary_message(&summary)];
                after.extend_from_slice(&messages[cut..]);
                (after, None)
            }
        };
        let boundary = after.len();
        if let Some(summary_message) = after.first() {
            *lock(&self.last) = Some(LastCompaction {
                summary_message: summary_message.clone(),
                body,
                files,
                boundary,
            });
        }
        Ok(Compaction {
            summary,
            tokens_before,
            tokens_after: tokens::context_tokens(&after, boundary),
            node_id,
            messages: after,
        })
    }

    /// The stored context nodes that are `messages`, one for one; `None` when the
    /// conversation is not stored or the store does not match it (the compaction then stays
    /// in memory, and a `store_error` says so).
    fn stored_nodes(
        &self,
        messages: &[AgentMessage],
    ) -> Result<Option<Vec<Node>>, CompactionError> {
        let Some(recorder) = &self.recorder else {
            return Ok(None);
        };
        let nodes: Vec<Node> = recorder
            .context_nodes()?
            .into_iter()
            .filter(|n| {
                !matches!(
                    n.kind,
                    NodeKind::ModelChange | NodeKind::ThinkingLevelChange | NodeKind::Label
                )
            })
            .collect();
        if nodes.len() == messages.len() {
            return Ok(Some(nodes));
        }
        if recorder.session_id().is_some() {
            // A compaction stored against another path would summarise the wrong messages:
            // the run stops, and the next one starts again from what is stored.
            recorder.mark_failed(
                "the stored session does not match the conversation in memory, so the \
                 compaction could not be stored"
                    .into(),
            );
        }
        Ok(None)
    }

    /// The summary `messages` start with, if any.
    fn previous(&self, messages: &[AgentMessage], stored: Option<&[Node]>) -> Option<Previous> {
        if let Some(first) = stored.and_then(|nodes| nodes.first()) {
            if first.kind != NodeKind::Compaction {
                return None;
            }
            let content = first.content_value().unwrap_or_default();
            let summary = content
                .get("summary")
                .and_then(|s| s.as_str())
                .unwrap_or(&first.text);
            let files = content
                .get("details")
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or_default();
            return Some(Previous {
                body: model_part(summary),
                files,
            });
        }
        let first = messages.first().filter(|m| is_compaction_summary(m))?;
        match &*lock(&self.last) {
            Some(last) if &last.summary_message == first => Some(Previous {
                body: last.body.clone(),
                files: last.files.clone(),
            }),
            _ => Some(Previous {
                body: model_part(&message_text(first)),
                files: FileLists::default(),
            }),
        }
    }
}

/// A stored summary without the exact file lists appended to it.
fn model_part(summary: &str) -> String {
    summary
        .split_once(FILES_HEADING)
        .map_or(summary, |(body, _)| body)
        .to_owned()
}

/// Shared so the request hook and front ends (manual `/compact`) use one compactor.
pub type SharedCompactor = Arc<Compactor>;
