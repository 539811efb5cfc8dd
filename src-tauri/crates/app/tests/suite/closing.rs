//! What a session gives back when it goes: a `LiveSession` dropped after a run (without
//! `close`, as `arbor -p` and a desktop window replacing its session do) closes its
//! connections to the database. The agent's tools, hooks and subscriptions hold parts of the
//! session that hold the agent; before the session's `Drop` unhooked them, both of its
//! connections (the recorder's and the model tools') stayed open until the process ended.
//!
//! Counted once the app's own connection is closed too: SQLite keeps a closed connection's
//! file descriptor while another connection of the process still holds the file (so as not to
//! drop that one's POSIX locks), so only then does every descriptor go.

use std::path::{Path, PathBuf};

use arbor_protocol::RunStatus;
use arbor_test_support::{Script, Turn};
use serde_json::json;

use crate::live::{run, Setup};

/// How many of this process's open files are `database` (Linux: `/proc/self/fd`).
fn open_handles_of(database: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return 0;
    };
    entries
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|target: &PathBuf| target == database)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_session_closes_its_database_connections() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})))
        .turn(Turn::stream().text("It says hello."));
    let setup = Setup::new(script).await;
    std::fs::write(setup.project.path().join("a.txt"), "hello\n").unwrap();
    let database = setup
        .app
        .data_dir()
        .join("arbor.db")
        .canonicalize()
        .unwrap();
    let before = open_handles_of(&database);

    let session = setup.session("plain");
    assert_eq!(run(&session, "read a.txt").await, RunStatus::Completed);
    // The model tools' connection opens at its first use (a run in a project without tool
    // folders has none): the tools list is one.
    session.list_tools().unwrap();
    let during = open_handles_of(&database);
    assert!(
        during >= before + 2,
        "a stored session with its toolbox holds two connections: {before} open before, {during} during"
    );

    drop(session);
    drop(setup.app);
    assert_eq!(
        open_handles_of(&database),
        0,
        "nothing holds the database any more"
    );
}
