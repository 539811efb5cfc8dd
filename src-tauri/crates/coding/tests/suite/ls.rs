use crate::common;

use common::TestWorkspace;
use serde_json::json;

#[tokio::test]
async fn lists_sorted_with_slashes_and_dotfiles() {
    let ws = TestWorkspace::new();
    ws.write("b.txt", "");
    ws.write("A.md", "");
    ws.write(".env", "");
    ws.write("src/main.rs", "");
    assert_eq!(ws.ok("ls", json!({})).await, ".env\nA.md\nb.txt\nsrc/");
    assert_eq!(ws.ok("ls", json!({"path": "src"})).await, "main.rs");
}

#[tokio::test]
async fn limit_cuts_with_a_notice() {
    let ws = TestWorkspace::new();
    for n in 0..7 {
        ws.write(&format!("f{n}"), "");
    }
    assert_eq!(
        ws.ok("ls", json!({"limit": 3})).await,
        "f0\nf1\nf2\n\n[Showing 3 of 7 entries (limit=3). Use limit=7 to see all, or find/grep to narrow down.]"
    );
}

#[tokio::test]
async fn default_limit_is_500() {
    let ws = TestWorkspace::new();
    for n in 0..501 {
        ws.write(&format!("f{n:03}"), "");
    }
    let text = ws.ok("ls", json!({})).await;
    assert!(text.ends_with("f499\n\n[Showing 500 of 501 entries (limit=500). Use limit=501 to see all, or find/grep to narrow down.]"));
}

#[tokio::test]
async fn errors_for_missing_folders_and_files() {
    let ws = TestWorkspace::new();
    ws.write("file.txt", "");
    std::fs::create_dir(ws.path("empty")).unwrap();
    assert_eq!(
        ws.err("ls", json!({"path": "nope"})).await,
        "Folder not found: nope."
    );
    assert_eq!(
        ws.err("ls", json!({"path": "file.txt"})).await,
        "file.txt is a file, not a folder. Use read to see it."
    );
    assert_eq!(
        ws.ok("ls", json!({"path": "empty"})).await,
        "(empty folder)"
    );
}
