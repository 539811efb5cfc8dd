//! Helpers shared by the integration tests: HTTP calls over loopback and a small SSE parser.
// Test helpers outside #[test] fns: clippy.toml's allow-*-in-tests does not reach them.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::PathBuf;

use arbor_test_support::{MockProvider, Script, WireApi};
use futures_util::StreamExt;
use serde_json::{json, Value};

/// One SSE event: the `event:` name (if any) and the `data:` payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Sse {
    pub event: Option<String>,
    pub data: String,
}

impl Sse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("event data is not JSON ({e}): {}", self.data))
    }
}

/// Parses SSE text (LF, CR or CRLF line ends) into events.
pub fn parse_sse(text: &str) -> Vec<Sse> {
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut events = Vec::new();
    let mut event = None;
    let mut data: Vec<String> = Vec::new();
    for line in normalised.split('\n') {
        if line.is_empty() {
            if !data.is_empty() {
                events.push(Sse {
                    event: event.take(),
                    data: data.join("\n"),
                });
                data.clear();
            }
            event = None;
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => event = Some(value.to_owned()),
            "data" => data.push(value.to_owned()),
            _ => {}
        }
    }
    if !data.is_empty() {
        events.push(Sse {
            event,
            data: data.join("\n"),
        });
    }
    events
}

/// The path a client of `api` posts to, relative to `MockProvider::url_for(api)`.
pub fn endpoint(mock: &MockProvider, api: WireApi, model: &str) -> String {
    let base = mock.url_for(api);
    match api {
        WireApi::OpenAiCompletions => format!("{base}/chat/completions"),
        WireApi::OpenAiResponses => format!("{base}/responses"),
        WireApi::AnthropicMessages => format!("{base}/v1/messages"),
        WireApi::GoogleGenerativeAi => {
            format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse")
        }
    }
}

/// A minimal valid streaming request body for `api`.
pub fn request_body(api: WireApi, model: &str) -> Value {
    match api {
        WireApi::OpenAiCompletions => json!({
            "model": model, "stream": true, "stream_options": {"include_usage": true},
            "messages": [{"role": "user", "content": "hi"}],
        }),
        WireApi::OpenAiResponses => json!({
            "model": model, "stream": true, "store": false,
            "include": ["reasoning.encrypted_content"],
            "input": [{"role": "user", "content": "hi"}],
        }),
        WireApi::AnthropicMessages => json!({
            "model": model, "stream": true, "max_tokens": 1024,
            "messages": [{"role": "user", "content": "hi"}],
        }),
        WireApi::GoogleGenerativeAi => json!({
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        }),
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn events(&self) -> Vec<Sse> {
        parse_sse(&self.body)
    }
}

/// Posts the default request for `api` and reads the whole body.
pub async fn call(mock: &MockProvider, api: WireApi) -> Reply {
    call_with(mock, api, request_body(api, "test-model")).await
}

pub async fn call_with(mock: &MockProvider, api: WireApi, body: Value) -> Reply {
    let response = reqwest::Client::new()
        .post(endpoint(mock, api, "test-model"))
        .header("authorization", "Bearer test-key")
        .json(&body)
        .send()
        .await
        .expect("request failed");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.expect("body failed");
    Reply {
        status,
        headers,
        body,
    }
}

pub async fn start(script: impl Into<Script>) -> MockProvider {
    MockProvider::start(script).await.expect("mock starts")
}

/// The repository's provider fixtures (`tests/fixtures/providers`).
pub fn fixtures_dir() -> PathBuf {
    arbor_test_support::provider_fixtures_dir().unwrap()
}

pub fn fixture_events(relative: &str) -> Vec<Sse> {
    let path = fixtures_dir().join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()));
    parse_sse(&text)
}

/// Sorted keys of a JSON object (empty for other values).
pub fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

/// Collapses consecutive equal items (a run of deltas counts once).
pub fn dedup<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if out.last() != Some(&item) {
            out.push(item);
        }
    }
    out
}

/// The key structure of a JSON value down to `depth` levels, skipping `ignore`d keys:
/// `{a:_,b:{c:_}}`; arrays show their first element.
pub fn shape(value: &Value, depth: usize, ignore: &[&str]) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|k| !ignore.contains(&k.as_str()))
                .collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    if depth == 0 {
                        k.clone()
                    } else {
                        format!("{k}:{}", shape(&map[k], depth - 1, ignore))
                    }
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => match items.first() {
            Some(first) if depth > 0 => format!("[{}]", shape(first, depth - 1, ignore)),
            _ => "[]".to_owned(),
        },
        _ => "_".to_owned(),
    }
}

/// Posts a request and returns the open body stream.
pub async fn open_stream(
    mock: &MockProvider,
    api: WireApi,
) -> impl futures_util::Stream<Item = reqwest::Result<hyper::body::Bytes>> {
    let response = reqwest::Client::new()
        .post(endpoint(mock, api, "m"))
        .json(&request_body(api, "m"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.bytes_stream()
}

/// Reads the stream until `events` SSE events arrived; panics if it ends first.
pub async fn read_events(
    stream: &mut (impl futures_util::Stream<Item = reqwest::Result<hyper::body::Bytes>> + Unpin),
    received: &mut String,
    events: usize,
) {
    while parse_sse(received).len() < events {
        let bytes = stream.next().await.expect("the body ended early").unwrap();
        received.push_str(&String::from_utf8_lossy(&bytes));
    }
}
