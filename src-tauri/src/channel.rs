//! Delivering a session's events to a window over a `tauri::ipc::Channel`, coalesced.
//!
//! Every Channel message costs the webview one script evaluation, so a stream of 2,000 tokens
//! a second must not become 2,000 messages a second. Consecutive deltas of the same block
//! (text, thinking, tool-call arguments) and consecutive output chunks of the same tool call
//! are merged for up to one frame (16 ms) or 4 KB, then sent as one event; any other event
//! first flushes what is pending, so the order of the stream never changes. The merged events
//! mean exactly what their parts meant (a longer delta, a longer chunk).

use std::time::Duration;

use arbor_protocol::AssistantEvent;
use arbor_protocol::{AgentEvent, SessionEvent};
use tauri::ipc::Channel;
use tokio::sync::mpsc;
use tokio::time::{timeout_at, Instant};

/// How long a delta may wait for more of the same.
const FRAME: Duration = Duration::from_millis(16);
/// The most text one merged event carries (well under the Channel's 8 KB direct path).
const MAX_MERGED_BYTES: usize = 4096;

/// A sink for [`arbor_app::LiveSession::attach`] that forwards to `channel`.
pub fn forward(channel: Channel<SessionEvent>) -> impl Fn(&SessionEvent) + Send + Sync + 'static {
    let (sender, receiver) = mpsc::unbounded_channel::<SessionEvent>();
    tauri::async_runtime::spawn(deliver(receiver, move |event| {
        // A closed window drops the channel; the run goes on and is stored regardless.
        let _ = channel.send(event);
    }));
    move |event| {
        let _ = sender.send(event.clone());
    }
}

async fn deliver(mut receiver: mpsc::UnboundedReceiver<SessionEvent>, send: impl Fn(SessionEvent)) {
    let mut next = receiver.recv().await;
    while let Some(event) = next.take() {
        if !mergeable(&event) {
            send(event);
            next = receiver.recv().await;
            continue;
        }
        let mut pending = event;
        let deadline = Instant::now() + FRAME;
        loop {
            match timeout_at(deadline, receiver.recv()).await {
                Err(_elapsed) => {
                    send(pending);
                    next = receiver.recv().await;
                    break;
                }
                Ok(None) => {
                    send(pending);
                    return;
                }
                Ok(Some(event)) => match merge(pending, event) {
                    Merged::Into(merged) if size(&merged) < MAX_MERGED_BYTES => pending = merged,
                    Merged::Into(merged) => {
                        send(merged);
                        next = receiver.recv().await;
                        break;
                    }
                    Merged::Apart(first, second) => {
                        send(first);
                        next = Some(second);
                        break;
                    }
                },
            }
        }
    }
}

fn mergeable(event: &SessionEvent) -> bool {
    matches!(
        event,
        SessionEvent::Agent(AgentEvent::MessageUpdate {
            delta: AssistantEvent::TextDelta { .. }
                | AssistantEvent::ThinkingDelta { .. }
                | AssistantEvent::ToolCallDelta { .. },
        }) | SessionEvent::Agent(AgentEvent::ToolExecutionUpdate { .. })
    )
}

fn size(event: &SessionEvent) -> usize {
    match event {
        SessionEvent::Agent(AgentEvent::MessageUpdate {
            delta:
                AssistantEvent::TextDelta { delta, .. }
                | AssistantEvent::ThinkingDelta { delta, .. }
                | AssistantEvent::ToolCallDelta { delta, .. },
        }) => delta.len(),
        SessionEvent::Agent(AgentEvent::ToolExecutionUpdate { output, .. }) => output.len(),
        _ => 0,
    }
}

// Lives for one call on the stack; boxing would allocate per delta for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
enum Merged {
    Into(SessionEvent),
    Apart(SessionEvent, SessionEvent),
}

