//! The client against the project's mock provider (`arbor-test-support`), in every wire format:
//! an independent implementation of each format over real loopback HTTP, so a client bug that a
//! hand-written test server would share cannot hide. Asserts what came back and what was sent.

use std::time::Duration;

use arbor_llm::{
    Api, AssistantContent, AssistantEvent, AssistantMessage, CancellationToken, Context, LlmClient,
    LlmError, Message, Model, Pricing, RequestOptions, RetryPolicy, StopReason, TextContent,
    ThinkingContent, ThinkingLevel, Tool, ToolResultMessage, UserContent, UserMessage,
};
use arbor_test_support::{MockProvider, Script, Turn, Usage, WireApi};
use serde_json::json;

const APIS: [(Api, WireApi); 4] = [
    (Api::OpenAiCompletions, WireApi::OpenAiCompletions),
    (Api::OpenAiResponses, WireApi::OpenAiResponses),
    (Api::AnthropicMessages, WireApi::AnthropicMessages),
    (Api::GoogleGenerativeAi, WireApi::GoogleGenerativeAi),
];

fn model(api: Api, mock: &MockProvider, wire: WireApi) -> Model {
    Model {
        id: "mock-model".into(),
        provider: "mock".into(),
        api,
        base_url: mock.url_for(wire),
        reasoning: true,
        images: false,
        context_window: 200_000,
        max_output_tokens: 8_192,
        pricing: Pricing {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
        compat: Default::default(),
    }
}

fn client() -> LlmClient {
    LlmClient::new().unwrap().with_retry_policy(RetryPolicy {
        max_retries: 2,
        initial_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_server_delay: Duration::from_secs(5),
    })
}

fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }
}

fn context(prompt: &str) -> Context {
    Context {
        system_prompt: Some("You are a careful test assistant.".into()),
        messages: vec![Message::User(UserMessage::text(prompt))],
        tools: vec![read_tool()],
    }
}

fn options(thinking: ThinkingLevel) -> RequestOptions {
    RequestOptions {
        api_key: Some("sk-mock-key".into()),
        thinking,
        ..RequestOptions::default()
    }
}

