//! Several writers on one database: threads with their own connections, and separate processes.

use crate::common;

use std::sync::{Arc, Barrier};

use arbor_store::{NodeKind, Store};
use common::msg;

/// The number of nodes on the path root → leaf of a session.
fn path_len(store: &Store, session: &str) -> usize {
    let leaf = store.get_session(session).unwrap().leaf_id.unwrap();
    store.path_to(session, &leaf).unwrap().len()
}

#[test]
fn two_connections_append_500_each_concurrently() {
    let (dir, store) = common::temp_store();
    let (p, shared) = common::session(&store, &dir);
    let own: Vec<_> = (0..2)
        .map(|_| store.create_session(&p.id, None, None).unwrap())
        .collect();
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|t| {
            let data_dir = dir.path().to_path_buf();
            let shared = shared.id.clone();
            let own = own[t].id.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let store = Store::open(&data_dir).unwrap();
                barrier.wait();
                for i in 0..500 {
                    let target = if i % 2 == 0 { &shared } else { &own };
                    store
                        .append(
                            target,
                            msg(NodeKind::User, &format!("thread {t} message {i}")),
                        )
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // Each append read the leaf inside its own write transaction, so the interleaved appends to
    // the shared session still form one unbroken chain.
    assert_eq!(path_len(&store, &shared.id), 500);
    assert_eq!(store.session_tree(&shared.id).unwrap().nodes.len(), 500);
    for s in &own {
        assert_eq!(path_len(&store, &s.id), 250);
    }
    assert!(store.check_integrity().unwrap().is_empty());
}

/// Child half of the two-process test: appends `count` nodes to a session, then exits.
#[test]
#[ignore = "child process of `two_processes_write_one_database`; started by it"]
fn writer_child() {
    let spec = common::child_argument("ARBOR_STORE_WRITER");
    let mut parts = spec.split('|');
    let (dir, session, count, tag) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap().parse::<usize>().unwrap(),
        parts.next().unwrap(),
    );
    let store = Store::open(std::path::Path::new(dir)).unwrap();
    for i in 0..count {
        store
            .append(session, msg(NodeKind::Assistant, &format!("{tag} {i}")))
            .unwrap();
    }
}

#[test]
fn two_processes_write_one_database() {
    let (dir, store) = common::temp_store();
    let (_p, s) = common::session(&store, &dir);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["procA", "procB"]
        .iter()
        .map(|tag| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "concurrency::writer_child",
                    "--ignored",
                    "--test-threads=1",
                ])
                .env(
                    "ARBOR_STORE_WRITER",
                    format!("{}|{}|300|{tag}", dir.path().display(), s.id),
                )
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a writer process failed");
    }
    assert_eq!(path_len(&store, &s.id), 600);
    let hits = |q: &str| {
        store
            .search(
                q,
                &arbor_store::SearchOptions {
                    limit: Some(1000),
                    ..Default::default()
                },
            )
            .unwrap()
            .len()
    };
    assert_eq!(hits("procA"), 300);
    assert_eq!(hits("procB"), 300);
    assert!(store.check_integrity().unwrap().is_empty());
}
