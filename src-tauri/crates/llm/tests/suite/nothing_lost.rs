//! Streams that end badly without saying so, against the mock provider over loopback HTTP: a
//! tool call whose arguments were cut off, a provider that goes quiet, events that cannot be
//! read. None of them may pass for a good answer or hang.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbor_llm::{
    decode_body, Api, AssistantEvent, AssistantMessage, CancellationToken, Context, LlmClient,
    LlmError, Message, Model, RequestOptions, RetryPolicy, StopReason, StreamNotice, UserMessage,
    DEFAULT_STREAM_IDLE_TIMEOUT,
};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};

const APIS: [(Api, WireApi); 4] = [
    (Api::OpenAiCompletions, WireApi::OpenAiCompletions),
    (Api::OpenAiResponses, WireApi::OpenAiResponses),
    (Api::AnthropicMessages, WireApi::AnthropicMessages),
    (Api::GoogleGenerativeAi, WireApi::GoogleGenerativeAi),
];

/// A guard against a hang, far above what any of these tests needs: not a speed assertion.
const HANG_GUARD: Duration = Duration::from_secs(20);

fn model(api: Api, base_url: String) -> Model {
    Model {
        id: "mock-model".into(),
        provider: "mock".into(),
        api,
        base_url,
        reasoning: false,
        images: false,
        context_window: 200_000,
        max_output_tokens: 8_192,
        pricing: Default::default(),
        compat: Default::default(),
    }
}

fn context() -> Context {
    Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage::text("go"))],
        tools: Vec::new(),
    }
}

fn options() -> RequestOptions {
    RequestOptions {
        api_key: Some("sk-mock-key".into()),
        ..RequestOptions::default()
    }
}

fn quick_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(20),
        max_server_delay: Duration::from_secs(1),
    }
}

/// Streams one request with `client`; the final message, its error and whether the body began.
async fn run(client: &LlmClient, model: &Model) -> (AssistantMessage, Option<LlmError>, bool) {
    let stream = client.stream(model, &context(), &options(), CancellationToken::new());
    let result = tokio::time::timeout(HANG_GUARD, async move {
        let mut stream = stream;
        let mut last = None;
        while let Some(event) = stream.next().await {
            last = Some(event);
        }
        (last, stream.body_started())
    })
    .await;
    let Ok((last, body_started)) = result else {
        panic!("{}: the stream hung", model.api);
    };
    match last {
        Some(AssistantEvent::Done { message }) => (message, None, body_started),
        Some(AssistantEvent::Error { message, error }) => (message, Some(error), body_started),
        other => panic!("no terminal event: {other:?}"),
    }
}

async fn mock_run(
    client: &LlmClient,
    api: Api,
    wire: WireApi,
    turn: impl Into<Turn>,
) -> (AssistantMessage, Option<LlmError>, bool) {
    let mock = MockProvider::start(Script::new().turn(turn)).await.unwrap();
    run(client, &model(api, mock.url_for(wire))).await
}

// 1. A tool call cut off mid-string must never come back as a call to run.

/// The start of a `write` that would have replaced a whole file, cut off inside its content.
const CUT_OFF_WRITE: &str = r#"{"path": "src/big.rs", "content": "line 1\nline 2\nli"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_cut_off_mid_string_ends_as_length_not_tool_use() {
    let client = LlmClient::new().unwrap();
    // Gemini sends whole argument objects, which the mock cannot cut (see the decode test).
    for (api, wire) in &APIS[..3] {
        let turn = Turn::stream()
            .text("Writing it.")
            .tool_call_raw("write", CUT_OFF_WRITE)
            .chunk_size(5);
        let (message, error, _) = mock_run(&client, *api, *wire, turn).await;
        assert_eq!(error, None, "{api}: the stream itself ended normally");
        // `length` is what the agent never executes: each call gets an error result instead.
        assert_eq!(message.stop_reason, StopReason::Length, "{api}");
        let call = message.tool_calls().next().unwrap();
        assert_eq!(call.name, "write", "{api}");
        // What arrived stays readable for display.
        assert_eq!(call.arguments["content"], "line 1\nline 2\nli", "{api}");

        // The same call arriving whole is a call to run.
        let whole = format!("{CUT_OFF_WRITE}ne 3\"}}");
        let turn = Turn::stream().tool_call_raw("write", whole).chunk_size(5);
        let (message, error, _) = mock_run(&client, *api, *wire, turn).await;
        assert_eq!(error, None, "{api}");
        assert_eq!(message.stop_reason, StopReason::ToolUse, "{api}");
        let call = message.tool_calls().next().unwrap();
        assert_eq!(call.arguments["content"], "line 1\nline 2\nline 3", "{api}");
    }
}

