//! A live session's answers to MCP servers' questions (elicitation): a server asks in the
//! middle of a call this session made; the question goes out on the session's stream
//! (`elicitation_requested`) and waits until a front end answers it (`answer_elicitation`,
//! checked against the form), the call ends (aborted or timed out: withdrawn as `cancel`), or —
//! where nobody can answer (`-p`, JSON, `arbor mcp serve`) — it is declined at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use arbor_coding::EventSink;
use arbor_mcp::elicitation::{check, ElicitationForm, ElicitationReply, Elicitor};
use arbor_protocol::views::elicitation::{ElicitationAction, ElicitationRequest};
use arbor_protocol::CodingEvent;
use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::live::LiveSession;
use crate::AppError;

#[derive(Default)]
struct State {
    sink: Option<EventSink>,
    waiting: HashMap<String, (oneshot::Sender<ElicitationReply>, ElicitationRequest)>,
}

/// The questions of one live session's calls.
#[derive(Default)]
pub(crate) struct ElicitationGate {
    answerable: AtomicBool,
    next_id: AtomicU64,
    state: Mutex<State>,
}

impl ElicitationGate {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set_sink(&self, sink: Option<EventSink>) {
        self.lock().sink = sink;
    }

    pub fn set_answerable(&self, answerable: bool) {
        self.answerable.store(answerable, Ordering::SeqCst);
    }

    fn emit(&self, event: CodingEvent) {
        let sink = self.lock().sink.clone();
        if let Some(sink) = sink {
            sink(&event);
        }
    }

    fn resolved(&self, request_id: &str, action: ElicitationAction) {
        self.emit(CodingEvent::ElicitationResolved {
            request_id: request_id.to_owned(),
            action,
        });
    }

    /// Answers the question `request_id`; accepted content must fit its form (a field left
    /// out takes its default). A refused answer leaves the question waiting.
    pub fn answer(
        &self,
        request_id: &str,
        action: ElicitationAction,
        content: Option<Map<String, Value>>,
    ) -> Result<(), AppError> {
        let mut state = self.lock();
        let Some((_, request)) = state.waiting.get(request_id) else {
            return Err(AppError::UnknownElicitation(request_id.to_owned()));
        };
        let reply = match action {
            ElicitationAction::Accept => {
                ElicitationReply::Accept(check(&request.fields, content.unwrap_or_default())?)
            }
            ElicitationAction::Decline => ElicitationReply::Decline,
            ElicitationAction::Cancel => ElicitationReply::Cancel,
        };
        if let Some((sender, _)) = state.waiting.remove(request_id) {
            let _ = sender.send(reply);
        }
        drop(state);
        self.resolved(request_id, action);
        Ok(())
    }

    /// The questions waiting for an answer, oldest first.
    pub fn waiting(&self) -> Vec<ElicitationRequest> {
        let mut waiting: Vec<ElicitationRequest> = self
            .lock()
            .waiting
            .values()
            .map(|(_, r)| r.clone())
            .collect();
        waiting.sort_by_key(|r| {
            r.request_id
                .rsplit('-')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(u64::MAX)
        });
        waiting
    }
}

#[async_trait::async_trait]
impl Elicitor for ElicitationGate {
    async fn elicit(&self, form: ElicitationForm, ended: CancellationToken) -> ElicitationReply {
        if !self.answerable.load(Ordering::SeqCst) {
            return ElicitationReply::Decline;
        }
        let number = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let request = ElicitationRequest {
            request_id: format!("elicitation-{number}"),
            server: form.server,
            message: form.message,
            fields: form.fields,
            initial: form.initial,
        };
        let id = request.request_id.clone();
        let (sender, receiver) = oneshot::channel();
        self.lock()
            .waiting
            .insert(id.clone(), (sender, request.clone()));
        self.emit(CodingEvent::ElicitationRequested { request });
        tokio::select! {
            reply = receiver => reply.unwrap_or(ElicitationReply::Cancel),
            () = ended.cancelled() => {
                if self.lock().waiting.remove(&id).is_some() {
                    self.resolved(&id, ElicitationAction::Cancel);
                }
                ElicitationReply::Cancel
            }
        }
    }
}

impl LiveSession {
    /// Answers an `elicitation_requested` event (see [`ElicitationGate::answer`]).
    pub fn answer_elicitation(
        &self,
        request_id: &str,
        action: ElicitationAction,
        content: Option<Map<String, Value>>,
    ) -> Result<(), AppError> {
        self.elicitation.answer(request_id, action, content)
    }

    /// Accepts the question `request_id` with `name=value` pairs typed at a terminal, read as
    /// its fields expect (numbers, `true`/`false`, comma-separated choices); the rest keep
    /// their defaults.
    pub fn accept_elicitation_text(
        &self,
        request_id: &str,
        pairs: &[(&str, &str)],
    ) -> Result<(), AppError> {
        let fields = self
            .elicitation
            .waiting()
            .into_iter()
            .find(|r| r.request_id == request_id)
            .ok_or_else(|| AppError::UnknownElicitation(request_id.to_owned()))?
            .fields;
        let content = arbor_mcp::elicitation::from_text(&fields, pairs.iter().copied())?;
        self.answer_elicitation(request_id, ElicitationAction::Accept, Some(content))
    }

    /// The MCP servers' questions waiting for an answer, oldest first.
    pub fn waiting_elicitations(&self) -> Vec<ElicitationRequest> {
        self.elicitation.waiting()
    }

    /// Sends the questions still waiting to the stream again (a window that shows this
    /// session again asks them in its dialog).
    pub fn repeat_waiting_elicitations(&self) {
        for request in self.elicitation.waiting() {
            self.elicitation
                .emit(CodingEvent::ElicitationRequested { request });
        }
    }
}
