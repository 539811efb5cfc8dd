//! What resuming a long session costs the user: `Store::open` + `Store::context_json` +
//! [`context_json_messages`] on a 10,000-node conversation (budget < 50 ms, DESIGN.md §12), against
//! its JSONL-file peer in the same process: reading the same conversation from a JSONL file (one
//! `{"type","id","parent_id","timestamp","message"}` object per line, the format tree-session
//! agents commonly use), walking leaf → root and parsing the same [`AgentMessage`]s.
//!
//! The conversation is realistic: user prompts, assistant messages with thinking, text and tool
//! calls, tool results of 1–4 KB, and a final answer per turn. Both sides must produce equal
//! messages (checked before measuring). After criterion's report, medians of a separate run and
//! the ratio store / JSONL are printed. Run: `cargo bench -p arbor-coding --bench session_context`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbor_agent::AgentMessage;
use arbor_coding::sessions::{context_json_messages, context_messages, message_to_node};
use arbor_llm::{
    Api, AssistantContent, AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall,
    ToolResultMessage, Usage, UserContent, UserMessage,
};
use arbor_store::Store;
use criterion::Criterion;
use serde::{Deserialize, Serialize};
use serde_json::json;

const NODES: usize = 10_000;

/// Source-like lines for tool output, `bytes` long (about).
fn file_body(seed: usize, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 80);
    let mut line = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            "{:>4}  let value_{seed}_{line} = compute(\"input\", {line}).map_err(Error::from)?;\n",
            line + 1
        ));
        line += 1;
    }
    s
}

fn assistant(content: Vec<AssistantContent>, stop: StopReason, i: usize) -> AgentMessage {
    let mut m = AssistantMessage::empty(Api::AnthropicMessages, "anthropic", "claude-bench");
    m.content = content;
    m.stop_reason = stop;
    m.response_id = Some(format!("msg_{i:08}"));
    m.usage = Usage {
        input: 1_200 + i as u64,
        output: 300,
        cache_read: 25_000,
        cache_write: 800,
        ..Usage::default()
    };
    AgentMessage::Assistant(m)
}

/// Message `i` of a conversation whose turns go: prompt → (thinking, text, tool call) → tool
/// result → (text, tool call) → tool result → final answer.
fn message(i: usize) -> AgentMessage {
    let turn = i / 6;
    let call = |n: usize| format!("toolu_{turn:06}_{n}");
    match i % 6 {
        0 => AgentMessage::User(UserMessage::text(format!(
            "Turn {turn}: the parser in src/parser.rs splits quoted strings with spaces into \
             several tokens. Please find where this happens, fix it and add a test for nested \
             and escaped quotes. Keep the public API unchanged."
        ))),
        1 => assistant(
            vec![
                AssistantContent::Thinking(ThinkingContent {
                    thinking: "The tokenizer probably splits on whitespace before it looks at \
                               quotes. I should read the file first."
                        .into(),
                    signature: Some("EqQBCkgIBRABGAIiQL".repeat(8)),
                    redacted: false,
                }),
                AssistantContent::Text(TextContent::new("Let me read the parser first.")),
                AssistantContent::ToolCall(ToolCall {
                    id: call(1),
                    name: "read".into(),
                    arguments: serde_json::from_value(
                        json!({"path": format!("src/parser_{turn}.rs"), "offset": 1, "limit": 400}),
                    )
                    .unwrap(),
                    thought_signature: None,
                    item_id: None,
                }),
            ],
            StopReason::ToolUse,
            i,
        ),
        2 | 4 => AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: call(i % 6 / 2),
            tool_name: if i % 6 == 2 { "read" } else { "edit" }.into(),
            content: vec![UserContent::Text(TextContent::new(file_body(
                i,
                1_000 + (i * 7919) % 3_000,
            )))],
            is_error: false,
            details: Some(json!({"path": format!("src/parser_{turn}.rs"), "lines": 40})),
        }),
        3 => assistant(
            vec![
                AssistantContent::Text(TextContent::new(
                    "The split happens in `tokenize` before quotes are handled. I will scan \
                     quoted strings first and split the rest.",
                )),
                AssistantContent::ToolCall(ToolCall {
                    id: call(2),
                    name: "edit".into(),
                    arguments: serde_json::from_value(json!({
                        "path": format!("src/parser_{turn}.rs"),
                        "edits": [{"old_text": "let parts = input.split_whitespace();",
                                   "new_text": "let parts = split_outside_quotes(input);"}]
                    }))
                    .unwrap(),
                    thought_signature: None,
                    item_id: None,
                }),
            ],
            StopReason::ToolUse,
            i,
        ),
        _ => assistant(
            vec![AssistantContent::Text(TextContent::new(format!(
                "Done: `tokenize` now keeps quoted strings together (turn {turn}). {}",
                "I added tests for nested quotes, escaped quotes and empty strings. ".repeat(4)
            )))],
            StopReason::Stop,
            i,
        ),
    }
}

