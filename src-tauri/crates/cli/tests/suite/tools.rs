//! The model's tools through the real `arbor` binary: `-p` never approves on its own (the
//! proposal is stored pending and the model told so), `arbor tools` lists, shows, approves,
//! runs history and revokes; RPC answers a waiting `create_tool` with `approve_tool`.

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::rpc::Rpc;
use support::Arbor;

const SKILL: &str = "---\nname: shout\ndescription: Upper-cases a file's text.\nparameters:\n  type: object\n  properties:\n    path: {type: string}\n  required: [path]\nentry: main.js\nallowed-tools: read\n---\nUse it to shout.\n";
const SCRIPT: &str = "return (await read(args.path)).toUpperCase();";

fn propose() -> arbor_test_support::StreamTurn {
    Turn::stream().tool_call(
        "create_tool",
        json!({"name": "shout", "files": {"SKILL.md": SKILL, "main.js": SCRIPT}, "reason": "to shout"}),
    )
}

async fn arbor_in(arbor: &Arbor, dir: &std::path::Path, rest: &[&str]) -> support::Run {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_stores_a_proposal_pending_and_arbor_tools_answers_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "quiet\n").unwrap();
    let script = Script::new()
        .turn(propose())
        .turn(Turn::text("It awaits approval."))
        .turn(Turn::stream().tool_call("shout", json!({"path": "a.txt"})))
        .turn(Turn::text("Shouted."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let mut args = vec!["-C".to_owned(), dir.path().display().to_string()];
    args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
    args.extend(["-p".to_owned(), "make a shout tool".to_owned()]);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = arbor.run(&all).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("The model proposes a new tool `shout`"),
        "stderr: {} stdout: {} sent: {:?}",
        out.stderr,
        out.stdout,
        mock.requests()
            .iter()
            .map(|r| r.body_text.clone())
            .collect::<Vec<_>>()
    );
    let sent = mock.requests();
    let second: &Value = sent[1].body.as_ref().unwrap();
    assert!(
        second.to_string().contains("awaits the user's approval"),
        "{second}"
    );
    assert!(
        !dir.path().join(".tools").exists(),
        "nothing approved on its own"
    );

    let listed = arbor_in(&arbor, dir.path(), &["tools"]).await;
    assert_eq!(listed.status, 0, "{}", listed.stderr);
    assert!(listed.stdout.contains("built-in  js"), "{}", listed.stdout);
    assert!(
        listed.stdout.contains("pending   shout"),
        "{}",
        listed.stdout
    );
    let shown = arbor_in(&arbor, dir.path(), &["tools", "show", "shout"]).await;
    assert!(
        shown.stdout.contains("reason: to shout"),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.contains("can read files in this project"),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains(SCRIPT), "{}", shown.stdout);

    let approved = arbor_in(&arbor, dir.path(), &["tools", "approve", "shout"]).await;
    assert_eq!(approved.status, 0, "{}", approved.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".tools/shout/main.js")).unwrap(),
        SCRIPT
    );
    let again = arbor_in(&arbor, dir.path(), &["tools", "approve", "shout"]).await;
    assert_ne!(again.status, 0);
    assert!(
        again.stderr.contains("approved, not pending"),
        "{}",
        again.stderr
    );

    // The next run is offered the tool and runs it; the run is in the history.
    let mut args = vec!["-C".to_owned(), dir.path().display().to_string()];
    args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
    args.extend(["-p".to_owned(), "shout a.txt".to_owned()]);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = arbor.run(&all).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let sent = mock.requests();
    let last = sent.last().unwrap().body.as_ref().unwrap();
    assert!(last.to_string().contains("QUIET"), "{last}");
    let history = arbor_in(&arbor, dir.path(), &["tools", "history", "--json"]).await;
    let runs: Value = serde_json::from_str(&history.stdout).unwrap();
    assert_eq!(runs[0]["name"], "shout");
    assert_eq!(runs[0]["arguments"], r#"{"path":"a.txt"}"#);

    let revoked = arbor_in(&arbor, dir.path(), &["tools", "revoke", "shout"]).await;
    assert_eq!(revoked.status, 0, "{}", revoked.stderr);
    let unknown = arbor_in(&arbor, dir.path(), &["tools", "show", "nope"]).await;
    assert_ne!(unknown.status, 0);
    assert!(
        unknown.stderr.contains("no tool named `nope`"),
        "{}",
        unknown.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_answers_a_waiting_proposal_and_the_tool_runs_in_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "quiet\n").unwrap();
    let script = Script::new()
        .turn(propose())
        .turn(Turn::stream().tool_call("shout", json!({"path": "a.txt"})))
        .turn(Turn::text("Shouted."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let mut endpoint = support::endpoint_args(&mock, WireApi::OpenAiCompletions);
    endpoint.extend(["--tools".to_owned(), "read,create_tool".to_owned()]);
    let mut rpc = Rpc::start(&arbor, dir.path(), &endpoint);
    rpc.send(json!({"id": "p", "type": "prompt", "message": "make a shout tool"}))
        .await;
    let lines = rpc.until(|v| v["type"] == "approval_requested").await;
    let request = lines.last().unwrap().clone();
    assert_eq!(request["name"], "shout");
    assert_eq!(request["kind"], "create_tool");
    assert_eq!(request["files"]["main.js"], SCRIPT);
    assert_eq!(request["allowed_tools"], json!(["read"]));
    let listed = rpc.call("l", json!({"type": "list_tools"})).await;
    let pending: Vec<&Value> = listed["data"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "pending")
        .collect();
    assert_eq!(pending.len(), 1, "{listed}");
    rpc.send(json!({"id": "a", "type": "approve_tool", "approval_id": request["approval_id"]}))
        .await;
    let mut lines = rpc
        .until(|v| v["type"] == "response" && v["id"] == "a")
        .await;
    let approved = lines.last().unwrap().clone();
    assert_eq!(approved["success"], true, "{approved}");
    assert_eq!(approved["data"]["status"], "approved", "{approved}");
    lines.extend(rpc.until(|v| v["type"] == "agent_end").await);
    assert!(
        lines.iter().any(|l| l["type"] == "approval_resolved"
            && l["approval_id"] == request["approval_id"]
            && l["status"] == "approved"),
        "{lines:?}"
    );
    let sent = mock.requests();
    let names: Vec<&str> = sent[1].body.as_ref().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read", "create_tool", "shout"]);
    assert!(sent[2].body.as_ref().unwrap().to_string().contains("QUIET"));
    let history = rpc
        .call("h", json!({"type": "tool_history", "name": "shout"}))
        .await;
    assert_eq!(
        history["data"]["runs"].as_array().unwrap().len(),
        1,
        "{history}"
    );
    let bad = rpc
        .call("b", json!({"type": "approve_tool", "approval_id": "zz"}))
        .await;
    assert_eq!(bad["success"], false);
    rpc.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_arriving_in_a_clone_is_pending_and_not_offered() {
    // A repository whose history carries a tool folder.
    let origin = tempfile::tempdir().unwrap();
    let work = origin.path().join("work");
    std::fs::create_dir_all(work.join(".tools/shout")).unwrap();
    std::fs::write(work.join(".tools/shout/SKILL.md"), SKILL).unwrap();
    std::fs::write(work.join(".tools/shout/main.js"), SCRIPT).unwrap();
    std::fs::write(work.join("a.txt"), "quiet\n").unwrap();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&work)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "a tool"]);
    let arbor = Arbor::new();
    let dest = tempfile::tempdir().unwrap();
    let clone = dest.path().join("clone");
    let url = format!("file://{}", work.display());
    let cloned = arbor.run(&["clone", &url, clone.to_str().unwrap()]).await;
    assert_eq!(cloned.status, 0, "{}", cloned.stderr);

    let listed = arbor_in(&arbor, &clone, &["tools", "list", "--json"]).await;
    assert_eq!(listed.status, 0, "{}", listed.stderr);
    let tools: Value = serde_json::from_str(&listed.stdout).unwrap();
    let shout = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "shout")
        .unwrap();
    assert_eq!(shout["status"], "pending");
    assert_eq!(shout["scope"], "project");
    assert!(shout["approval_id"].is_string());

    // A run in the clone is not offered it.
    let mock = MockProvider::start(Script::new().turn(Turn::text("ok")))
        .await
        .unwrap();
    let mut args = vec!["-C".to_owned(), clone.display().to_string()];
    args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
    args.extend(["-p".to_owned(), "hi".to_owned()]);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = arbor.run(&all).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let sent = mock.requests();
    let names: Vec<&str> = sent[0].body.as_ref().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"shout"), "{names:?}");
    assert!(
        names.contains(&"js") && names.contains(&"create_tool"),
        "{names:?}"
    );
}

