//! OpenAI Responses streaming (`event: response.*`). Shapes follow
//! `fixtures/providers/openai-responses/resp_vercel_reasoning_encrypted_turn*.sse`.

use hyper::body::Bytes;

use super::json::{jobj, Json};
use super::{named_event, Block, Ids, Plan};
use crate::script::{StopReason, StreamError};

/// Numbers events (`sequence_number`) as they are written.
struct Writer {
    events: Vec<Bytes>,
    seq: u64,
}

impl Writer {
    /// Emits an event whose payload starts with `type` and `sequence_number`.
    fn emit<I>(&mut self, kind: &str, fields: I)
    where
        I: IntoIterator<Item = (&'static str, Json)>,
    {
        let mut all = vec![
            ("type", Json::str(kind)),
            ("sequence_number", Json::num(self.seq)),
        ];
        all.extend(fields);
        self.seq += 1;
        self.events.push(named_event(kind, &Json::obj(all)));
    }
}

fn response_object(plan: &Plan, id: &str, status: &str, output: Json, extra: ResponseEnd) -> Json {
    let (error, incomplete, usage) = match extra {
        ResponseEnd::InProgress => (Json::null(), Json::null(), Json::null()),
        ResponseEnd::Done { incomplete } => (
            Json::null(),
            if incomplete {
                jobj! { "reason" => Json::str("max_output_tokens") }
            } else {
                Json::null()
            },
            usage(plan),
        ),
        ResponseEnd::Failed { code, message } => (
            jobj! { "code" => Json::str(code), "message" => Json::str(message) },
            Json::null(),
            Json::null(),
        ),
    };
    jobj! {
        "id" => Json::str(id),
        "object" => Json::str("response"),
        "created_at" => Json::num(plan.created),
        "status" => Json::str(status),
        "background" => Json::bool(false),
        "error" => error,
        "incomplete_details" => incomplete,
        "instructions" => Json::null(),
        "max_output_tokens" => Json::null(),
        "model" => Json::str(&plan.model),
        "output" => output,
        "parallel_tool_calls" => Json::bool(true),
        "previous_response_id" => Json::null(),
        "store" => Json::bool(false),
        "temperature" => Json::num(1),
        "tool_choice" => Json::str("auto"),
        "tools" => Json::arr([]),
        "top_p" => Json::num(1),
        "truncation" => Json::str("disabled"),
        "usage" => usage,
        "user" => Json::null(),
        "metadata" => Json::empty_obj(),
    }
}

enum ResponseEnd<'a> {
    InProgress,
    Done { incomplete: bool },
    Failed { code: &'a str, message: &'a str },
}

fn usage(plan: &Plan) -> Json {
    let usage = &plan.usage;
    let input = plan.prompt_total();
    jobj! {
        "input_tokens" => Json::num(input),
        "input_tokens_details" => jobj! { "cached_tokens" => Json::num(usage.cache_read) },
        "output_tokens" => Json::num(usage.output),
        "output_tokens_details" => jobj! { "reasoning_tokens" => Json::num(usage.reasoning) },
        "total_tokens" => Json::num(input + usage.output),
    }
}

/// The ids of the response; drawn first so an error stream names the same response.
fn response_id(ids: &mut Ids) -> String {
    ids.next("resp_", 48)
}

fn start(w: &mut Writer, plan: &Plan, id: &str) {
    for kind in ["response.created", "response.in_progress"] {
        let response = response_object(
            plan,
            id,
            "in_progress",
            Json::arr([]),
            ResponseEnd::InProgress,
        );
        w.emit(kind, [("response", response)]);
    }
}

pub(crate) fn render(plan: &Plan) -> Vec<Bytes> {
    let mut ids = plan.ids();
    let id = response_id(&mut ids);
    let mut w = Writer {
        events: Vec::new(),
        seq: 0,
    };
    start(&mut w, plan, &id);
    let mut output = Vec::new();
    for (index, block) in plan.blocks.iter().enumerate() {
        let index = index as u64;
        let done_item = match block {
            Block::Thinking { text, signature } => {
                reasoning(&mut w, plan, &mut ids, index, text, signature)
            }
            Block::Text(text) => message(&mut w, plan, &mut ids, index, text),
            Block::ToolCall {
                id: call_id,
                name,
                arguments_text,
                ..
            } => {
                let item_id = ids.next("fc_", 48);
                let call_id = call_id.clone().unwrap_or_else(|| ids.next("call_", 24));
                let item = |status: &str, arguments: &str| {
                    jobj! {
                        "id" => Json::str(&item_id),
                        "type" => Json::str("function_call"),
                        "status" => Json::str(status),
                        "arguments" => Json::str(arguments),
                        "call_id" => Json::str(&call_id),
                        "name" => Json::str(name),
                    }
                };
                w.emit(
                    "response.output_item.added",
                    [
                        ("output_index", Json::num(index)),
                        ("item", item("in_progress", "")),
                    ],
                );
                for piece in plan.pieces(arguments_text) {
                    w.emit(
                        "response.function_call_arguments.delta",
                        [
                            ("item_id", Json::str(&item_id)),
                            ("output_index", Json::num(index)),
                            ("delta", Json::str(piece)),
                        ],
                    );
                }
                w.emit(
                    "response.function_call_arguments.done",
                    [
                        ("item_id", Json::str(&item_id)),
                        ("output_index", Json::num(index)),
                        ("arguments", Json::str(arguments_text)),
                    ],
                );
                item("completed", arguments_text)
            }
        };
        w.emit(
            "response.output_item.done",
            [
                ("output_index", Json::num(index)),
                ("item", done_item.clone()),
            ],
        );
        output.push(done_item);
    }
    // Responses has no stop reason: a length stop is `response.incomplete`, tool use is implied
    // by the function_call items.
    let incomplete = plan.stop == StopReason::Length;
    let (kind, status) = if incomplete {
        ("response.incomplete", "incomplete")
    } else {
        ("response.completed", "completed")
    };
    let response = response_object(
        plan,
        &id,
        status,
        Json::arr(output),
        ResponseEnd::Done { incomplete },
    );
    w.emit(kind, [("response", response)]);
    w.events
}