#[test]
fn a_gemini_call_whose_streamed_arguments_never_close_ends_as_length() {
    let opened = concat!(
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"write\",\"willContinue\":true}}]}}]}\r\n\r\n",
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.content\",\"stringValue\":\"line 1\",\"willContinue\":true}],\"willContinue\":true}}]}}]}\r\n\r\n",
    );
    // The empty `functionCall` part that closes a streamed call, as the real API sends it.
    let close =
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}}]}}]}\r\n\r\n";
    let stop = "data: {\"candidates\":[{\"finishReason\":\"STOP\"}]}\r\n\r\n";
    let text_stop = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n";
    let last =
        |body: String| match decode_body(Api::GoogleGenerativeAi, "google", "g", body.as_bytes())
            .pop()
        {
            Some(AssistantEvent::Done { message }) => message,
            other => panic!("{other:?}"),
        };
    for end in [stop, text_stop] {
        let cut = last(format!("{opened}{end}"));
        assert_eq!(cut.stop_reason, StopReason::Length, "{end}");
        let call = cut.tool_calls().next().unwrap();
        assert_eq!(call.arguments["content"], "line 1");
        let closed = last(format!("{opened}{close}{end}"));
        assert_eq!(closed.stop_reason, StopReason::ToolUse, "{end}");
    }
}

// 2. A provider that stops sending must not hang the request.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_stalls_ends_with_a_retryable_network_error() {
    assert_eq!(
        LlmClient::new().unwrap().idle_timeout(),
        DEFAULT_STREAM_IDLE_TIMEOUT
    );
    assert_eq!(DEFAULT_STREAM_IDLE_TIMEOUT, Duration::from_secs(120));
    let client = LlmClient::new()
        .unwrap()
        .stream_idle_timeout(Duration::from_millis(300));
    assert_eq!(client.idle_timeout(), Duration::from_millis(300));
    for (api, wire) in APIS {
        // Headers and the first events, then silence with the connection left open.
        let turn = Turn::text("an answer that stops half way")
            .chunk_size(4)
            .stall_after_chunks(3);
        let (message, error, body_started) = mock_run(&client, api, wire, turn).await;
        let error = error.unwrap_or_else(|| panic!("{api}: a stalled stream passed for done"));
        assert!(
            matches!(error, LlmError::Network { .. }),
            "{api}: {error:?}"
        );
        assert!(error.is_retryable(), "{api}");
        assert!(
            error
                .to_string()
                .contains("no data from the provider for 0.3 s"),
            "{api}: {error}"
        );
        assert!(body_started, "{api}");
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_shorter_than_the_idle_timeout_is_waited_out() {
    let client = LlmClient::new()
        .unwrap()
        .stream_idle_timeout(Duration::from_secs(5));
    let turn = Turn::text("slow but fine").stall_for(2, 200);
    let (message, error, _) = mock_run(
        &client,
        Api::AnthropicMessages,
        WireApi::AnthropicMessages,
        turn,
    )
    .await;
    assert_eq!(error, None);
    assert_eq!(message.text(), "slow but fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_that_never_answers_is_retried_by_the_policy_then_reported() {
    // Accepts and reads requests but never answers: the wait for the response stalls.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&connections);
    tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            open.push(socket); // kept open and silent
        }
    });
    let retries = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&retries);
    let client = LlmClient::new()
        .unwrap()
        .with_retry_policy(quick_retries(1))
        .stream_idle_timeout(Duration::from_millis(200))
        .on_retry(move |notice| seen.lock().unwrap().push(notice.error.clone()));
    let (_, error, body_started) = run(&client, &model(Api::OpenAiCompletions, base_url)).await;
    let error = error.unwrap();
    assert!(
        error
            .to_string()
            .contains("no data from the provider for 0.2 s"),
        "{error}"
    );
    assert!(!body_started);
    let retries = retries.lock().unwrap().clone();
    assert_eq!(retries, vec![error.clone()], "the retry policy applies");
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}

