//! Anthropic Messages streaming. Shapes follow `fixtures/providers/anthropic/ant_vercel_*.sse`
//! and `ant_py_http_*_stream_*.sse` (recorded from the live API).

use hyper::body::Bytes;

use super::json::{jobj, Json};
use super::{named_event, Block, Plan};
use crate::script::{StopReason, StreamError};

/// Writes an event whose payload starts with `"type": kind`.
fn event<I>(kind: &str, fields: I) -> Bytes
where
    I: IntoIterator<Item = (&'static str, Json)>,
{
    let mut all = vec![("type", Json::str(kind))];
    all.extend(fields);
    named_event(kind, &Json::obj(all))
}

fn delta(index: u64, delta: Json) -> Bytes {
    event(
        "content_block_delta",
        [("index", Json::num(index)), ("delta", delta)],
    )
}

pub(crate) fn render(plan: &Plan) -> Vec<Bytes> {
    let mut ids = plan.ids();
    let usage = &plan.usage;
    let message_id = ids.next("msg_01", 22);
    let mut events = vec![event(
        "message_start",
        [(
            "message",
            jobj! {
                "model" => Json::str(&plan.model),
                "id" => Json::str(&message_id),
                "type" => Json::str("message"),
                "role" => Json::str("assistant"),
                "content" => Json::arr([]),
                "stop_reason" => Json::null(),
                "stop_sequence" => Json::null(),
                "usage" => jobj! {
                    "input_tokens" => Json::num(usage.input),
                    "cache_creation_input_tokens" => Json::num(usage.cache_write),
                    "cache_read_input_tokens" => Json::num(usage.cache_read),
                    "output_tokens" => Json::num(1),
                },
            },
        )],
    )];
    for (index, block) in plan.blocks.iter().enumerate() {
        let index = index as u64;
        let (content_block, deltas) = match block {
            Block::Thinking { text, signature } => {
                let mut deltas: Vec<Json> = plan
                    .pieces(text)
                    .into_iter()
                    .map(|piece| {
                        jobj! { "type" => Json::str("thinking_delta"), "thinking" => Json::str(piece) }
                    })
                    .collect();
                // The live API always closes a thinking block with its signature.
                let signature = signature.clone().unwrap_or_else(|| ids.next("Eq", 96));
                deltas.push(jobj! {
                    "type" => Json::str("signature_delta"),
                    "signature" => Json::str(&signature),
                });
                let start = jobj! {
                    "type" => Json::str("thinking"),
                    "thinking" => Json::str(""),
                    "signature" => Json::str(""),
                };
                (start, deltas)
            }
            Block::Text(text) => {
                let deltas = plan
                    .pieces(text)
                    .into_iter()
                    .map(|piece| jobj! { "type" => Json::str("text_delta"), "text" => Json::str(piece) })
                    .collect();
                (
                    jobj! { "type" => Json::str("text"), "text" => Json::str("") },
                    deltas,
                )
            }
            Block::ToolCall {
                id,
                name,
                arguments_text,
                ..
            } => {
                let id = id.clone().unwrap_or_else(|| ids.next("toolu_01", 22));
                // The live API opens every tool input with an empty fragment.
                let deltas = std::iter::once("")
                    .chain(plan.pieces(arguments_text))
                    .map(|piece| {
                        jobj! {
                            "type" => Json::str("input_json_delta"),
                            "partial_json" => Json::str(piece),
                        }
                    })
                    .collect();
                let start = jobj! {
                    "type" => Json::str("tool_use"),
                    "id" => Json::str(&id),
                    "name" => Json::str(name),
                    "input" => Json::empty_obj(),
                };
                (start, deltas)
            }
        };
        events.push(event(
            "content_block_start",
            [
                ("index", Json::num(index)),
                ("content_block", content_block),
            ],
        ));
        if index == 0 {
            // Anthropic sends one ping right after the first block opens.
            events.push(event("ping", []));
        }
        events.extend(deltas.into_iter().map(|d| delta(index, d)));
        events.push(event("content_block_stop", [("index", Json::num(index))]));
    }
    let stop_reason = match plan.stop {
        StopReason::Stop => "end_turn",
        StopReason::Length => "max_tokens",
        StopReason::ToolUse => "tool_use",
    };
    events.push(event(
        "message_delta",
        [
            (
                "delta",
                jobj! {
                    "stop_reason" => Json::str(stop_reason),
                    "stop_sequence" => Json::null(),
                },
            ),
            (
                "usage",
                jobj! {
                    "input_tokens" => Json::num(usage.input),
                    "cache_creation_input_tokens" => Json::num(usage.cache_write),
                    "cache_read_input_tokens" => Json::num(usage.cache_read),
                    "output_tokens" => Json::num(usage.output),
                },
            ),
        ],
    ));
    events.push(event("message_stop", []));
    events
}

/// `event: error` with `{"type":"error","error":{"type":…,"message":…}}`.
pub(crate) fn render_error(error: &StreamError) -> Vec<Bytes> {
    let kind = error.kind.as_deref().unwrap_or("overloaded_error");
    let message = error.message.as_deref().unwrap_or("Overloaded");
    vec![event(
        "error",
        [(
            "error",
            jobj! { "type" => Json::str(kind), "message" => Json::str(message) },
        )],
    )]
}
