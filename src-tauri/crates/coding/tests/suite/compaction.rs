//! Compaction, overflow recovery, mid-stream retries and branch summaries, end to end: a real
//! agent and store against the mock provider, asserting what was sent and what was stored.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbor_agent::{Agent, AgentMessage, AgentOptions, RunStatus};
use arbor_coding::compaction::navigate_with_summary;
use arbor_coding::{
    builtin_tools, sessions::message_text, BuiltinToolOptions, CodingEvent, CompactionError,
    CompactionReason, CompactionSettings, Compactor, SessionRecorder, SessionRequestHook,
    Workspace,
};
use arbor_llm::{Api, LlmClient, LlmError, Model, RequestOptions, RetryPolicy};
use arbor_store::{NodeKind, Store};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::json;
use tokio_util::sync::CancellationToken;

struct Setup {
    mock: MockProvider,
    agent: Agent,
    recorder: Option<SessionRecorder>,
    compactor: Arc<Compactor>,
    events: Arc<Mutex<Vec<CodingEvent>>>,
    dir: tempfile::TempDir,
}

impl Setup {
    async fn new(script: Script, context_window: u32, stored: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mock = MockProvider::start(script).await.unwrap();
        let model = Model {
            id: "mock-model".into(),
            provider: "mock".into(),
            api: Api::AnthropicMessages,
            base_url: mock.url_for(WireApi::AnthropicMessages),
            reasoning: false,
            images: false,
            context_window,
            max_output_tokens: 4_096,
            pricing: Default::default(),
            compat: Default::default(),
        };
        let client = LlmClient::new().unwrap().with_retry_policy(RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        });
        let workspace = Workspace::new(dir.path());
        let tools = builtin_tools(&workspace, &BuiltinToolOptions::default()).unwrap();
        let agent = Agent::new(
            client.clone(),
            AgentOptions::new(model)
                .system_prompt("You are a test agent.")
                .tools(tools)
                .request_options(RequestOptions {
                    api_key: Some("test-key".into()),
                    ..RequestOptions::default()
                }),
        );
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink_events = events.clone();
        let sink: arbor_coding::EventSink =
            Arc::new(move |e: &CodingEvent| sink_events.lock().unwrap().push(e.clone()));
        let recorder = stored.then(|| {
            let store = Store::open(&dir.path().join("data")).unwrap();
            let recorder = SessionRecorder::new(store, dir.path()).unwrap();
            recorder.attach(&agent, sink.clone());
            recorder
        });
        let compactor = Arc::new(Compactor::new(
            client,
            CompactionSettings::default(),
            recorder.clone(),
        ));
        compactor.set_sink(Some(sink));
        let retry = RetryPolicy {
            initial_delay: Duration::from_millis(20),
            ..RetryPolicy::default()
        };
        agent.set_request_hook(Some(Arc::new(SessionRequestHook::new(
            compactor.clone(),
            retry,
        ))));
        Self {
            mock,
            agent,
            recorder,
            compactor,
            events,
            dir,
        }
    }

    fn body(&self, index: usize) -> String {
        self.mock.requests()[index].body_text.clone()
    }

    fn texts(&self) -> Vec<String> {
        self.agent.messages().iter().map(message_text).collect()
    }

    fn compaction_events(&self) -> Vec<CodingEvent> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    CodingEvent::CompactionStart { .. }
                        | CodingEvent::CompactionEnd { .. }
                        | CodingEvent::RetryScheduled { .. }
                )
            })
            .cloned()
            .collect()
    }

    fn stored_kinds(&self) -> Vec<NodeKind> {
        let recorder = self.recorder.as_ref().unwrap();
        recorder
            .context_nodes()
            .unwrap()
            .iter()
            .map(|n| n.kind)
            .collect()
    }
}

fn overflow() -> Turn {
    Turn::http_error(
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": "prompt is too long: 250000 tokens > 200000 maximum"}}),
    )
    .into()
}

