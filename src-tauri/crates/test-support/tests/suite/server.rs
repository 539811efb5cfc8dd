//! Server behaviour independent of the wire format: HTTP errors, drops, delays, recording,
//! exhaustion, rejections, and the script JSON format.

use crate::common;

use std::time::Duration;

use arbor_test_support::{
    Error, MockProvider, RecordedRequest, Script, Step, StopReason, Turn, Usage, WireApi,
};
use common::{
    call, call_with, endpoint, open_stream, parse_sse, read_events, request_body, start, Sse,
};
use futures_util::StreamExt;
use serde_json::json;

#[tokio::test]
async fn http_error_turn_returns_status_body_and_headers_then_next_turn_streams() {
    let body =
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}});
    let script = Script::new()
        .turn(Turn::http_error(429, body.clone()).header("retry-after", "2"))
        .turn(Turn::text("ok"));
    let mock = start(script).await;
    let reply = call(&mock, WireApi::AnthropicMessages).await;
    assert_eq!(reply.status, 429);
    assert_eq!(reply.headers["retry-after"], "2");
    assert_eq!(reply.headers["content-type"], "application/json");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&reply.body).unwrap(),
        body
    );
    let retried = call(&mock, WireApi::AnthropicMessages).await;
    assert_eq!(retried.status, 200);
    assert_eq!(mock.turns_served(), 2);
}