fn reasoning(
    w: &mut Writer,
    plan: &Plan,
    ids: &mut Ids,
    index: u64,
    text: &str,
    signature: &Option<String>,
) -> Json {
    let item_id = ids.next("rs_", 48);
    // The real API returns encrypted reasoning only when the request asks for it, and then always;
    // default one if the script has none.
    let encrypted = plan.encrypted_reasoning.then(|| {
        signature
            .clone()
            .unwrap_or_else(|| ids.next("gAAAAABmock", 64))
    });
    let item = |summary: Json| match &encrypted {
        Some(encrypted) => jobj! {
            "id" => Json::str(&item_id),
            "type" => Json::str("reasoning"),
            "encrypted_content" => Json::str(encrypted),
            "summary" => summary,
        },
        None => jobj! {
            "id" => Json::str(&item_id),
            "type" => Json::str("reasoning"),
            "summary" => summary,
        },
    };
    let part =
        |text: &str| jobj! { "type" => Json::str("summary_text"), "text" => Json::str(text) };
    w.emit(
        "response.output_item.added",
        [
            ("output_index", Json::num(index)),
            ("item", item(Json::arr([]))),
        ],
    );
    if text.is_empty() {
        return item(Json::arr([]));
    }
    let at = |w: &mut Writer, kind: &str, last: (&'static str, Json)| {
        w.emit(
            kind,
            [
                ("item_id", Json::str(&item_id)),
                ("output_index", Json::num(index)),
                ("summary_index", Json::num(0)),
                last,
            ],
        );
    };
    at(
        w,
        "response.reasoning_summary_part.added",
        ("part", part("")),
    );
    for piece in plan.pieces(text) {
        at(
            w,
            "response.reasoning_summary_text.delta",
            ("delta", Json::str(piece)),
        );
    }
    at(
        w,
        "response.reasoning_summary_text.done",
        ("text", Json::str(text)),
    );
    at(
        w,
        "response.reasoning_summary_part.done",
        ("part", part(text)),
    );
    item(Json::arr([part(text)]))
}

fn message(w: &mut Writer, plan: &Plan, ids: &mut Ids, index: u64, text: &str) -> Json {
    let item_id = ids.next("msg_", 48);
    let part = |text: &str| {
        jobj! {
            "type" => Json::str("output_text"),
            "annotations" => Json::arr([]),
            "logprobs" => Json::arr([]),
            "text" => Json::str(text),
        }
    };
    let item = |status: &str, content: Json| {
        jobj! {
            "id" => Json::str(&item_id),
            "type" => Json::str("message"),
            "status" => Json::str(status),
            "content" => content,
            "role" => Json::str("assistant"),
        }
    };
    w.emit(
        "response.output_item.added",
        [
            ("output_index", Json::num(index)),
            ("item", item("in_progress", Json::arr([]))),
        ],
    );
    let at = |w: &mut Writer, kind: &str, rest: Vec<(&'static str, Json)>| {
        let mut fields = vec![
            ("item_id", Json::str(&item_id)),
            ("output_index", Json::num(index)),
            ("content_index", Json::num(0)),
        ];
        fields.extend(rest);
        w.emit(kind, fields);
    };
    at(w, "response.content_part.added", vec![("part", part(""))]);
    for piece in plan.pieces(text) {
        at(
            w,
            "response.output_text.delta",
            vec![("delta", Json::str(piece)), ("logprobs", Json::arr([]))],
        );
    }
    at(
        w,
        "response.output_text.done",
        vec![("text", Json::str(text)), ("logprobs", Json::arr([]))],
    );
    at(w, "response.content_part.done", vec![("part", part(text))]);
    item("completed", Json::arr([part(text)]))
}

/// An `error` event followed by `response.failed`, as in `resp_vercel_error_insufficient_quota`.
pub(crate) fn render_error(plan: &Plan, error: &StreamError, events_sent: usize) -> Vec<Bytes> {
    let code = error.kind.as_deref().unwrap_or("server_error");
    let message = error
        .message
        .as_deref()
        .unwrap_or("The server had an error while processing your request. Sorry about that!");
    let id = response_id(&mut plan.ids());
    // Every event carries one sequence number, so the error continues the count.
    let mut w = Writer {
        events: Vec::new(),
        seq: events_sent as u64,
    };
    w.emit(
        "error",
        [(
            "error",
            jobj! {
                "type" => Json::str(code),
                "code" => Json::str(code),
                "message" => Json::str(message),
                "param" => Json::null(),
            },
        )],
    );
    let response = response_object(
        plan,
        &id,
        "failed",
        Json::arr([]),
        ResponseEnd::Failed { code, message },
    );
    w.emit("response.failed", [("response", response)]);
    w.events
}
