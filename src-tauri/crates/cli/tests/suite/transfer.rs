//! `arbor export` and `arbor import` through the real binary: a session stored by a real run is
//! exported in every format, re-imported from JSONL as a new session, and exported again
//! identically (after the documented id normalisation); bad files and ids fail clearly.

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::Arbor;

async fn ok(arbor: &Arbor, args: &[&str]) -> String {
    let run = arbor.run(args).await;
    assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
    run.stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_import_export_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        "hello <script>alert(1)</script>\n",
    )
    .unwrap();
    let script = Script::new()
        .turn(
            Turn::stream()
                .text("Reading.")
                .tool_call("read", json!({"path": "notes.txt"})),
        )
        .turn(Turn::text("It greets you."));
    let mock = MockProvider::start(script).await.unwrap();
    let api = WireApi::AnthropicMessages;
    let url = mock.url_for(api);
    let cwd = dir.path().to_str().unwrap();
    let arbor = Arbor::new();
    ok(
        &arbor,
        &[
            "-p",
            "-C",
            cwd,
            "--api",
            api.as_str(),
            "--base-url",
            &url,
            "--model",
            "m",
            "--api-key",
            "k",
            "what is in notes.txt?",
        ],
    )
    .await;

    let sessions: Value =
        serde_json::from_str(&ok(&arbor, &["-C", cwd, "sessions", "--json"]).await).unwrap();
    let id = sessions[0]["id"].as_str().unwrap().to_owned();

    let markdown = ok(&arbor, &["export", &id]).await;
    assert!(
        markdown.contains("what is in notes.txt?") && markdown.contains("It greets you."),
        "{markdown}"
    );
    assert!(
        markdown.contains("read"),
        "the tool call is missing: {markdown}"
    );

    let html_path = dir.path().join("session.html");
    ok(
        &arbor,
        &[
            "export",
            &id,
            "--format",
            "html",
            "-o",
            html_path.to_str().unwrap(),
        ],
    )
    .await;
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"),
        "{}",
        &html[..80.min(html.len())]
    );
    assert!(
        !html.contains("<script>alert(1)"),
        "message content must be escaped"
    );
    assert!(
        !html.contains("https://") && !html.contains("http://"),
        "the page must work offline"
    );

    let jsonl_path = dir.path().join("session.jsonl");
    ok(
        &arbor,
        &[
            "export",
            &id,
            "--format",
            "jsonl",
            "-o",
            jsonl_path.to_str().unwrap(),
        ],
    )
    .await;
    let first = std::fs::read_to_string(&jsonl_path).unwrap();
    assert!(first.lines().count() >= 5, "{first}");

    let imported = ok(&arbor, &["-C", cwd, "import", jsonl_path.to_str().unwrap()]).await;
    assert!(imported.starts_with("imported as session "), "{imported}");
    let new_id = imported.split_whitespace().nth(3).unwrap().to_owned();
    assert_ne!(new_id, id);
    let second = ok(&arbor, &["export", &new_id, "--format", "jsonl"]).await;
    assert_eq!(
        arbor_app::export::normalize_jsonl(&first).unwrap(),
        arbor_app::export::normalize_jsonl(&second).unwrap(),
        "export → import → export must be identical after id normalisation"
    );
    let all: Value =
        serde_json::from_str(&ok(&arbor, &["-C", cwd, "sessions", "--json"]).await).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn bad_exports_and_imports_fail_clearly() {
    let arbor = Arbor::new();
    let dir = tempfile::tempdir().unwrap();
    let run = arbor.run(&["export", "0198ffff"]).await;
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(!run.stderr.is_empty());

    let foreign = dir.path().join("foreign.jsonl");
    std::fs::write(&foreign, "{\"hello\":\"world\"}\n").unwrap();
    let run = arbor
        .run(&[
            "-C",
            dir.path().to_str().unwrap(),
            "import",
            foreign.to_str().unwrap(),
        ])
        .await;
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("foreign.jsonl cannot be imported"),
        "{}",
        run.stderr
    );

    let missing = dir.path().join("missing.jsonl");
    let run = arbor.run(&["import", missing.to_str().unwrap()]).await;
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);

    let run = arbor.run(&["export", "x", "--format", "pdf"]).await;
    assert_eq!(run.status, 2, "{}", run.stderr);
}
