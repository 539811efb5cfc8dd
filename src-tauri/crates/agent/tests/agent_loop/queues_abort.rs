//! Steering, follow-ups and abort: what is delivered when, and the conversation left behind.

use std::time::Duration;

use arbor_agent::{
    AgentError, AgentEvent, RunOutcome, RunStatus, ToolExecution, ABORTED_WHILE_RUNNING,
    NOT_RUN_ABORTED, SKIPPED_FOR_STEERING,
};
use arbor_llm::{AssistantEvent, StopReason};
use arbor_test_support::{Script, Turn, WireApi};
use serde_json::json;
use tokio::task::JoinHandle;

use crate::common::{assert_every_call_answered, roles, text_of, tool_results, Harness};

/// Starts `prompt` on its own task.
fn spawn_prompt(h: &Harness, text: &str) -> JoinHandle<Result<RunOutcome, AgentError>> {
    let agent = h.agent.clone();
    let text = text.to_string();
    tokio::spawn(async move { agent.prompt(text, Vec::new()).await })
}

/// Reads events until one matches; returns every event read.
async fn wait_for(h: &mut Harness, wanted: impl Fn(&AgentEvent) -> bool) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    let deadline = tokio::time::sleep(Duration::from_secs(10));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            event = h.events.recv() => {
                let event = event.unwrap();
                let done = wanted(&event);
                seen.push(event);
                if done {
                    return seen;
                }
            }
            _ = &mut deadline => panic!("event never came; saw {:?}", seen.iter().map(AgentEvent::kind).collect::<Vec<_>>()),
        }
    }
}

fn is_tool_start(event: &AgentEvent, id: &str) -> bool {
    matches!(event, AgentEvent::ToolExecutionStart { tool_call_id, .. } if tool_call_id == id)
}

fn is_tool_end(event: &AgentEvent, id: &str) -> bool {
    matches!(event, AgentEvent::ToolExecutionEnd { tool_call_id, .. } if tool_call_id == id)
}

#[tokio::test]
async fn steering_skips_the_calls_not_yet_started_in_sequential_mode() {
    let script = Script::new()
        .turn(
            Turn::stream()
                .tool_call_with_id("c1", "sleep", json!({"ms": 200, "label": "first"}))
                .tool_call_with_id("c2", "sleep", json!({"ms": 10, "label": "second"}))
                .tool_call_with_id("c3", "echo", json!({"text": "third"})),
        )
        .turn(Turn::text("Changing plan."));
    let mut h = Harness::with_mode(
        WireApi::AnthropicMessages,
        script,
        ToolExecution::Sequential,
    )
    .await;
    let run = spawn_prompt(&h, "Do three things");
    wait_for(&mut h, |e| is_tool_start(e, "c1")).await;
    h.agent.steer("Stop, do something else");
    let outcome = run.await.unwrap().unwrap();

    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(
        roles(&outcome.messages),
        [
            "user",
            "assistant",
            "tool_result",
            "tool_result",
            "tool_result",
            "user",
            "assistant"
        ]
    );
    let results = tool_results(&outcome.messages);
    assert_eq!(text_of(&results[0]), "first slept 200 ms");
    assert!(!results[0].is_error);
    for skipped in &results[1..] {
        assert!(skipped.is_error);
        assert_eq!(text_of(skipped), SKIPPED_FOR_STEERING);
    }
    assert_eq!(h.log.entries(), ["start first", "done first"]);
    let second = h.request_body(1);
    assert!(second.contains("Stop, do something else"), "{second}");
    assert!(
        second.contains("Skipped: the user sent a new message"),
        "{second}"
    );
    assert_every_call_answered(&outcome.messages);
    // Skipped calls still get their start/end pair.
    let events = h.drain_events();
    assert!(events.iter().any(|e| is_tool_start(e, "c3")));
    assert!(events.iter().any(|e| is_tool_end(e, "c3")));
}