/// One line of the JSONL peer.
#[derive(Serialize, Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    id: String,
    parent_id: Option<String>,
    timestamp: i64,
    message: AgentMessage,
}

struct Fixture {
    _dir: tempfile::TempDir,
    data: PathBuf,
    session: String,
    jsonl: PathBuf,
}

/// A store and a JSONL file each holding the same 10,000-message conversation.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let store = Store::open(&data).unwrap();
    let project = store.open_project(dir.path(), None).unwrap();
    let session = store
        .create_session(&project.id, Some("anthropic/claude-bench"), None)
        .unwrap()
        .id;
    let jsonl = dir.path().join("session.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&jsonl).unwrap());
    let mut parent: Option<String> = None;
    for i in 0..NODES {
        let m = message(i);
        let node = store
            .append(&session, message_to_node(&m).unwrap().unwrap())
            .unwrap();
        let line = Line {
            kind: "message".into(),
            id: node.id.clone(),
            parent_id: parent.take(),
            timestamp: node.created_at,
            message: m,
        };
        serde_json::to_writer(&mut file, &line).unwrap();
        file.write_all(b"\n").unwrap();
        parent = Some(node.id);
    }
    file.flush().unwrap();
    Fixture {
        _dir: dir,
        data,
        session,
        jsonl,
    }
}

/// What the user pays with the store: open the database, build the context, convert it (as
/// `SessionRecorder::context` does).
fn store_messages(data: &Path, session: &str) -> Vec<AgentMessage> {
    let store = Store::open(data).unwrap();
    let nodes = store.context_json(session).unwrap();
    context_json_messages(&nodes).unwrap()
}

/// The JSONL peer: read the file, parse every line into its message, index by id, walk
/// leaf → root (the last line is the leaf), reverse.
fn jsonl_messages(path: &Path) -> Vec<AgentMessage> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut by_id: HashMap<String, (Option<String>, AgentMessage)> = HashMap::new();
    let mut last = None;
    for line in text.lines() {
        let l: Line = serde_json::from_str(line).unwrap();
        last = Some(l.id.clone());
        by_id.insert(l.id, (l.parent_id, l.message));
    }
    let mut path = Vec::new();
    let mut cur = last;
    while let Some(id) = cur {
        let (parent, message) = by_id.remove(&id).unwrap();
        path.push(message);
        cur = parent;
    }
    path.reverse();
    path
}

/// Median time of `f` over `runs` runs (after one warm-up); the result is dropped outside the
/// timing, since a user keeps the messages.
fn median<T>(mut f: impl FnMut() -> T, runs: usize) -> Duration {
    drop(f());
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let out = black_box(f());
            let elapsed = t.elapsed();
            drop(out);
            elapsed
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(50)
        .configure_from_args();

    let fx = fixture();
    let from_store = store_messages(&fx.data, &fx.session);
    assert_eq!(from_store.len(), NODES);
    let checked = Store::open(&fx.data).unwrap().context(&fx.session).unwrap();
    assert!(
        context_messages(&checked).unwrap() == from_store,
        "the checked and the unchecked context must give the same messages"
    );
    assert!(
        from_store == jsonl_messages(&fx.jsonl),
        "the store and the JSONL peer must give the same messages"
    );
    let db_bytes = std::fs::metadata(fx.data.join(arbor_store::DB_FILE_NAME))
        .map(|m| m.len())
        .unwrap_or(0);
    let jsonl_bytes = std::fs::metadata(&fx.jsonl).map(|m| m.len()).unwrap_or(0);
    drop(from_store);

    // The messages are kept by the agent: dropping them is not timed (`iter_with_large_drop`).
    c.bench_function("open_context_messages_10k", |b| {
        b.iter_with_large_drop(|| store_messages(&fx.data, &fx.session))
    });
    c.bench_function("open_context_10k", |b| {
        b.iter_with_large_drop(|| {
            let store = Store::open(&fx.data).unwrap();
            store.context(&fx.session).unwrap()
        })
    });
    c.bench_function("jsonl_read_messages_10k", |b| {
        b.iter_with_large_drop(|| jsonl_messages(&fx.jsonl))
    });
    c.final_summary();

    let runs = 30;
    let open_context = median(
        || {
            let store = Store::open(&fx.data).unwrap();
            store.context(&fx.session).unwrap()
        },
        runs,
    );
    let store = median(|| store_messages(&fx.data, &fx.session), runs);
    let jsonl = median(|| jsonl_messages(&fx.jsonl), runs);
    println!(
        "\n{NODES} messages (database {:.1} MB, JSONL {:.1} MB); medians of {runs} runs:",
        db_bytes as f64 / 1e6,
        jsonl_bytes as f64 / 1e6
    );
    println!("  store open + context                 {open_context:>10.3?}");
    println!("  store open + context + messages      {store:>10.3?}  (budget 50 ms)");
    println!("  JSONL read + parse + walk (messages) {jsonl:>10.3?}");
    println!(
        "  ratio store / JSONL                  {:>10.2}",
        store.as_secs_f64() / jsonl.as_secs_f64()
    );
}
