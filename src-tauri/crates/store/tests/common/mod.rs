//! Helpers shared by the store's integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use arbor_store::{NewNode, Node, NodeKind, Project, Session, Store};
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
