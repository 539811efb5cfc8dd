//! The HTTP streaming client: sends a built request, retries transient failures, decodes the
//! body as it arrives, and honours a cancellation token.
//!
//! Retries happen only before the response body starts (after that, what was received has
//! already been reported). The wait is the server's (`Retry-After`, `retry-after-ms`, Gemini
//! `RetryInfo`) when it gives one, else exponential backoff; a server wait longer than
//! [`RetryPolicy::max_server_delay`] fails at once with a message that says so. Cancelling ends
//! the stream promptly with what was received and stop reason `aborted`, and drops the request.
//!
//! A provider that goes quiet (no response, or no bytes of the body, for
//! [`LlmClient::stream_idle_timeout`], default [`DEFAULT_STREAM_IDLE_TIMEOUT`]) ends the request
//! with a retryable network error saying so, instead of leaving it waiting for ever: before the
//! body starts the retry policy applies; after, the caller decides (as for a dropped
//! connection). Events that could not be read are reported to [`LlmClient::on_stream_notice`].

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::classify::{classify_http_error, classify_stream_error};
use crate::error::LlmError;
use crate::events::AssistantEvent;
use crate::model::Model;
use crate::protocols::{events_phrase, StreamDecoder};
use crate::request::{build_request, HttpRequest, RequestOptions};
use crate::retry::Retry;
pub use crate::retry::{RetryNotice, RetryPolicy};
use crate::types::{AssistantMessage, Context};

/// How long a provider may stay silent (no response headers, or no body bytes) before the
/// request ends as a retryable network error. Long enough for a slow first token of a large
/// prompt; short enough that a dead connection does not hang a run.
pub const DEFAULT_STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// Told to the stream notice observer at the end of a stream that had events it could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamNotice {
    /// Says what happened, for a front end to show as it is.
    pub message: String,
    /// How many events were skipped.
    pub skipped: u32,
}

type RetryObserver = Arc<dyn Fn(&RetryNotice) + Send + Sync>;
type NoticeObserver = Arc<dyn Fn(&StreamNotice) + Send + Sync>;

/// The HTTP clients, each built when first needed: the system's CA certificates are read only
/// when an `https` endpoint is first contacted, never for a plain `http` one (a local model, the
/// mock provider on loopback), so a request to those goes out without that start-up cost.
#[derive(Default)]
struct HttpClients {
    tls: OnceLock<Result<reqwest::Client, String>>,
    plain: OnceLock<Result<reqwest::Client, String>>,
}

impl HttpClients {
    fn for_url(&self, url: &str) -> Result<&reqwest::Client, LlmError> {
        let plain = url
            .get(..7)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
        let built = if plain {
            self.plain.get_or_init(|| {
                // No roots at all: nothing is read from the system's certificate store.
                http_client(reqwest::Client::builder().tls_certs_only(std::iter::empty()))
            })
        } else {
            self.tls
                .get_or_init(|| http_client(reqwest::Client::builder()))
        };
        built.as_ref().map_err(|error| LlmError::Network {
            message: format!("could not set up the HTTP client: {error}"),
        })
    }
}

fn http_client(builder: reqwest::ClientBuilder) -> Result<reqwest::Client, String> {
    builder
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|error| error.to_string())
}

/// Streams completions over HTTP. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct LlmClient {
    http: Arc<HttpClients>,
    retry: RetryPolicy,
    on_retry: Option<RetryObserver>,
    idle_timeout: Duration,
    on_notice: Option<NoticeObserver>,
}

impl LlmClient {
    /// A client; nothing is set up until the first request (see `HttpClients`). Setting up
    /// fails, if ever, at that request, with a network error saying so.
    pub fn new() -> Result<Self, LlmError> {
        Ok(Self {
            http: Arc::default(),
            retry: RetryPolicy::default(),
            on_retry: None,
            idle_timeout: DEFAULT_STREAM_IDLE_TIMEOUT,
            on_notice: None,
        })
    }

    /// How long the provider may send nothing (while the response is awaited, or between two
    /// pieces of the body) before the request ends with a retryable network error. `ZERO`
    /// waits for ever.
    pub fn stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The idle timeout this client applies ([`LlmClient::stream_idle_timeout`]).
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// Called at the end of a stream in which events could not be read and were skipped
    /// (front ends show it; the answer may be missing parts).
    pub fn on_stream_notice(
        mut self,
        observer: impl Fn(&StreamNotice) + Send + Sync + 'static,
    ) -> Self {
        self.on_notice = Some(Arc::new(observer));
        self
    }

    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Called before each retry wait (front ends show "retrying in …").
    pub fn on_retry(mut self, observer: impl Fn(&RetryNotice) + Send + Sync + 'static) -> Self {
        self.on_retry = Some(Arc::new(observer));
        self
    }