#[tokio::test]
async fn the_threshold_is_checked_inside_a_tool_loop() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "big.txt"})))
        .turn(Turn::text("SUMMARY-ONE of the early work"))
        .turn(Turn::text("done reading"));
    let s = Setup::new(script, 4_000, true).await;
    let line = "0123456789012345678901234567890123456789\n";
    std::fs::write(s.dir.path().join("big.txt"), line.repeat(200)).unwrap();
    let outcome = s
        .agent
        .prompt("please read the big file", Vec::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);

    // The second request was the summary, written from the early part of the conversation.
    assert!(
        s.body(1).contains("You summarize a coding agent"),
        "{}",
        s.body(1)
    );
    assert!(s.body(1).contains("please read the big file"));
    // The third request continued the tool loop on the summary and the kept call + result.
    let third = s.body(2);
    assert!(third.contains("SUMMARY-ONE"), "{third}");
    assert!(!third.contains("please read the big file"), "{third}");
    assert!(
        third.contains("0123456789"),
        "the tool result is kept verbatim"
    );

    let events = s.compaction_events();
    assert_eq!(
        events[0],
        CodingEvent::CompactionStart {
            reason: CompactionReason::Threshold
        }
    );
    let CodingEvent::CompactionEnd {
        reason,
        tokens_before,
        tokens_after,
        summary,
        node_id,
        error,
    } = &events[1]
    else {
        panic!("{events:?}")
    };
    assert_eq!(*reason, CompactionReason::Threshold);
    assert!(*tokens_before > 2_000, "{tokens_before}");
    assert!(tokens_after.unwrap() < *tokens_before);
    assert!(summary.as_deref().unwrap().contains("## Files read"));
    assert_eq!(*error, None);

    // Stored: the compaction node stands in for the prompt; nothing was deleted.
    assert_eq!(
        s.stored_kinds(),
        [
            NodeKind::Compaction,
            NodeKind::Assistant,
            NodeKind::ToolResult,
            NodeKind::Assistant
        ]
    );
    let recorder = s.recorder.as_ref().unwrap();
    let context = recorder.context_nodes().unwrap();
    assert_eq!(context[0].id, *node_id.as_ref().unwrap());
    assert_eq!(context[0].first_kept_id.as_ref(), Some(&context[1].id));
    let tree = stored_tree(recorder);
    assert_eq!(tree.nodes.len(), 5);
    assert!(s.texts()[0].contains("SUMMARY-ONE"));
}

