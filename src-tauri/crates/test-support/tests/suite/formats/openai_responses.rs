use arbor_test_support::{StopReason, Turn, Usage, WireApi};
use serde_json::{json, Value};

use crate::common::{call, call_with, dedup, fixture_events, request_body, shape, start, Sse};

const API: WireApi = WireApi::OpenAiResponses;

fn datas(events: &[Sse]) -> Vec<Value> {
    for event in events {
        assert_eq!(
            event.event.as_deref(),
            event.json()["type"].as_str(),
            "event name = data.type"
        );
    }
    events.iter().map(Sse::json).collect()
}

fn of_type<'a>(data: &'a [Value], kind: &str) -> Vec<&'a Value> {
    data.iter().filter(|e| e["type"] == kind).collect()
}

fn concat(data: &[Value], kind: &str) -> String {
    of_type(data, kind)
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn text_turn_streams_response_events() {
    let mock = start(Turn::text("The final result is **570**.")).await;
    let data = datas(&call(&mock, API).await.events());
    assert_eq!(data[0]["type"], "response.created");
    assert!(data[0]["response"]["id"]
        .as_str()
        .unwrap()
        .starts_with("resp_"));
    assert_eq!(data[0]["response"]["model"], "test-model");
    assert_eq!(
        concat(&data, "response.output_text.delta"),
        "The final result is **570**."
    );
    let seqs: Vec<u64> = data
        .iter()
        .map(|e| e["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (0..data.len() as u64).collect::<Vec<_>>());
    let added = of_type(&data, "response.output_item.added");
    assert!(added[0]["item"]["id"].as_str().unwrap().starts_with("msg_"));
    let done = data.last().unwrap();
    assert_eq!(done["type"], "response.completed");
    assert_eq!(done["response"]["status"], "completed");
    assert_eq!(
        done["response"]["output"][0]["content"][0]["text"],
        "The final result is **570**."
    );
}

#[tokio::test]
async fn tool_call_arguments_split_over_many_deltas() {
    let args = json!({"a": 12, "b": 7, "op": "add"});
    let mock = start(
        Turn::stream()
            .tool_call("calculator", args.clone())
            .chunk_size(2),
    )
    .await;
    let data = datas(&call(&mock, API).await.events());
    let item = &of_type(&data, "response.output_item.added")[0]["item"];
    assert_eq!(item["type"], "function_call");
    assert_eq!(item["name"], "calculator");
    assert!(item["id"].as_str().unwrap().starts_with("fc_"));
    assert!(item["call_id"].as_str().unwrap().starts_with("call_"));
    let deltas = of_type(&data, "response.function_call_arguments.delta");
    assert!(deltas.len() > 10);
    assert!(deltas.iter().all(|d| d["item_id"] == item["id"]));
    let text = concat(&data, "response.function_call_arguments.delta");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), args);
    let done = &of_type(&data, "response.output_item.done")[0]["item"];
    assert_eq!(done["status"], "completed");
    assert_eq!(done["arguments"], text);
}

#[tokio::test]
async fn parallel_tool_calls_are_separate_items() {
    let turn = Turn::stream()
        .tool_call_with_id("call_a", "read", json!({"path": "a"}))
        .tool_call_with_id("call_b", "read", json!({"path": "b"}));
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let added = of_type(&data, "response.output_item.added");
    assert_eq!(added.len(), 2);
    assert_eq!(
        (
            added[0]["output_index"].as_u64(),
            added[0]["item"]["call_id"].as_str()
        ),
        (Some(0), Some("call_a"))
    );
    assert_eq!(
        (
            added[1]["output_index"].as_u64(),
            added[1]["item"]["call_id"].as_str()
        ),
        (Some(1), Some("call_b"))
    );
    let output = &data.last().unwrap()["response"]["output"];
    assert_eq!(output.as_array().unwrap().len(), 2);
    assert_eq!(output[1]["arguments"], r#"{"path":"b"}"#);
}

#[tokio::test]
async fn thinking_is_a_reasoning_item_with_summary_and_encrypted_content() {
    let turn = Turn::stream()
        .thinking_signed("**Planning**\n\nAdd then multiply.", "gAAAAABencrypted")
        .text("570");
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let item = &of_type(&data, "response.output_item.added")[0]["item"];
    assert_eq!(item["type"], "reasoning");
    assert!(item["id"].as_str().unwrap().starts_with("rs_"));
    assert_eq!(item["encrypted_content"], "gAAAAABencrypted");
    assert_eq!(
        concat(&data, "response.reasoning_summary_text.delta"),
        "**Planning**\n\nAdd then multiply."
    );
    let done = &of_type(&data, "response.output_item.done")[0]["item"];
    assert_eq!(
        done["summary"][0]["text"],
        "**Planning**\n\nAdd then multiply."
    );
    assert_eq!(concat(&data, "response.output_text.delta"), "570");
}

#[tokio::test]
async fn reasoning_comes_without_encrypted_content_unless_the_request_includes_it() {
    let mock = start(
        Turn::stream()
            .thinking_signed("hmm", "gAAAAABsecret")
            .text("ok"),
    )
    .await;
    let mut body = request_body(API, "test-model");
    body.as_object_mut().unwrap().remove("include");
    let data = datas(&call_with(&mock, API, body).await.events());
    let done = &of_type(&data, "response.output_item.done")[0]["item"];
    assert_eq!(done["type"], "reasoning");
    assert!(done.get("encrypted_content").is_none(), "{done}");
    assert_eq!(done["summary"][0]["text"], "hmm");
}

#[tokio::test]
async fn a_bare_reasoning_item_replayed_without_store_is_not_found_and_keeps_the_turn() {
    let mock = start(Turn::stream().text("ok")).await;
    let replay = |reasoning: Value| {
        let mut body = request_body(API, "test-model");
        body["input"] = json!([
            {"role": "user", "content": "hi"},
            reasoning,
            {"type": "function_call_output", "call_id": "call_1", "output": "x"},
        ]);
        body
    };
    let bare = replay(json!({"type": "reasoning", "id": "rs_abc", "summary": []}));
    let reply = call_with(&mock, API, bare).await;
    assert_eq!(reply.status, 404);
    assert!(
        reply.body.contains("Item with id 'rs_abc' not found"),
        "{}",
        reply.body
    );
    assert_eq!(mock.turns_served(), 0);

    // With its encrypted content, the same item is accepted (and `store: true` would persist it).
    let whole = replay(json!({"type": "reasoning", "id": "rs_abc", "summary": [],
                              "encrypted_content": "gAAAAABx"}));
    let reply = call_with(&mock, API, whole).await;
    assert_eq!(reply.status, 200);
    assert_eq!(mock.turns_served(), 1);
}

#[tokio::test]
async fn usage_fields_and_incomplete_on_length() {
    let turn = Turn::stream()
        .text("cut")
        .usage(Usage::new(10, 20).cache(290, 0).reasoning(8))
        .stop(StopReason::Length);
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let last = data.last().unwrap();
    assert_eq!(last["type"], "response.incomplete");
    assert_eq!(
        last["response"]["incomplete_details"]["reason"],
        "max_output_tokens"
    );
    let usage = &last["response"]["usage"];
    assert_eq!(usage["input_tokens"], 300);
    assert_eq!(usage["input_tokens_details"]["cached_tokens"], 290);
    assert_eq!(usage["output_tokens"], 20);
    assert_eq!(usage["output_tokens_details"]["reasoning_tokens"], 8);
    assert_eq!(usage["total_tokens"], 320);
}

#[tokio::test]
async fn mid_stream_error_then_response_failed() {
    let turn = Turn::stream()
        .text("Hello")
        .error_after_chunks(2)
        .error("insufficient_quota", "You exceeded your current quota");
    let mock = start(turn).await;
    let data = datas(&call(&mock, API).await.events());
    let kinds: Vec<&str> = data.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "error",
            "response.failed"
        ]
    );
    assert_eq!(data[2]["error"]["code"], "insufficient_quota");
    assert_eq!(data[3]["response"]["status"], "failed");
    assert_eq!(
        data[3]["response"]["error"]["message"],
        "You exceeded your current quota"
    );
    assert_eq!(data[3]["sequence_number"], 3);
}

#[tokio::test]
async fn text_answer_has_the_shape_of_a_real_recording() {
    let real = fixture_events("openai-responses/resp_vercel_reasoning_encrypted_turn4_text.sse");
    let mock = start(Turn::text("The final result is **570**.")).await;
    let ours = call(&mock, API).await.events();
    // Fields the mock leaves out of the response object (account and request settings), and
    // `obfuscation` padding; everything the client reads must match.
    let ignored = &[
        "obfuscation",
        "max_tool_calls",
        "prompt_cache_key",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "text",
        "top_logprobs",
        "tools",
    ];
    let describe = |events: &[Sse]| {
        dedup(
            events
                .iter()
                .map(|e| format!("{:?} {}", e.event, shape(&e.json(), 4, ignored)))
                .collect(),
        )
    };
    assert_eq!(describe(&ours), describe(&real));
}
