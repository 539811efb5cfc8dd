//! Stored sessions through the real `arbor` binary against the mock provider: every message is
//! stored, `-c` / `-r` / `--no-session`, the `sessions` / `tree` / `search` subcommands, the
//! `node_appended` events of JSON and RPC modes, RPC branching, and crash safety.

use crate::support;

use std::time::Duration;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::rpc::Rpc;
use support::Arbor;

fn endpoint(mock: &MockProvider) -> Vec<String> {
    support::endpoint_args(mock, WireApi::OpenAiCompletions)
}

/// `arbor -C DIR <endpoint> ARGS…`.
async fn run(
    arbor: &Arbor,
    dir: &std::path::Path,
    mock: &MockProvider,
    args: &[&str],
) -> support::Run {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(endpoint(mock));
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

async fn json_of(arbor: &Arbor, dir: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let out = arbor.run(&all).await;
    assert_eq!(out.status, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

async fn session_ids(arbor: &Arbor, dir: &std::path::Path) -> Vec<String> {
    let list = json_of(arbor, dir, &["sessions", "--json"]).await;
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

fn kinds(tree: &Value) -> Vec<String> {
    tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_stores_every_message_and_the_subcommands_show_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "zebra notes\n").unwrap();
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "notes.txt"})))
        .turn(Turn::text("The notes mention a zebra."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let out = run(
        &arbor,
        dir.path(),
        &mock,
        &["-p", "what do the notes say?\nsecond line"],
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);

    let ids = session_ids(&arbor, dir.path()).await;
    assert_eq!(ids.len(), 1);
    let tree = json_of(&arbor, dir.path(), &["tree", &ids[0], "--json"]).await;
    assert_eq!(
        kinds(&tree),
        ["user", "assistant", "tool_result", "assistant"]
    );
    assert_eq!(tree["title"], "what do the notes say?");
    let nodes = tree["nodes"].as_array().unwrap();
    assert_eq!(tree["leaf_id"], nodes[3]["id"]);
    // The tree panel's view: what each answer used.
    assert!(nodes[3]["tokens"].as_u64().unwrap() > 0, "{tree}");
    assert_eq!(nodes[3]["first_line"], "The notes mention a zebra.");
    for pair in nodes.windows(2) {
        assert_eq!(pair[1]["parent_id"], pair[0]["id"]);
    }

    // The store holds the full messages (usage on the answer) and the search index has them.
    let store = arbor_store::Store::open(arbor.data_path()).unwrap();
    let answer = store.get_node(nodes[3]["id"].as_str().unwrap()).unwrap();
    assert_eq!(answer.content_value().unwrap()["role"], "assistant");
    assert!(answer.usage.is_some());
    assert_eq!(store.session_tree(&ids[0]).unwrap().nodes.len(), 4);
    drop(store);

    // Text forms.
    let text = arbor
        .run(&["-C", &dir.path().display().to_string(), "sessions"])
        .await;
    assert!(
        text.stdout.contains(&ids[0]) && text.stdout.contains("what do the notes say?"),
        "{}",
        text.stdout
    );
    let prefix = &ids[0][..ids[0].len() - 4];
    let text = arbor.run(&["tree", prefix]).await;
    assert_eq!(text.status, 0, "{}", text.stderr);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", text.stdout);
    assert!(
        lines[1].contains("user: what do the notes say?"),
        "{}",
        text.stdout
    );
    assert!(
        lines[4].starts_with("* ") && lines[4].ends_with("← leaf"),
        "{}",
        text.stdout
    );

    let hits = json_of(&arbor, dir.path(), &["search", "zebra", "--json"]).await;
    let hits = hits.as_array().unwrap();
    assert!(
        hits.iter()
            .any(|h| h["kind"] == "assistant" && h["session_id"] == ids[0].as_str()),
        "{hits:?}"
    );
    let text = arbor.run(&["search", "zebra"]).await;
    assert!(text.stdout.contains("[zebra]"), "{}", text.stdout);
    let none = arbor.run(&["search", "nothingmatchesthis"]).await;
    assert_eq!(none.stdout.trim(), "no matches");

    // Another folder has no sessions unless --all.
    let other = tempfile::tempdir().unwrap();
    assert_eq!(
        json_of(&arbor, other.path(), &["sessions", "--json"]).await,
        json!([])
    );
    let all = json_of(&arbor, other.path(), &["sessions", "--json", "--all"]).await;
    assert_eq!(all.as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_resume_and_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(Turn::text("first answer"))
        .turn(Turn::text("second answer"))
        .turn(Turn::text("third answer"))
        .turn(Turn::text("fourth answer"))
        .turn(Turn::text("fifth answer"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let flags: &[&str] = &["--no-tools", "-p"];

    assert_eq!(
        run(
            &arbor,
            dir.path(),
            &mock,
            &[flags, &["alpha question"]].concat()
        )
        .await
        .status,
        0
    );
    let out = run(
        &arbor,
        dir.path(),
        &mock,
        &[&["-c"], flags, &["beta question"]].concat(),
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "second answer\n");
    let sent = mock.requests();
    assert!(
        sent[1].body_text.contains("alpha question") && sent[1].body_text.contains("first answer")
    );
    let ids = session_ids(&arbor, dir.path()).await;
    assert_eq!(ids.len(), 1, "-c continued the same session");

    // A second session; then -r with a prefix of the first one resumes it.
    assert_eq!(
        run(
            &arbor,
            dir.path(),
            &mock,
            &[flags, &["gamma question"]].concat()
        )
        .await
        .status,
        0
    );
    let ids = session_ids(&arbor, dir.path()).await;
    assert_eq!(ids.len(), 2);
    let first = ids.iter().find(|id| **id != ids[0]).unwrap().clone();
    let first = if ids[1] == first {
        ids[1].clone()
    } else {
        first
    };
    let prefix = &first[..first.len() - 3];
    let out = run(
        &arbor,
        dir.path(),
        &mock,
        &[&["-r", prefix], flags, &["delta question"]].concat(),
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let last = mock.requests().pop().unwrap();
    assert!(last.body_text.contains("alpha question") && last.body_text.contains("beta question"));
    assert!(!last.body_text.contains("gamma question"));

    // Unknown and ambiguous prefixes fail clearly, without calling the model.
    let before = mock.requests().len();
    let unknown = run(
        &arbor,
        dir.path(),
        &mock,
        &[&["-r", "ffff0000"], flags, &["x"]].concat(),
    )
    .await;
    assert_eq!(unknown.status, 1);
    assert!(
        unknown.stderr.contains("no session with id \"ffff0000\""),
        "{}",
        unknown.stderr
    );
    let common: String = ids[0]
        .chars()
        .zip(ids[1].chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a)
        .collect();
    let ambiguous = run(
        &arbor,
        dir.path(),
        &mock,
        &[&["-r", &common], flags, &["x"]].concat(),
    )
    .await;
    assert_eq!(ambiguous.status, 1);
    assert!(
        ambiguous.stderr.contains("matches several sessions"),
        "{}",
        ambiguous.stderr
    );
    let bad = run(
        &arbor,
        dir.path(),
        &mock,
        &[&["-r", "not-an-id!"], flags, &["x"]].concat(),
    )
    .await;
    assert_eq!(bad.status, 1);
    assert!(
        bad.stderr.contains("not a valid session id"),
        "{}",
        bad.stderr
    );
    let tree = arbor.run(&["tree", "ffff0000"]).await;
    assert_eq!(tree.status, 1);
    assert!(tree.stderr.contains("no session"), "{}", tree.stderr);
    assert_eq!(mock.requests().len(), before);

    // --no-session stores nothing.
    let fresh = Arbor::new();
    let out = run(
        &fresh,
        dir.path(),
        &mock,
        &[&["--no-session"], flags, &["epsilon"]].concat(),
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        json_of(&fresh, dir.path(), &["sessions", "--all", "--json"]).await,
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_mode_reports_each_stored_node_after_its_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "a.txt"})))
        .turn(Turn::text("done"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let out = run(&arbor, dir.path(), &mock, &["--mode", "json", "read it"]).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ends = lines.iter().filter(|l| l["type"] == "message_end").count();
    let appended: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "node_appended")
        .collect();
    assert_eq!(ends, 4);
    assert_eq!(appended.len(), 4);
    for (i, line) in lines.iter().enumerate() {
        if line["type"] == "message_end" {
            assert_eq!(lines[i + 1]["type"], "node_appended", "{line}");
        }
    }
    assert_eq!(appended[0]["parent_id"], Value::Null);
    assert_eq!(appended[1]["parent_id"], appended[0]["node_id"]);
    let ids = session_ids(&arbor, dir.path()).await;
    assert_eq!(appended[3]["session_id"], ids[0].as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_navigates_forks_and_shows_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(Turn::text("answer one"))
        .turn(Turn::text("answer edited"))
        .turn(Turn::text("answer regenerated"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let mut rpc = Rpc::start(&arbor, dir.path(), &endpoint(&mock));
    let empty = rpc.call("t0", json!({"type": "get_tree"})).await;
    assert_eq!(empty["success"], true);
    assert_eq!(empty["data"]["tree"], Value::Null);
    let refused = rpc
        .call("n0", json!({"type": "navigate", "node_id": "0123"}))
        .await;
    assert_eq!(refused["success"], false);

    rpc.send(json!({"id": "p1", "type": "prompt", "message": "original question"}))
        .await;
    rpc.until(|v| v["type"] == "agent_end").await;
    let tree = rpc.call("t1", json!({"type": "get_tree"})).await;
    let nodes = tree["data"]["tree"]["nodes"].as_array().unwrap().clone();
    assert_eq!(nodes.len(), 2);
    let user_id = nodes[0]["id"].as_str().unwrap().to_owned();

    // Going to the user message hands its text back and moves above it.
    let nav = rpc
        .call(
            "n1",
            json!({"type": "navigate", "node_id": &user_id[..user_id.len() - 2]}),
        )
        .await;
    assert_eq!(nav["success"], true, "{nav}");
    assert_eq!(nav["data"]["editor_text"], "original question");
    assert_eq!(nav["data"]["leaf_id"], Value::Null);
    assert_eq!(nav["data"]["message_count"], 0);
    rpc.send(json!({"id": "p2", "type": "prompt", "message": "edited question"}))
        .await;
    rpc.until(|v| v["type"] == "agent_end").await;
    assert!(!mock.requests()[1].body_text.contains("original question"));

    // Regenerate: a sibling answer to the last user message.
    let regen = rpc.call("r1", json!({"type": "regenerate"})).await;
    assert_eq!(regen["success"], true, "{regen}");
    rpc.until(|v| v["type"] == "agent_end").await;
    let tree = rpc.call("t2", json!({"type": "get_tree"})).await;
    let nodes = tree["data"]["tree"]["nodes"].as_array().unwrap().clone();
    assert_eq!(nodes.len(), 5, "{tree}");
    assert_eq!(regen["data"]["user_node_id"], nodes[2]["id"]);
    let roots = nodes.iter().filter(|n| n["parent_id"].is_null()).count();
    assert_eq!(roots, 2, "the edit is a sibling branch");
    let leaf = nodes
        .iter()
        .find(|n| n["id"] == tree["data"]["tree"]["leaf_id"])
        .unwrap();
    assert_eq!(leaf["first_line"], "answer regenerated");
    let edited_user = nodes
        .iter()
        .find(|n| n["first_line"] == "edited question")
        .unwrap();
    assert_eq!(leaf["parent_id"], edited_user["id"]);

    // Going to an answer continues from it.
    let first_answer = nodes
        .iter()
        .find(|n| n["first_line"] == "answer one")
        .unwrap();
    let nav = rpc
        .call(
            "n2",
            json!({"type": "navigate", "node_id": first_answer["id"]}),
        )
        .await;
    assert_eq!(nav["data"]["leaf_id"], first_answer["id"]);
    assert_eq!(nav["data"]["editor_text"], Value::Null);
    assert_eq!(nav["data"]["message_count"], 2);

    // Fork the current path into a new session, then switch back.
    let original = tree["data"]["tree"]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let fork = rpc.call("f1", json!({"type": "fork"})).await;
    assert_eq!(fork["success"], true, "{fork}");
    assert_ne!(fork["data"]["session_id"], original.as_str());
    assert_eq!(fork["data"]["message_count"], 2);
    let list = rpc.call("l1", json!({"type": "list_sessions"})).await;
    assert_eq!(list["data"]["sessions"].as_array().unwrap().len(), 2);
    // The same items the desktop's sidebar lists: figures included, no store row as it is.
    let first = &list["data"]["sessions"][0];
    assert_eq!(first["message_count"], 2, "{first}");
    assert!(
        first["cost"].is_number() && first["node_count"].is_number(),
        "{first}"
    );
    assert!(first.get("title_is_custom").is_none(), "{first}");
    let back = rpc
        .call(
            "s1",
            json!({"type": "switch_session", "session_id": original}),
        )
        .await;
    assert_eq!(back["success"], true, "{back}");
    assert_eq!(back["data"]["message_count"], 2);
    let bad = rpc
        .call(
            "s2",
            json!({"type": "switch_session", "session_id": "ffff0000"}),
        )
        .await;
    assert_eq!(bad["success"], false);
    assert!(
        bad["error"].as_str().unwrap().contains("no session"),
        "{bad}"
    );

    rpc.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_runs_at_random_points_leaves_a_healthy_database() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let arbor = Arbor::new();
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    // 50 runs, as the issue asks, each killed at a random moment of a scripted two-turn run.
    for _ in 0..50 {
        let script = Script::new()
            .turn(
                Turn::stream()
                    .text("reading")
                    .tool_call("read", json!({"path": "a.txt"}))
                    .chunk_size(3)
                    .delay_ms(20),
            )
            .turn(
                Turn::text("a long answer that streams slowly")
                    .chunk_size(2)
                    .delay_ms(20),
            );
        let mock = MockProvider::start(script).await.unwrap();
        let mut command = arbor.command();
        command
            .args(["-C"])
            .arg(dir.path())
            .args(endpoint(&mock))
            .args(["-c", "-p", "go on"]);
        let mut child = command.spawn().unwrap();
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let wait = 20 + (seed >> 33) % 400;
        tokio::time::sleep(Duration::from_millis(wait)).await;
        child.start_kill().unwrap(); // SIGKILL
        let _ = child.wait().await;
    }
    let store = arbor_store::Store::open(arbor.data_path()).unwrap();
    assert_eq!(store.check_integrity().unwrap(), Vec::<String>::new());
    drop(store);

    let mock = MockProvider::start(Script::new().turn(Turn::text("still here")))
        .await
        .unwrap();
    let out = run(
        &arbor,
        dir.path(),
        &mock,
        &["-c", "--no-tools", "-p", "after the crashes"],
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "still here\n");
}