#[tokio::test]
async fn a_context_overflow_compacts_once_and_retries() {
    let script = Script::new()
        .turn(Turn::text("first-answer"))
        .turn(overflow())
        .turn(Turn::text("SUMMARY-TWO"))
        .turn(Turn::text("second-answer"));
    let s = Setup::new(script, 200_000, true).await;
    s.agent.prompt("first-question", Vec::new()).await.unwrap();
    let outcome = s.agent.prompt("second-question", Vec::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert_eq!(s.mock.requests().len(), 4);
    let summary_request = s.body(2);
    assert!(
        summary_request.contains("first-question"),
        "{summary_request}"
    );
    assert!(!summary_request.contains("second-question"));
    let retried = s.body(3);
    assert!(
        retried.contains("SUMMARY-TWO") && retried.contains("second-question"),
        "{retried}"
    );
    assert!(!retried.contains("first-question"), "{retried}");
    assert!(s
        .compaction_events()
        .contains(&CodingEvent::CompactionStart {
            reason: CompactionReason::Overflow
        }));
    // The failed answer stays in the tree, a sibling of the compaction under the question.
    assert_eq!(
        s.stored_kinds(),
        [NodeKind::Compaction, NodeKind::User, NodeKind::Assistant]
    );
    let tree = stored_tree(s.recorder.as_ref().unwrap());
    let question = tree
        .nodes
        .iter()
        .find(|n| n.first_line == "second-question")
        .unwrap();
    let children: Vec<NodeKind> = tree
        .nodes
        .iter()
        .filter(|n| n.parent_id.as_ref() == Some(&question.id))
        .map(|n| n.kind)
        .collect();
    assert_eq!(children, [NodeKind::Assistant, NodeKind::Compaction]);
}

#[tokio::test]
async fn a_second_overflow_is_a_clear_error() {
    let script = Script::new()
        .turn(Turn::text("first-answer"))
        .turn(overflow())
        .turn(Turn::text("SUMMARY"))
        .turn(overflow());
    let s = Setup::new(script, 200_000, false).await;
    s.agent.prompt("first-question", Vec::new()).await.unwrap();
    let outcome = s.agent.prompt("second-question", Vec::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    let Some(LlmError::ContextOverflow { message }) = &outcome.error else {
        panic!("{:?}", outcome.error)
    };
    assert!(
        message.contains("still too long after compacting"),
        "{message}"
    );
    assert_eq!(s.mock.requests().len(), 4, "no third attempt");
}

#[tokio::test]
async fn an_answer_that_breaks_mid_stream_is_retried_and_kept_as_a_sibling() {
    let script = Script::new()
        .turn(
            Turn::text("a broken answer that stops half way")
                .chunk_size(4)
                .drop_after_chunks(3),
        )
        .turn(Turn::text("the whole answer"));
    let s = Setup::new(script, 200_000, true).await;
    let outcome = s.agent.prompt("question", Vec::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert_eq!(s.texts(), ["question", "the whole answer"]);
    let retries = s.compaction_events();
    assert!(
        matches!(&retries[..], [CodingEvent::RetryScheduled { attempt: 1, delay_ms: 20, error }]
            if matches!(error, LlmError::Network { .. })),
        "{retries:?}"
    );
    assert!(!s.body(1).contains("broken answer"));
    let tree = stored_tree(s.recorder.as_ref().unwrap());
    let question = &tree.nodes[0];
    let answers = tree
        .nodes
        .iter()
        .filter(|n| n.parent_id.as_ref() == Some(&question.id))
        .count();
    assert_eq!(answers, 2);
}

async fn manual_compactions_merge(stored: bool) {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})))
        .turn(Turn::text("answer-one"))
        .turn(Turn::text("SUMMARY-A"))
        .turn(Turn::stream().tool_call("write", json!({"path": "b.txt", "content": "x"})))
        .turn(Turn::text("answer-two"))
        .turn(Turn::text("SUMMARY-B"));
    let s = Setup::new(script, 200_000, stored).await;
    std::fs::write(s.dir.path().join("a.txt"), "alpha").unwrap();
    let cancel = CancellationToken::new();
    s.agent.prompt("question-one", Vec::new()).await.unwrap();
    let first = s
        .compactor
        .compact_agent(&s.agent, Some("the parser"), &cancel)
        .await
        .unwrap();
    assert!(s.body(2).ends_with_focus("Focus especially on: the parser"));
    assert!(
        first
            .summary
            .starts_with("SUMMARY-A\n\n## Files read\n- a.txt"),
        "{}",
        first.summary
    );
    assert_eq!(
        s.texts().len(),
        2,
        "summary + the last answer: {:?}",
        s.texts()
    );

    s.agent.prompt("question-two", Vec::new()).await.unwrap();
    // A restarted front end has a new compactor: the previous summary then comes from the store.
    let compactor = if stored {
        Arc::new(Compactor::new(
            LlmClient::new().unwrap(),
            CompactionSettings::default(),
            s.recorder.clone(),
        ))
    } else {
        s.compactor.clone()
    };
    let second = compactor
        .compact_agent(&s.agent, None, &cancel)
        .await
        .unwrap();
    let request = s.body(5);
    assert!(
        request.contains("<previous-summary>\\nSUMMARY-A\\n</previous-summary>"),
        "{request}"
    );
    assert!(request.contains("question-two") && !request.contains("question-one"));
    assert!(
        second
            .summary
            .ends_with("## Files read\n- a.txt\n\n## Files modified\n- b.txt"),
        "{}",
        second.summary
    );
    assert_eq!(second.node_id.is_some(), stored);
    if stored {
        assert_eq!(
            s.stored_kinds(),
            [NodeKind::Compaction, NodeKind::Assistant]
        );
    }
}

trait EndsWithFocus {
    fn ends_with_focus(&self, focus: &str) -> bool;
}

