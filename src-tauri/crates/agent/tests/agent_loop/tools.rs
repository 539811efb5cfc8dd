//! Tool loop: multi-turn, parallel order, error results, coercion, hooks, events, stop reasons.

use std::sync::{Arc, Mutex};

use arbor_agent::{
    AgentEvent, AgentMessage, RunStatus, ToolCallDecision, ToolCallHook, NOT_RUN_LENGTH,
};
use arbor_llm::{LlmError, StopReason, TextContent, ToolCall, ToolResultMessage, UserContent};
use arbor_test_support::{StopReason as MockStop, Turn, WireApi};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::{
    assert_every_call_answered, event_kinds, roles, text_of, tool_results, Harness,
};

#[tokio::test]
async fn a_tool_call_result_goes_back_to_the_model_in_every_format() {
    for wire in WireApi::ALL {
        let script = arbor_test_support::Script::new()
            .turn(
                Turn::stream()
                    .text("Let me echo.")
                    .tool_call_with_id("call_echo_1", "echo", json!({"text": "hi there"}))
                    .chunk_size(3),
            )
            .turn(Turn::text("It said hi there."));
        let mut h = Harness::start(wire, script).await;
        let outcome = h.agent.prompt("Echo hi there", Vec::new()).await.unwrap();

        assert_eq!(outcome.status, RunStatus::Completed, "{wire}");
        assert_eq!(outcome.error, None);
        assert_eq!(
            roles(&outcome.messages),
            ["user", "assistant", "tool_result", "assistant"],
            "{wire}"
        );
        let results = tool_results(&outcome.messages);
        assert_eq!(text_of(&results[0]), "echo: hi there");
        assert!(!results[0].is_error);
        let call_id = outcome.messages[1]
            .as_assistant()
            .unwrap()
            .tool_calls()
            .next()
            .unwrap()
            .id
            .clone();
        assert_eq!(results[0].tool_call_id, call_id);
        assert_eq!(
            outcome.messages[3].as_assistant().unwrap().text(),
            "It said hi there."
        );

        let requests = h.mock.requests();
        assert_eq!(requests.len(), 2, "{wire}");
        let second = h.request_body(1);
        assert!(second.contains("echo: hi there"), "{wire}: {second}");
        if wire != WireApi::GoogleGenerativeAi {
            // Gemini has no call ids; the others must echo the model's id back.
            assert_eq!(call_id, "call_echo_1");
            assert!(second.contains("call_echo_1"), "{wire}: {second}");
        }
        assert_eq!(h.agent.messages(), outcome.messages);
        assert!(!h.agent.is_streaming());
        let events = h.drain_events();
        assert!(matches!(events.last(), Some(AgentEvent::AgentEnd { .. })));
    }
}

#[tokio::test]
async fn parallel_results_keep_the_model_order_when_the_second_finishes_first() {
    let script = arbor_test_support::Script::new()
        .turn(
            Turn::stream()
                .tool_call_with_id("call_slow", "sleep", json!({"ms": 300, "label": "slow"}))
                .tool_call_with_id("call_fast", "sleep", json!({"ms": 10, "label": "fast"})),
        )
        .turn(Turn::text("Both slept."));
    let mut h = Harness::start(WireApi::AnthropicMessages, script).await;
    let outcome = h.agent.prompt("Sleep twice", Vec::new()).await.unwrap();

    assert_eq!(outcome.status, RunStatus::Completed);
    let log = h.log.entries();
    let done_fast = log.iter().position(|e| e == "done fast").unwrap();
    let done_slow = log.iter().position(|e| e == "done slow").unwrap();
    let both_started = log.iter().position(|e| e == "start fast").unwrap() < done_slow;
    assert!(done_fast < done_slow && both_started, "{log:?}");

    let results = tool_results(&outcome.messages);
    let ids: Vec<&str> = results.iter().map(|r| r.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["call_slow", "call_fast"]);
    assert_eq!(results[0].details, Some(json!({"ms": 300})));

    // Ends are reported live (fast first); the results in the model's order.
    let events = h.drain_events();
    let ends: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => Some(tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ends, ["call_fast", "call_slow"]);
    let second = h.request_body(1);
    let slow_at = second.find("slow slept 300 ms").unwrap();
    let fast_at = second.find("fast slept 10 ms").unwrap();
    assert!(slow_at < fast_at, "{second}");
}

