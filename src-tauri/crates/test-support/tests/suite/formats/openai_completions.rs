use arbor_test_support::{StopReason, Turn, Usage, WireApi};
use serde_json::{json, Value};

use crate::common::{call, call_with, dedup, fixture_events, request_body, shape, start, Sse};

const API: WireApi = WireApi::OpenAiCompletions;

/// The JSON chunks before `[DONE]`, asserting `[DONE]` ends the stream.
fn chunks(events: &[Sse]) -> Vec<Value> {
    assert_eq!(events.last().map(|e| e.data.as_str()), Some("[DONE]"));
    assert!(
        events.iter().all(|e| e.event.is_none()),
        "chat completions has no event names"
    );
    events[..events.len() - 1].iter().map(Sse::json).collect()
}

fn deltas(chunks: &[Value]) -> impl Iterator<Item = &Value> {
    chunks
        .iter()
        .filter_map(|c| c["choices"].as_array().and_then(|a| a.first()))
        .map(|choice| &choice["delta"])
}

fn concat(chunks: &[Value], field: &str) -> String {
    deltas(chunks).filter_map(|d| d[field].as_str()).collect()
}

fn finish_reason(chunks: &[Value]) -> Value {
    chunks
        .iter()
        .filter_map(|c| c["choices"].as_array().and_then(|a| a.first()))
        .map(|choice| choice["finish_reason"].clone())
        .find(|r| !r.is_null())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn text_turn_streams_data_chunks_then_done() {
    let mock = start(Turn::text("Hello there, Arbor!")).await;
    let reply = call(&mock, API).await;
    assert_eq!(reply.status, 200);
    let chunks = chunks(&reply.events());
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    assert!(chunks[0]["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert!(chunks
        .iter()
        .all(|c| c["object"] == "chat.completion.chunk"));
    assert_eq!(chunks[0]["model"], "test-model");
    assert_eq!(concat(&chunks, "content"), "Hello there, Arbor!");
    assert_eq!(finish_reason(&chunks), "stop");
    // Usage comes last, in a chunk with no choices (the request asked for it).
    let usage_chunk = chunks.last().unwrap();
    assert_eq!(usage_chunk["choices"], json!([]));
    assert!(usage_chunk["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn usage_only_when_requested() {
    let mock = start(Turn::text("Hi")).await;
    let mut body = request_body(API, "m");
    body.as_object_mut().unwrap().remove("stream_options");
    let chunks = chunks(&call_with(&mock, API, body).await.events());
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
}

#[tokio::test]
async fn tool_call_arguments_split_over_many_deltas() {
    let args = json!({"command": "cargo test --workspace", "timeout": 120});
    let mock = start(Turn::stream().tool_call("bash", args.clone()).chunk_size(4)).await;
    let chunks = chunks(&call(&mock, API).await.events());
    let calls: Vec<&Value> = deltas(&chunks)
        .filter_map(|d| d["tool_calls"].get(0))
        .collect();
    assert!(calls.len() > 10, "many deltas, got {}", calls.len());
    assert_eq!(calls[0]["index"], 0);
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "bash");
    assert!(calls[0]["id"].as_str().unwrap().starts_with("call_"));
    assert!(
        calls[1].get("id").is_none(),
        "id and name only on the first delta"
    );
    let text: String = calls
        .iter()
        .map(|c| c["function"]["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), args);
    assert_eq!(finish_reason(&chunks), "tool_calls");
}

#[tokio::test]
async fn parallel_tool_calls_use_indexes() {
    let turn = Turn::stream()
        .tool_call_with_id("call_one", "read", json!({"path": "a"}))
        .tool_call_with_id("call_two", "read", json!({"path": "b"}));
    let mock = start(turn).await;
    let chunks = chunks(&call(&mock, API).await.events());
    let calls: Vec<&Value> = deltas(&chunks)
        .filter_map(|d| d["tool_calls"].get(0))
        .collect();
    let firsts: Vec<&Value> = calls
        .iter()
        .copied()
        .filter(|c| c.get("id").is_some())
        .collect();
    assert_eq!(firsts.len(), 2);
    assert_eq!(
        (firsts[0]["id"].as_str(), firsts[0]["index"].as_u64()),
        (Some("call_one"), Some(0))
    );
    assert_eq!(
        (firsts[1]["id"].as_str(), firsts[1]["index"].as_u64()),
        (Some("call_two"), Some(1))
    );
    let second: String = calls
        .iter()
        .filter(|c| c["index"] == 1)
        .map(|c| c["function"]["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(second, r#"{"path":"b"}"#);
}

#[tokio::test]
async fn thinking_streams_as_reasoning_content() {
    let mock = start(Turn::stream().thinking("Step one, step two.").text("42")).await;
    let chunks = chunks(&call(&mock, API).await.events());
    assert_eq!(concat(&chunks, "reasoning_content"), "Step one, step two.");
    assert_eq!(concat(&chunks, "content"), "42");
}

#[tokio::test]
async fn usage_fields_and_length_stop() {
    let turn = Turn::stream()
        .text("partial")
        .usage(Usage::new(100, 30).cache(400, 0).reasoning(5))
        .stop(StopReason::Length);
    let mock = start(turn).await;
    let chunks = chunks(&call(&mock, API).await.events());
    assert_eq!(finish_reason(&chunks), "length");
    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(usage["prompt_tokens"], 500);
    assert_eq!(usage["completion_tokens"], 30);
    assert_eq!(usage["total_tokens"], 530);
    assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 400);
    assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 5);
}

#[tokio::test]
async fn mid_stream_error_chunk() {
    let turn = Turn::stream()
        .text("Hello world, this is long")
        .error_after_chunks(2)
        .error("server_error", "boom");
    let mock = start(turn).await;
    let events = call(&mock, API).await.events();
    assert_eq!(events.len(), 4);
    assert_eq!(events[2].json()["error"]["type"], "server_error");
    assert_eq!(events[2].json()["error"]["message"], "boom");
    assert_eq!(events[3].data, "[DONE]");
}

#[tokio::test]
async fn text_answer_has_the_shape_of_a_real_recording() {
    let real = fixture_events("openai-chat/oai_py_text_basic.sse");
    let mock = start(Turn::text("I'm unable to provide real-time weather.")).await;
    let ours = call(&mock, API).await.events();
    let describe = |events: &[Sse]| {
        dedup(
            events
                .iter()
                .map(|e| match serde_json::from_str::<Value>(&e.data) {
                    // completion_tokens_details etc. vary by model; the structure above them must not.
                    Ok(v) => shape(
                        &v,
                        4,
                        &["prompt_tokens_details", "completion_tokens_details"],
                    ),
                    Err(_) => e.data.clone(),
                })
                .collect(),
        )
    };
    assert_eq!(describe(&ours), describe(&real));
}