impl EndsWithFocus for String {
    /// The prompt is JSON-encoded in the request body: the focus ends the user message.
    fn ends_with_focus(&self, focus: &str) -> bool {
        self.contains(&format!("{focus}\""))
    }
}

#[tokio::test]
async fn manual_compactions_merge_the_previous_summary_in_memory() {
    manual_compactions_merge(false).await;
}

#[tokio::test]
async fn manual_compactions_merge_the_previous_summary_from_the_store() {
    manual_compactions_merge(true).await;
}

#[tokio::test]
async fn nothing_to_compact_is_an_error_that_says_so() {
    let s = Setup::new(Script::new().turn(Turn::text("hi")), 200_000, true).await;
    let cancel = CancellationToken::new();
    let error = s
        .compactor
        .compact_agent(&s.agent, None, &cancel)
        .await
        .unwrap_err();
    assert!(
        matches!(error, CompactionError::NothingToCompact { .. }),
        "{error}"
    );
    s.agent.prompt("only question", Vec::new()).await.unwrap();
    // One exchange: the question can still be summarised, keeping the answer.
    let s2 = Setup::new(Script::new(), 200_000, false).await;
    s2.agent
        .replace_messages(vec![AgentMessage::User(arbor_llm::UserMessage::text(
            "alone",
        ))])
        .unwrap();
    let error = s2
        .compactor
        .compact_agent(&s2.agent, None, &cancel)
        .await
        .unwrap_err();
    assert!(
        error.to_string().starts_with("nothing to compact"),
        "{error}"
    );
    let events = s2.compaction_events();
    assert!(
        matches!(
            &events[1],
            CodingEvent::CompactionEnd { error: Some(_), .. }
        ),
        "{events:?}"
    );
}

#[tokio::test]
async fn leaving_a_branch_can_carry_its_summary_along() {
    let script = Script::new()
        .turn(Turn::text("answer-one"))
        .turn(Turn::text("answer-two"))
        .turn(Turn::text("BRANCH-SUMMARY: tried approach two"))
        .turn(Turn::text("answer-two-b"));
    let s = Setup::new(script, 200_000, true).await;
    s.agent.prompt("question-one", Vec::new()).await.unwrap();
    s.agent.prompt("question-two", Vec::new()).await.unwrap();
    let recorder = s.recorder.as_ref().unwrap();
    let tree = stored_tree(recorder);
    let q2 = tree
        .nodes
        .iter()
        .find(|n| n.first_line == "question-two")
        .unwrap()
        .id
        .clone();
    let cancel = CancellationToken::new();
    let navigation = navigate_with_summary(&s.compactor, &s.agent, &q2, true, &cancel)
        .await
        .unwrap();
    assert_eq!(navigation.editor_text.as_deref(), Some("question-two"));
    let summary_request = s.body(2);
    assert!(summary_request.contains("question-two") && summary_request.contains("answer-two"));
    assert!(
        !summary_request.contains("question-one"),
        "only the branch left is summarised"
    );
    assert_eq!(
        s.stored_kinds(),
        [NodeKind::User, NodeKind::Assistant, NodeKind::BranchSummary]
    );
    s.agent
        .prompt("question-two edited", Vec::new())
        .await
        .unwrap();
    let request = s.body(3);
    assert!(request.contains("BRANCH-SUMMARY") && request.contains("question-two edited"));
    assert!(!request.contains("\"answer-two\""), "{request}");

    // Without `summarize` (or with nothing left behind) no node is added.
    let before = stored_tree(recorder).nodes.len();
    let first = tree.nodes[0].id.clone();
    navigate_with_summary(&s.compactor, &s.agent, &first, false, &cancel)
        .await
        .unwrap();
    assert_eq!(stored_tree(recorder).nodes.len(), before);
}

/// The stored tree of the recorder's current session.
fn stored_tree(recorder: &SessionRecorder) -> arbor_store::SessionTree {
    let id = recorder.session_id().unwrap();
    recorder
        .with_store(|store| store.session_tree(&id))
        .unwrap()
}
