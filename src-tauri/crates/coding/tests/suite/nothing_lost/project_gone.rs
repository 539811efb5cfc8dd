//! A project folder deleted (or moved) while its session is open: the writing tools refuse and
//! say so, and never recreate it (`write` used to bring it back, empty, through its
//! `mkdir -p`). The read-only tools say the same instead of "not found".

use crate::common;

use arbor_coding::skills::WorkspaceHost;
use arbor_js::Host;
use common::TestWorkspace;
use serde_json::json;

fn gone_message(root: &std::path::Path) -> String {
    format!(
        "The project folder {} no longer exists (deleted or moved). Arbor will not recreate it: \
         restore the folder or open another project.",
        root.display()
    )
}

#[tokio::test]
async fn write_refuses_and_does_not_recreate_the_folder() {
    let ws = TestWorkspace::new();
    ws.write("src/main.rs", "fn main() {}\n");
    std::fs::remove_dir_all(ws.root()).unwrap();
    for path in ["notes.txt", "src/main.rs", "new/deep/file.txt"] {
        let error = ws.err("write", json!({"path": path, "content": "x"})).await;
        assert_eq!(error, gone_message(ws.root()), "{path}");
    }
    assert!(!ws.root().exists(), "the project folder came back");
}

#[tokio::test]
async fn a_moved_folder_is_gone_too() {
    let ws = TestWorkspace::new();
    ws.write("a.txt", "hello\n");
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("moved");
    std::fs::rename(ws.root(), &moved).unwrap();
    let error = ws
        .err(
            "edit",
            json!({"path": "a.txt", "edits": [{"old_text": "hello", "new_text": "bye"}]}),
        )
        .await;
    assert_eq!(error, gone_message(ws.root()));
    assert!(!ws.root().exists());
    assert_eq!(std::fs::read(moved.join("a.txt")).unwrap(), b"hello\n");
    // Put back so the temp dir cleans up.
    std::fs::rename(&moved, ws.root()).unwrap();
}

#[tokio::test]
async fn bash_refuses_plainly() {
    let ws = TestWorkspace::new();
    std::fs::remove_dir_all(ws.root()).unwrap();
    let error = ws.err("bash", json!({"command": "touch made.txt"})).await;
    assert_eq!(error, gone_message(ws.root()));
    assert!(!ws.root().exists());
}

#[tokio::test]
async fn read_only_tools_say_the_project_is_gone() {
    let ws = TestWorkspace::new();
    ws.write("a.txt", "x\n");
    std::fs::remove_dir_all(ws.root()).unwrap();
    let message = gone_message(ws.root());
    assert_eq!(ws.err("read", json!({"path": "a.txt"})).await, message);
    assert_eq!(ws.err("ls", json!({})).await, message);
    assert_eq!(ws.err("find", json!({"pattern": "*.txt"})).await, message);
    assert_eq!(ws.err("grep", json!({"pattern": "x"})).await, message);
    assert!(!ws.root().exists());
}

#[test]
fn the_js_tools_write_refuses_and_does_not_recreate_the_folder() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    let host = WorkspaceHost::new(&root).unwrap();
    std::fs::remove_dir_all(&root).unwrap();
    let error = host.write("out/new.txt", "x").unwrap_err();
    assert_eq!(error.0, gone_message(&root));
    assert!(!root.exists());
}

#[test]
fn folders_are_made_below_the_root_only() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("project");
    // The root itself is missing: nothing may be created, not even the root.
    let error = arbor_coding::workspace::create_dirs_within(&root, &root.join("a/b")).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    assert!(!root.exists());
    std::fs::create_dir(&root).unwrap();
    arbor_coding::workspace::create_dirs_within(&root, &root.join("a/b")).unwrap();
    assert!(root.join("a/b").is_dir());
}