// 3. Events that cannot be read are counted and reported, never silently dropped.

fn notices(client: LlmClient) -> (LlmClient, Arc<Mutex<Vec<StreamNotice>>>) {
    let notices = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&notices);
    let client = client.on_stream_notice(move |notice| seen.lock().unwrap().push(notice.clone()));
    (client, notices)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_event_between_valid_ones_is_reported() {
    for (api, wire) in APIS {
        let (client, notices) = notices(LlmClient::new().unwrap());
        let turn = Turn::text("Hello there, all of it.")
            .chunk_size(6)
            .raw_event(
                2,
                "data: {\"choices\": [{\"delta\": {\"content\": \"lost\n\n",
            );
        let (message, error, _) = mock_run(&client, api, wire, turn).await;
        assert_eq!(error, None, "{api}");
        assert_eq!(message.text(), "Hello there, all of it.", "{api}");
        let notices = notices.lock().unwrap().clone();
        assert_eq!(notices.len(), 1, "{api}: {notices:?}");
        assert_eq!(notices[0].skipped, 1, "{api}");
        assert!(
            notices[0]
                .message
                .contains("1 event from the provider could not be read"),
            "{api}: {}",
            notices[0].message
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_stream_gives_no_notice() {
    let (client, notices) = notices(LlmClient::new().unwrap());
    for (api, wire) in APIS {
        let (_, error, _) = mock_run(&client, api, wire, Turn::text("fine")).await;
        assert_eq!(error, None, "{api}");
    }
    assert!(notices.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_events_and_nothing_usable_end_with_an_error_naming_the_count() {
    for (api, wire) in APIS {
        let (client, notices) = notices(LlmClient::new().unwrap());
        // The answer's content arrives only as garbage; the format's own start and end are fine.
        let turn = Turn::stream()
            .raw_event(1, "data: {\"text\": \"Hel\n\n")
            .raw_event(1, "data: lo, wor\n\n")
            .raw_event(1, "data: [\"ld\"\n\n");
        let (message, error, _) = mock_run(&client, api, wire, turn).await;
        let error = error.unwrap_or_else(|| panic!("{api}: an empty answer passed for done"));
        assert!(error.to_string().contains("3 events"), "{api}: {error}");
        assert!(error.is_retryable(), "{api}");
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        assert_eq!(notices.lock().unwrap()[0].skipped, 3, "{api}");
    }
}

#[test]
fn a_stream_of_nothing_but_garbage_names_the_count_not_a_truncation() {
    for api in Api::ALL {
        let events = decode_body(api, "p", "m", b"data: {oops\n\ndata: <html>\n\n");
        let Some(AssistantEvent::Error { error, .. }) = events.last() else {
            panic!("{api}: {events:?}");
        };
        assert!(error.to_string().contains("2 events"), "{api}: {error}");
    }
    // Events without data are keep-alives, not losses.
    let events = decode_body(
        Api::OpenAiCompletions,
        "p",
        "m",
        b"data:\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    );
    assert!(
        matches!(events.last(), Some(AssistantEvent::Done { .. })),
        "{events:?}"
    );
}
