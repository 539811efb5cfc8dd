//! OpenAI Chat Completions streaming (`data: {chunk}` … `data: [DONE]`), with DeepSeek-style
//! `reasoning_content` for thinking. Shapes follow `fixtures/providers/openai-chat/oai_py_*`.

use hyper::body::Bytes;

use super::json::{jobj, Json};
use super::{data_event, Block, Plan};
use crate::script::{StopReason, StreamError};

struct Chunker<'a> {
    plan: &'a Plan,
    id: String,
}

impl Chunker<'_> {
    /// One `chat.completion.chunk` carrying `choices`.
    fn chunk(&self, choices: Json) -> Bytes {
        let chunk = jobj! {
            "id" => Json::str(&self.id),
            "object" => Json::str("chat.completion.chunk"),
            "created" => Json::num(self.plan.created),
            "model" => Json::str(&self.plan.model),
            "system_fingerprint" => Json::str("fp_arbor_mock"),
            "choices" => choices,
        };
        data_event(&chunk.to_string())
    }

    fn delta(&self, delta: Json, finish_reason: Json) -> Bytes {
        self.chunk(Json::arr([jobj! {
            "index" => Json::num(0),
            "delta" => delta,
            "logprobs" => Json::null(),
            "finish_reason" => finish_reason,
        }]))
    }
}

pub(crate) fn render(plan: &Plan) -> Vec<Bytes> {
    let mut ids = plan.ids();
    let c = Chunker {
        plan,
        id: ids.next("chatcmpl-", 29),
    };
    let mut events = vec![c.delta(
        jobj! {
            "role" => Json::str("assistant"),
            "content" => Json::str(""),
            "refusal" => Json::null(),
        },
        Json::null(),
    )];
    let mut tool_index = 0;
    for block in &plan.blocks {
        match block {
            Block::Thinking { text, .. } => {
                for piece in plan.pieces(text) {
                    events.push(c.delta(
                        jobj! { "content" => Json::null(), "reasoning_content" => Json::str(piece) },
                        Json::null(),
                    ));
                }
            }
            Block::Text(text) => {
                for piece in plan.pieces(text) {
                    events.push(c.delta(jobj! { "content" => Json::str(piece) }, Json::null()));
                }
            }
            Block::ToolCall {
                id,
                name,
                arguments_text,
                ..
            } => {
                let id = id.clone().unwrap_or_else(|| ids.next("call_", 24));
                // The first delta names the call with empty arguments, as OpenAI does.
                events.push(c.delta(
                    tool_delta(jobj! {
                        "index" => Json::num(tool_index),
                        "id" => Json::str(&id),
                        "type" => Json::str("function"),
                        "function" => jobj! {
                            "name" => Json::str(name),
                            "arguments" => Json::str(""),
                        },
                    }),
                    Json::null(),
                ));
                for piece in plan.pieces(arguments_text) {
                    events.push(c.delta(
                        tool_delta(jobj! {
                            "index" => Json::num(tool_index),
                            "function" => jobj! { "arguments" => Json::str(piece) },
                        }),
                        Json::null(),
                    ));
                }
                tool_index += 1;
            }
        }
    }
    let finish = match plan.stop {
        StopReason::Stop => "stop",
        StopReason::Length => "length",
        StopReason::ToolUse => "tool_calls",
    };
    events.push(c.delta(Json::empty_obj(), Json::str(finish)));
    if plan.include_usage {
        let usage = &plan.usage;
        let prompt = plan.prompt_total();
        let chunk = jobj! {
            "id" => Json::str(&c.id),
            "object" => Json::str("chat.completion.chunk"),
            "created" => Json::num(plan.created),
            "model" => Json::str(&plan.model),
            "system_fingerprint" => Json::str("fp_arbor_mock"),
            "choices" => Json::arr([]),
            "usage" => jobj! {
                "prompt_tokens" => Json::num(prompt),
                "completion_tokens" => Json::num(usage.output),
                "total_tokens" => Json::num(prompt + usage.output),
                "prompt_tokens_details" => jobj! { "cached_tokens" => Json::num(usage.cache_read) },
                "completion_tokens_details" => jobj! { "reasoning_tokens" => Json::num(usage.reasoning) },
            },
        };
        events.push(data_event(&chunk.to_string()));
    }
    events.push(data_event("[DONE]"));
    events
}

fn tool_delta(call: Json) -> Json {
    jobj! { "tool_calls" => Json::arr([call]) }
}

/// OpenAI reports a failure inside the stream as a bare `{"error": …}` chunk, then `[DONE]`.
pub(crate) fn render_error(error: &StreamError) -> Vec<Bytes> {
    let kind = error.kind.as_deref().unwrap_or("server_error");
    let message = error.message.as_deref().unwrap_or(
        "The server had an error processing your request. Sorry about that! You can retry your request.",
    );
    let body = jobj! {
        "error" => jobj! {
            "message" => Json::str(message),
            "type" => Json::str(kind),
            "param" => Json::null(),
            "code" => Json::null(),
        },
    };
    vec![data_event(&body.to_string()), data_event("[DONE]")]
}
