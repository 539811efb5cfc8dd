//! The HTTP client against a scripted HTTP/1.1 server on 127.0.0.1: success, retries, errors
//! that must not be retried, abort mid-stream, a dropped connection.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbor_llm::model::CompletionsCompat;
use arbor_llm::{
    Api, AssistantEvent, CancellationToken, Context, LlmClient, LlmError, Model, Pricing,
    RequestOptions, RetryPolicy, StopReason, Tool, UserMessage,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted HTTP response.
#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    /// Body pieces, each written after its delay.
    chunks: Vec<(u64, String)>,
    /// Keep the connection open after the last chunk (for abort tests).
    hang: bool,
}

impl Reply {
    fn sse(chunks: &[&str]) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into())],
            chunks: chunks.iter().map(|c| (5, c.to_string())).collect(),
            hang: false,
        }
    }

    fn error(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type", "application/json".into())],
            chunks: vec![(0, body.to_string())],
            hang: false,
        }
    }

    fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }
}

/// Recorded request: the raw head and the body.
#[derive(Clone, Debug)]
struct Recorded {
    head: String,
    body: String,
}

struct MockServer {
    url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

/// Streams one request with the default model, context and options to `server`.
async fn stream_once(
    client: &LlmClient,
    server: &MockServer,
) -> (arbor_llm::AssistantMessage, Option<LlmError>) {
    client
        .stream(
            &model(&server.url),
            &context(),
            &options(),
            CancellationToken::new(),
        )
        .result()
        .await
}

async fn serve(replies: Vec<Reply>) -> MockServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let log = requests.clone();
    tokio::spawn(async move {
        for reply in replies {
            let (socket, _) = listener.accept().await.unwrap();
            let log = log.clone();
            tokio::spawn(answer(socket, reply, log));
        }
    });
    MockServer { url, requests }
}

async fn answer(mut socket: TcpStream, reply: Reply, log: Arc<Mutex<Vec<Recorded>>>) {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut buffer).await.unwrap();
        received.extend_from_slice(&buffer[..n]);
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while received.len() < head_end + length {
        let n = socket.read(&mut buffer).await.unwrap();
        received.extend_from_slice(&buffer[..n]);
    }
    let body = String::from_utf8_lossy(&received[head_end..]).to_string();
    log.lock().unwrap().push(Recorded { head, body });

    let mut response = format!(
        "HTTP/1.1 {} Scripted\r\nconnection: close\r\n",
        reply.status
    );
    for (name, value) in &reply.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    socket.write_all(response.as_bytes()).await.unwrap();
    for (delay, chunk) in reply.chunks {
        tokio::time::sleep(Duration::from_millis(delay)).await;
        if socket.write_all(chunk.as_bytes()).await.is_err() {
            return; // the client went away (abort)
        }
    }
    if reply.hang {
        tokio::time::sleep(Duration::from_secs(30)).await;
    }
    let _ = socket.shutdown().await;
}

fn model(url: &str) -> Model {
    Model {
        id: "gpt-test".into(),
        provider: "mock".into(),
        api: Api::OpenAiCompletions,
        base_url: url.into(),
        reasoning: false,
        images: false,
        context_window: 8192,
        max_output_tokens: 1024,
        pricing: Pricing::default(),
        compat: CompletionsCompat::default(),
    }
}

fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: vec![arbor_llm::Message::User(UserMessage::text("Hi"))],
        tools: vec![Tool {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: serde_json::json!({"type": "object"}),
        }],
    }
}

fn options() -> RequestOptions {
    RequestOptions {
        api_key: Some("sk-mock".into()),
        ..RequestOptions::default()
    }
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        initial_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_server_delay: Duration::from_secs(5),
    }
}

const TEXT_CHUNK_1: &str =
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n";
const TEXT_CHUNK_2: &str = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n";
const USAGE_CHUNK: &str = "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}\n\n";
const DONE: &str = "data: [DONE]\n\n";

#[tokio::test]
async fn streams_text_and_sends_what_the_request_needs() {
    let server = serve(vec![Reply::sse(&[
        TEXT_CHUNK_1,
        TEXT_CHUNK_2,
        USAGE_CHUNK,
        DONE,
    ])])
    .await;
    let client = LlmClient::new().unwrap();
    let mut priced = model(&server.url);
    priced.pricing = Pricing {
        input: 1.0,
        output: 2.0,
        ..Pricing::default()
    };
    let mut stream = client.stream(&priced, &context(), &options(), CancellationToken::new());
    let mut deltas = String::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            AssistantEvent::TextDelta { delta, .. } => deltas.push_str(&delta),
            AssistantEvent::Done { message } => done = Some(message),
            _ => {}
        }
    }
    let message = done.expect("done event");
    assert_eq!(deltas, "Hello");
    assert_eq!(message.text(), "Hello");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!((message.usage.input, message.usage.output), (7, 2));
    assert!((message.usage.cost.total - 11.0 / 1_000_000.0).abs() < 1e-12);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let head = requests[0].head.to_ascii_lowercase();
    assert!(head.starts_with("post /v1/chat/completions "), "{head}");
    assert!(head.contains("authorization: bearer sk-mock"), "{head}");
    let body: serde_json::Value = serde_json::from_str(&requests[0].body).unwrap();
    assert_eq!(
        body["messages"][0],
        serde_json::json!({"role": "system", "content": "Be brief."})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "read");
    assert_eq!(body["stream"], true);
}