#[tokio::test]
async fn unknown_tools_invalid_arguments_and_failing_tools_become_error_results() {
    let script = arbor_test_support::Script::new()
        .turn(
            Turn::stream()
                .tool_call_with_id("c1", "nope", json!({}))
                .tool_call_with_id("c2", "add", json!({"a": "x"}))
                .tool_call_raw("echo", "{\"txt\": 1}")
                .tool_call_with_id("c4", "fail", json!({}))
                .tool_call_with_id("c5", "panic", json!({})),
        )
        .turn(Turn::text("I will do better."));
    let mut h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let outcome = h.agent.prompt("Try things", Vec::new()).await.unwrap();

    assert_eq!(outcome.status, RunStatus::Completed);
    let results = tool_results(&outcome.messages);
    assert_eq!(results.len(), 5);
    assert!(results.iter().all(|r| r.is_error), "{results:?}");
    let texts: Vec<String> = results.iter().map(text_of).collect();
    assert!(
        texts[0].starts_with("Unknown tool \"nope\". Available tools: echo, add,"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("Invalid arguments for tool \"add\""),
        "{}",
        texts[1]
    );
    assert!(texts[1].contains("at /a"), "{}", texts[1]);
    assert!(
        texts[1].contains("\"b\" is a required property"),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].contains("\"text\" is a required property"),
        "{}",
        texts[2]
    );
    assert_eq!(texts[3], "disk on fire");
    assert_eq!(results[3].details, Some(json!({"code": 7})));
    assert!(texts[4].contains("crashed: tool bug"), "{}", texts[4]);

    let second = h.request_body(1);
    for needle in [
        "Unknown tool",
        "Invalid arguments",
        "disk on fire",
        "crashed",
    ] {
        assert!(second.contains(needle), "{needle}: {second}");
    }
    assert_every_call_answered(&outcome.messages);
    let events = h.drain_events();
    let errors = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolExecutionEnd { is_error: true, .. }))
        .count();
    assert_eq!(errors, 5);
}

/// A stream that ends normally with a tool call's arguments cut off mid-string: the call is
/// never run with "completed" arguments (a `write` once replaced a 1,000-line file with 16
/// bytes); it gets the not-run result the model reads, as after `finish_reason: length`.
#[tokio::test]
async fn a_cut_off_tool_call_is_not_run() {
    let script = arbor_test_support::Script::new()
        .turn(Turn::stream().tool_call_raw("echo", "{\"text\": \"only the begin"))
        .turn(Turn::text("Sorry."));
    let h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let outcome = h.agent.prompt("Echo a lot", Vec::new()).await.unwrap();
    let results = tool_results(&outcome.messages);
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error);
    // The not-run text, not the echo of a completed `{"text": "only the begin"}`.
    assert_eq!(text_of(&results[0]), arbor_agent::NOT_RUN_LENGTH);
    // The run stops there: the model is not asked again with a half-made call.
    assert_eq!(h.mock.requests().len(), 1);
    assert_every_call_answered(&outcome.messages);
}

