//! Code state through the real `arbor` binary against the mock provider: a run's `bash` calls
//! change files; `arbor diff` shows them between two nodes, `arbor restore` previews, refuses
//! without a terminal or `--yes`, restores and undoes; RPC `navigate {files: "restore"}`,
//! `preview_restore`, `undo_restore` and `diff_nodes`.
#![cfg(unix)]

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::rpc::Rpc;
use support::Arbor;

fn script() -> Script {
    Script::new()
        .turn(Turn::stream().tool_call(
            "bash",
            json!({"command": "printf 'one\\nTWO\\n' > a.txt && echo new > b.txt"}),
        ))
        .turn(Turn::stream().tool_call("bash", json!({"command": "rm b.txt && echo c > c.txt"})))
        .turn(Turn::text("Done."))
}

fn args(dir: &std::path::Path, mock: &MockProvider, rest: &[&str]) -> Vec<String> {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(support::endpoint_args(mock, WireApi::OpenAiCompletions));
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    all
}

async fn arbor_in(arbor: &Arbor, dir: &std::path::Path, rest: &[&str]) -> support::Run {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

/// The user node and the two bash results of the stored run.
async fn nodes(arbor: &Arbor, dir: &std::path::Path) -> (String, String, String) {
    let out = arbor_in(arbor, dir, &["sessions", "--json"]).await;
    let sessions: Value = serde_json::from_str(&out.stdout).unwrap();
    let id = sessions[0]["id"].as_str().unwrap().to_owned();
    let out = arbor_in(arbor, dir, &["tree", &id, "--json"]).await;
    let tree: Value = serde_json::from_str(&out.stdout).unwrap();
    let of_kind = |kind: &str| -> Vec<String> {
        tree["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["kind"] == kind)
            .map(|n| n["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let results = of_kind("tool_result");
    (
        of_kind("user")[0].clone(),
        results[0].clone(),
        results[1].clone(),
    )
}

fn read(dir: &std::path::Path, path: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(path)).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_and_restore_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let mock = MockProvider::start(script()).await.unwrap();
    let arbor = Arbor::new();
    let all = args(
        dir.path(),
        &mock,
        &["--tools", "bash", "-p", "change things"],
    );
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let out = arbor.run(&all).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let (user, first, second) = nodes(&arbor, dir.path()).await;

    let stat = arbor_in(&arbor, dir.path(), &["diff", &user, &second, "--stat"]).await;
    assert_eq!(stat.status, 0, "{}", stat.stderr);
    let lines: Vec<&str> = stat.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", stat.stdout);
    assert!(
        lines[0].starts_with("modified") && lines[0].ends_with("a.txt"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("+1 -1"), "{}", lines[0]);
    assert!(
        lines[1].starts_with("added") && lines[1].ends_with("c.txt"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "2 files changed");
    let patch = arbor_in(&arbor, dir.path(), &["diff", &first, &second]).await;
    assert!(
        patch.stdout.contains("diff --git a/b.txt b/b.txt"),
        "{}",
        patch.stdout
    );
    assert!(patch.stdout.contains("-new\n"), "{}", patch.stdout);

    // No terminal to ask and no --yes: the preview, then a refusal; nothing written.
    let refused = arbor_in(&arbor, dir.path(), &["restore", &user]).await;
    assert_ne!(refused.status, 0);
    assert!(
        refused.stdout.contains("write  a.txt"),
        "{}",
        refused.stdout
    );
    assert!(
        refused.stdout.contains("delete c.txt"),
        "{}",
        refused.stdout
    );
    assert!(refused.stderr.contains("--yes"), "{}", refused.stderr);
    assert_eq!(read(dir.path(), "c.txt").as_deref(), Some("c\n"));

    let done = arbor_in(&arbor, dir.path(), &["restore", &user, "--yes"]).await;
    assert_eq!(done.status, 0, "{}", done.stderr);
    assert!(
        done.stdout.contains("1 written, 1 deleted"),
        "{}",
        done.stdout
    );
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("one\ntwo\n"));
    assert_eq!(read(dir.path(), "c.txt"), None);

    let undone = arbor_in(&arbor, dir.path(), &["restore", "--undo", "--yes"]).await;
    assert_eq!(undone.status, 0, "{}", undone.stderr);
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("one\nTWO\n"));
    assert_eq!(read(dir.path(), "c.txt").as_deref(), Some("c\n"));

    // Bad input says what is wrong.
    let unknown = arbor_in(&arbor, dir.path(), &["restore", "0000", "--yes"]).await;
    assert_ne!(unknown.status, 0);
    assert!(unknown.stderr.contains("0000"), "{}", unknown.stderr);
    let elsewhere = tempfile::tempdir().unwrap();
    let foreign = arbor_in(&arbor, elsewhere.path(), &["restore", &user, "--yes"]).await;
    assert_ne!(foreign.status, 0);
    assert!(
        foreign.stderr.contains("has no Arbor sessions"),
        "{}",
        foreign.stderr
    );
    let usage = arbor_in(&arbor, dir.path(), &["restore"]).await;
    assert_eq!(usage.status, 2, "{}", usage.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_goes_to_a_node_with_its_files_and_undoes_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let mock = MockProvider::start(script()).await.unwrap();
    let arbor = Arbor::new();
    let mut endpoint = support::endpoint_args(&mock, WireApi::OpenAiCompletions);
    endpoint.extend(["--tools".to_owned(), "bash".to_owned()]);
    let mut rpc = Rpc::start(&arbor, dir.path(), &endpoint);
    rpc.send(json!({"id": "p1", "type": "prompt", "message": "change things"}))
        .await;
    rpc.until(|v| v["type"] == "agent_end").await;
    let tree = rpc.call("t", json!({"type": "get_tree"})).await;
    let nodes = tree["data"]["tree"]["nodes"].as_array().unwrap().clone();
    let id_of = |kind: &str, nth: usize| -> String {
        nodes.iter().filter(|n| n["kind"] == kind).nth(nth).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (user, second) = (id_of("user", 0), id_of("tool_result", 1));

    let preview = rpc
        .call("pr", json!({"type": "preview_restore", "node_id": user}))
        .await;
    assert_eq!(preview["success"], true, "{preview}");
    let planned: Vec<(String, bool)> = preview["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["write"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(planned, [("a.txt".into(), true), ("c.txt".into(), false)]);
    assert_eq!(
        read(dir.path(), "c.txt").as_deref(),
        Some("c\n"),
        "a preview writes nothing"
    );

    let diff = rpc
        .call(
            "d",
            json!({"type": "diff_nodes", "from": user, "to": second}),
        )
        .await;
    assert_eq!(diff["success"], true, "{diff}");
    assert_eq!(diff["data"]["files"][0]["change"]["path"], "a.txt");
    assert!(diff["data"]["files"][0]["patch"]
        .as_str()
        .unwrap()
        .contains("+TWO"));

    let moved = rpc
        .call(
            "n",
            json!({"type": "navigate", "node_id": user, "files": "restore"}),
        )
        .await;
    assert_eq!(moved["success"], true, "{moved}");
    assert_eq!(moved["data"]["editor_text"], "change things");
    assert_eq!(moved["data"]["restore"]["written"], 1);
    assert_eq!(moved["data"]["restore"]["deleted"], 1);
    assert_eq!(
        moved["data"]["preview"]["changes"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("one\ntwo\n"));

    // The user edits a file; going back to the end's files is refused, then overwritten.
    std::fs::write(dir.path().join("a.txt"), "mine\n").unwrap();
    let refused = rpc
        .call(
            "n2",
            json!({"type": "navigate", "node_id": second, "files": "restore"}),
        )
        .await;
    assert_eq!(refused["success"], false, "{refused}");
    // The refusal names its code, so a front end can offer "overwrite" without parsing words.
    assert_eq!(refused["code"], "changed_outside", "{refused}");
    assert!(refused["error"].to_string().contains("a.txt"), "{refused}");
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("mine\n"));

    let undone = rpc
        .call("u", json!({"type": "undo_restore", "overwrite": true}))
        .await;
    assert_eq!(undone["success"], true, "{undone}");
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("one\nTWO\n"));
    assert_eq!(read(dir.path(), "c.txt").as_deref(), Some("c\n"));

    let bad = rpc
        .call(
            "b",
            json!({"type": "navigate", "node_id": user, "files": "everything"}),
        )
        .await;
    assert_eq!(bad["success"], false, "{bad}");
    assert_eq!(bad["code"], "invalid_command", "{bad}");
    rpc.finish().await;
}