/// `second` folded into `first` when both continue the same block or tool output.
fn merge(first: SessionEvent, second: SessionEvent) -> Merged {
    use AgentEvent::{MessageUpdate, ToolExecutionUpdate};
    use AssistantEvent::{TextDelta, ThinkingDelta, ToolCallDelta};
    use SessionEvent::Agent;
    match (first, second) {
        (
            Agent(MessageUpdate {
                delta:
                    TextDelta {
                        content_index: a,
                        delta: mut text,
                    },
            }),
            Agent(MessageUpdate {
                delta:
                    TextDelta {
                        content_index: b,
                        delta: more,
                    },
            }),
        ) if a == b => {
            text.push_str(&more);
            Merged::Into(Agent(MessageUpdate {
                delta: TextDelta {
                    content_index: a,
                    delta: text,
                },
            }))
        }
        (
            Agent(MessageUpdate {
                delta:
                    ThinkingDelta {
                        content_index: a,
                        delta: mut text,
                    },
            }),
            Agent(MessageUpdate {
                delta:
                    ThinkingDelta {
                        content_index: b,
                        delta: more,
                    },
            }),
        ) if a == b => {
            text.push_str(&more);
            Merged::Into(Agent(MessageUpdate {
                delta: ThinkingDelta {
                    content_index: a,
                    delta: text,
                },
            }))
        }
        (
            Agent(MessageUpdate {
                delta:
                    ToolCallDelta {
                        content_index: a,
                        delta: mut text,
                        ..
                    },
            }),
            Agent(MessageUpdate {
                delta:
                    ToolCallDelta {
                        content_index: b,
                        delta: more,
                        arguments,
                    },
            }),
        ) if a == b => {
            text.push_str(&more);
            Merged::Into(Agent(MessageUpdate {
                delta: ToolCallDelta {
                    content_index: a,
                    delta: text,
                    arguments,
                },
            }))
        }
        (
            Agent(ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                mut output,
            }),
            Agent(ToolExecutionUpdate {
                tool_call_id: other,
                output: more,
                ..
            }),
        ) if tool_call_id == other => {
            output.push_str(&more);
            Merged::Into(Agent(ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                output,
            }))
        }
        (first, second) => Merged::Apart(first, second),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn text(index: usize, delta: &str) -> SessionEvent {
        SessionEvent::Agent(AgentEvent::MessageUpdate {
            delta: AssistantEvent::TextDelta {
                content_index: index,
                delta: delta.into(),
            },
        })
    }

    fn output(id: &str, chunk: &str) -> SessionEvent {
        SessionEvent::Agent(AgentEvent::ToolExecutionUpdate {
            tool_call_id: id.into(),
            tool_name: "bash".into(),
            output: chunk.into(),
        })
    }

    #[test]
    fn deltas_of_one_block_merge_and_others_stay_apart() {
        assert_eq!(
            merge(text(0, "ab"), text(0, "cd")),
            Merged::Into(text(0, "abcd"))
        );
        assert_eq!(
            merge(text(0, "ab"), text(1, "cd")),
            Merged::Apart(text(0, "ab"), text(1, "cd"))
        );
        assert_eq!(
            merge(output("t1", "a\n"), output("t1", "b\n")),
            Merged::Into(output("t1", "a\nb\n"))
        );
        assert_eq!(
            merge(output("t1", "a"), output("t2", "b")),
            Merged::Apart(output("t1", "a"), output("t2", "b"))
        );
        let end = SessionEvent::Agent(AgentEvent::TurnStart);
        assert_eq!(
            merge(text(0, "x"), end.clone()),
            Merged::Apart(text(0, "x"), end)
        );
    }

    #[tokio::test]
    async fn a_burst_arrives_as_few_events_in_the_same_order_with_the_same_text() {
        let (sender, receiver) = mpsc::unbounded_channel();
        let delivered = Arc::new(Mutex::new(Vec::new()));
        let sink = delivered.clone();
        let task = tokio::spawn(deliver(receiver, move |event| {
            sink.lock().unwrap().push(event)
        }));
        sender
            .send(SessionEvent::Agent(AgentEvent::TurnStart))
            .unwrap();
        for i in 0..1000 {
            sender.send(text(0, &format!("{i} "))).unwrap();
        }
        sender
            .send(SessionEvent::Agent(AgentEvent::TurnStart))
            .unwrap();
        drop(sender);
        task.await.unwrap();
        let delivered = delivered.lock().unwrap();
        let texts: String = delivered
            .iter()
            .filter_map(|e| match e {
                SessionEvent::Agent(AgentEvent::MessageUpdate {
                    delta: AssistantEvent::TextDelta { delta, .. },
                }) => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        let expected: String = (0..1000).map(|i| format!("{i} ")).collect();
        assert_eq!(texts, expected);
        assert_eq!(
            delivered.first(),
            Some(&SessionEvent::Agent(AgentEvent::TurnStart))
        );
        assert_eq!(
            delivered.last(),
            Some(&SessionEvent::Agent(AgentEvent::TurnStart))
        );
        // Everything was queued before delivery began, so no frame ran out: the 3,890 bytes of
        // text (under the 4 KB cap) arrive as one event between the two others.
        assert_eq!(delivered.len(), 3, "{delivered:?}");
    }
}
