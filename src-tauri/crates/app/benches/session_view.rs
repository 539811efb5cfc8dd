//! What opening a long chat costs the Rust side of the desktop app: the `start_session`
//! command's work on a stored 2,000-message session — `ArborApp::open`, a `LiveSession` started
//! on the project's latest session (its context loaded into the agent), the branch view with
//! siblings, and its JSON for the window. Issue 9 §7 budgets 300 ms from click to chat shown;
//! this is the part before the webview renders. Run:
//! `cargo bench -p arbor-app --bench session_view` (prints the median after criterion's report).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use arbor_agent::AgentMessage;
use arbor_app::{ArborApp, ModelRequest, SessionConfig, SessionStart};
use arbor_coding::sessions::message_to_node;
use arbor_llm::{Api, AssistantContent, AssistantMessage, TextContent, ThinkingLevel, UserMessage};
use arbor_store::Store;
use criterion::Criterion;

const MESSAGES: usize = 2_000;

fn message(i: usize) -> AgentMessage {
    if i.is_multiple_of(2) {
        return AgentMessage::User(UserMessage::text(format!(
            "Question {i}: why does the parser reject input number {i}?"
        )));
    }
    let mut answer = AssistantMessage::empty(Api::OpenAiCompletions, "mock", "m1");
    answer.content = vec![AssistantContent::Text(TextContent::new(format!(
        "## Answer {i}\n\nThe parser rejects it because **the token stream** ends early. Here is \
         the fix:\n\n```rust\nfn parse(input: &str) -> Result<Ast, Error> {{\n    let tokens = \
         lex(input)?;\n    Parser::new(tokens).parse_all()\n}}\n```\n\n- check the lexer\n- add \
         a test\n"
    )))];
    AgentMessage::Assistant(answer)
}

fn fixture(data: &Path, project: &Path) {
    std::fs::write(
        data.join("models.json"),
        r#"{"providers":{"mock":{"api":"openai-completions","baseUrl":"http://127.0.0.1:9/v1","models":[{"id":"m1"}]}}}"#,
    )
    .unwrap();
    let store = Store::open(data).unwrap();
    let project = store.open_project(project, None).unwrap();
    let session = store.create_session(&project.id, None, None).unwrap();
    for i in 0..MESSAGES {
        let node = message_to_node(&message(i)).unwrap().unwrap();
        store.append(&session.id, node).unwrap();
    }
}

fn open_chat(data: &Path, project: &Path, runtime: &tokio::runtime::Runtime) -> usize {
    let _guard = runtime.enter();
    let app = ArborApp::open(Some(data)).unwrap();
    let selection = app
        .select(&ModelRequest {
            model: Some("mock/m1".into()),
            ..ModelRequest::default()
        })
        .unwrap();
    let config = SessionConfig {
        cwd: project.to_owned(),
        selection,
        thinking: ThinkingLevel::Off,
        tools: arbor_coding::DEFAULT_TOOLS
            .iter()
            .map(|t| (*t).to_owned())
            .collect(),
        system_prompt: None,
        append_system_prompt: None,
        tool_environment: app.tool_environment(&[]),
        stream_idle_timeout: arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT,
        permissions: None,
    };
    let session = app
        .start_session(config, Some(SessionStart::Latest))
        .unwrap();
    let view = session.view().unwrap();
    assert_eq!(view.entries.len(), MESSAGES);
    serde_json::to_string(&view).unwrap().len()
}

fn main() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    fixture(data.path(), project.path());
    let runtime = tokio::runtime::Runtime::new().unwrap();

    let mut criterion = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    criterion.bench_function(
        "open a 2,000-message chat (start_session + view + JSON)",
        |b| b.iter(|| black_box(open_chat(data.path(), project.path(), &runtime))),
    );
    criterion.final_summary();

    let mut times: Vec<Duration> = (0..15)
        .map(|_| {
            let started = Instant::now();
            black_box(open_chat(data.path(), project.path(), &runtime));
            started.elapsed()
        })
        .collect();
    times.sort();
    let bytes = open_chat(data.path(), project.path(), &runtime);
    println!(
        "open a {MESSAGES}-message chat: median {:.1} ms (15 runs), view JSON {:.0} KB; budget \
         300 ms click → shown, webview rendering not included",
        times[7].as_secs_f64() * 1000.0,
        bytes as f64 / 1024.0
    );
}
