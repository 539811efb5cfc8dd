use crate::common;

use common::TestWorkspace;
use serde_json::json;

fn project() -> TestWorkspace {
    let ws = TestWorkspace::new();
    ws.write("src/a.rs", "fn alpha() {}\nlet x = 1;\nfn beta() {}\n");
    ws.write("src/b.rs", "// Alpha here\n");
    ws.write("notes.txt", "alpha in notes\n");
    ws
}

#[tokio::test]
async fn prints_path_line_text_sorted_by_path() {
    let ws = project();
    assert_eq!(
        ws.ok("grep", json!({"pattern": "alpha"})).await,
        "notes.txt:1: alpha in notes\nsrc/a.rs:1: fn alpha() {}"
    );
}

#[tokio::test]
async fn ignore_case_glob_and_path() {
    let ws = project();
    assert_eq!(
        ws.ok(
            "grep",
            json!({"pattern": "alpha", "ignore_case": true, "glob": "*.rs"})
        )
        .await,
        "src/a.rs:1: fn alpha() {}\nsrc/b.rs:1: // Alpha here"
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "fn", "path": "src/a.rs"}))
            .await,
        "src/a.rs:1: fn alpha() {}\nsrc/a.rs:3: fn beta() {}"
    );
}

#[tokio::test]
async fn context_lines_use_dashes() {
    let ws = project();
    assert_eq!(
        ws.ok(
            "grep",
            json!({"pattern": "x = 1", "context": 1, "path": "src"})
        )
        .await,
        "src/a.rs-1- fn alpha() {}\nsrc/a.rs:2: let x = 1;\nsrc/a.rs-3- fn beta() {}"
    );
}

#[tokio::test]
async fn literal_and_invalid_regex() {
    let ws = TestWorkspace::new();
    ws.write("f.txt", "call(a\n");
    assert_eq!(
        ws.err("grep", json!({"pattern": "call("})).await,
        "Invalid regex \"call(\": regex parse error:\n    call(\n        ^\nerror: unclosed group\nEscape special characters (for example `\\(`), or set literal=true to search for the text as it is."
    );
    assert_eq!(
        ws.ok("grep", json!({"pattern": "call(", "literal": true}))
            .await,
        "f.txt:1: call(a"
    );
}

#[tokio::test]
async fn gitignore_is_honoured_and_binary_skipped() {
    let ws = TestWorkspace::new();
    ws.write(".gitignore", "target/\n*.log\n");
    ws.write("target/out.txt", "needle\n");
    ws.write("debug.log", "needle\n");
    ws.write("blob.bin", b"needle\x00\x01");
    ws.write(".hidden/h.txt", "needle\n");
    ws.write("src/k.txt", "needle\n");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})).await,
        ".hidden/h.txt:1: needle\nsrc/k.txt:1: needle"
    );
}

#[tokio::test]
async fn limit_and_long_lines() {
    let ws = TestWorkspace::new();
    let lines: String = (1..=150).map(|n| format!("hit {n}\n")).collect();
    ws.write("many.txt", lines);
    let text = ws.ok("grep", json!({"pattern": "hit"})).await;
    assert!(text.starts_with("many.txt:1: hit 1\n"));
    assert!(text.ends_with("many.txt:100: hit 100\n\n[Showing the first 100 matches (limit=100); there may be more. Use a larger limit, or narrow the pattern, path or glob.]"), "{text}");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "hit 1$", "limit": 5}))
            .await,
        "many.txt:1: hit 1"
    );

    let ws = TestWorkspace::new();
    ws.write("wide.txt", format!("needle{}\n", "z".repeat(1000)));
    assert_eq!(
        ws.ok("grep", json!({"pattern": "needle"})).await,
        format!("wide.txt:1: needle{}…\n\n[Lines longer than 500 characters were cut (ending in …). Use read with offset to see them in full.]", "z".repeat(494))
    );
}

#[tokio::test]
async fn no_matches_and_missing_path() {
    let ws = project();
    assert_eq!(
        ws.ok("grep", json!({"pattern": "zzz"})).await,
        "No matches found."
    );
    assert_eq!(
        ws.err("grep", json!({"pattern": "a", "path": "nope"}))
            .await,
        "Path not found: nope."
    );
}
