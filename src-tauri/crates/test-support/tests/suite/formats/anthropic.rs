use arbor_test_support::{StopReason, Turn, Usage, WireApi};
use serde_json::{json, Value};

use crate::common::{call, dedup, fixture_events, shape, start, Sse};

const API: WireApi = WireApi::AnthropicMessages;

fn datas(events: &[Sse]) -> Vec<Value> {
    events.iter().map(Sse::json).collect()
}

/// Concatenates the `field` of every content_block_delta of `delta_type` at block `index`.
fn concat(events: &[Value], index: u64, delta_type: &str, field: &str) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "content_block_delta" && e["index"] == index)
        .filter(|e| e["delta"]["type"] == delta_type)
        .map(|e| e["delta"][field].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn text_turn_streams_named_events_that_reassemble() {
    let mock = start(Turn::text("Hello there, Arbor!")).await;
    let reply = call(&mock, API).await;
    assert_eq!(reply.status, 200);
    assert!(reply.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let events = reply.events();
    for event in &events {
        assert_eq!(
            event.event.as_deref(),
            event.json()["type"].as_str(),
            "event name = data.type"
        );
    }
    let data = datas(&events);
    assert_eq!(data[0]["type"], "message_start");
    assert_eq!(data[0]["message"]["model"], "test-model");
    assert!(data[0]["message"]["id"]
        .as_str()
        .unwrap()
        .starts_with("msg_"));
    assert_eq!(
        concat(&data, 0, "text_delta", "text"),
        "Hello there, Arbor!"
    );
    let deltas = data
        .iter()
        .filter(|e| e["type"] == "content_block_delta")
        .count();
    assert_eq!(deltas, 3, "19 chars in chunks of 8");
    let message_delta = data.iter().find(|e| e["type"] == "message_delta").unwrap();
    assert_eq!(message_delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(data.last().unwrap()["type"], "message_stop");
}

#[tokio::test]
async fn tool_call_arguments_split_over_many_deltas() {
    let args = json!({"path": "src/main.rs", "offset": 10, "limit": 200});
    let turn = Turn::stream().tool_call("read", args.clone()).chunk_size(3);
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let start_block = data
        .iter()
        .find(|e| e["type"] == "content_block_start")
        .unwrap();
    assert_eq!(start_block["content_block"]["type"], "tool_use");
    assert_eq!(start_block["content_block"]["name"], "read");
    assert_eq!(start_block["content_block"]["input"], json!({}));
    assert!(start_block["content_block"]["id"]
        .as_str()
        .unwrap()
        .starts_with("toolu_"));
    let pieces = data
        .iter()
        .filter(|e| e["delta"]["type"] == "input_json_delta")
        .count();
    assert!(pieces > 10, "arguments arrive in many pieces, got {pieces}");
    let text = concat(&data, 0, "input_json_delta", "partial_json");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), args);
    let message_delta = data.iter().find(|e| e["type"] == "message_delta").unwrap();
    assert_eq!(message_delta["delta"]["stop_reason"], "tool_use");
}

#[tokio::test]
async fn parallel_tool_calls_are_separate_blocks() {
    let turn = Turn::stream()
        .text("Reading both.")
        .tool_call_with_id("toolu_A", "read", json!({"path": "a"}))
        .tool_call_with_id("toolu_B", "read", json!({"path": "b"}));
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let starts: Vec<&Value> = data
        .iter()
        .filter(|e| e["type"] == "content_block_start")
        .collect();
    assert_eq!(starts.len(), 3);
    assert_eq!(starts[1]["index"], 1);
    assert_eq!(starts[1]["content_block"]["id"], "toolu_A");
    assert_eq!(starts[2]["content_block"]["id"], "toolu_B");
    assert_eq!(
        concat(&data, 2, "input_json_delta", "partial_json"),
        r#"{"path":"b"}"#
    );
}

#[tokio::test]
async fn thinking_block_carries_signature() {
    let turn = Turn::stream()
        .thinking_signed("Let me think about this.", "EqQBsig==")
        .text("Answer.");
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let start_block = data
        .iter()
        .find(|e| e["type"] == "content_block_start")
        .unwrap();
    assert_eq!(
        start_block["content_block"],
        json!({"type": "thinking", "thinking": "", "signature": ""})
    );
    assert_eq!(
        concat(&data, 0, "thinking_delta", "thinking"),
        "Let me think about this."
    );
    assert_eq!(
        concat(&data, 0, "signature_delta", "signature"),
        "EqQBsig=="
    );
    assert_eq!(concat(&data, 1, "text_delta", "text"), "Answer.");
}

#[tokio::test]
async fn usage_and_length_stop() {
    let turn = Turn::stream()
        .text("cut")
        .usage(Usage::new(100, 42).cache(900, 50))
        .stop(StopReason::Length);
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let usage = &data[0]["message"]["usage"];
    assert_eq!(usage["input_tokens"], 100);
    assert_eq!(usage["cache_read_input_tokens"], 900);
    assert_eq!(usage["cache_creation_input_tokens"], 50);
    let message_delta = data.iter().find(|e| e["type"] == "message_delta").unwrap();
    assert_eq!(message_delta["usage"]["output_tokens"], 42);
    assert_eq!(message_delta["delta"]["stop_reason"], "max_tokens");
}

#[tokio::test]
async fn mid_stream_error_event() {
    let turn = Turn::stream()
        .text("Hello world, this is long")
        .error_after_chunks(4);
    let mock = start(turn).await;
    let reply = call(&mock, API).await;
    assert_eq!(reply.status, 200);
    let events = reply.events();
    assert_eq!(events.len(), 5);
    let names: Vec<_> = events.iter().map(|e| e.event.clone().unwrap()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "error"
        ]
    );
    assert_eq!(
        events[4].json(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

/// Keys nested deeper than this vary between API versions (usage details, service tier).
const ANTHROPIC_IGNORED: &[&str] = &["cache_creation", "service_tier", "inference_geo"];

#[tokio::test]
async fn text_answer_has_the_shape_of_a_real_recording() {
    let real = fixture_events("anthropic/ant_vercel_text.sse");
    let mock = start(Turn::text("Hello! I'm doing well, thank you for asking.")).await;
    let ours = call(&mock, API).await.events();
    let describe = |events: &[Sse]| {
        dedup(
            events
                .iter()
                .map(|e| format!("{:?} {}", e.event, shape(&e.json(), 3, ANTHROPIC_IGNORED)))
                .collect(),
        )
    };
    assert_eq!(describe(&ours), describe(&real));
}