/// The names of the tools a request offered.
fn offered(request: &arbor_test_support::RecordedRequest) -> Vec<String> {
    request.json()["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// A model tool whose files change between two prompts of one process is not offered at the
/// second (it would be refused only when called): in print mode and in JSON mode, which
/// start their runs through the session's one door (`prepare_run`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_changed_between_two_prompts_is_not_offered_in_any_mode() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "quiet\n").unwrap();
    let arbor = Arbor::new();
    let proposal = MockProvider::start(Script::new().turn(propose()).turn(Turn::text("Waits.")))
        .await
        .unwrap();
    let mut args = vec!["-C".to_owned(), dir.path().display().to_string()];
    args.extend(support::endpoint_args(
        &proposal,
        WireApi::OpenAiCompletions,
    ));
    args.extend(["-p".to_owned(), "make a shout tool".to_owned()]);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(arbor.run(&all).await.status, 0);
    let approved = arbor_in(&arbor, dir.path(), &["tools", "approve", "shout"]).await;
    assert_eq!(approved.status, 0, "{}", approved.stderr);

    for mode in [&["-p"][..], &["--mode", "json"][..]] {
        // The approved script back (the last round changed it); the first prompt changes it
        // again, with bash.
        std::fs::write(dir.path().join(".tools/shout/main.js"), SCRIPT).unwrap();
        let mock = MockProvider::start(
            Script::new()
                .turn(Turn::stream().tool_call(
                    "bash",
                    json!({"command": "echo '// changed' >> .tools/shout/main.js"}),
                ))
                .turn(Turn::text("Changed it."))
                .turn(Turn::text("Second answer.")),
        )
        .await
        .unwrap();
        let mut args = vec!["-C".to_owned(), dir.path().display().to_string()];
        args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
        args.extend(mode.iter().map(|m| (*m).to_owned()));
        args.extend(["--tools".to_owned(), "read,bash".to_owned()]);
        args.extend(["first".to_owned(), "second".to_owned()]);
        let all: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = arbor.run(&all).await;
        assert_eq!(out.status, 0, "{mode:?}: {}", out.stderr);
        let sent = mock.requests();
        assert_eq!(sent.len(), 3, "{mode:?}");
        assert!(
            offered(&sent[0]).contains(&"shout".to_owned()),
            "{mode:?}: the approved tool is offered at first: {:?}",
            offered(&sent[0])
        );
        assert!(
            !offered(&sent[2]).contains(&"shout".to_owned()),
            "{mode:?}: changed since approval, not offered at the second prompt: {:?}",
            offered(&sent[2])
        );
    }
}
