//! File names that are not valid UTF-8 (here the Latin-1 `café.txt`, bytes `caf\xe9.txt`):
//! `ls`, `find` and `grep` say so, and `read`, `edit` and `write` take the name as those show
//! it (U+FFFD for the bad byte) back to the file, or refuse when it could be several.

use crate::common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use common::TestWorkspace;
use serde_json::json;

const LOSSY: &str = "caf\u{FFFD}.txt";

fn latin1_file(ws: &TestWorkspace, content: &str) -> PathBuf {
    let path = ws.root().join(OsStr::from_bytes(b"caf\xe9.txt"));
    std::fs::write(&path, content).unwrap();
    path
}

#[tokio::test]
async fn listings_mark_the_name() {
    let ws = TestWorkspace::new();
    latin1_file(&ws, "hello\n");
    ws.write("plain.txt", "hello\n");
    assert_eq!(
        ws.ok("ls", json!({})).await,
        format!("{LOSSY} (name not UTF-8)\nplain.txt")
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt"})).await,
        format!("{LOSSY} (name not UTF-8)\nplain.txt")
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "hello"})).await,
        format!(
            "{LOSSY}:1: hello\nplain.txt:1: hello\n\n[File names not valid UTF-8, shown with \
             \u{FFFD} for the bytes that are not: {LOSSY} (name not UTF-8). read, edit and write \
             accept them as shown.]"
        )
    );
}

#[tokio::test]
async fn read_edit_and_write_open_the_file_by_its_lossy_name() {
    let ws = TestWorkspace::new();
    let real = latin1_file(&ws, "hello\n");
    assert_eq!(ws.ok("read", json!({"path": LOSSY})).await, "     1\thello");
    // As `ls` shows it, marker included.
    assert_eq!(
        ws.ok("read", json!({"path": format!("{LOSSY} (name not UTF-8)")}))
            .await,
        "     1\thello"
    );
    ws.ok(
        "edit",
        json!({"path": LOSSY, "edits": [{"old_text": "hello", "new_text": "bonjour"}]}),
    )
    .await;
    assert_eq!(std::fs::read(&real).unwrap(), b"bonjour\n");
    assert_eq!(
        ws.ok("write", json!({"path": LOSSY, "content": "salut\n"}))
            .await,
        format!("Overwrote {LOSSY} (6 bytes).")
    );
    assert_eq!(std::fs::read(&real).unwrap(), b"salut\n");
    // No second file with the U+FFFD name was made.
    assert_eq!(std::fs::read_dir(ws.root()).unwrap().count(), 1);
}

#[tokio::test]
async fn two_names_that_read_the_same_are_refused() {
    let ws = TestWorkspace::new();
    latin1_file(&ws, "one\n");
    std::fs::write(ws.root().join(OsStr::from_bytes(b"caf\xe8.txt")), "two\n").unwrap();
    let expected = format!(
        "2 entries in {} are shown as \"{LOSSY}\": their names are not valid UTF-8 and differ \
         only in the bytes shown as \u{FFFD}, so the name cannot say which one is meant. Rename \
         them with bash first (for example `ls -b` to see the bytes, then `mv` with a glob).",
        ws.root().display()
    );
    assert_eq!(ws.err("read", json!({"path": LOSSY})).await, expected);
    assert_eq!(
        ws.err(
            "edit",
            json!({"path": LOSSY, "edits": [{"old_text": "one", "new_text": "1"}]})
        )
        .await,
        expected
    );
    assert_eq!(
        ws.err("write", json!({"path": LOSSY, "content": "x"}))
            .await,
        expected
    );
    assert_eq!(std::fs::read_dir(ws.root()).unwrap().count(), 2);
}
