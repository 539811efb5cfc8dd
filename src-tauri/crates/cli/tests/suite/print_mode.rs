//! `arbor -p` against the mock provider over loopback, in each wire format: what it prints,
//! how it exits, and what it sent.

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn, Usage, WireApi};
use serde_json::json;
use support::{api_name, Arbor};

fn endpoint_args(mock: &MockProvider, api: WireApi) -> Vec<String> {
    vec![
        "--api".into(),
        api_name(api).into(),
        "--base-url".into(),
        mock.url_for(api),
        "--model".into(),
        "mock-model".into(),
        "--api-key".into(),
        "sk-test-123".into(),
    ]
}

async fn run_print(
    arbor: &Arbor,
    mock: &MockProvider,
    api: WireApi,
    prompts: &[&str],
) -> support::Run {
    let mut args: Vec<String> = vec!["-p".into()];
    args.extend(endpoint_args(mock, api));
    args.extend(prompts.iter().map(|p| p.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arbor.run(&args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_two_prompts_in_sequence_in_every_format() {
    for api in WireApi::ALL {
        let script = Script::new()
            .turn(
                Turn::stream()
                    .text("First answer.")
                    .usage(Usage::new(10, 3)),
            )
            .turn(
                Turn::stream()
                    .text("Second answer, streamed in small pieces.")
                    .chunk_size(3),
            );
        let mock = MockProvider::start(script).await.unwrap();
        let arbor = Arbor::new();
        let run = run_print(&arbor, &mock, api, &["first question", "second question"]).await;
        assert_eq!(run.status, 0, "{api:?}: {}", run.stderr);
        assert_eq!(
            run.stdout, "Second answer, streamed in small pieces.\n",
            "{api:?}"
        );

        let sent = mock.requests();
        assert_eq!(sent.len(), 2, "{api:?}");
        for request in &sent {
            assert_eq!(request.api, Some(api));
            let carries_key = request
                .headers
                .values()
                .any(|value| value.contains("sk-test-123"))
                || request
                    .query
                    .as_deref()
                    .is_some_and(|query| query.contains("sk-test-123"));
            assert!(
                carries_key,
                "{api:?}: the API key was not sent: {:?}",
                request.headers
            );
            assert!(
                request.body_text.contains("You are Arbor"),
                "{api:?}: no system prompt"
            );
        }
        // The second request carries the whole conversation so far.
        let second = &sent[1].body_text;
        for part in ["first question", "First answer.", "second question"] {
            assert!(
                second.contains(part),
                "{api:?}: second request lacks {part:?}: {second}"
            );
        }
        assert!(!sent[0].body_text.contains("second question"), "{api:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_failure_is_one_clear_line_and_not_retried() {
    for api in WireApi::ALL {
        let body = json!({"error": {"message": "invalid api key", "type": "authentication_error"}});
        let mock = MockProvider::start(Script::new().turn(Turn::http_error(401, body)))
            .await
            .unwrap();
        let arbor = Arbor::new();
        let run = run_print(&arbor, &mock, api, &["hi"]).await;
        assert_eq!(run.status, 1, "{api:?}");
        assert_eq!(run.stdout, "", "{api:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{api:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("custom/mock-model failed (authentication)"),
            "{api:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("--api-key"), "{}", run.stderr);
        assert_eq!(
            mock.requests().len(),
            1,
            "{api:?}: a 401 must not be retried"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_is_retried_then_answers() {
    for api in WireApi::ALL {
        let script = Script::new()
            .turn(
                Turn::http_error(429, json!({"error": {"message": "slow down"}}))
                    .header("retry-after", "0"),
            )
            .turn(Turn::text("after the wait"));
        let mock = MockProvider::start(script).await.unwrap();
        let arbor = Arbor::new();
        let run = run_print(&arbor, &mock, api, &["hi"]).await;
        assert_eq!(run.status, 0, "{api:?}: {}", run.stderr);
        assert_eq!(run.stdout, "after the wait\n");
        assert!(run.stderr.contains("retrying"), "{api:?}: {}", run.stderr);
        assert_eq!(mock.requests().len(), 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_overflow_bodies_from_real_providers_are_classified() {
    let cases = [
        (
            WireApi::AnthropicMessages,
            "anthropic/ant_issue_ctx_prompt_too_long_400_body.json",
            400,
        ),
        (
            WireApi::OpenAiCompletions,
            "openai-chat/oai_issue_ctx_exceeded_400_body.json",
            400,
        ),
        (
            WireApi::OpenAiResponses,
            "openai-responses/resp_issue_ctx_exceeded_400_body.json",
            400,
        ),
        (
            WireApi::GoogleGenerativeAi,
            "gemini/gem_issue_ctx_input_token_count_400_body.json",
            400,
        ),
    ];
    for (api, file, status) in cases {
        let text = std::fs::read_to_string(support::fixtures_dir().join(file)).unwrap();
        let body: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mock = MockProvider::start(Script::new().turn(Turn::http_error(status, body)))
            .await
            .unwrap();
        let arbor = Arbor::new();
        let run = run_print(&arbor, &mock, api, &["hi"]).await;
        assert_eq!(run.status, 1, "{file}");
        assert!(
            run.stderr.contains("(context_overflow)"),
            "{file}: {}",
            run.stderr
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_breaks_mid_stream_is_asked_for_again() {
    for api in WireApi::ALL {
        let broken = Turn::stream()
            .text("partial answer that never finishes")
            .chunk_size(4)
            .error_after_chunks(3);
        let dropped = Turn::stream()
            .text("this connection breaks")
            .chunk_size(4)
            .drop_after_chunks(2);
        let script = Script::new()
            .turn(broken)
            .turn(dropped)
            .turn(Turn::text("the whole answer"));
        let mock = MockProvider::start(script).await.unwrap();
        let arbor = Arbor::new();
        let run = run_print(&arbor, &mock, api, &["hi"]).await;
        assert_eq!(run.status, 0, "{api:?}: {}", run.stderr);
        assert!(
            run.stdout.ends_with("the whole answer\n"),
            "{api:?}: {}",
            run.stdout
        );
        assert!(
            run.stderr.contains("retrying in 1.0s (attempt 1)"),
            "{api:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("retrying in 2.0s (attempt 2)"),
            "{api:?}: {}",
            run.stderr
        );
        // The retried requests do not carry the broken answers.
        assert!(!mock.requests()[2]
            .body_text
            .contains("this connection breaks"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_keeps_dropping_fails_after_three_retries() {
    // One format only: the backoff (1 + 2 + 4 s) is real.
    let api = WireApi::AnthropicMessages;
    let mut script = Script::new();
    for _ in 0..4 {
        script = script.turn(
            Turn::stream()
                .text("this connection breaks")
                .chunk_size(4)
                .drop_after_chunks(2),
        );
    }
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let run = run_print(&arbor, &mock, api, &["hi"]).await;
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stderr.contains("(attempt 3)"), "{}", run.stderr);
    assert!(run.stderr.contains("failed (network)"), "{}", run.stderr);
    assert_eq!(mock.requests().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_level_reaches_the_request_of_each_provider() {
    let cases = [
        (WireApi::AnthropicMessages, "anthropic", "claude-sonnet-4-5"),
        (WireApi::OpenAiResponses, "openai", "gpt-5"),
        (WireApi::OpenAiCompletions, "xai", "grok-code-fast-1"),
        (WireApi::GoogleGenerativeAi, "google", "gemini-2.5-flash"),
    ];
    for (api, provider, model) in cases {
        let mock =
            MockProvider::start(Script::new().turn(Turn::stream().thinking("hmm").text("ok")))
                .await
                .unwrap();
        let arbor = Arbor::new();
        let url = mock.url_for(api);
        let run = arbor
            .run(&[
                "-p",
                "--provider",
                provider,
                "--model",
                model,
                "--base-url",
                &url,
                "--api-key",
                "k",
                "--thinking",
                "high",
                "go",
            ])
            .await;
        assert_eq!(run.status, 0, "{provider}: {}", run.stderr);
        assert_eq!(
            run.stdout, "ok\n",
            "{provider}: thinking must not be printed"
        );
        let body = mock.requests()[0].json().clone();
        let thinking_sent = match api {
            WireApi::AnthropicMessages => {
                body["thinking"]["type"] == "enabled"
                    && body["thinking"]["budget_tokens"].as_u64().unwrap_or(0) > 0
            }
            WireApi::OpenAiResponses => body["reasoning"]["effort"] == "high",
            WireApi::OpenAiCompletions => body["reasoning_effort"] == "high",
            WireApi::GoogleGenerativeAi => body["generationConfig"]["thinkingConfig"].is_object(),
        };
        assert!(thinking_sent, "{provider}: {body}");
        assert!(
            mock.requests()[0].body_text.contains(model) || mock.requests()[0].path.contains(model),
            "{provider}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn piped_stdin_becomes_the_first_prompt() {
    let mock = MockProvider::start(Script::new().turn(Turn::text("reviewed")))
        .await
        .unwrap();
    let arbor = Arbor::new();
    let mut args: Vec<String> = vec!["-p".into()];
    args.extend(endpoint_args(&mock, WireApi::AnthropicMessages));
    args.push("review this diff".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arbor
        .run_with_stdin(&args, "diff --git a/x b/x\n+added line\n")
        .await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "reviewed\n");
    let body = &mock.requests()[0].body_text;
    assert!(
        body.contains("+added line") && body.contains("review this diff"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_aborts_mid_stream_and_exits_130() {
    let long = "word ".repeat(400);
    let turn = Turn::stream().text(long).chunk_size(5).delay_ms(20);
    let mock = MockProvider::start(Script::new().turn(turn)).await.unwrap();
    let arbor = Arbor::new();
    let mut command = arbor.command();
    command
        .arg("-p")
        .args(endpoint_args(&mock, WireApi::OpenAiResponses))
        .arg("talk for a while");
    let child = command.spawn().unwrap();
    let pid = child.id().unwrap();
    // Wait until the request is in flight, then interrupt as a terminal's Ctrl+C would.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while mock.requests().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "arbor never sent its request"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
}