#[tokio::test]
async fn arguments_are_coerced_to_the_schema() {
    let script = arbor_test_support::Script::new()
        .turn(
            Turn::stream()
                .tool_call_with_id("c1", "add", json!({"a": "5", "b": 7.0, "verbose": "true"}))
                .tool_call_with_id("c2", "configure", json!({"options": "{\"depth\": \"2\"}"})),
        )
        .turn(Turn::text("12"));
    let mut h = Harness::start(WireApi::OpenAiResponses, script).await;
    let outcome = h.agent.prompt("Add", Vec::new()).await.unwrap();

    let results = tool_results(&outcome.messages);
    assert_eq!(text_of(&results[0]), "5 + 7 = 12");
    assert_eq!(text_of(&results[1]), r#"{"options":{"depth":2}}"#);
    assert_eq!(h.log.entries(), [r#"add {"a":5,"b":7,"verbose":true}"#]);
    // The start event shows what the model sent, before coercion.
    let events = h.drain_events();
    let args = events.iter().find_map(|e| match e {
        AgentEvent::ToolExecutionStart {
            tool_name, args, ..
        } if tool_name == "add" => Some(args),
        _ => None,
    });
    assert_eq!(args.unwrap()["a"], "5");
}

struct Gatekeeper {
    seen: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl ToolCallHook for Gatekeeper {
    async fn before_tool_call(&self, call: &ToolCall, _: &CancellationToken) -> ToolCallDecision {
        self.seen.lock().unwrap().push(format!(
            "{} {}",
            call.name,
            serde_json::Value::Object(call.arguments.clone())
        ));
        if call.name == "add" {
            ToolCallDecision::Block {
                reason: "arithmetic needs approval".into(),
            }
        } else {
            ToolCallDecision::Allow
        }
    }

    async fn after_tool_call(&self, _: &ToolCall, result: ToolResultMessage) -> ToolResultMessage {
        let shouted = text_of(&result).to_uppercase();
        ToolResultMessage {
            content: vec![UserContent::Text(TextContent::new(shouted))],
            ..result
        }
    }
}

#[tokio::test]
async fn hooks_can_block_a_call_and_rewrite_a_result() {
    let script = arbor_test_support::Script::new()
        .turn(
            Turn::stream()
                .tool_call("add", json!({"a": "1", "b": 2}))
                .tool_call("echo", json!({"text": "quiet"})),
        )
        .turn(Turn::text("ok"));
    let h = Harness::start(WireApi::GoogleGenerativeAi, script).await;
    let hook = Arc::new(Gatekeeper {
        seen: Mutex::new(Vec::new()),
    });
    h.agent.add_tool_hook(hook.clone());
    let outcome = h.agent.prompt("Go", Vec::new()).await.unwrap();

    let results = tool_results(&outcome.messages);
    assert!(results[0].is_error);
    assert_eq!(text_of(&results[0]), "Blocked: arithmetic needs approval");
    assert!(!results[1].is_error);
    assert_eq!(text_of(&results[1]), "ECHO: QUIET");
    // The hook saw the coerced arguments; the blocked tool never ran.
    let mut seen = hook.seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(seen, [r#"add {"a":1,"b":2}"#, r#"echo {"text":"quiet"}"#]);
    assert!(h.log.entries().is_empty());
    assert!(h.request_body(1).contains("ECHO: QUIET"));
}

#[tokio::test]
async fn the_event_sequence_of_a_small_run() {
    let script = arbor_test_support::Script::new()
        .turn(
            Turn::stream()
                .text("Sleeping.")
                .tool_call("sleep", json!({"ms": 5, "label": "nap"})),
        )
        .turn(Turn::text("Rested."));
    let mut h = Harness::start(WireApi::AnthropicMessages, script).await;
    h.agent.prompt("Take a nap", Vec::new()).await.unwrap();
    let events = h.drain_events();
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        assert_eq!(value["type"], event.kind());
    }
    insta::assert_json_snapshot!("small_run_event_types", event_kinds(&events));
}

#[tokio::test]
async fn a_length_stop_ends_the_turn_cleanly_without_running_cut_calls() {
    let script = arbor_test_support::Script::new().turn(
        Turn::stream()
            .text("Writing a long")
            .tool_call("echo", json!({"text": "cut"}))
            .stop(MockStop::Length),
    );
    let h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let outcome = h.agent.prompt("Go", Vec::new()).await.unwrap();

    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(outcome.error, None);
    let assistant = outcome.messages[1].as_assistant().unwrap();
    assert_eq!(assistant.stop_reason, StopReason::Length);
    let results = tool_results(&outcome.messages);
    assert_eq!(text_of(&results[0]), NOT_RUN_LENGTH);
    assert_eq!(h.mock.requests().len(), 1);
    assert_every_call_answered(&outcome.messages);
}

#[tokio::test]
async fn a_provider_error_ends_the_run_and_is_exposed_then_continue_retries() {
    let script = arbor_test_support::Script::new().turn(Turn::http_error(
        400,
        json!({"error": {"message": "bad model", "type": "invalid_request_error"}}),
    ));
    let mut h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let outcome = h.agent.prompt("Hi", Vec::new()).await.unwrap();

    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(
        matches!(outcome.error, Some(LlmError::InvalidRequest { .. })),
        "{:?}",
        outcome.error
    );
    assert_eq!(h.agent.state().error, outcome.error);
    let events = h.drain_events();
    match events.last().unwrap() {
        AgentEvent::AgentEnd { status, error, .. } => {
            assert_eq!(*status, RunStatus::Failed);
            assert_eq!(*error, outcome.error);
        }
        other => panic!("last event {other:?}"),
    }

    h.mock.push_turn(Turn::text("Hello!"));
    let retry = h.agent.continue_run().await.unwrap();
    assert_eq!(retry.status, RunStatus::Completed);
    assert_eq!(h.agent.state().error, None);
    let messages: Vec<AgentMessage> = h.agent.messages();
    assert_eq!(roles(&messages), ["user", "assistant", "assistant"]);
    assert_eq!(messages[2].as_assistant().unwrap().text(), "Hello!");
    // Nothing left to continue after a complete answer.
    assert!(h.agent.continue_run().await.is_err());
}

#[tokio::test]
async fn a_mid_stream_error_fails_the_run_and_leaves_every_call_answered() {
    let script = arbor_test_support::Script::new().turn(
        Turn::stream()
            .text("Reading")
            .tool_call_with_id("c1", "echo", json!({"text": "a long argument to cut"}))
            .chunk_size(4)
            .error_after_chunks(8),
    );
    let h = Harness::start(WireApi::AnthropicMessages, script).await;
    let outcome = h.agent.prompt("Go", Vec::new()).await.unwrap();

    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(
        matches!(outcome.error, Some(LlmError::Overloaded { .. })),
        "{:?}",
        outcome.error
    );
    let assistant = outcome.messages[1].as_assistant().unwrap();
    assert_eq!(assistant.stop_reason, StopReason::Error);
    for result in tool_results(&outcome.messages) {
        assert_eq!(text_of(&result), arbor_agent::NOT_RUN_FAILED);
    }
    assert_every_call_answered(&outcome.messages);
    assert!(h.log.entries().is_empty());
}