/// Streams one request and returns every event, the final message and its error.
async fn run(
    model: &Model,
    context: &Context,
    options: &RequestOptions,
) -> (Vec<AssistantEvent>, AssistantMessage, Option<LlmError>) {
    let mut stream = client().stream(model, context, options, CancellationToken::new());
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    let (message, error) = match events.last().cloned() {
        Some(AssistantEvent::Done { message }) => (message, None),
        Some(AssistantEvent::Error { message, error }) => (message, Some(error)),
        other => panic!("no terminal event: {other:?}"),
    };
    (events, message, error)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_split_over_many_deltas_is_reparsed_on_every_delta() {
    for (api, wire) in APIS {
        let arguments =
            json!({"path": "src/main.rs", "lines": [1, 2, 3], "note": "naïve “quotes”"});
        let turn = Turn::stream()
            .text("Reading.")
            .tool_call("read", arguments.clone())
            .chunk_size(3);
        let mock = MockProvider::start(Script::new().turn(turn)).await.unwrap();
        let (events, message, error) = run(
            &model(api, &mock, wire),
            &context("read it"),
            &options(ThinkingLevel::Off),
        )
        .await;
        assert!(error.is_none(), "{api}: {error:?}");
        assert_eq!(message.stop_reason, StopReason::ToolUse, "{api}");
        let calls: Vec<_> = message.tool_calls().collect();
        assert_eq!(calls.len(), 1, "{api}");
        assert_eq!(calls[0].name, "read");
        assert_eq!(
            serde_json::Value::Object(calls[0].arguments.clone()),
            arguments,
            "{api}"
        );
        assert!(!calls[0].id.is_empty(), "{api}: a tool call needs an id");
        let deltas: Vec<_> = events
            .iter()
            .filter_map(|event| match event {
                AssistantEvent::ToolCallDelta { arguments, .. } => Some(arguments.len()),
                _ => None,
            })
            .collect();
        // Gemini sends whole argument objects; the others stream them in pieces.
        if wire != WireApi::GoogleGenerativeAi {
            assert!(deltas.len() > 5, "{api}: only {} deltas", deltas.len());
            assert!(
                deltas.windows(2).all(|pair| pair[0] <= pair[1]),
                "{api}: partial arguments shrank"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_parallel_tool_calls_come_back_in_order() {
    for (api, wire) in APIS {
        let turn = Turn::stream()
            .tool_call("read", json!({"path": "a.txt"}))
            .tool_call("read", json!({"path": "b.txt"}));
        let mock = MockProvider::start(Script::new().turn(turn)).await.unwrap();
        let (_, message, error) = run(
            &model(api, &mock, wire),
            &context("read both"),
            &options(ThinkingLevel::Off),
        )
        .await;
        assert!(error.is_none(), "{api}: {error:?}");
        let paths: Vec<_> = message
            .tool_calls()
            .map(|call| call.arguments["path"].clone())
            .collect();
        assert_eq!(paths, [json!("a.txt"), json!("b.txt")], "{api}");
        let ids: std::collections::HashSet<_> =
            message.tool_calls().map(|call| call.id.clone()).collect();
        assert_eq!(ids.len(), 2, "{api}: tool-call ids must be distinct");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_is_received_and_replayed_with_its_signature() {
    for (api, wire) in APIS {
        let script = Script::new()
            .turn(
                Turn::stream()
                    .thinking_signed("Let me think about it.", "sig-abc-123")
                    .text("First."),
            )
            .turn(Turn::text("Second."));
        let mock = MockProvider::start(script).await.unwrap();
        let model = model(api, &mock, wire);
        let mut conversation = context("think");
        let (_, first, error) = run(&model, &conversation, &options(ThinkingLevel::High)).await;
        assert!(error.is_none(), "{api}: {error:?}");
        let thinking: Vec<_> = first.thinking().collect();
        assert_eq!(thinking.len(), 1, "{api}");
        assert_eq!(thinking[0].thinking, "Let me think about it.", "{api}");
        assert_eq!(first.text(), "First.");

        conversation.messages.push(Message::Assistant(first));
        conversation
            .messages
            .push(Message::User(UserMessage::text("go on")));
        let (_, second, error) = run(&model, &conversation, &options(ThinkingLevel::High)).await;
        assert!(error.is_none(), "{api}: {error:?}");
        assert_eq!(second.text(), "Second.");

        let replay = mock.requests()[1].body_text.clone();
        match wire {
            // Chat completions has no signed reasoning to send back.
            WireApi::OpenAiCompletions => assert!(replay.contains("First."), "{api}: {replay}"),
            _ => assert!(
                replay.contains("sig-abc-123"),
                "{api}: the signature was not replayed: {replay}"
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_is_reported_and_priced() {
    for (api, wire) in APIS {
        let turn = Turn::text("priced").usage(Usage::new(1_000, 500).cache(2_000, 0));
        let mock = MockProvider::start(Script::new().turn(turn)).await.unwrap();
        let (_, message, _) = run(
            &model(api, &mock, wire),
            &context("hi"),
            &options(ThinkingLevel::Off),
        )
        .await;
        let usage = &message.usage;
        assert_eq!(
            (usage.input, usage.output, usage.cache_read),
            (1_000, 500, 2_000),
            "{api}"
        );
        let expected = (1_000.0 * 3.0 + 500.0 * 15.0 + 2_000.0 * 0.3) / 1_000_000.0;
        assert!(
            (usage.cost.total - expected).abs() < 1e-9,
            "{api}: cost {} != {expected}",
            usage.cost.total
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_carries_key_system_prompt_tools_and_thinking() {
    for (api, wire) in APIS {
        let mock = MockProvider::start(Script::new().turn(Turn::text("ok")))
            .await
            .unwrap();
        let (_, _, error) = run(
            &model(api, &mock, wire),
            &context("hello there"),
            &options(ThinkingLevel::Medium),
        )
        .await;
        assert!(error.is_none(), "{api}: {error:?}");
        let request = &mock.requests()[0];
        let body = request.json();
        let key_sent = match wire {
            WireApi::AnthropicMessages => {
                assert!(request.header("anthropic-version").is_some(), "{api}");
                request.header("x-api-key") == Some("sk-mock-key")
            }
            WireApi::GoogleGenerativeAi => {
                request.header("x-goog-api-key") == Some("sk-mock-key")
                    || request
                        .query
                        .as_deref()
                        .is_some_and(|q| q.contains("key=sk-mock-key"))
            }
            _ => request.header("authorization") == Some("Bearer sk-mock-key"),
        };
        assert!(key_sent, "{api}: {:?}", request.headers);
        let text = &request.body_text;
        assert!(
            text.contains("You are a careful test assistant.") && text.contains("hello there"),
            "{api}"
        );
        let (system_ok, tool_names, thinking_ok) = match wire {
            WireApi::AnthropicMessages => (
                body["system"].to_string().contains("careful"),
                body["tools"]
                    .as_array()
                    .map(|t| t.iter().map(|t| t["name"].clone()).collect::<Vec<_>>()),
                body["thinking"]["type"] == "enabled",
            ),
            WireApi::OpenAiResponses => (
                body["instructions"].to_string().contains("careful")
                    || body["input"][0].to_string().contains("careful"),
                body["tools"]
                    .as_array()
                    .map(|t| t.iter().map(|t| t["name"].clone()).collect()),
                body["reasoning"]["effort"] == "medium",
            ),
            WireApi::OpenAiCompletions => (
                body["messages"][0]["content"]
                    .to_string()
                    .contains("careful"),
                body["tools"]
                    .as_array()
                    .map(|t| t.iter().map(|t| t["function"]["name"].clone()).collect()),
                body["reasoning_effort"] == "medium",
            ),
            WireApi::GoogleGenerativeAi => (
                body["systemInstruction"].to_string().contains("careful"),
                body["tools"][0]["functionDeclarations"]
                    .as_array()
                    .map(|t| t.iter().map(|t| t["name"].clone()).collect()),
                body["generationConfig"]["thinkingConfig"].is_object(),
            ),
        };
        assert!(
            system_ok,
            "{api}: system prompt not where the API expects it: {body}"
        );
        assert_eq!(tool_names, Some(vec![json!("read")]), "{api}: {body}");
        assert!(thinking_ok, "{api}: thinking parameters missing: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_then_success_and_authentication_failure() {
    for (api, wire) in APIS {
        let script = Script::new()
            .turn(
                Turn::http_error(429, json!({"error": {"message": "slow down"}}))
                    .header("retry-after", "0"),
            )
            .turn(Turn::text("after retry"))
            .turn(Turn::http_error(
                401,
                json!({"error": {"message": "bad key", "type": "authentication_error"}}),
            ));
        let mock = MockProvider::start(script).await.unwrap();
        let model = model(api, &mock, wire);
        let (_, message, error) = run(&model, &context("hi"), &options(ThinkingLevel::Off)).await;
        assert!(error.is_none(), "{api}: {error:?}");
        assert_eq!(message.text(), "after retry");
        let (_, _, error) = run(&model, &context("hi"), &options(ThinkingLevel::Off)).await;
        assert!(
            matches!(error, Some(LlmError::Authentication { .. })),
            "{api}: {error:?}"
        );
        assert_eq!(
            mock.requests().len(),
            3,
            "{api}: the 401 must not be retried"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mid_stream_error_and_dropped_connection_keep_the_partial_message() {
    for (api, wire) in APIS {
        let script = Script::new()
            .turn(
                Turn::stream()
                    .text("partial text that breaks")
                    .chunk_size(4)
                    .error_after_chunks(4),
            )
            .turn(
                Turn::stream()
                    .text("this connection drops")
                    .chunk_size(4)
                    .drop_after_chunks(8),
            );
        let mock = MockProvider::start(script).await.unwrap();
        let model = model(api, &mock, wire);
        let (_, message, error) = run(&model, &context("hi"), &options(ThinkingLevel::Off)).await;
        assert!(
            error.is_some(),
            "{api}: a mid-stream error must fail the message"
        );
        assert_eq!(message.stop_reason, StopReason::Error, "{api}");
        let (_, message, error) = run(&model, &context("hi"), &options(ThinkingLevel::Off)).await;
        assert!(
            matches!(error, Some(LlmError::Network { .. })),
            "{api}: {error:?}"
        );
        let kept = message.text();
        assert!(
            !kept.is_empty() && "this connection drops".starts_with(&kept),
            "{api}: kept {kept:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_mid_stream_ends_promptly_with_what_was_received() {
    for (api, wire) in APIS {
        let turn = Turn::stream()
            .text("word ".repeat(200))
            .chunk_size(5)
            .delay_ms(30);
        let mock = MockProvider::start(Script::new().turn(turn)).await.unwrap();
        let cancel = CancellationToken::new();
        let mut stream = client().stream(
            &model(api, &mock, wire),
            &context("talk"),
            &options(ThinkingLevel::Off),
            cancel.clone(),
        );
        let mut deltas = 0;
        let mut last = None;
        while let Some(event) = stream.next().await {
            if matches!(event, AssistantEvent::TextDelta { .. }) {
                deltas += 1;
                if deltas == 3 {
                    cancel.cancel();
                }
            }
            last = Some(event);
        }
        match last {
            Some(AssistantEvent::Error {
                message,
                error: LlmError::Aborted,
            }) => {
                assert_eq!(message.stop_reason, StopReason::Aborted, "{api}");
                let text: String = message
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        AssistantContent::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect();
                assert!(text.starts_with("word word"), "{api}: kept {text:?}");
                assert!(text.len() < 200 * 5, "{api}: the stream was not stopped");
            }
            other => panic!("{api}: expected an aborted error, got {other:?}"),
        }
    }
}

/// OpenAI Responses with `store: false`: a reasoning model returns reasoning items whatever the
/// thinking level, and the next request of a tool loop must replay them with their encrypted
/// content (the mock, like the real API, answers 404 for a bare `rs_…` id).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_tool_loops_replay_reasoning_with_encrypted_content_at_every_level() {
    let levels = [
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
    ];
    for level in levels {
        let script = Script::new()
            .turn(
                Turn::stream()
                    .thinking("Read the file first.")
                    .tool_call("read", json!({"path": "a.txt"})),
            )
            .turn(Turn::text("Done."));
        let mock = MockProvider::start(script).await.unwrap();
        let model = model(Api::OpenAiResponses, &mock, WireApi::OpenAiResponses);
        let mut conversation = context("read a.txt");
        let (_, first, error) = run(&model, &conversation, &options(level)).await;
        assert!(error.is_none(), "{level:?}: {error:?}");
        let call = first.tool_calls().next().unwrap().clone();
        conversation.messages.push(Message::Assistant(first));
        conversation
            .messages
            .push(Message::ToolResult(ToolResultMessage {
                tool_call_id: call.id,
                tool_name: call.name,
                content: vec![UserContent::Text(TextContent::new("hello"))],
                is_error: false,
                details: None,
            }));
        let (_, second, error) = run(&model, &conversation, &options(level)).await;
        assert!(
            error.is_none(),
            "{level:?}: the second request failed: {error:?}"
        );
        assert_eq!(second.text(), "Done.", "{level:?}");

        let sent = mock.requests();
        for request in &sent {
            let body = request.body.as_ref().unwrap();
            assert_eq!(body["store"], false, "{level:?}");
            assert_eq!(
                body["include"],
                json!(["reasoning.encrypted_content"]),
                "{level:?}: a reasoning model must always ask for its encrypted reasoning"
            );
        }
        let replayed: Vec<_> = sent[1].body.as_ref().unwrap()["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item["type"] == "reasoning")
            .cloned()
            .collect();
        assert_eq!(replayed.len(), 1, "{level:?}");
        assert!(
            replayed[0]["encrypted_content"].is_string(),
            "{level:?}: {}",
            replayed[0]
        );
    }
}

/// A reasoning item stored without its encrypted content (before Arbor asked for it at every
/// level) is dropped from the replay instead of failing the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_drop_a_stored_reasoning_item_without_encrypted_content() {
    let mock = MockProvider::start(Script::new().turn(Turn::text("Fine.")))
        .await
        .unwrap();
    let model = model(Api::OpenAiResponses, &mock, WireApi::OpenAiResponses);
    let mut conversation = context("read a.txt");
    // Recorded from this very model, so only the missing content keeps it from being replayed.
    let mut earlier = AssistantMessage::empty(Api::OpenAiResponses, "mock", "mock-model");
    earlier.content = vec![
        AssistantContent::Thinking(ThinkingContent {
            thinking: "Read it.".into(),
            signature: Some(
                json!({"type": "reasoning", "id": "rs_old", "summary": []}).to_string(),
            ),
            redacted: false,
        }),
        AssistantContent::Text(TextContent::new("It says hello.")),
    ];
    conversation.messages.push(Message::Assistant(earlier));
    conversation
        .messages
        .push(Message::User(UserMessage::text("and now?")));
    let (_, answer, error) = run(&model, &conversation, &options(ThinkingLevel::Off)).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(answer.text(), "Fine.");
    let sent = mock.requests()[0].body_text.clone();
    assert!(!sent.contains("rs_old"), "{sent}");
    assert!(sent.contains("It says hello."), "{sent}");
}
