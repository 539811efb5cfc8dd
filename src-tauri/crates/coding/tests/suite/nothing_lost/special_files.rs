//! FIFOs, devices and sockets are refused by the tools that read content (`read`, `edit`,
//! `grep`, the `js` tool's `read`), from their metadata, without being opened: reading a FIFO
//! blocked forever, `/dev/zero` never ends. Each call runs under a timeout, and a call that
//! blocks ends the test process (a thread stuck in read(2) cannot be cancelled, and would keep
//! the test from ever finishing).

use crate::common;

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use arbor_coding::skills::WorkspaceHost;
use arbor_js::Host;
use common::TestWorkspace;
use serde_json::json;

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo failed");
}

/// `call`'s outcome, or the test process ends: a regression must fail, not hang.
async fn within_seconds<T>(what: &str, call: impl Future<Output = T>) -> T {
    match tokio::time::timeout(Duration::from_secs(10), call).await {
        Ok(outcome) => outcome,
        Err(_) => {
            eprintln!("{what} blocked for 10 s: a special file was opened");
            std::process::exit(101);
        }
    }
}

#[tokio::test]
async fn read_refuses_a_fifo_without_blocking() {
    let ws = TestWorkspace::new();
    mkfifo(&ws.path("pipe"));
    let error = within_seconds("read", ws.err("read", json!({"path": "pipe"}))).await;
    assert_eq!(
        error,
        "pipe is a named pipe (FIFO), not a regular file: reading it could block or never end, \
         so it was not opened. If you really mean to read from it, use bash with a bound, for \
         example `timeout 5 head -c 4096 pipe`."
    );
}

#[tokio::test]
async fn read_refuses_devices_behind_a_link_in_the_project() {
    let ws = TestWorkspace::new();
    std::os::unix::fs::symlink("/dev/zero", ws.path("zero")).unwrap();
    std::os::unix::fs::symlink("/dev/null", ws.path("empty")).unwrap();
    for name in ["zero", "empty"] {
        let error = within_seconds("read", ws.err("read", json!({"path": name}))).await;
        assert!(
            error.starts_with(&format!(
                "{name} is a character device, not a regular file: reading it could block or \
                 never end, so it was not opened."
            )),
            "{error}"
        );
    }
}

#[tokio::test]
async fn read_refuses_a_socket() {
    let ws = TestWorkspace::new();
    let _listener = std::os::unix::net::UnixListener::bind(ws.path("sock")).unwrap();
    let error = within_seconds("read", ws.err("read", json!({"path": "sock"}))).await;
    assert!(
        error.starts_with("sock is a socket, not a regular file"),
        "{error}"
    );
}

#[tokio::test]
async fn edit_refuses_a_fifo_and_a_device() {
    let ws = TestWorkspace::full();
    mkfifo(&ws.path("pipe"));
    std::os::unix::fs::symlink("/dev/zero", ws.path("zero")).unwrap();
    for (name, kind) in [
        ("pipe", "a named pipe (FIFO)"),
        ("zero", "a character device"),
    ] {
        let error = within_seconds(
            "edit",
            ws.err(
                "edit",
                json!({"path": name, "edits": [{"old_text": "a", "new_text": "b"}]}),
            ),
        )
        .await;
        assert!(
            error.starts_with(&format!("{name} is {kind}, not a regular file")),
            "{error}"
        );
    }
    // Still a FIFO: not replaced by a regular file either.
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(ws.path("pipe"))
        .unwrap()
        .file_type()
        .is_fifo());
}

#[tokio::test]
async fn grep_refuses_a_special_path_and_skips_special_files_in_folders() {
    let ws = TestWorkspace::new();
    mkfifo(&ws.path("pipe"));
    std::os::unix::fs::symlink("/dev/zero", ws.path("zero")).unwrap();
    ws.write("a.txt", "needle\n");
    for (name, kind) in [
        ("pipe", "a named pipe (FIFO)"),
        ("zero", "a character device"),
    ] {
        let error = within_seconds(
            "grep",
            ws.err("grep", json!({"pattern": "needle", "path": name})),
        )
        .await;
        assert!(
            error.starts_with(&format!("{name} is {kind}, not a regular file")),
            "{error}"
        );
    }
    let found = within_seconds("grep", ws.ok("grep", json!({"pattern": "needle"}))).await;
    assert_eq!(found, "a.txt:1: needle");
}

#[tokio::test]
async fn the_js_tools_read_refuses_a_fifo() {
    let ws = TestWorkspace::new();
    mkfifo(&ws.path("pipe"));
    let host = WorkspaceHost::new(ws.root()).unwrap();
    let read = tokio::task::spawn_blocking(move || host.read("pipe"));
    let error = within_seconds("the js read helper", read)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(
        error.0,
        "pipe is a named pipe (FIFO), not a regular file: reading it could block or never end"
    );
}
