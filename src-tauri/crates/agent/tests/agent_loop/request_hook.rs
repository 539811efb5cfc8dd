//! The request hook: reshaping the conversation before each request, recovering failures.

use std::sync::{Arc, Mutex};

use arbor_agent::{
    AgentEvent, AgentMessage, Recovery, RequestContext, RequestFailure, RequestHook, RunStatus,
};
use arbor_llm::{LlmError, UserMessage};
use arbor_test_support::{Script, Turn, WireApi};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::{roles, Harness};

/// Records what it was asked; replaces the conversation before the `replace_at`-th request and
/// retries failures while `retries` lasts.
#[derive(Default)]
struct TestHook {
    seen_before: Mutex<Vec<usize>>,
    failures: Mutex<Vec<(String, bool, usize)>>,
    replace_at: Option<usize>,
    retries: Mutex<u32>,
}

#[async_trait::async_trait]
impl RequestHook for TestHook {
    async fn before_request(
        &self,
        request: RequestContext<'_>,
        _cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>> {
        let mut seen = self.seen_before.lock().unwrap();
        seen.push(request.messages.len());
        (Some(seen.len()) == self.replace_at).then(|| {
            let mut messages = vec![AgentMessage::User(UserMessage::text("SUMMARY"))];
            messages.extend(request.messages.last().cloned());
            messages
        })
    }

    async fn after_failure(
        &self,
        failure: RequestFailure<'_>,
        _cancel: &CancellationToken,
    ) -> Recovery {
        self.failures.lock().unwrap().push((
            failure.error.class().to_string(),
            failure.body_started,
            failure.failures.len(),
        ));
        let mut retries = self.retries.lock().unwrap();
        if *retries == 0 {
            return Recovery::Fail(Some(LlmError::Provider {
                message: "gave up".into(),
            }));
        }
        *retries -= 1;
        // Drop the failed message, as a session would move its leaf back.
        let mut messages = failure.request.messages.to_vec();
        messages.pop();
        Recovery::Retry { messages }
    }
}

#[tokio::test]
async fn a_replaced_conversation_is_what_the_next_request_sends() {
    let h = Harness::start(
        WireApi::OpenAiCompletions,
        Script::new()
            .turn(Turn::stream().tool_call("echo", json!({"text": "one"})))
            .turn(Turn::text("done")),
    )
    .await;
    let hook = Arc::new(TestHook {
        replace_at: Some(2),
        ..TestHook::default()
    });
    h.agent.set_request_hook(Some(hook.clone()));
    h.agent.prompt("first question", Vec::new()).await.unwrap();
    // Asked before both requests: after the prompt, and inside the tool loop.
    assert_eq!(*hook.seen_before.lock().unwrap(), [1, 3]);
    let second = h.request_body(1);
    assert!(second.contains("SUMMARY"), "{second}");
    assert!(!second.contains("first question"), "{second}");
    assert_eq!(
        roles(&h.agent.messages()),
        ["user", "tool_result", "assistant"]
    );
}

#[tokio::test]
async fn a_stream_that_breaks_mid_way_is_retried_when_the_hook_says_so() {
    let mut h = Harness::start(
        WireApi::AnthropicMessages,
        Script::new()
            .turn(Turn::text("partial answer that breaks").drop_after_chunks(2))
            .turn(Turn::text("the full answer")),
    )
    .await;
    let hook = Arc::new(TestHook {
        retries: Mutex::new(1),
        ..TestHook::default()
    });
    h.agent.set_request_hook(Some(hook.clone()));
    let outcome = h.agent.prompt("hi", Vec::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    let failures = hook.failures.lock().unwrap().clone();
    assert_eq!(failures.len(), 1);
    assert!(failures[0].1, "the body had started: {failures:?}");
    assert_eq!(roles(&h.agent.messages()), ["user", "assistant"]);
    assert_eq!(
        h.agent.messages()[1].as_assistant().unwrap().text(),
        "the full answer"
    );
    // Both attempts were reported as turns; the retry's request did not carry the broken one.
    let turns = h
        .drain_events()
        .iter()
        .filter(|e| matches!(e, AgentEvent::TurnEnd { .. }))
        .count();
    assert_eq!(turns, 2);
    assert!(!h.request_body(1).contains("partial answer"));
}

#[tokio::test]
async fn a_failure_the_hook_gives_up_on_ends_the_run_with_its_error() {
    let h = Harness::start(
        WireApi::OpenAiResponses,
        Script::new()
            .turn(Turn::http_error(500, json!({"error": {"message": "boom"}})))
            .turn(Turn::http_error(
                500,
                json!({"error": {"message": "boom again"}}),
            )),
    )
    .await;
    let hook = Arc::new(TestHook {
        retries: Mutex::new(1),
        ..TestHook::default()
    });
    h.agent.set_request_hook(Some(hook.clone()));
    let outcome = h.agent.prompt("hi", Vec::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(
        outcome.error,
        Some(LlmError::Provider {
            message: "gave up".into()
        })
    );
    let failures = hook.failures.lock().unwrap().clone();
    // Rejected before any answer began, twice; the second call saw both failures.
    assert_eq!(
        failures.iter().map(|f| (f.1, f.2)).collect::<Vec<_>>(),
        [(false, 1), (false, 2)]
    );
}
