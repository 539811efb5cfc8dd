use arbor_test_support::{StopReason, Turn, Usage, WireApi};
use serde_json::{json, Value};

use crate::common::{call, dedup, fixture_events, shape, start, Sse};

const API: WireApi = WireApi::GoogleGenerativeAi;

fn chunks(events: &[Sse]) -> Vec<Value> {
    assert!(
        events.iter().all(|e| e.event.is_none()),
        "Gemini has no event names"
    );
    events.iter().map(Sse::json).collect()
}

fn parts(chunks: &[Value]) -> Vec<Value> {
    chunks
        .iter()
        .flat_map(|c| {
            c["candidates"][0]["content"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

fn text(parts: &[Value], thought: bool) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool).unwrap_or(false) == thought)
        .filter_map(|p| p["text"].as_str())
        .collect()
}

#[tokio::test]
async fn text_turn_uses_crlf_framing_and_finish_reason_on_last_chunk() {
    let mock = start(Turn::text("1, 2, 3 and then some more.")).await;
    let reply = call(&mock, API).await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.starts_with("data: {"));
    assert!(
        reply.body.ends_with("}\r\n\r\n"),
        "CRLF framing like the live API"
    );
    assert!(!reply.body.contains("[DONE]"));
    let chunks = chunks(&reply.events());
    assert_eq!(text(&parts(&chunks), false), "1, 2, 3 and then some more.");
    for (i, chunk) in chunks.iter().enumerate() {
        let candidate = &chunk["candidates"][0];
        assert_eq!(candidate["content"]["role"], "model");
        assert_eq!(
            chunk["modelVersion"], "test-model",
            "model comes from the path"
        );
        let last = i + 1 == chunks.len();
        assert_eq!(candidate.get("finishReason").is_some(), last);
    }
    assert_eq!(
        chunks.last().unwrap()["candidates"][0]["finishReason"],
        "STOP"
    );
}

#[tokio::test]
async fn tool_calls_are_whole_parts_parallel_in_one_chunk_without_ids() {
    let turn = Turn::stream()
        .tool_call("read_file", json!({"file_path": "a.txt"}))
        .tool_call("read_file", json!({"file_path": "b.txt"}))
        .chunk_size(2);
    let mock = start(turn).await;
    let chunks = chunks(&call(&mock, API).await.events());
    assert_eq!(chunks.len(), 1, "consecutive calls arrive together");
    let parts = parts(&chunks);
    assert_eq!(
        parts,
        vec![
            json!({"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}),
            json!({"functionCall": {"name": "read_file", "args": {"file_path": "b.txt"}}}),
        ]
    );
    // Gemini has no tool-use stop reason: function calls end with STOP.
    assert_eq!(chunks[0]["candidates"][0]["finishReason"], "STOP");
}

#[tokio::test]
async fn thought_parts_and_signature_on_the_next_part() {
    let turn = Turn::stream()
        .thinking_signed("**Planning** the read.", "CikB0e2Kb2sig")
        .tool_call("read_file", json!({"file_path": "x"}));
    let mock = start(turn).await;
    let parts = parts(&chunks(&call(&mock, API).await.events()));
    assert_eq!(text(&parts, true), "**Planning** the read.");
    let call_part = parts
        .iter()
        .find(|p| p.get("functionCall").is_some())
        .unwrap();
    assert_eq!(call_part["thoughtSignature"], "CikB0e2Kb2sig");
    let signed = parts
        .iter()
        .filter(|p| p.get("thoughtSignature").is_some())
        .count();
    assert_eq!(signed, 1);
}

#[tokio::test]
async fn signature_without_following_part_rides_on_empty_text() {
    let mock = start(Turn::stream().thinking_signed("", "EqsFsig")).await;
    let parts = parts(&chunks(&call(&mock, API).await.events()));
    assert_eq!(
        parts,
        vec![json!({"text": "", "thoughtSignature": "EqsFsig"})]
    );
}

#[tokio::test]
async fn usage_metadata_and_max_tokens() {
    let turn = Turn::stream()
        .text("cut")
        .usage(Usage::new(9, 30).cache(100, 0).reasoning(7))
        .stop(StopReason::Length);
    let mock = start(turn).await;
    let chunks = chunks(&call(&mock, API).await.events());
    let last = chunks.last().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "MAX_TOKENS");
    assert_eq!(
        last["usageMetadata"],
        json!({
            "promptTokenCount": 109, "candidatesTokenCount": 23, "totalTokenCount": 139,
            "cachedContentTokenCount": 100, "thoughtsTokenCount": 7,
        })
    );
}

#[tokio::test]
async fn mid_stream_error_chunk() {
    let mock = start(Turn::text("Hello world, long text").error_after_chunks(1)).await;
    let chunks = chunks(&call(&mock, API).await.events());
    assert_eq!(chunks.len(), 2);
    assert_eq!(chunks[1]["error"]["code"], 500);
    assert_eq!(chunks[1]["error"]["status"], "INTERNAL");
}

#[tokio::test]
async fn text_answer_has_the_shape_of_a_real_recording() {
    let real = fixture_events("gemini/gem_vercel_text.sse");
    let turn = Turn::stream()
        .text("There are **3** \"r\"s in strawberry.")
        .thinking_signed("", "EqsFCqgFAb4")
        .usage(Usage::new(9, 208).reasoning(185));
    let mock = start(turn).await;
    let ours = call(&mock, API).await.events();
    // promptTokensDetails is a per-modality breakdown the mock leaves out.
    let describe = |events: &[Sse]| {
        dedup(
            events
                .iter()
                .map(|e| shape(&e.json(), 6, &["promptTokensDetails"]))
                .collect(),
        )
    };
    assert_eq!(describe(&ours), describe(&real));
}
