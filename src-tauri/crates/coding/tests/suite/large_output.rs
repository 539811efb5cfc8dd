//! A 20 MB file that is one line (minified code, a data dump): `edit` works on it, but what it
//! returns — the text and the details with the diff, as stored in the session — stays small
//! (it used to store a 240 MB node). `write` of such a file returns as little. `replace_all`
//! cannot make millions of replacements.
use crate::common;

use arbor_coding::tools::MAX_DIFF_BYTES;
use common::{text_of, TestWorkspace};
use serde_json::json;

const TWENTY_MB: usize = 20 * 1024 * 1024;

/// What a tool result weighs once serialized: its text plus its details as JSON.
fn stored_size(output: &arbor_agent::ToolOutput) -> usize {
    text_of(output).len()
        + output
            .details
            .as_ref()
            .map_or(0, |details| serde_json::to_string(details).unwrap().len())
}

#[tokio::test]
async fn editing_a_20_mb_single_line_file_returns_a_small_result() {
    let ws = TestWorkspace::new();
    let half = "x".repeat(TWENTY_MB / 2);
    ws.write("min.js", format!("{half}MARKER{half}"));
    let output = ws
        .call(
            "edit",
            json!({"path": "min.js", "edits": [{"old_text": "MARKER", "new_text": "CHANGED"}]}),
        )
        .await
        .unwrap();
    let written = ws.read_bytes("min.js");
    assert_eq!(written.len(), TWENTY_MB + "CHANGED".len());
    assert_eq!(&written[TWENTY_MB / 2..TWENTY_MB / 2 + 7], b"CHANGED");

    let size = stored_size(&output);
    assert!(size < 2 * MAX_DIFF_BYTES, "the result weighs {size} bytes");
    let text = text_of(&output);
    assert!(
        text.starts_with("Edited min.js: 1 replacement. Changed lines: 1.")
            && text.contains("The diff shown to the user was cut"),
        "{text}"
    );
    let details = output.details.unwrap();
    assert_eq!(details["diff_truncated"], true);
    let diff = details["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("--- a/min.js\n+++ b/min.js\n@@ -1 +1 @@\n-xxx"),
        "{}",
        &diff[..100]
    );
    assert!(diff.contains("… [line cut: "), "the cut is marked");
}

#[tokio::test]
async fn an_edit_that_fails_on_a_20_mb_single_line_file_says_so_briefly() {
    let ws = TestWorkspace::new();
    ws.write("min.js", "y".repeat(TWENTY_MB));
    let error = ws
        .err(
            "edit",
            json!({"path": "min.js", "edits": [{"old_text": "yyyy zzzz", "new_text": "q"}]}),
        )
        .await;
    assert!(error.len() < 1000, "{} bytes", error.len());
    assert!(
        error.starts_with("Edit: old_text was not found in min.js."),
        "{error}"
    );
}

#[tokio::test]
async fn writing_a_20_mb_single_line_file_returns_a_small_result() {
    let ws = TestWorkspace::new();
    let content = "z".repeat(TWENTY_MB);
    let output = ws
        .call("write", json!({"path": "dump.json", "content": content}))
        .await
        .unwrap();
    assert_eq!(ws.read_bytes("dump.json").len(), TWENTY_MB);
    assert!(stored_size(&output) < 1024, "{}", stored_size(&output));
    assert_eq!(
        text_of(&output),
        format!("Created dump.json ({TWENTY_MB} bytes).")
    );
}

#[tokio::test]
async fn replace_all_refuses_millions_of_replacements() {
    let ws = TestWorkspace::new();
    ws.write("a.txt", "a".repeat(1_000_000));
    let error = ws
        .err(
            "edit",
            json!({"path": "a.txt", "edits": [{"old_text": "a", "new_text": "bb", "replace_all": true}]}),
        )
        .await;
    assert_eq!(
        error,
        "Edit: old_text matches more than 100000 times in a.txt, and one edit call makes at most \
         100000 replacements. Use bash for a change this broad (for example \
         `sed -i 's/old/new/g' a.txt`). The file was not changed."
    );
    assert_eq!(ws.read_bytes("a.txt").len(), 1_000_000);
}
