//! Store benchmarks against the budgets in DESIGN.md §12, each with a JSONL-file peer (one
//! serde_json value per line, the format tree-session agents commonly use):
//!
//! - append one node (budget < 1 ms) vs appending a line to a JSONL file;
//! - open a 10,000-node session and build its context (budget < 50 ms) vs reading the same
//!   conversation from JSONL and walking leaf → root;
//! - list 1,000 sessions vs reading the first line and counting lines of 1,000 JSONL files.
//!
//! After criterion's report, the ratios store / JSONL are printed (medians of a separate run).
//! Run: `cargo bench -p arbor-store --bench store`.
//!
//! The store hands node contents out as validated but unparsed JSON text, while this JSONL peer
//! parses every line into a `Value`; what a user pays in the end (turning the context into
//! agent messages, on realistic messages with tool results) is measured against a JSONL peer
//! that parses the same messages by `cargo bench -p arbor-coding --bench session_context`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbor_store::{NewNode, NodeKind, Store};
use criterion::Criterion;
use serde_json::{json, Value};
use std::hint::black_box;

const CONTEXT_NODES: usize = 10_000;
const LIST_SESSIONS: usize = 1_000;
const NODES_PER_LISTED_SESSION: usize = 10;

/// A message shaped like a serialized LLM message (~700 bytes of JSON).
fn message(i: usize) -> (NodeKind, Value, String) {
    let text = format!(
        "Message {i}: I read src/parser.rs and the tokenizer splits on whitespace before \
         handling quotes, so a quoted string with spaces becomes several tokens. The fix is \
         to scan quotes first, then split the rest. I will edit the function `tokenize` and \
         add a test for nested quotes and escaped characters. {}",
        "More detail follows. ".repeat(10)
    );
    if i.is_multiple_of(2) {
        let content = json!({"role": "user", "content": [{"type": "text", "text": text}]});
        (NodeKind::User, content, text)
    } else {
        let content = json!({
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "model": "bench-model",
            "stop_reason": "stop",
        });
        (NodeKind::Assistant, content, text)
    }
}

fn new_node(i: usize) -> NewNode {
    let (kind, content, text) = message(i);
    let node = NewNode::new(kind, content, text);
    if kind == NodeKind::Assistant {
        node.with_usage(json!({"input": 1200, "output": 300, "cache_read": 0, "cache_write": 0}))
    } else {
        node
    }
}

/// A JSONL line for the peer: the same node as the store would hold it.
fn jsonl_line(i: usize, id: &str, parent: Option<&str>) -> String {
    let (kind, content, _) = message(i);
    let mut line = serde_json::to_string(&json!({
        "type": kind.as_str(), "id": id, "parent_id": parent, "timestamp": 1_700_000_000_000i64 + i as i64,
        "message": content,
    }))
    .unwrap();
    line.push('\n');
    line
}

struct Fixture {
    _dir: tempfile::TempDir,
    data: PathBuf,
    session: String,
    jsonl: PathBuf,
}