    /// Starts streaming on a new task; events arrive on the returned stream, the last one being
    /// `done` or `error`. Must be called inside a Tokio runtime.
    pub fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: &RequestOptions,
        cancel: CancellationToken,
    ) -> AssistantStream {
        // Unbounded: events are small, and a slow reader must not stall or abort the stream.
        let (sender, receiver) = mpsc::unbounded_channel();
        let client = self.clone();
        let model = model.clone();
        let request = build_request(&model, context, options);
        let body_started = Arc::new(AtomicBool::new(false));
        let started = Arc::clone(&body_started);
        tokio::spawn(async move {
            client
                .run_reporting(&model, &request, &cancel, &started, &mut |event| {
                    // A dropped receiver means nobody listens any more: stop reading.
                    if sender.send(event).is_err() {
                        cancel.cancel();
                    }
                })
                .await;
        });
        AssistantStream {
            receiver,
            body_started,
        }
    }

    /// Sends `request` and reports every event to `emit`; returns the final message.
    pub async fn run(
        &self,
        model: &Model,
        request: &HttpRequest,
        cancel: &CancellationToken,
        emit: &mut (dyn FnMut(AssistantEvent) + Send),
    ) -> AssistantMessage {
        let started = AtomicBool::new(false);
        self.run_reporting(model, request, cancel, &started, emit)
            .await
    }

    /// [`LlmClient::run`], setting `body_started` once a successful response arrived (from
    /// then on, failures are not retried here).
    async fn run_reporting(
        &self,
        model: &Model,
        request: &HttpRequest,
        cancel: &CancellationToken,
        body_started: &AtomicBool,
        emit: &mut (dyn FnMut(AssistantEvent) + Send),
    ) -> AssistantMessage {
        let mut decoder =
            StreamDecoder::new(model.api, &model.provider, &model.id).with_pricing(model.pricing);
        let mut attempt = 0;
        let response = loop {
            match self.send(request, cancel).await {
                Ok(response) => break response,
                Err(error) => match self.retry_delay(&error, attempt) {
                    Retry::After(delay) => {
                        attempt += 1;
                        if let Some(observer) = &self.on_retry {
                            observer(&RetryNotice {
                                attempt,
                                delay,
                                error: error.clone(),
                            });
                        }
                        tokio::select! {
                            biased;
                            _ = cancel.cancelled() => {
                                return finish(model, decoder.fail(LlmError::Aborted), emit);
                            }
                            _ = tokio::time::sleep(delay) => {}
                        }
                    }
                    Retry::No(error) => return finish(model, decoder.fail(error), emit),
                },
            }
        };
        body_started.store(true, Ordering::Release);
        let message = read_body(
            model,
            response,
            &mut decoder,
            cancel,
            self.idle_timeout,
            emit,
        )
        .await;
        let skipped = decoder.skipped();
        if let (Some(observer), true) = (&self.on_notice, skipped > 0) {
            observer(&StreamNotice {
                message: format!(
                    "{} from the provider could not be read (not valid JSON) and {} skipped; the answer may be missing parts",
                    events_phrase(skipped),
                    if skipped == 1 { "was" } else { "were" }
                ),
                skipped,
            });
        }
        message
    }

    async fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, LlmError> {
        let http = self.http.for_url(&request.url)?;
        let mut builder = http.post(&request.url).body(request.body.to_string());
        for (name, value) in &request.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let response = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Aborted),
            response = within(self.idle_timeout, builder.send()) => {
                response?.map_err(network_error)?
            }
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let retry_after = header("retry-after");
        let retry_after_ms = header("retry-after-ms");
        let body = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Aborted),
            body = within(self.idle_timeout, response.text()) => body?.unwrap_or_default(),
        };
        let mut error = classify_http_error(status.as_u16(), retry_after.as_deref(), &body);
        // OpenAI's millisecond header is more precise than `Retry-After`.
        if let (LlmError::RateLimited { retry_after_ms, .. }, Some(ms)) = (
            &mut error,
            retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok()),
        ) {
            *retry_after_ms = Some(ms.max(0.0) as u64);
        }
        Err(error)
    }

    fn retry_delay(&self, error: &LlmError, attempt: u32) -> Retry {
        match self.retry.decide(error, attempt) {
            Ok(delay) => Retry::After(delay),
            Err(error) => Retry::No(error),
        }
    }

    /// The retry policy this client follows before a response body starts.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry
    }
}

