//! Gemini `streamGenerateContent?alt=sse`: `data: {GenerateContentResponse}\r\n\r\n` chunks.
//! Shapes follow `fixtures/providers/gemini/gem_vercel_*.sse` and `louter_*_crlf.sse`.

use hyper::body::Bytes;

use super::json::{jobj, Json};
use super::{Block, Plan};
use crate::script::{StopReason, StreamError};

/// Gemini frames events with CRLF (byte-exact in the louter recordings).
fn frame(data: &Json) -> Bytes {
    Bytes::from(format!("data: {data}\r\n\r\n"))
}

/// A part under construction: its fields, before an optional `thoughtSignature` is added.
struct Part(Vec<(&'static str, Json)>);

impl Part {
    fn finish(mut self, signature: &mut Option<String>) -> Json {
        // A pending signature rides on the first part after the thinking, as Gemini does.
        if let Some(signature) = signature.take() {
            self.0.push(("thoughtSignature", Json::str(&signature)));
        }
        Json::obj(self.0)
    }
}

pub(crate) fn render(plan: &Plan) -> Vec<Bytes> {
    let mut ids = plan.ids();
    let response_id = ids.next("", 23);
    let mut chunks: Vec<Vec<Json>> = Vec::new();
    let mut pending_signature: Option<String> = None;
    let mut blocks = plan.blocks.iter().peekable();
    while let Some(block) = blocks.next() {
        match block {
            Block::Thinking { text, signature } => {
                for piece in plan.pieces(text) {
                    let part = Part(vec![
                        ("thought", Json::bool(true)),
                        ("text", Json::str(piece)),
                    ]);
                    chunks.push(vec![part.finish(&mut None)]);
                }
                if signature.is_some() {
                    pending_signature.clone_from(signature);
                }
            }
            Block::Text(text) => {
                for piece in plan.pieces(text) {
                    let part = Part(vec![("text", Json::str(piece))]);
                    chunks.push(vec![part.finish(&mut pending_signature)]);
                }
            }
            Block::ToolCall { .. } => {
                // Gemini sends whole calls, and parallel calls together in one chunk.
                let mut parts = Vec::new();
                let mut next = Some(block);
                while let Some(Block::ToolCall {
                    name, arguments, ..
                }) = next
                {
                    let call = jobj! {
                        "name" => Json::str(name),
                        "args" => Json::value(arguments),
                    };
                    parts.push(Part(vec![("functionCall", call)]).finish(&mut pending_signature));
                    next = blocks.next_if(|b| matches!(b, Block::ToolCall { .. }));
                }
                chunks.push(parts);
            }
        }
    }
    if pending_signature.is_some() || chunks.is_empty() {
        // A signature with nothing after it comes on a trailing empty text part.
        chunks.push(vec![
            Part(vec![("text", Json::str(""))]).finish(&mut pending_signature)
        ]);
    }
    let finish_reason = match plan.stop {
        StopReason::Stop | StopReason::ToolUse => "STOP",
        StopReason::Length => "MAX_TOKENS",
    };
    let last = chunks.len().saturating_sub(1);
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, parts)| {
            let mut candidate = vec![(
                "content",
                jobj! { "parts" => Json::arr(parts), "role" => Json::str("model") },
            )];
            if i == last {
                candidate.push(("finishReason", Json::str(finish_reason)));
            }
            candidate.push(("index", Json::num(0)));
            frame(&jobj! {
                "candidates" => Json::arr([Json::obj(candidate)]),
                "usageMetadata" => usage_metadata(plan),
                "modelVersion" => Json::str(&plan.model),
                "responseId" => Json::str(&response_id),
            })
        })
        .collect()
}

/// Gemini counts cached tokens inside `promptTokenCount` and thoughts outside `candidatesTokenCount`.
fn usage_metadata(plan: &Plan) -> Json {
    let usage = &plan.usage;
    let prompt = plan.prompt_total();
    let mut fields = vec![
        ("promptTokenCount", Json::num(prompt)),
        (
            "candidatesTokenCount",
            Json::num(usage.output.saturating_sub(usage.reasoning)),
        ),
        ("totalTokenCount", Json::num(prompt + usage.output)),
    ];
    if usage.cache_read > 0 {
        fields.push(("cachedContentTokenCount", Json::num(usage.cache_read)));
    }
    if usage.reasoning > 0 {
        fields.push(("thoughtsTokenCount", Json::num(usage.reasoning)));
    }
    Json::obj(fields)
}

/// A Google RPC error object sent as a stream chunk.
pub(crate) fn render_error(error: &StreamError) -> Vec<Bytes> {
    let status = error.kind.as_deref().unwrap_or("INTERNAL");
    let message = error
        .message
        .as_deref()
        .unwrap_or("An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting");
    let code = match status {
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" => 400,
        "PERMISSION_DENIED" => 403,
        "NOT_FOUND" => 404,
        "RESOURCE_EXHAUSTED" => 429,
        "UNAVAILABLE" => 503,
        "DEADLINE_EXCEEDED" => 504,
        _ => 500,
    };
    vec![frame(&jobj! {
        "error" => jobj! {
            "code" => Json::num(code),
            "message" => Json::str(message),
            "status" => Json::str(status),
        },
    })]
}
