//! The HTTP/1.1 server: accepts connections on loopback, records requests, plays turns.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

use crate::formats::Plan;
use crate::playback::stream_response;
use crate::recording::{RecordedRequest, WireApi};
use crate::script::{HttpError, Script, Turn};
use crate::Error;

pub(crate) type ResponseBody = BoxBody<Bytes, io::Error>;

/// The path that returns the recorded requests as JSON.
pub const REQUESTS_PATH: &str = "/__mock/requests";

/// A running mock provider. Dropping it stops the server and closes its connections.
pub struct MockProvider {
    addr: SocketAddr,
    state: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Shared(Mutex<State>);

#[derive(Default)]
struct State {
    turns: Vec<Turn>,
    require_api_key: Option<String>,
    next_turn: usize,
    requests: Vec<RecordedRequest>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave `State` inconsistent: keep serving.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl MockProvider {
    /// Starts serving `script` on `127.0.0.1` at a free port. Needs a running tokio runtime.
    pub async fn start(script: impl Into<Script>) -> Result<Self, Error> {
        Self::start_on_port(script, 0).await
    }

    /// Starts serving `script` on `127.0.0.1:port` (0 picks a free port).
    pub async fn start_on_port(script: impl Into<Script>, port: u16) -> Result<Self, Error> {
        let script = script.into();
        script.validate()?;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(|source| Error::Bind { port, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { port, source })?;
        let state = Arc::new(Shared::default());
        {
            let mut state = state.lock();
            state.turns = script.turns;
            state.require_api_key = script.require_api_key;
        }
        let (shutdown, stop) = oneshot::channel();
        let task = tokio::spawn(serve(listener, Arc::clone(&state), stop));
        tracing::debug!(%addr, "mock provider listening");
        Ok(MockProvider {
            addr,
            state,
            shutdown: Some(shutdown),
            task: Some(task),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL a client of `api` should be configured with (DESIGN §4): OpenAI-style
    /// includes `/v1`; Anthropic excludes it; Google excludes the version.
    pub fn url_for(&self, api: WireApi) -> String {
        match api {
            WireApi::OpenAiCompletions | WireApi::OpenAiResponses => {
                format!("{}/v1", self.base_url())
            }
            WireApi::AnthropicMessages | WireApi::GoogleGenerativeAi => self.base_url(),
        }
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.lock().requests.clone()
    }

    /// Appends a turn to the script while the server runs.
    pub fn push_turn(&self, turn: impl Into<Turn>) {
        self.state.lock().turns.push(turn.into());
    }

    /// How many turns have been played (including HTTP errors).
    pub fn turns_served(&self) -> usize {
        self.state.lock().next_turn
    }

    /// Turns not yet played.
    pub fn remaining_turns(&self) -> usize {
        let state = self.state.lock();
        state.turns.len().saturating_sub(state.next_turn)
    }

    /// Stops accepting, closes open connections and waits for the server task to end.
    pub async fn shutdown(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            // The server may already be gone; nothing to do then.
            let _ = shutdown.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MockProvider {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl std::fmt::Debug for MockProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockProvider")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

async fn serve(listener: TcpListener, state: Arc<Shared>, mut stop: oneshot::Receiver<()>) {
    // Connections live in the set so that ending this task (shutdown or abort) closes them all.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stop => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Real providers' servers send SSE events without Nagle delays; without this
                    // a kept-alive second request waits ~40 ms on delayed ACKs.
                    let _ = stream.set_nodelay(true);
                    let state = Arc::clone(&state);
                    connections.spawn(async move {
                        let service = service_fn(move |req| handle(Arc::clone(&state), req));
                        if let Err(error) = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await
                        {
                            // Scripted drops end up here too; that is expected.
                            tracing::debug!(%error, "mock provider connection ended");
                        }
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "mock provider accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
        }
    }
}

async fn handle(
    state: Arc<Shared>,
    req: Request<Incoming>,
) -> Result<Response<ResponseBody>, Infallible> {
    let received_at_ms = now_ms();
    let (parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            let message = format!("mock provider: cannot read the request body: {error}");
            return Ok(mock_error(StatusCode::BAD_REQUEST, &message));
        }
    };
    if parts.method == Method::GET && parts.uri.path() == REQUESTS_PATH {
        let requests = state.lock().requests.clone();
        let json = serde_json::to_string(&requests).unwrap_or_else(|_| "[]".to_owned());
        return Ok(json_response(StatusCode::OK, json));
    }
    let mut record = record_request(&parts, &body, received_at_ms);
    let detected = WireApi::detect(&record.path);
    record.api = detected.as_ref().map(|(api, _)| *api);

    let (api, path_model) = match (reject(&parts.method, &record, detected.as_ref()), detected) {
        (None, Some(found)) => found,
        (rejection, _) => {
            let (status, message) = rejection.unwrap_or((
                StatusCode::NOT_FOUND,
                "mock provider: unknown path".to_owned(),
            ));
            state.lock().requests.push(record);
            return Ok(mock_error(status, &message));
        }
    };

    let required = state.lock().require_api_key.clone();
    if let Some(required) = required {
        if !carries_key(&record, &required) {
            state.lock().requests.push(record);
            return Ok(wrong_key(api));
        }
    }
    let (request_index, turn) = {
        let mut state = state.lock();
        let index = state.next_turn;
        let turn = state.turns.get(index).cloned();
        if turn.is_some() {
            state.next_turn += 1;
            record.turn = Some(index);
        }
        let total = state.turns.len();
        state.requests.push(record.clone());
        (
            state.requests.len() - 1,
            turn.map(|turn| (index, turn)).ok_or(total),
        )
    };
    Ok(match turn {
        Err(total) => {
            let message = format!(
                "mock provider: script exhausted: request for {api} but all {total} scripted turn(s) \
                 were already played"
            );
            mock_error(StatusCode::INTERNAL_SERVER_ERROR, &message)
        }
        Ok((_, Turn::HttpError(error))) => http_error(&error),
        Ok((index, Turn::Stream(stream))) => {
            let model = path_model
                .or_else(|| {
                    let model = record.json().get("model")?.as_str()?;
                    Some(model.to_owned())
                })
                .unwrap_or_else(|| "mock-model".to_owned());
            let mut plan = Plan::new(&stream, model, record.body_text.len(), index as u64 + 1);
            plan.include_usage =
                record.json().pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
            plan.encrypted_reasoning = record
                .json()
                .get("include")
                .and_then(Value::as_array)
                .is_some_and(|include| {
                    include
                        .iter()
                        .any(|item| item.as_str() == Some("reasoning.encrypted_content"))
                });
            let finished = move || {
                if let Some(request) = state.lock().requests.get_mut(request_index) {
                    request.finished_at_ms = Some(now_ms());
                }
            };
            stream_response(api, plan, stream, finished)
        }
    })
}

fn record_request(
    parts: &hyper::http::request::Parts,
    body: &Bytes,
    received_at_ms: u64,
) -> RecordedRequest {
    let mut headers = BTreeMap::<String, String>::new();
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_ascii_lowercase())
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers,
        body: serde_json::from_slice(body).ok(),
        body_text: String::from_utf8_lossy(body).into_owned(),
        api: None,
        turn: None,
        received_at_ms,
        finished_at_ms: None,
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or_default()
}

/// Requests a real provider would reject (or answer without streaming) get an error and do not
/// consume a turn, so a client bug shows up as a clear failure instead of a shifted script.
fn reject(
    method: &Method,
    record: &RecordedRequest,
    detected: Option<&(WireApi, Option<String>)>,
) -> Option<(StatusCode, String)> {
    if method != Method::POST {
        return Some((
            StatusCode::METHOD_NOT_ALLOWED,
            format!(
                "mock provider: {method} {} is not supported, use POST",
                record.path
            ),
        ));
    }
    match detected {
        None => Some((
            StatusCode::NOT_FOUND,
            format!(
                "mock provider: no wire format at {}; expected [/v1]/chat/completions, \
                 [/v1]/responses, /v1/messages or /v1beta/models/MODEL:streamGenerateContent",
                record.path
            ),
        )),
        Some((WireApi::GoogleGenerativeAi, _)) => {
            let sse = record
                .query
                .as_deref()
                .is_some_and(|q| q.split('&').any(|pair| pair == "alt=sse"));
            (!sse).then(|| {
                (
                    StatusCode::BAD_REQUEST,
                    "mock provider: streamGenerateContent needs ?alt=sse (SSE framing)".to_owned(),
                )
            })
        }
        Some((api, _)) => {
            let streaming = record.json().get("stream") == Some(&Value::Bool(true));
            if !streaming {
                return Some((
                    StatusCode::BAD_REQUEST,
                    "mock provider: only streaming requests (\"stream\": true) are supported"
                        .to_owned(),
                ));
            }
            (*api == WireApi::OpenAiResponses)
                .then(|| unpersisted_reasoning(record.json()))
                .flatten()
        }
    }
}

/// OpenAI Responses with `store: false` keeps nothing between requests, so a replayed reasoning
/// item must carry its `encrypted_content`; one without it is looked up by id and not found,
/// exactly as the real API answers.
fn unpersisted_reasoning(body: &Value) -> Option<(StatusCode, String)> {
    if body.get("store") != Some(&Value::Bool(false)) {
        return None;
    }
    let items = body.get("input")?.as_array()?;
    let bare = items.iter().find(|item| {
        item.get("type").and_then(Value::as_str) == Some("reasoning")
            && !item.get("encrypted_content").is_some_and(Value::is_string)
    })?;
    let id = bare.get("id").and_then(Value::as_str).unwrap_or("");
    Some((
        StatusCode::NOT_FOUND,
        format!(
            "Item with id '{id}' not found. Items are not persisted when `store` is set to false. \
             Try again with `store` set to true, or remove this item from your input."
        ),
    ))
}

fn http_error(error: &HttpError) -> Response<ResponseBody> {
    let (content_type, body) = match &error.body {
        Value::String(text) => ("text/plain; charset=utf-8", text.clone()),
        Value::Null => ("text/plain; charset=utf-8", String::new()),
        json => ("application/json", json.to_string()),
    };
    let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = full(status, content_type, body);
    for (name, value) in &error.headers {
        match (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                response.headers_mut().insert(name, value);
            }
            _ => tracing::warn!(%name, %value, "mock provider: invalid scripted header skipped"),
        }
    }
    response
}

/// An error of the mock itself (not scripted), shaped like the OpenAI/Anthropic error envelope.
/// Whether the request carries `key` where its format puts it.
fn carries_key(record: &RecordedRequest, key: &str) -> bool {
    let bearer = record
        .header("authorization")
        .and_then(|value| value.strip_prefix("Bearer "));
    let in_query = record.query.as_deref().is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair.strip_prefix("key=") == Some(key))
    });
    bearer == Some(key)
        || record.header("x-api-key") == Some(key)
        || record.header("x-goog-api-key") == Some(key)
        || in_query
}

/// A wrong or missing key, answered as each provider does (401 and its error body).
fn wrong_key(api: WireApi) -> Response<ResponseBody> {
    let body = match api {
        WireApi::OpenAiCompletions | WireApi::OpenAiResponses => serde_json::json!({
            "error": {
                "message": "Incorrect API key provided.",
                "type": "invalid_request_error",
                "code": "invalid_api_key"
            }
        }),
        WireApi::AnthropicMessages => serde_json::json!({
            "type": "error",
            "error": { "type": "authentication_error", "message": "invalid x-api-key" }
        }),
        WireApi::GoogleGenerativeAi => serde_json::json!({
            "error": {
                "code": 401,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "UNAUTHENTICATED"
            }
        }),
    };
    json_response(StatusCode::UNAUTHORIZED, body.to_string())
}

fn mock_error(status: StatusCode, message: &str) -> Response<ResponseBody> {
    let body = serde_json::json!({
        "type": "error",
        "error": { "type": "mock_provider_error", "message": message },
    });
    json_response(status, body.to_string())
}

fn json_response(status: StatusCode, body: String) -> Response<ResponseBody> {
    full(status, "application/json", body)
}

fn full(status: StatusCode, content_type: &'static str, body: String) -> Response<ResponseBody> {
    let body = Full::new(Bytes::from(body))
        .map_err(|never| match never {})
        .boxed();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}
