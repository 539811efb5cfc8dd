//! Permissions through the real `arbor` binary (issue 22): `-p` never waits — a call that
//! needs a yes is refused and the model reads what would allow it —, the sandbox keeps a
//! command's writes in the project, `--permission-mode`/`--allow` widen one run, RPC answers
//! `permission_requested`, and `arbor permissions` keeps the rules.

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::rpc::Rpc;
use support::Arbor;

/// A folder outside the project that a sandboxed command cannot see as it is (not /tmp: the
/// sandbox has a private one).
fn outside() -> tempfile::TempDir {
    tempfile::tempdir_in("/var/tmp").unwrap()
}

async fn print_run(
    arbor: &Arbor,
    mock: &MockProvider,
    dir: &std::path::Path,
    extra: &[&str],
) -> support::Run {
    let mut args = vec!["-C".to_owned(), dir.display().to_string()];
    args.extend(support::endpoint_args(mock, WireApi::OpenAiCompletions));
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args.extend(["-p".to_owned(), "go".to_owned()]);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

/// The text of the tool result the model was sent in its second request.
fn second_request(mock: &MockProvider) -> String {
    let sent = mock.requests();
    sent[1]
        .body
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_refuses_a_write_outside_the_project_and_says_what_would_allow_it() {
    let dir = tempfile::tempdir().unwrap();
    let away = outside();
    let target = away.path().join("profile");
    let script = Script::new()
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": target.display().to_string(), "content": "export PATH=/tmp/evil:$PATH"}),
        ))
        .turn(Turn::text("Refused."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let out = print_run(&arbor, &mock, dir.path(), &[]).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(!target.exists(), "-p wrote outside the project");
    let sent = second_request(&mock);
    assert!(sent.contains("Refused without asking"), "{sent}");
    assert!(sent.contains("--allow 'Write("), "{sent}");
    assert!(sent.contains("--permission-mode full"), "{sent}");

    // The rule it named allows exactly that, for one run.
    let script = Script::new()
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": target.display().to_string(), "content": "ok"}),
        ))
        .turn(Turn::text("Written."));
    let mock = MockProvider::start(script).await.unwrap();
    let rule = format!("Write({})", target.display());
    let out = print_run(&arbor, &mock, dir.path(), &["--allow", &rule]).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_runs_sandboxed_by_default_and_unconfined_in_full_mode() {
    let dir = tempfile::tempdir().unwrap();
    let away = outside();
    let target = away.path().join("escaped.txt");
    let command = format!("echo inside > inside.txt; echo out > {}", target.display());
    let turns = || {
        Script::new()
            .turn(Turn::stream().tool_call("bash", json!({"command": command})))
            .turn(Turn::text("Done."))
    };
    let arbor = Arbor::new();
    let mock = MockProvider::start(turns()).await.unwrap();
    let out = print_run(&arbor, &mock, dir.path(), &[]).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        dir.path().join("inside.txt").exists(),
        "the project was not writable"
    );
    assert!(!target.exists(), "the sandbox let a write out");
    let sent = second_request(&mock);
    assert!(
        sent.contains("escalate"),
        "the model was not told how to ask: {sent}"
    );

    let mock = MockProvider::start(turns()).await.unwrap();
    let out = print_run(&arbor, &mock, dir.path(), &["--permission-mode", "full"]).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(target.exists(), "full mode is not sandboxed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_holds_in_full_mode_and_a_bad_rule_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(Turn::stream().tool_call("bash", json!({"command": "ls && git push --force"})))
        .turn(Turn::text("Refused."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let out = print_run(
        &arbor,
        &mock,
        dir.path(),
        &["--permission-mode", "full", "--deny", "Bash(git push *)"],
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let sent = second_request(&mock);
    assert!(sent.contains("refused by Bash(git push *)"), "{sent}");

    let bad = arbor.run(&["--allow", "Bash(", "-p", "x"]).await;
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("is not a permission rule"),
        "{}",
        bad.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_answers_a_permission_request_and_denial_reaches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let away = outside();
    let first = away.path().join("first.txt");
    let second = away.path().join("second.txt");
    let script = Script::new()
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": first.display().to_string(), "content": "allowed"}),
        ))
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": second.display().to_string(), "content": "denied"}),
        ))
        .turn(Turn::text("Done."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let mut args = support::endpoint_args(&mock, WireApi::OpenAiCompletions);
    args.extend(["--tools".to_owned(), "write".to_owned()]);
    let mut rpc = Rpc::start(&arbor, dir.path(), &args);
    rpc.send(json!({"type": "prompt", "message": "write them"}))
        .await;
    for (decision, reason) in [("allow_once", None), ("deny", Some("not there"))] {
        let seen = rpc.until(|v| v["type"] == "permission_requested").await;
        let request = &seen.last().unwrap()["request"];
        assert_eq!(request["tool_name"], "write");
        assert!(request["summary"]
            .as_str()
            .unwrap()
            .contains("outside the project"));
        assert!(request["always_rule"]
            .as_str()
            .unwrap()
            .starts_with("Write("));
        let id = request["request_id"].as_str().unwrap().to_owned();
        let answer = rpc
            .call(
                "a",
                json!({"type": "answer_permission", "request_id": id, "decision": decision, "reason": reason}),
            )
            .await;
        assert_eq!(answer["success"], true, "{answer}");
    }
    rpc.until(|v| v["type"] == "agent_end").await;
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "allowed");
    assert!(!second.exists());
    let sent = mock.requests();
    let third = sent[2].body.as_ref().unwrap().to_string();
    assert!(third.contains("the user denied this"), "{third}");
    assert!(third.contains("not there"), "{third}");
    let view = rpc.call("v", json!({"type": "get_permissions"})).await;
    assert_eq!(view["data"]["mode"], "workspace", "{view}");
    let switched = rpc
        .call(
            "m",
            json!({"type": "set_permission_mode", "mode": "read-only"}),
        )
        .await;
    assert_eq!(switched["data"]["mode"], "read-only", "{switched}");
    rpc.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbor_permissions_saves_lists_and_removes_rules() {
    let dir = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let cwd = dir.path().display().to_string();
    let added = arbor
        .run(&["-C", &cwd, "permissions", "allow", "Bash(cargo test *)"])
        .await;
    assert_eq!(added.status, 0, "{}", added.stderr);
    let project = arbor
        .run(&[
            "-C",
            &cwd,
            "permissions",
            "deny",
            "Bash(git push *)",
            "--project",
        ])
        .await;
    assert_eq!(project.status, 0, "{}", project.stderr);
    let listed = arbor.run(&["-C", &cwd, "permissions", "--json"]).await;
    let view: Value = serde_json::from_str(&listed.stdout).unwrap();
    let rules = view["rules"].as_array().unwrap();
    assert_eq!(
        rules[0],
        json!({"rule": "Bash(git push *)", "effect": "deny", "source": "project"})
    );
    assert_eq!(
        rules[1],
        json!({"rule": "Bash(cargo test *)", "effect": "allow", "source": "user"})
    );
    assert!(view["secret_paths"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p == "~/.ssh"));
    let removed = arbor
        .run(&["-C", &cwd, "permissions", "remove", "Bash(cargo test *)"])
        .await;
    assert_eq!(removed.status, 0, "{}", removed.stderr);
    let missing = arbor
        .run(&["-C", &cwd, "permissions", "remove", "Bash(cargo test *)"])
        .await;
    assert_eq!(missing.status, 2, "{}", missing.stderr);
    let bad = arbor
        .run(&["-C", &cwd, "permissions", "allow", "Bash("])
        .await;
    assert_eq!(bad.status, 2);
    assert!(
        bad.stderr.contains("is not a permission rule"),
        "{}",
        bad.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repositorys_own_rules_file_can_only_tighten() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".arbor")).unwrap();
    std::fs::write(
        dir.path().join(".arbor/permissions.json"),
        r#"{"deny": ["Bash(git push *)"], "ask": ["Bash(npm publish *)"], "allow": ["Bash(rm *)", "Edit(/etc/**)"]}"#,
    )
    .unwrap();
    let arbor = Arbor::new();
    let cwd = dir.path().display().to_string();
    let listed = arbor.run(&["-C", &cwd, "permissions", "--json"]).await;
    assert_eq!(listed.status, 0, "{}", listed.stderr);
    let view: Value = serde_json::from_str(&listed.stdout).unwrap();
    let rules = view["rules"].as_array().unwrap();
    assert_eq!(
        rules,
        &vec![
            json!({"rule": "Bash(git push *)", "effect": "deny", "source": "project_file"}),
            json!({"rule": "Bash(npm publish *)", "effect": "ask", "source": "project_file"}),
        ],
        "a repository's allow rules are ignored"
    );
}

/// `ARBOR_SANDBOX_BACKEND` forces a backend: `landlock` (the reduced one, said so) still
/// confines a command; `none` makes every command ask, so `-p` refuses it unless
/// `--permission-mode full` — never a silent run without a sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_backend_is_used_and_without_one_print_mode_refuses_commands() {
    let dir = tempfile::tempdir().unwrap();
    let away = outside();
    let target = away.path().join("escaped.txt");
    let arbor = Arbor::new();
    let cwd = dir.path().display().to_string();
    for (backend, summary) in [
        ("landlock", "reduced: Landlock"),
        ("none", "none: every command asks"),
    ] {
        let mut command = arbor.command();
        command
            .env("ARBOR_SANDBOX_BACKEND", backend)
            .args(["-C", &cwd, "permissions", "--json"]);
        let listed = support::finish(command.output().await.unwrap());
        let view: Value = serde_json::from_str(&listed.stdout).unwrap();
        assert_eq!(view["sandbox"]["backend"], backend, "{view}");
        assert!(
            view["sandbox"]["summary"]
                .as_str()
                .unwrap()
                .starts_with(summary),
            "{view}"
        );
    }
    let script = || {
        Script::new()
            .turn(Turn::stream().tool_call(
                "bash",
                json!({"command": format!("echo in > inside.txt; echo out > {}", target.display())}),
            ))
            .turn(Turn::text("Done."))
    };
    let run = |backend: &'static str, mock: &MockProvider, extra: &[&str]| {
        let mut command = arbor.command();
        command
            .env("ARBOR_SANDBOX_BACKEND", backend)
            .args(["-C", &cwd]);
        command.args(support::endpoint_args(mock, WireApi::OpenAiCompletions));
        command.args(extra).args(["-p", "go"]);
        command
    };
    // Landlock: the project writable, outside not.
    let mock = MockProvider::start(script()).await.unwrap();
    let out = support::finish(run("landlock", &mock, &[]).output().await.unwrap());
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(dir.path().join("inside.txt").exists());
    assert!(!target.exists(), "Landlock let a write out");
    // No sandbox: refused without asking, nothing ran.
    std::fs::remove_file(dir.path().join("inside.txt")).unwrap();
    let mock = MockProvider::start(script()).await.unwrap();
    let out = support::finish(run("none", &mock, &[]).output().await.unwrap());
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        !dir.path().join("inside.txt").exists(),
        "a command ran with no sandbox"
    );
    assert!(
        second_request(&mock).contains("no sandbox on this machine"),
        "{}",
        second_request(&mock)
    );
    // …unless the user says so for the run.
    let mock = MockProvider::start(script()).await.unwrap();
    let out = support::finish(
        run("none", &mock, &["--permission-mode", "full"])
            .output()
            .await
            .unwrap(),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(target.exists(), "full mode runs the command");
}