/// `future`, unless the provider stays silent for `limit` first (`ZERO`: no limit).
async fn within<F: Future>(limit: Duration, future: F) -> Result<F::Output, LlmError> {
    if limit.is_zero() {
        return Ok(future.await);
    }
    tokio::time::timeout(limit, future)
        .await
        .map_err(|_| stalled_error(limit))
}

/// The error of a provider that went quiet: retryable, like any network failure.
pub fn stalled_error(limit: Duration) -> LlmError {
    LlmError::Network {
        message: format!(
            "no data from the provider for {} s, so Arbor stopped waiting",
            limit.as_secs_f64()
        ),
    }
}

fn network_error(error: reqwest::Error) -> LlmError {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    // The source chain names the actual cause (DNS, refused, TLS…).
    let mut message = format!("{kind}: {error}");
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    LlmError::Network { message }
}

fn finish(
    model: &Model,
    events: Vec<AssistantEvent>,
    emit: &mut (dyn FnMut(AssistantEvent) + Send),
) -> AssistantMessage {
    let mut last = None;
    for event in events {
        if let AssistantEvent::Done { message } | AssistantEvent::Error { message, .. } = &event {
            last = Some(message.clone());
        }
        emit(event);
    }
    // `fail` and `finish` always end with a terminal event; this is only a fallback.
    last.unwrap_or_else(|| AssistantMessage::empty(model.api, &model.provider, &model.id))
}

async fn read_body(
    model: &Model,
    mut response: reqwest::Response,
    decoder: &mut StreamDecoder,
    cancel: &CancellationToken,
    idle_timeout: Duration,
    emit: &mut (dyn FnMut(AssistantEvent) + Send),
) -> AssistantMessage {
    let is_json = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        // Some compatible servers answer 200 with a JSON error instead of a stream.
        let body = tokio::select! {
            biased;
            _ = cancel.cancelled() => return finish(model, decoder.fail(LlmError::Aborted), emit),
            body = within(idle_timeout, response.text()) => match body {
                Ok(body) => body.unwrap_or_default(),
                Err(stalled) => return finish(model, decoder.fail(stalled), emit),
            },
        };
        let error = match serde_json::from_str::<serde_json::Value>(&body) {
            Ok(value) if value.get("error").is_some() => classify_stream_error(&value),
            _ => LlmError::Provider {
                message: "the provider answered with JSON instead of an event stream".into(),
            },
        };
        return finish(model, decoder.fail(error), emit);
    }
    let mut last = None;
    loop {
        let events = tokio::select! {
            biased;
            _ = cancel.cancelled() => decoder.fail(LlmError::Aborted),
            chunk = within(idle_timeout, response.chunk()) => match chunk {
                Ok(Ok(Some(bytes))) => decoder.feed(&bytes),
                Ok(Ok(None)) => decoder.finish(),
                Ok(Err(error)) => decoder.fail(network_error(error)),
                Err(stalled) => decoder.fail(stalled),
            },
        };
        for event in events {
            if let AssistantEvent::Done { message } | AssistantEvent::Error { message, .. } = &event
            {
                last = Some(message.clone());
            }
            emit(event);
        }
        if let Some(message) = last.take() {
            return message;
        }
    }
}

/// Events of one streamed response.
pub struct AssistantStream {
    receiver: mpsc::UnboundedReceiver<AssistantEvent>,
    body_started: Arc<AtomicBool>,
}

impl AssistantStream {
    /// Whether the provider accepted the request and its answer began (a successful
    /// response arrived). A failure after that was not retried by the client: whatever came
    /// before it was already reported.
    pub fn body_started(&self) -> bool {
        self.body_started.load(Ordering::Acquire)
    }

    /// The next event; `None` after the terminal one.
    pub async fn next(&mut self) -> Option<AssistantEvent> {
        self.receiver.recv().await
    }

    /// Waits for the end and returns the final (or partial) message and its error, if any.
    pub async fn result(mut self) -> (AssistantMessage, Option<LlmError>) {
        let mut outcome = None;
        while let Some(event) = self.next().await {
            match event {
                AssistantEvent::Done { message } => outcome = Some((message, None)),
                AssistantEvent::Error { message, error } => outcome = Some((message, Some(error))),
                _ => {}
            }
        }
        outcome.unwrap_or_else(|| {
            (
                AssistantMessage::empty(crate::types::Api::OpenAiCompletions, "", ""),
                Some(LlmError::Provider {
                    message: "the stream ended without a result".into(),
                }),
            )
        })
    }
}
