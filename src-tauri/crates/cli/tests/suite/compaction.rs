//! Compaction and the RPC session commands that go with it, through the real `arbor` binary:
//! automatic compaction of a small-window model in print mode, RPC `compact`, `label`,
//! `export` and `navigate {summarize}`.

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::rpc::Rpc;
use support::Arbor;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_window_model_compacts_automatically_in_print_mode() {
    let dir = tempfile::tempdir().unwrap();
    let line = "0123456789012345678901234567890123456789\n";
    std::fs::write(dir.path().join("big.txt"), line.repeat(200)).unwrap();
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "big.txt"})))
        .turn(Turn::text("SUMMARY-PRINT"))
        .turn(Turn::text("final answer"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let models = json!({"providers": {"tiny": {
        "api": "anthropic-messages",
        "baseUrl": mock.url_for(WireApi::AnthropicMessages),
        "models": [{"id": "tiny-model", "contextWindow": 4000, "maxOutputTokens": 1000}]
    }}});
    std::fs::write(arbor.data_path().join("models.json"), models.to_string()).unwrap();
    let cwd = dir.path().display().to_string();
    let run = arbor
        .run(&[
            "-C",
            &cwd,
            "--model",
            "tiny/tiny-model",
            "--api-key",
            "k",
            "-p",
            "read big.txt",
        ])
        .await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "final answer");
    assert!(
        run.stderr.contains("compacting the conversation"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("compacted: about"), "{}", run.stderr);
    assert!(mock.requests()[2].body_text.contains("SUMMARY-PRINT"));
    // The compaction is in the stored tree.
    let sessions = arbor.run(&["-C", &cwd, "sessions", "--json"]).await;
    let id = serde_json::from_str::<Value>(&sessions.stdout).unwrap()[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let tree = arbor.run(&["-C", &cwd, "tree", "--json", &id]).await;
    let tree: Value = serde_json::from_str(&tree.stdout).unwrap();
    let kinds: Vec<&str> = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user",
            "assistant",
            "tool_result",
            "compaction",
            "assistant"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_compacts_labels_exports_and_summarises_a_branch_left() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(Turn::text("answer-one"))
        .turn(Turn::text("answer-two"))
        .turn(Turn::text("SUMMARY-RPC"))
        .turn(Turn::text("BRANCH-RPC"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let endpoint = support::endpoint_args(&mock, WireApi::OpenAiCompletions);
    let mut rpc = Rpc::start(&arbor, dir.path(), &endpoint);
    let early = rpc.call("c0", json!({"type": "compact"})).await;
    assert_eq!(early["success"], false);
    assert_eq!(early["code"], "nothing_to_compact", "{early}");
    assert!(
        early["error"]
            .as_str()
            .unwrap()
            .starts_with("nothing to compact"),
        "{early}"
    );

    for (id, prompt) in [("p1", "question-one"), ("p2", "question-two")] {
        rpc.send(json!({"id": id, "type": "prompt", "message": prompt}))
            .await;
        rpc.until(|v| v["type"] == "agent_end").await;
    }
    rpc.send(json!({"id": "c1", "type": "compact", "focus": "the tests"}))
        .await;
    let lines = rpc
        .until(|v| v["type"] == "response" && v["id"] == "c1")
        .await;
    // A prompt's response may come after its run's events (the run starts in the background):
    // only this command's lines count.
    let types: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] != "response" || l["id"] == "c1")
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "compaction_start",
            "node_appended",
            "compaction_end",
            "response"
        ],
        "{lines:?}"
    );
    let reply = lines.last().unwrap();
    assert_eq!(reply["success"], true, "{reply}");
    assert!(reply["data"]["summary"]
        .as_str()
        .unwrap()
        .starts_with("SUMMARY-RPC"));
    assert_eq!(reply["data"]["message_count"], 2);
    assert!(mock.requests()[2]
        .body_text
        .contains("Focus especially on: the tests"));

    let tree = rpc.call("t1", json!({"type": "get_tree"})).await;
    let nodes = tree["data"]["tree"]["nodes"].as_array().unwrap().clone();
    let second = nodes
        .iter()
        .find(|n| n["first_line"] == "question-two")
        .unwrap();
    let label = rpc
        .call(
            "l1",
            json!({"type": "label", "node_id": second["id"], "label": "before compaction"}),
        )
        .await;
    assert_eq!(label["success"], true, "{label}");
    let tree = rpc.call("t2", json!({"type": "get_tree"})).await;
    assert!(tree.to_string().contains("before compaction"));

    let export = rpc.call("e1", json!({"type": "export"})).await;
    let content = export["data"]["content"].as_str().unwrap();
    assert_eq!(
        content.lines().count(),
        1 + 5,
        "header + five nodes: {content}"
    );
    assert!(content.contains("\"kind\":\"compaction\""));
    let file = dir.path().join("out.md");
    let export = rpc
        .call(
            "e2",
            json!({"type": "export", "format": "markdown", "path": file}),
        )
        .await;
    assert_eq!(export["success"], true, "{export}");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("answer-two"));
    let bad = rpc
        .call("e3", json!({"type": "export", "format": "pdf"}))
        .await;
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("use markdown, jsonl or html"),
        "{bad}"
    );

    // Leaving the branch back at the second question, with a summary of what was left.
    let nav = rpc
        .call(
            "n1",
            json!({"type": "navigate", "node_id": second["id"], "summarize": true}),
        )
        .await;
    assert_eq!(nav["success"], true, "{nav}");
    assert_eq!(nav["data"]["editor_text"], "question-two");
    let tree = rpc.call("t3", json!({"type": "get_tree"})).await;
    let leaf_id = tree["data"]["tree"]["leaf_id"].clone();
    let leaf = tree["data"]["tree"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == leaf_id)
        .unwrap()
        .clone();
    assert_eq!(leaf["kind"], "branch_summary");
    assert_eq!(leaf["first_line"], "BRANCH-RPC");
    assert_eq!(nav["data"]["leaf_id"], leaf["id"]);
    rpc.finish().await;
}