/// A store and a JSONL file each holding one 10,000-node conversation.
fn context_fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let store = Store::open(&data).unwrap();
    let project = store.open_project(dir.path(), None).unwrap();
    let session = store.create_session(&project.id, None, None).unwrap().id;
    let jsonl = dir.path().join("session.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&jsonl).unwrap());
    let mut parent: Option<String> = None;
    for i in 0..CONTEXT_NODES {
        let node = store.append(&session, new_node(i)).unwrap();
        file.write_all(jsonl_line(i, &node.id, parent.as_deref()).as_bytes())
            .unwrap();
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

/// The JSONL peer of "open a session and build its context": parse every line, index by id,
/// walk leaf → root, reverse.
fn jsonl_context(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut by_id: HashMap<String, Value> = HashMap::new();
    let mut last = None;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        last = Some(id.clone());
        by_id.insert(id, v);
    }
    let mut path = Vec::new();
    let mut cur = last;
    while let Some(id) = cur {
        let v = by_id.remove(&id).unwrap();
        cur = v["parent_id"].as_str().map(str::to_string);
        path.push(v);
    }
    path.reverse();
    path
}

struct ListFixture {
    _dir: tempfile::TempDir,
    data: PathBuf,
    jsonl_dir: PathBuf,
}

fn list_fixture() -> ListFixture {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let jsonl_dir = dir.path().join("sessions");
    std::fs::create_dir_all(&jsonl_dir).unwrap();
    let store = Store::open(&data).unwrap();
    let project = store.open_project(dir.path(), None).unwrap();
    for s in 0..LIST_SESSIONS {
        let session = store.create_session(&project.id, None, None).unwrap().id;
        let mut lines = format!("{{\"type\":\"session\",\"id\":\"{session}\",\"cwd\":\"/p\"}}\n");
        let mut parent: Option<String> = None;
        for i in 0..NODES_PER_LISTED_SESSION {
            let node = store.append(&session, new_node(i)).unwrap();
            lines.push_str(&jsonl_line(i, &node.id, parent.as_deref()));
            parent = Some(node.id);
        }
        std::fs::write(jsonl_dir.join(format!("{s:04}.jsonl")), lines).unwrap();
    }
    ListFixture {
        _dir: dir,
        data,
        jsonl_dir,
    }
}

/// The JSONL peer of listing: for every file, the header, the first user message (the
/// title) and the line count.
fn jsonl_list(dir: &Path) -> Vec<(Value, String, usize)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let file = std::fs::File::open(entry.unwrap().path()).unwrap();
        let mut lines = std::io::BufReader::new(file).lines();
        let header: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        let title = first["message"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        out.push((header, title, 2 + lines.count()));
    }
    out.sort_by_key(|e| std::cmp::Reverse(e.2));
    out
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();

    // Append.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).unwrap();
    let project = store.open_project(dir.path(), None).unwrap();
    let session = store.create_session(&project.id, None, None).unwrap().id;
    let node = new_node(1);
    c.bench_function("append_node", |b| {
        b.iter(|| store.append(&session, black_box(node.clone())).unwrap())
    });
    let jsonl_append_path = dir.path().join("append.jsonl");
    let line = jsonl_line(1, "0190-some-id", Some("0190-parent"));
    let jsonl_append = || {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&jsonl_append_path)
            .unwrap();
        f.write_all(line.as_bytes()).unwrap();
    };
    c.bench_function("append_jsonl_line", |b| b.iter(jsonl_append));

    // Open a 10,000-node session and build its context.
    let fx = context_fixture();
    c.bench_function("open_and_context_10k", |b| {
        b.iter(|| {
            let store = Store::open(&fx.data).unwrap();
            black_box(store.context(&fx.session).unwrap())
        })
    });
    let open_store = Store::open(&fx.data).unwrap();
    c.bench_function("context_10k_store_open", |b| {
        b.iter(|| black_box(open_store.context(&fx.session).unwrap()))
    });
    c.bench_function("tree_10k", |b| {
        b.iter(|| black_box(open_store.session_tree(&fx.session).unwrap()))
    });
    c.bench_function("jsonl_read_context_10k", |b| {
        b.iter(|| black_box(jsonl_context(&fx.jsonl)))
    });

    // List 1,000 sessions.
    let lx = list_fixture();
    let list_store = Store::open(&lx.data).unwrap();
    c.bench_function("list_1000_sessions", |b| {
        b.iter(|| black_box(list_store.list_sessions(None, None).unwrap()))
    });
    c.bench_function("jsonl_list_1000_sessions", |b| {
        b.iter(|| black_box(jsonl_list(&lx.jsonl_dir)))
    });
    c.final_summary();

    // Ratios (store time / JSONL time; below 1 means the store is faster).
    let runs = 30;
    let s_append = median(
        || {
            store.append(&session, node.clone()).unwrap();
        },
        200,
    );
    let j_append = median(jsonl_append, 200);
    let s_ctx = median(
        || {
            let store = Store::open(&fx.data).unwrap();
            black_box(store.context(&fx.session).unwrap());
        },
        runs,
    );
    let j_ctx = median(|| drop(black_box(jsonl_context(&fx.jsonl))), runs);
    let s_list = median(
        || drop(black_box(list_store.list_sessions(None, None).unwrap())),
        runs,
    );
    let j_list = median(|| drop(black_box(jsonl_list(&lx.jsonl_dir))), runs);
    println!("\nmedians (store vs JSONL peer; ratio = store / JSONL):");
    for (name, s, j) in [
        ("append one node", s_append, j_append),
        ("open + context, 10,000 nodes", s_ctx, j_ctx),
        ("list 1,000 sessions", s_list, j_list),
    ] {
        println!(
            "  {name:<30} store {:>10.3?}  jsonl {:>10.3?}  ratio {:.2}",
            s,
            j,
            s.as_secs_f64() / j.as_secs_f64()
        );
    }
}
