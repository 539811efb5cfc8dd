//! Helpers shared by the store's integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use arbor_store::{
    ImportedNode, ImportedSession, NewNode, Node, NodeKind, Project, Session, Store,
};
use serde_json::json;
use tempfile::TempDir;

/// A store in a fresh temporary data folder (kept alive by the returned `TempDir`).
pub fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

/// A project rooted in a fresh folder inside `dir`.
pub fn project(store: &Store, dir: &TempDir, name: &str) -> Project {
    let root = dir.path().join(name);
    std::fs::create_dir_all(&root).unwrap();
    store.open_project(&root, None).unwrap()
}

/// A project plus a session in it.
pub fn session(store: &Store, dir: &TempDir) -> (Project, Session) {
    let p = project(store, dir, "proj");
    let s = store
        .create_session(&p.id, Some("test-model"), None)
        .unwrap();
    (p, s)
}

/// A message node whose content is `{"text": text}`.
pub fn msg(kind: NodeKind, text: &str) -> NewNode {
    NewNode::new(kind, json!({ "text": text }), text)
}

pub fn user(store: &Store, session: &str, text: &str) -> Node {
    store.append(session, msg(NodeKind::User, text)).unwrap()
}

pub fn assistant(store: &Store, session: &str, text: &str) -> Node {
    store
        .append(session, msg(NodeKind::Assistant, text))
        .unwrap()
}

/// The texts of a list of nodes, for compact assertions.
pub fn texts(nodes: &[Node]) -> Vec<String> {
    nodes.iter().map(|n| n.text.clone()).collect()
}

/// Labels of [`sample_import`]: every 100th node.
pub fn sample_labels(nodes: usize) -> usize {
    nodes.div_ceil(100)
}

/// A session to import with `nodes` nodes: mostly a chain, a sibling branch every 50th node, a
/// compaction every 97th (keeping from two nodes up its path), a label every 100th, contents
/// that refer to other nodes by source id, timestamps from 1,600,000,000,000 on. The leaf is
/// the last node.
pub fn sample_import(nodes: usize) -> ImportedSession {
    let filler = "lorem ipsum dolor sit amet ".repeat(16);
    let mut parents: Vec<Option<usize>> = Vec::with_capacity(nodes);
    let mut out = Vec::with_capacity(nodes);
    for i in 0..nodes {
        let parent = match i {
            0 => None,
            i if i % 50 == 0 && i >= 10 => Some(i - 10),
            i => Some(i - 1),
        };
        let created_at = 1_600_000_000_000 + i as i64 * 1000;
        let mut node = if i % 97 == 96 {
            // Two steps up from the parent (or the parent itself near a root).
            let p = parent.unwrap_or(0);
            let kept = parents[p].and_then(|q: usize| parents[q]).unwrap_or(p);
            let mut n = ImportedNode::new(
                NodeKind::Compaction,
                json!({"summary": format!("summary {i}"), "first_kept_id": format!("src-{kept}"),
                       "tokens_before": 1000}),
                format!("summary {i}"),
                created_at,
            );
            n.first_kept = Some(kept);
            n.tokens_before = Some(1000);
            n
        } else {
            let kind = if i % 2 == 0 {
                NodeKind::User
            } else {
                NodeKind::Assistant
            };
            let text = format!("message{i} {filler}");
            let mut n = ImportedNode::new(
                kind,
                json!({"text": text, "previous": parent.map(|p| format!("src-{p}"))}),
                text,
                created_at,
            );
            if kind == NodeKind::Assistant {
                n.usage = Some(json!({"input": i, "output": 1}));
            }
            n
        };
        node.parent = parent;
        node.source_id = Some(format!("src-{i}"));
        if i % 100 == 0 {
            node.label = Some(format!("label {i}"));
        }
        parents.push(parent);
        out.push(node);
    }
    ImportedSession {
        title: "Imported".into(),
        title_is_custom: true,
        model: Some("test-model".into()),
        thinking_level: Some("high".into()),
        created_at: 1_500_000_000_000,
        updated_at: 1_700_000_000_000,
        leaf: nodes.checked_sub(1),
        nodes: out,
    }
}

/// Rows in the tables an import writes: sessions, nodes, labels, full-text entries.
pub fn row_counts(store: &Store) -> [i64; 4] {
    let c = rusqlite::Connection::open(store.path()).unwrap();
    [
        "sessions",
        "nodes",
        "labels",
        // One row per node indexed for search (FTS5's document sizes) or waiting to be.
        "nodes_fts_docsize UNION ALL SELECT seq FROM nodes_fts_pending",
    ]
    .map(|t| {
        c.query_row(
            &format!("SELECT count(*) FROM (SELECT 1 FROM {t})"),
            [],
            |r| r.get(0),
        )
        .unwrap()
    })
}

/// A small xorshift generator for random kill moments; randomness quality does not matter.
pub struct Rng(u64);

impl Rng {
    pub fn seeded() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        Rng(nanos | 1)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// What the parent test passed to a child-process test in `variable`. Child tests are
/// `#[ignore]`d, so a normal run neither runs nor counts them; run on their own, they fail here.
pub fn child_argument(variable: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| {
        panic!("a child-process test: its parent test starts it with {variable} set")
    })
}

/// Re-runs this test binary as a child that runs only the ignored test `test` (its full name in
/// this binary, `module::name`), with `variable` set to `dir`.
pub fn spawn_child(test: &str, variable: &str, dir: &std::path::Path) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--ignored", "--test-threads=1"])
        .env(variable, dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}