#[tokio::test]
async fn http_error_with_text_body() {
    let mock = start(Turn::http_error(502, "Bad Gateway")).await;
    let reply = call(&mock, WireApi::OpenAiCompletions).await;
    assert_eq!(reply.status, 502);
    assert_eq!(reply.body, "Bad Gateway");
    assert!(reply.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
}

#[tokio::test]
async fn dropped_connection_gives_an_incomplete_body_in_every_format() {
    for api in WireApi::ALL {
        let turn = Turn::stream()
            .text("a fairly long answer that never ends")
            .chunk_size(2);
        let mock = start(turn.drop_after_chunks(3)).await;
        let response = reqwest::Client::new()
            .post(endpoint(&mock, api, "m"))
            .json(&request_body(api, "m"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{api}");
        let mut stream = response.bytes_stream();
        let mut received = Vec::new();
        let mut failure = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(bytes) => received.extend_from_slice(&bytes),
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        let error =
            failure.unwrap_or_else(|| panic!("{api}: body ended cleanly, expected an error"));
        assert!(error.is_body() || error.is_decode(), "{api}: {error:?}");
        let events = parse_sse(&String::from_utf8_lossy(&received));
        assert_eq!(events.len(), 3, "{api}: the events before the drop arrive");
    }
}

#[tokio::test]
async fn delays_pace_events_in_order() {
    let turn = Turn::stream().text("abcdef").chunk_size(1).delay_ms(15);
    let mock = start(turn).await;
    let response = reqwest::Client::new()
        .post(endpoint(&mock, WireApi::OpenAiCompletions, "m"))
        .json(&request_body(WireApi::OpenAiCompletions, "m"))
        .send()
        .await
        .unwrap();
    // With a delay each event is its own network read; count reads, not time.
    let mut reads = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(bytes) = stream.next().await {
        reads.push(String::from_utf8(bytes.unwrap().to_vec()).unwrap());
    }
    let all = reads.concat();
    let events = parse_sse(&all);
    // role chunk + 6 letters + finish + usage + [DONE]
    assert_eq!(events.len(), 10);
    let letters: String = events
        .iter()
        .filter_map(|e| serde_json::from_str::<serde_json::Value>(&e.data).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(letters, "abcdef");
    assert!(
        reads.len() >= 8,
        "events arrived separately, got {} reads",
        reads.len()
    );
}

#[tokio::test]
async fn requests_are_recorded_with_headers_and_body() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "a"})))
        .turn(Turn::text("done"));
    let mock = start(script).await;
    let first = json!({
        "model": "claude-x", "stream": true, "system": "You are Arbor.",
        "tools": [{"name": "read", "input_schema": {"type": "object"}}],
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [{"role": "user", "content": "read a"}],
    });
    let response = reqwest::Client::new()
        .post(endpoint(&mock, WireApi::AnthropicMessages, "m"))
        .header("x-api-key", "sk-test")
        .header("Anthropic-Version", "2023-06-01")
        .json(&first)
        .send()
        .await
        .unwrap();
    let _ = response.text().await.unwrap();
    let second = json!({"model": "claude-x", "stream": true, "messages": [
        {"role": "user", "content": "read a"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"}]},
    ]});
    call_with(&mock, WireApi::AnthropicMessages, second.clone()).await;

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let r = &requests[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.api, Some(WireApi::AnthropicMessages));
    assert_eq!(r.turn, Some(0));
    assert_eq!(r.header("X-API-Key"), Some("sk-test"));
    assert_eq!(
        r.headers.get("anthropic-version").map(String::as_str),
        Some("2023-06-01")
    );
    assert_eq!(r.json()["system"], "You are Arbor.");
    assert_eq!(r.json()["thinking"]["budget_tokens"], 1024);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r.body_text).unwrap(),
        first
    );
    assert!(r.received_at_ms > 0);
    assert!(
        r.finished_at_ms.is_some_and(|at| at >= r.received_at_ms),
        "a stream read to its end has its end time: {:?}",
        r.finished_at_ms
    );
    assert_eq!(requests[1].turn, Some(1));
    assert_eq!(
        requests[1].json()["messages"][1]["content"][0]["type"],
        "tool_result"
    );

    // The same records over HTTP, for other processes.
    let over_http: Vec<RecordedRequest> =
        reqwest::get(format!("{}/__mock/requests", mock.base_url()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(over_http, requests);
}

#[tokio::test]
async fn google_request_records_model_path_and_query() {
    let mock = start(Turn::text("hi")).await;
    call(&mock, WireApi::GoogleGenerativeAi).await;
    let r = &mock.requests()[0];
    assert_eq!(r.path, "/v1beta/models/test-model:streamGenerateContent");
    assert_eq!(r.query.as_deref(), Some("alt=sse"));
    assert_eq!(r.api, Some(WireApi::GoogleGenerativeAi));
}

#[tokio::test]
async fn exhausted_script_answers_500_with_a_message() {
    let mock = start(Turn::text("only one")).await;
    assert_eq!(call(&mock, WireApi::OpenAiResponses).await.status, 200);
    let reply = call(&mock, WireApi::OpenAiResponses).await;
    assert_eq!(reply.status, 500);
    assert!(reply.body.contains("script exhausted"), "{}", reply.body);
    assert_eq!(mock.requests().len(), 2);
    assert_eq!(mock.requests()[1].turn, None);
    mock.push_turn(Turn::text("more"));
    assert_eq!(call(&mock, WireApi::OpenAiResponses).await.status, 200);
}

#[tokio::test]
async fn malformed_requests_are_rejected_without_consuming_a_turn() {
    let mock = start(Turn::text("kept")).await;
    let client = reqwest::Client::new();
    let base = mock.base_url();
    let unknown = client
        .post(format!("{base}/v2/complete"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let not_streaming = client
        .post(format!("{base}/v1/chat/completions"))
        .json(&json!({"model": "m", "messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(not_streaming.status(), 400);
    assert!(not_streaming.text().await.unwrap().contains("stream"));
    let no_sse = client
        .post(format!("{base}/v1beta/models/g:streamGenerateContent"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(no_sse.status(), 400);
    let get = client
        .get(format!("{base}/v1/messages"))
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 405);
    assert_eq!(mock.turns_served(), 0);
    assert_eq!(mock.requests().len(), 4);
    // Without /v1 (OpenAI-compatible servers) still works and gets the kept turn.
    let plain = client
        .post(format!("{base}/chat/completions"))
        .json(&request_body(WireApi::OpenAiCompletions, "m"))
        .send()
        .await
        .unwrap();
    assert_eq!(plain.status(), 200);
    assert_eq!(mock.turns_served(), 1);
}

#[tokio::test]
async fn url_for_follows_the_sdk_conventions() {
    let mock = start(Script::new()).await;
    let base = mock.base_url();
    assert!(base.starts_with("http://127.0.0.1:"));
    assert_eq!(
        mock.url_for(WireApi::OpenAiCompletions),
        format!("{base}/v1")
    );
    assert_eq!(mock.url_for(WireApi::OpenAiResponses), format!("{base}/v1"));
    assert_eq!(mock.url_for(WireApi::AnthropicMessages), base);
    assert_eq!(mock.url_for(WireApi::GoogleGenerativeAi), base);
}

#[tokio::test]
async fn shutdown_closes_the_port() {
    let mock = start(Turn::text("x")).await;
    let addr = mock.addr();
    mock.shutdown().await;
    let result =
        tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(addr)).await;
    assert!(
        matches!(result, Ok(Err(_))),
        "nothing listens after shutdown"
    );
}

#[test]
fn script_json_parses_and_defaults_apply() {
    let text = r#"{"turns": [
        {"stream": {"chunk_size": 2, "steps": [
            {"thinking": {"text": "hm", "signature": "s"}},
            {"text": "hi"},
            {"tool_call": {"name": "ls"}},
            {"usage": {"input": 1, "output": 2}}
        ]}},
        {"stream": {"steps": [{"text": "bye"}]}},
        {"http_error": {"status": 429, "body": {"error": {}}, "headers": {"retry-after": "1"}}}
    ]}"#;
    let script = Script::from_json(text).unwrap();
    assert_eq!(script.turns.len(), 3);
    let Turn::Stream(first) = &script.turns[0] else {
        panic!("stream expected")
    };
    assert_eq!(first.stop_reason(), StopReason::ToolUse);
    assert_eq!(first.explicit_usage(), Some(Usage::new(1, 2)));
    assert!(matches!(&first.steps[2], Step::ToolCall { arguments, .. } if arguments == &json!({})));
    let Turn::Stream(second) = &script.turns[1] else {
        panic!("stream expected")
    };
    assert_eq!(second.stop_reason(), StopReason::Stop);
    // The builder and the JSON describe the same thing, and it round-trips.
    let round = serde_json::to_string(&script).unwrap();
    assert_eq!(Script::from_json(&round).unwrap(), script);
}

#[test]
fn script_errors_name_line_and_column() {
    let text = "{\"turns\": [\n  {\"stream\": {\"steps\": [\n    {\"txt\": \"x\"}\n  ]}}\n]}";
    let error = Script::from_json(text).unwrap_err();
    let (line, _) = error.line_column().unwrap();
    assert_eq!(line, 3);
    assert!(error.to_string().contains("line 3"), "{error}");
    let typo = Script::from_json(r#"{"turns": [{"stream": {"steps": [], "delay": 5}}]}"#);
    assert!(typo.unwrap_err().to_string().contains("delay"));
    let not_object = Script::from_json(
        r#"{"turns": [{"stream": {"steps": [{"tool_call": {"name": "x", "arguments": [1]}}]}}]}"#,
    );
    assert!(matches!(
        not_object,
        Err(Error::InvalidScript { turn: 0, .. })
    ));
}

#[tokio::test]
async fn raw_arguments_are_streamed_verbatim() {
    let mock = start(Turn::stream().tool_call_raw("edit", "{\"path\": \"a\", oops")).await;
    let events = call(&mock, WireApi::AnthropicMessages).await.events();
    let text: String = events
        .iter()
        .map(|e| e.json())
        .filter(|v| v["delta"]["type"] == "input_json_delta")
        .map(|v| v["delta"]["partial_json"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(text, "{\"path\": \"a\", oops");
}

#[tokio::test]
async fn start_rejects_an_invalid_script() {
    let bad = Script::new().turn(Turn::stream().chunk_size(0));
    assert!(matches!(
        MockProvider::start(bad).await,
        Err(Error::InvalidScript { .. })
    ));
}

#[tokio::test]
async fn a_required_key_is_checked_in_every_format_and_a_wrong_one_consumes_no_turn() {
    for api in WireApi::ALL {
        let mock = start(
            Script::new()
                .turn(Turn::text("ok"))
                .require_api_key("sk-right"),
        )
        .await;
        let send = |key_header: (&'static str, String)| {
            reqwest::Client::new()
                .post(endpoint(&mock, api, "test-model"))
                .header(key_header.0, key_header.1)
                .json(&request_body(api, "test-model"))
                .send()
        };
        let wrong = send(("authorization", "Bearer sk-wrong".into()))
            .await
            .unwrap();
        assert_eq!(wrong.status().as_u16(), 401, "{api:?}");
        let body: serde_json::Value = wrong.json().await.unwrap();
        assert!(body.to_string().contains("key"), "{api:?}: {body}");
        assert_eq!(mock.turns_served(), 0);
        let header = match api {
            WireApi::OpenAiCompletions | WireApi::OpenAiResponses => {
                ("authorization", "Bearer sk-right".to_owned())
            }
            WireApi::AnthropicMessages => ("x-api-key", "sk-right".to_owned()),
            WireApi::GoogleGenerativeAi => ("x-goog-api-key", "sk-right".to_owned()),
        };
        let right = send(header).await.unwrap();
        assert_eq!(right.status().as_u16(), 200, "{api:?}");
        assert_eq!(mock.turns_served(), 1);
        assert_eq!(
            mock.requests().len(),
            2,
            "the refused request is recorded too"
        );
    }
    let parsed = Script::from_json(r#"{"require_api_key": "k", "turns": []}"#).unwrap();
    assert_eq!(parsed.require_api_key.as_deref(), Some("k"));
}

#[tokio::test]
async fn a_stall_keeps_the_connection_open_and_silent() {
    for api in WireApi::ALL {
        let turn = Turn::stream().text("abcdef").chunk_size(1);
        let mock = start(turn.stall_after_chunks(2)).await;
        let mut stream = Box::pin(open_stream(&mock, api).await);
        let mut received = String::new();
        read_events(&mut stream, &mut received, 2).await;
        assert_eq!(parse_sse(&received).len(), 2, "{api}");
        let next = tokio::time::timeout(Duration::from_millis(300), stream.next()).await;
        assert!(next.is_err(), "{api}: something arrived during the stall");
    }
}

#[tokio::test]
async fn a_timed_stall_pauses_then_sends_the_rest() {
    let turn = Turn::stream().text("abcdef").chunk_size(1);
    let mock = start(turn.stall_for(2, 200)).await;
    let mut stream = Box::pin(open_stream(&mock, WireApi::OpenAiCompletions).await);
    let mut received = String::new();
    read_events(&mut stream, &mut received, 2).await;
    let paused = tokio::time::Instant::now();
    while let Some(bytes) = stream.next().await {
        received.push_str(&String::from_utf8_lossy(&bytes.unwrap()));
    }
    assert!(paused.elapsed() >= Duration::from_millis(150));
    // role chunk + 6 letters + finish + usage + [DONE], all of them
    assert_eq!(parse_sse(&received).len(), 10);
    let bad = Script::from_json(r#"{"turns": [{"stream": {"steps": [], "stall_ms": 5}}]}"#);
    assert!(matches!(bad, Err(Error::InvalidScript { turn: 0, .. })));
}

/// `events` with the times the JSON events were made (`created`, `created_at`, at any depth)
/// set to 0: two replies made a second apart differ only there.
fn without_clock(events: Vec<Sse>) -> Vec<Sse> {
    fn zero(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(object) => {
                for (key, inner) in object.iter_mut() {
                    if key == "created" || key == "created_at" {
                        *inner = json!(0);
                    } else {
                        zero(inner);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(zero),
            _ => {}
        }
    }
    events
        .into_iter()
        .map(|mut event| {
            if let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&event.data) {
                zero(&mut value);
                event.data = value.to_string();
            }
            event
        })
        .collect()
}

#[tokio::test]
async fn raw_events_are_spliced_in_verbatim() {
    for api in WireApi::ALL {
        let turn = Turn::stream()
            .text("hi")
            .raw_event(1, "data: {not json\n\n")
            .raw_event(1, ": a comment\n\n")
            .raw_event(99, "data: after the end\n\n");
        let mock = start(turn).await;
        let plain = without_clock(call(&mock, api).await.events());
        let mock = start(Turn::text("hi")).await;
        let reference = without_clock(call(&mock, api).await.events());
        // The comment is no event; the two data events sit where they were put.
        assert_eq!(plain.len(), reference.len() + 2, "{api}");
        assert_eq!(plain[0], reference[0], "{api}");
        assert_eq!(plain[1].data, "{not json", "{api}");
        assert_eq!(plain[2..plain.len() - 1], reference[1..], "{api}");
        assert_eq!(plain.last().unwrap().data, "after the end", "{api}");
    }
    let script = Script::from_json(
        r#"{"turns": [{"stream": {"steps": [], "raw_events": [{"after_chunks": 1, "text": "data: x\n\n"}]}}]}"#,
    )
    .unwrap();
    let Turn::Stream(turn) = &script.turns[0] else {
        panic!("stream expected")
    };
    assert_eq!(turn.raw_events[0].text, "data: x\n\n");
}