#[tokio::test]
async fn steering_in_parallel_mode_waits_for_every_running_call() {
    let script = Script::new()
        .turn(
            Turn::stream()
                .tool_call_with_id("c1", "sleep", json!({"ms": 400, "label": "one"}))
                .tool_call_with_id("c2", "sleep", json!({"ms": 400, "label": "two"})),
        )
        .turn(Turn::text("Noted."));
    let mut h = Harness::start(WireApi::OpenAiResponses, script).await;
    let run = spawn_prompt(&h, "Two naps");
    wait_for(&mut h, |e| is_tool_start(e, "c2")).await;
    h.agent.steer("Also tidy up");
    let outcome = run.await.unwrap().unwrap();

    let results = tool_results(&outcome.messages);
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    assert_eq!(
        roles(&outcome.messages),
        [
            "user",
            "assistant",
            "tool_result",
            "tool_result",
            "user",
            "assistant"
        ]
    );
    assert!(h.request_body(1).contains("Also tidy up"));
}

#[tokio::test]
async fn a_follow_up_waits_until_the_agent_would_stop() {
    let script = Script::new()
        .turn(Turn::stream().tool_call_with_id("c1", "sleep", json!({"ms": 300, "label": "work"})))
        .turn(Turn::text("Work done."))
        .turn(Turn::text("Tests pass."));
    let mut h = Harness::start(WireApi::GoogleGenerativeAi, script).await;
    let run = spawn_prompt(&h, "Do the work");
    wait_for(&mut h, |e| {
        matches!(e, AgentEvent::ToolExecutionStart { .. })
    })
    .await;
    h.agent.follow_up("Now run the tests");
    assert_eq!(h.agent.state().queued, (0, 1));
    let outcome = run.await.unwrap().unwrap();

    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(
        roles(&outcome.messages),
        [
            "user",
            "assistant",
            "tool_result",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(
        outcome.messages[5].as_assistant().unwrap().text(),
        "Tests pass."
    );
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 3);
    // Not delivered into the tool loop: the second request has no follow-up yet.
    assert!(!h.request_body(1).contains("Now run the tests"));
    assert!(h.request_body(2).contains("Now run the tests"));
    assert!(h.request_body(2).contains("Work done."));
    assert_eq!(h.agent.state().queued, (0, 0));
}

#[tokio::test]
async fn a_second_prompt_while_running_is_refused() {
    let script = Script::new().turn(Turn::text("slow answer").chunk_size(1).delay_ms(20));
    let mut h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let run = spawn_prompt(&h, "First");
    wait_for(&mut h, |e| matches!(e, AgentEvent::MessageUpdate { .. })).await;
    assert!(h.agent.is_streaming());
    assert_eq!(
        h.agent.prompt("Second", Vec::new()).await,
        Err(AgentError::Busy)
    );
    assert_eq!(h.agent.replace_messages(Vec::new()), Err(AgentError::Busy));
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    h.agent.wait_for_idle().await;
    assert!(!h.agent.is_streaming());
}

#[tokio::test]
async fn abort_mid_stream_keeps_the_partial_message_and_the_next_prompt_continues() {
    let script = Script::new().turn(
        Turn::stream()
            .text("I am writing a long answer that will be interrupted")
            .tool_call_with_id("c1", "echo", json!({"text": "never"}))
            .chunk_size(2)
            .delay_ms(30),
    );
    let mut h = Harness::start(WireApi::AnthropicMessages, script).await;
    let run = spawn_prompt(&h, "Write a lot");
    wait_for(&mut h, |e| {
        matches!(
            e,
            AgentEvent::MessageUpdate {
                delta: AssistantEvent::TextDelta { .. }
            }
        )
    })
    .await;
    h.agent.follow_up("queued follow-up");
    let dropped = h.agent.abort();
    assert_eq!(dropped.follow_ups.len(), 1);
    let outcome = run.await.unwrap().unwrap();

    assert_eq!(outcome.status, RunStatus::Aborted);
    assert_eq!(outcome.error, None);
    let assistant = outcome.messages[1].as_assistant().unwrap();
    assert_eq!(assistant.stop_reason, StopReason::Aborted);
    let partial = assistant.text();
    let full = "I am writing a long answer that will be interrupted";
    assert!(
        !partial.is_empty() && partial.len() < full.len() && full.starts_with(&partial),
        "{partial}"
    );
    assert_every_call_answered(&h.agent.messages());
    let events = h.drain_events();
    assert!(
        matches!(
            events.last(),
            Some(AgentEvent::AgentEnd {
                status: RunStatus::Aborted,
                ..
            })
        ),
        "{:?}",
        events.iter().map(AgentEvent::kind).collect::<Vec<_>>()
    );
    assert_eq!(h.agent.state().queued, (0, 0));

    h.mock.push_turn(Turn::text("Starting over."));
    let next = h.agent.prompt("Shorter, please", Vec::new()).await.unwrap();
    assert_eq!(next.status, RunStatus::Completed);
    let body = h.request_body(1);
    assert!(
        body.contains("Write a lot") && body.contains("Shorter, please"),
        "{body}"
    );
    // The aborted message is kept in the history but not sent back to the model.
    assert!(!body.contains("will be interrupted"), "{body}");
    assert!(!body.contains("queued follow-up"), "{body}");
    assert_every_call_answered(&h.agent.messages());
}

#[tokio::test]
async fn abort_mid_tool_cancels_running_tools_and_the_next_prompt_continues() {
    let script = Script::new().turn(
        Turn::stream()
            .tool_call_with_id("c1", "sleep", json!({"ms": 10_000, "label": "long"}))
            .tool_call_with_id("c2", "sleep", json!({"ms": 10, "label": "short"})),
    );
    let mut h = Harness::start(WireApi::OpenAiCompletions, script).await;
    let run = spawn_prompt(&h, "Nap");
    wait_for(&mut h, |e| is_tool_end(e, "c2")).await;
    h.agent.abort();
    // A guard against hanging on the 10 s tool, not a speed check.
    let outcome = tokio::time::timeout(Duration::from_secs(8), run)
        .await
        .expect("abort did not stop the sleeping tool")
        .unwrap()
        .unwrap();

    assert_eq!(outcome.status, RunStatus::Aborted);
    let results = tool_results(&outcome.messages);
    assert_eq!(text_of(&results[0]), ABORTED_WHILE_RUNNING);
    assert!(results[0].is_error);
    assert_eq!(text_of(&results[1]), "short slept 10 ms");
    assert!(h.log.entries().contains(&"cancelled long".to_string()));
    assert!(h.agent.state().pending_tool_calls.is_empty());
    assert_every_call_answered(&h.agent.messages());

    h.mock.push_turn(Turn::text("OK, stopped."));
    let next = h.agent.prompt("Never mind", Vec::new()).await.unwrap();
    assert_eq!(next.status, RunStatus::Completed);
    let body = h.request_body(1);
    assert!(
        body.contains("Aborted: the user cancelled") && body.contains("short slept"),
        "{body}"
    );
}

#[tokio::test]
async fn abort_drops_a_tool_that_ignores_cancellation_after_the_grace_period() {
    let script = Script::new().turn(
        Turn::stream()
            .tool_call_with_id("c1", "stubborn", json!({}))
            .tool_call_with_id("c2", "echo", json!({"text": "later"})),
    );
    let mut h =
        Harness::with_mode(WireApi::OpenAiResponses, script, ToolExecution::Sequential).await;
    let run = spawn_prompt(&h, "Go");
    wait_for(&mut h, |e| is_tool_start(e, "c1")).await;
    h.agent.abort();
    // The harness's grace period is 500 ms; the guard only catches a hang.
    let outcome = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("abort waited for a tool that ignores cancellation")
        .unwrap()
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Aborted);
    let results = tool_results(&outcome.messages);
    assert_eq!(text_of(&results[0]), ABORTED_WHILE_RUNNING);
    assert_eq!(text_of(&results[1]), NOT_RUN_ABORTED);
    assert!(h.log.entries().is_empty());
    assert_every_call_answered(&outcome.messages);
}
