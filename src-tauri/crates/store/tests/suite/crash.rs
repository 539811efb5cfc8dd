//! Crash safety: a writer process is `kill -9`ed at random moments; the database must stay
//! consistent and usable every time.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use arbor_store::{NewNode, NodeKind, Store};
use common::{msg, spawn_child, Rng};
use rusqlite::Connection;

/// Child half: writes forever (appends, branches, labels, compactions, forks, deletes) until
/// killed. Every operation is one transaction, some of them many rows.
#[test]
#[ignore = "child process of `kill_9_at_random_moments_leaves_a_consistent_database`; started by it"]
fn crash_child() {
    let dir = common::child_argument("ARBOR_STORE_CRASH_CHILD");
    let store = Store::open(Path::new(&dir)).unwrap();
    let project = store.open_project(Path::new(&dir), None).unwrap();
    let mut rng = Rng::seeded();
    let filler = "lorem ipsum dolor sit amet ".repeat(40);
    let mut session = store.create_session(&project.id, None, None).unwrap().id;
    let mut nodes: Vec<String> = Vec::new();
    loop {
        let n = store
            .append(
                &session,
                msg(
                    if nodes.len().is_multiple_of(2) {
                        NodeKind::User
                    } else {
                        NodeKind::Assistant
                    },
                    &format!("message {} {filler}", nodes.len()),
                ),
            )
            .unwrap();
        nodes.push(n.id);
        match rng.below(100) {
            0..=9 => {
                let to = &nodes[rng.below(nodes.len() as u64) as usize];
                store.set_leaf(&session, Some(to)).unwrap();
            }
            10..=14 => {
                let to = &nodes[rng.below(nodes.len() as u64) as usize];
                store.set_label(&session, to, Some("checkpoint")).unwrap();
            }
            15..=17 => {
                let leaf = store.get_session(&session).unwrap().leaf_id.unwrap();
                store
                    .append(&session, NewNode::compaction("summary", &leaf, 1000))
                    .unwrap();
            }
            18 => {
                session = store.fork_session(&session, None).unwrap().id;
                nodes = store
                    .session_tree(&session)
                    .unwrap()
                    .nodes
                    .into_iter()
                    .map(|n| n.id)
                    .collect();
            }
            19 if nodes.len() > 20 => {
                let old = session.clone();
                session = store.create_session(&project.id, None, None).unwrap().id;
                nodes.clear();
                if rng.below(2) == 0 {
                    store.delete_session(&old).unwrap();
                }
            }
            _ => {}
        }
    }
}

fn max_seq(path: &Path) -> i64 {
    let c = Connection::open(path).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    c.query_row("SELECT coalesce(max(seq), 0) FROM nodes", [], |r| r.get(0))
        .unwrap_or(0)
}

fn assert_consistent(dir: &Path) {
    // Independent of the store's own checks: plain SQLite.
    let c = Connection::open(dir.join(arbor_store::DB_FILE_NAME)).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    let dangling: i64 = c
        .query_row(
            "SELECT count(*) FROM sessions s WHERE s.leaf_id IS NOT NULL AND NOT EXISTS
               (SELECT 1 FROM nodes n WHERE n.id = s.leaf_id AND n.session_id = s.id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(dangling, 0, "a session's leaf is missing");
    drop(c);

    let store = Store::open(dir).unwrap();
    assert_eq!(store.check_integrity().unwrap(), Vec::<String>::new());
    let sessions = store.list_sessions(None, None).unwrap();
    for s in &sessions {
        store.context(&s.session.id).unwrap();
        store.session_tree(&s.session.id).unwrap();
    }
    // Appending continues where the killed process stopped.
    if let Some(s) = sessions.first() {
        let before = store.get_session(&s.session.id).unwrap().leaf_id;
        let n = store
            .append(&s.session.id, msg(NodeKind::User, "after the crash"))
            .unwrap();
        assert_eq!(n.parent_id, before);
    }
}

#[test]
fn kill_9_at_random_moments_leaves_a_consistent_database() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let db = dir.path().join(arbor_store::DB_FILE_NAME);
    let mut rng = Rng::seeded();
    for round in 0..10 {
        let start = max_seq(&db);
        let mut child = spawn_child("crash::crash_child", "ARBOR_STORE_CRASH_CHILD", dir.path());
        // Wait until it is really writing, then kill it somewhere in its stream of writes.
        // (`max(seq)` can also go down when the writer deletes a session; any change is progress.)
        let deadline = Instant::now() + Duration::from_secs(20);
        while max_seq(&db) == start {
            assert!(
                Instant::now() < deadline,
                "round {round}: the writer never got going"
            );
            if let Some(status) = child.try_wait().unwrap() {
                panic!("round {round}: the writer exited by itself: {status}");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_micros(rng.below(60_000)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        assert_consistent(dir.path());
    }
}
