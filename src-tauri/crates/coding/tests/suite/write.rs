use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::TestWorkspace;
use serde_json::json;

#[tokio::test]
async fn creates_parents_then_overwrites() {
    let ws = TestWorkspace::new();
    assert_eq!(
        ws.ok("write", json!({"path": "a/b/c.txt", "content": "héllo\n"}))
            .await,
        "Created a/b/c.txt (7 bytes)."
    );
    assert_eq!(ws.read_bytes("a/b/c.txt"), "héllo\n".as_bytes());
    assert_eq!(
        ws.ok("write", json!({"path": "a/b/c.txt", "content": "x"}))
            .await,
        "Overwrote a/b/c.txt (1 bytes)."
    );
    assert_eq!(ws.read_bytes("a/b/c.txt"), b"x");
    // No temp files left behind.
    let names: Vec<_> = std::fs::read_dir(ws.path("a/b"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("c.txt")]);
}

#[tokio::test]
async fn keeps_the_permissions_of_an_existing_file() {
    let ws = TestWorkspace::new();
    ws.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(ws.path("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    ws.ok(
        "write",
        json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
    )
    .await;
    let mode = std::fs::metadata(ws.path("run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o751);
}

#[tokio::test]
async fn new_files_get_ordinary_permissions() {
    let ws = TestWorkspace::new();
    ws.ok("write", json!({"path": "new.txt", "content": "x"}))
        .await;
    let mode = std::fs::metadata(ws.path("new.txt"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    // 0666 minus the umask: readable by others unless the umask says otherwise, never 0600-only
    // because of the temp file.
    assert_ne!(mode, 0o600);
    assert_eq!(mode & 0o600, 0o600);
}

#[tokio::test]
async fn writing_through_a_symlink_replaces_the_target() {
    let ws = TestWorkspace::new();
    ws.write("real.txt", "old");
    std::os::unix::fs::symlink(ws.path("real.txt"), ws.path("link.txt")).unwrap();
    ws.ok("write", json!({"path": "link.txt", "content": "new"}))
        .await;
    assert!(std::fs::symlink_metadata(ws.path("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(ws.read_bytes("real.txt"), b"new");
}

#[tokio::test]
async fn a_directory_is_not_a_file() {
    let ws = TestWorkspace::new();
    std::fs::create_dir(ws.path("d")).unwrap();
    assert_eq!(
        ws.err("write", json!({"path": "d", "content": "x"})).await,
        "d is a directory; give the path of a file."
    );
}
