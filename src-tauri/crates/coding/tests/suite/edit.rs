use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{text_of, TestWorkspace};
use serde_json::json;

#[tokio::test]
async fn replaces_a_unique_match_and_reports_lines_and_diff() {
    let ws = TestWorkspace::new();
    ws.write("a.rs", "fn a() {}\nfn b() {\n    1\n}\n");
    let output = ws
        .call(
            "edit",
            json!({"path": "a.rs", "edits": [{"old_text": "    1\n", "new_text": "    2\n    3\n"}]}),
        )
        .await
        .unwrap();
    assert_eq!(
        text_of(&output),
        "Edited a.rs: 1 replacement. Changed lines: 3-4."
    );
    assert_eq!(
        ws.read_bytes("a.rs"),
        b"fn a() {}\nfn b() {\n    2\n    3\n}\n"
    );
    let details = output.details.unwrap();
    assert_eq!(
        details["diff"],
        "--- a/a.rs\n+++ b/a.rs\n@@ -1,4 +1,5 @@\n fn a() {}\n fn b() {\n-    1\n+    2\n+    3\n }\n"
    );
    assert_eq!(details["first_changed_line"], 3);
}

#[tokio::test]
async fn crlf_file_keeps_crlf_and_the_bom() {
    let ws = TestWorkspace::new();
    ws.write("w.txt", b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n");
    // The model writes LF (as read showed it); the file keeps CRLF everywhere.
    let text = ws
        .ok(
            "edit",
            json!({"path": "w.txt", "edits": [{"old_text": "one\ntwo\n", "new_text": "ONE\nTWO\nextra\n"}]}),
        )
        .await;
    assert_eq!(
        text,
        "Edited w.txt: 1 replacement. Changed lines: 1-3. Edit 1 matched only after ignoring differences in trailing whitespace, line endings or Unicode punctuation."
    );
    assert_eq!(
        ws.read_bytes("w.txt"),
        b"\xEF\xBB\xBFONE\r\nTWO\r\nextra\r\nthree\r\n"
    );
}

#[tokio::test]
async fn bytes_outside_the_match_are_untouched() {
    let ws = TestWorkspace::new();
    // Mixed endings, trailing spaces and a tab elsewhere must survive exactly.
    let original = b"keep  \r\nline\tx\nchange me\nkeep2 \n".to_vec();
    ws.write("m.txt", &original);
    ws.ok(
        "edit",
        json!({"path": "m.txt", "edits": [{"old_text": "change me", "new_text": "changed"}]}),
    )
    .await;
    assert_eq!(
        ws.read_bytes("m.txt"),
        b"keep  \r\nline\tx\nchanged\nkeep2 \n"
    );
}

#[tokio::test]
async fn unicode_quotes_dashes_and_spaces_are_tolerated() {
    let ws = TestWorkspace::new();
    ws.write("q.txt", "say(“hi” – it’s\u{a0}fine)\nnext\n");
    let text = ws
        .ok(
            "edit",
            json!({"path": "q.txt", "edits": [{"old_text": "say(\"hi\" - it's fine)", "new_text": "say(\"bye\")"}]}),
        )
        .await;
    assert!(
        text.starts_with("Edited q.txt: 1 replacement. Changed lines: 1."),
        "{text}"
    );
    assert_eq!(ws.read_bytes("q.txt"), b"say(\"bye\")\nnext\n");
}

#[tokio::test]
async fn trailing_whitespace_differences_are_tolerated() {
    let ws = TestWorkspace::new();
    ws.write("t.txt", "a  \nb\t\nc\n");
    ws.ok(
        "edit",
        json!({"path": "t.txt", "edits": [{"old_text": "a\nb\n", "new_text": "x\n"}]}),
    )
    .await;
    assert_eq!(ws.read_bytes("t.txt"), b"x\nc\n");
}

#[tokio::test]
async fn ambiguous_match_says_how_many_and_where() {
    let ws = TestWorkspace::new();
    ws.write("d.txt", "x = 1\ny\nx = 1\nz\nx = 1\n");
    assert_eq!(
        ws.err("edit", json!({"path": "d.txt", "edits": [{"old_text": "x = 1", "new_text": "x = 2"}]})).await,
        "Edit: old_text matches 3 times in d.txt (at lines 1, 3, 5). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence. The file was not changed."
    );
    assert_eq!(
        ws.ok("edit", json!({"path": "d.txt", "edits": [{"old_text": "x = 1", "new_text": "x = 2", "replace_all": true}]})).await,
        "Edited d.txt: 3 replacements. Changed lines: 1, 3, 5."
    );
    assert_eq!(ws.read_bytes("d.txt"), b"x = 2\ny\nx = 2\nz\nx = 2\n");
}

#[tokio::test]
async fn overlapping_edits_fail_and_nothing_changes() {
    let ws = TestWorkspace::new();
    ws.write("o.txt", "alpha beta gamma\n");
    assert_eq!(
        ws.err(
            "edit",
            json!({"path": "o.txt", "edits": [
                {"old_text": "alpha beta", "new_text": "A"},
                {"old_text": "beta gamma", "new_text": "B"}
            ]})
        )
        .await,
        "Edits 1 and 2 overlap (both change line 1 of o.txt). Merge them into one edit. No edits were applied."
    );
    assert_eq!(ws.read_bytes("o.txt"), b"alpha beta gamma\n");
}

#[tokio::test]
async fn all_or_nothing_when_one_edit_is_not_found() {
    let ws = TestWorkspace::new();
    ws.write(
        "f.rs",
        "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n",
    );
    let message = ws
        .err(
            "edit",
            json!({"path": "f.rs", "edits": [
                {"old_text": "fn main() {", "new_text": "fn start() {"},
                {"old_text": "    let x = 2;\n    println!(\"{x}\");", "new_text": "nope"}
            ]}),
        )
        .await;
    assert_eq!(
        message,
        "Edit 2 of 2: old_text was not found in f.rs. The closest text is at lines 2-3:\n     2\t    let x = 1;\n     3\t    println!(\"{x}\");\nCopy old_text exactly from the file (read it again if unsure). No edits were applied."
    );
    assert_eq!(
        ws.read_bytes("f.rs"),
        b"fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n"
    );
}

#[tokio::test]
async fn several_edits_apply_together() {
    let ws = TestWorkspace::new();
    ws.write("s.txt", "a\nb\nc\nd\n");
    assert_eq!(
        ws.ok(
            "edit",
            json!({"path": "s.txt", "edits": [
                {"old_text": "d", "new_text": "D"},
                {"old_text": "a\n", "new_text": "A1\nA2\n"}
            ]})
        )
        .await,
        "Edited s.txt: 2 replacements from 2 edits. Changed lines: 1-2, 5."
    );
    assert_eq!(ws.read_bytes("s.txt"), b"A1\nA2\nb\nc\nD\n");
}

#[tokio::test]
async fn no_change_is_an_error() {
    let ws = TestWorkspace::new();
    ws.write("n.txt", "same\n");
    assert_eq!(
        ws.err(
            "edit",
            json!({"path": "n.txt", "edits": [{"old_text": "same", "new_text": "same"}]})
        )
        .await,
        "No change: the edits leave n.txt exactly as it was (new_text equals old_text)."
    );
}

#[tokio::test]
async fn says_when_the_file_changed_since_it_was_read() {
    let ws = TestWorkspace::new();
    ws.write("c.txt", "one\n");
    ws.ok("read", json!({"path": "c.txt"})).await;
    ws.write("c.txt", "one\ntwo\n");
    let text = ws
        .ok(
            "edit",
            json!({"path": "c.txt", "edits": [{"old_text": "two", "new_text": "2"}]}),
        )
        .await;
    assert_eq!(
        text,
        "Edited c.txt: 1 replacement. Changed lines: 2. Note: c.txt had changed on disk since you last read it; the edits were applied to its current content."
    );
    // The agent's own edit counts as seen: the next edit has no note.
    let text = ws
        .ok(
            "edit",
            json!({"path": "c.txt", "edits": [{"old_text": "one", "new_text": "1"}]}),
        )
        .await;
    assert_eq!(text, "Edited c.txt: 1 replacement. Changed lines: 1.");
}

#[tokio::test]
async fn keeps_permissions() {
    let ws = TestWorkspace::new();
    ws.write("x.sh", "echo a\n");
    std::fs::set_permissions(ws.path("x.sh"), std::fs::Permissions::from_mode(0o700)).unwrap();
    ws.ok(
        "edit",
        json!({"path": "x.sh", "edits": [{"old_text": "a", "new_text": "b"}]}),
    )
    .await;
    let mode = std::fs::metadata(ws.path("x.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o700);
}

#[tokio::test]
async fn missing_file_and_empty_old_text() {
    let ws = TestWorkspace::new();
    ws.write("lib.rs", "x");
    assert_eq!(
        ws.err(
            "edit",
            json!({"path": "lbi.rs", "edits": [{"old_text": "x", "new_text": "y"}]})
        )
        .await,
        "File not found: lbi.rs. Did you mean lib.rs? To create a file use write."
    );
    assert_eq!(
        ws.err("edit", json!({"path": "lib.rs", "edits": [{"old_text": "", "new_text": "y"}]})).await,
        "Edit: old_text is empty. Quote the text to replace; to replace a whole file use write. The file was not changed."
    );
}

#[tokio::test]
async fn huge_file_edit_touches_only_the_match() {
    let ws = TestWorkspace::new();
    let mut content: String = (0..200_000).map(|n| format!("row {n}\n")).collect();
    ws.write("huge.txt", &content);
    let text = ws
        .ok("edit", json!({"path": "huge.txt", "edits": [{"old_text": "row 123456\n", "new_text": "ROW\n"}]}))
        .await;
    assert_eq!(
        text,
        "Edited huge.txt: 1 replacement. Changed lines: 123457."
    );
    content = content.replace("row 123456\n", "ROW\n");
    assert_eq!(ws.read_bytes("huge.txt"), content.as_bytes());
}