#[tokio::test]
async fn rate_limit_then_success_is_retried_after_the_server_wait() {
    let server = serve(vec![
        Reply::error(
            429,
            r#"{"error":{"message":"slow down","type":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "0"),
        Reply::error(503, "upstream unavailable"),
        Reply::sse(&[TEXT_CHUNK_1, TEXT_CHUNK_2, DONE]),
    ])
    .await;
    let notices = Arc::new(Mutex::new(Vec::new()));
    let seen = notices.clone();
    let client = LlmClient::new()
        .unwrap()
        .with_retry_policy(fast_retries())
        .on_retry(move |notice| seen.lock().unwrap().push(notice.clone()));
    let (message, error) = stream_once(&client, &server).await;
    assert_eq!(error, None);
    assert_eq!(message.text(), "Hello");
    assert_eq!(server.requests.lock().unwrap().len(), 3);
    let notices = notices.lock().unwrap();
    assert_eq!(notices.len(), 2);
    assert_eq!(notices[0].delay, Duration::ZERO);
    assert_eq!(notices[0].error.class(), "rate_limited");
    assert_eq!(notices[1].error.class(), "overloaded");
}

#[tokio::test]
async fn authentication_failure_is_not_retried() {
    let server = serve(vec![Reply::error(
        401,
        r#"{"error":{"message":"Incorrect API key provided"}}"#,
    )])
    .await;
    let client = LlmClient::new().unwrap().with_retry_policy(fast_retries());
    let (message, error) = stream_once(&client, &server).await;
    let error = error.expect("an error");
    assert!(
        matches!(error, LlmError::Authentication { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("Check the API key"), "{error}");
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_wait_longer_than_the_cap_fails_at_once_and_says_so() {
    let server = serve(vec![Reply::error(
        429,
        r#"{"error":{"message":"quota window"}}"#,
    )
    .header("retry-after", "3600")])
    .await;
    let client = LlmClient::new().unwrap().with_retry_policy(fast_retries());
    let (_, error) = stream_once(&client, &server).await;
    let error = error.expect("an error");
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3600)));
    assert!(error.to_string().contains("longer than the 5s"), "{error}");
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn context_overflow_body_is_classified() {
    let body = r#"{"error":{"message":"This model's maximum context length is 4097 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    let server = serve(vec![Reply::error(400, body)]).await;
    let client = LlmClient::new().unwrap().with_retry_policy(fast_retries());
    let (_, error) = stream_once(&client, &server).await;
    assert!(
        matches!(error, Some(LlmError::ContextOverflow { .. })),
        "{error:?}"
    );
}

#[tokio::test]
async fn abort_mid_stream_keeps_what_was_received() {
    let mut reply = Reply::sse(&[TEXT_CHUNK_1]);
    reply.hang = true;
    let server = serve(vec![reply]).await;
    let client = LlmClient::new().unwrap();
    let cancel = CancellationToken::new();
    let mut stream = client.stream(&model(&server.url), &context(), &options(), cancel.clone());
    let mut last = None;
    while let Some(event) = stream.next().await {
        if matches!(event, AssistantEvent::TextDelta { .. }) {
            cancel.cancel();
        }
        last = Some(event);
    }
    let Some(AssistantEvent::Error { message, error }) = last else {
        panic!("expected an error event, got {last:?}");
    };
    assert_eq!(error, LlmError::Aborted);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(message.text(), "Hel");
}

#[tokio::test]
async fn dropped_connection_is_a_network_error_with_the_partial_message() {
    let mut reply = Reply::sse(&[TEXT_CHUNK_1]);
    // Promise more than is sent, then close: the connection drops mid-body.
    reply.headers.push(("content-length", "10000".into()));
    let server = serve(vec![reply]).await;
    let client = LlmClient::new().unwrap().with_retry_policy(fast_retries());
    let (message, error) = stream_once(&client, &server).await;
    assert!(matches!(error, Some(LlmError::Network { .. })), "{error:?}");
    assert_eq!(message.text(), "Hel");
    assert_eq!(message.stop_reason, StopReason::Error);
}

#[tokio::test]
async fn unreachable_server_is_a_network_error_after_retries() {
    // Bind then drop a listener so the port is (almost certainly) closed.
    let url = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let attempts = Arc::new(Mutex::new(0));
    let counter = attempts.clone();
    let client = LlmClient::new()
        .unwrap()
        .with_retry_policy(fast_retries())
        .on_retry(move |_| *counter.lock().unwrap() += 1);
    let (_, error) = client
        .stream(
            &model(&url),
            &context(),
            &options(),
            CancellationToken::new(),
        )
        .result()
        .await;
    assert!(matches!(error, Some(LlmError::Network { .. })), "{error:?}");
    assert_eq!(*attempts.lock().unwrap(), 3);
}
