//! `arbor mcp` through the real binary: add, list, approve (refused without a terminal or
//! `--yes`), a `-p` run calling the server's tool under `--allow 'Mcp(mock:*)'` with its answer
//! reaching the model, a keychain secret handed to the server but never to the model, and a
//! project's `.mcp.json` pending (never started, its tools never offered) until approved.

use crate::support;

use std::path::Path;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::Arbor;

async fn arbor_in(arbor: &Arbor, dir: &Path, rest: &[&str]) -> support::Run {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

fn script() -> String {
    arbor_test_support::mcp::mock_mcp_server()
        .display()
        .to_string()
}

#[tokio::test]
async fn a_server_added_approved_and_called_by_a_print_run() {
    let mock = MockProvider::start(
        Script::new()
            .turn(
                Turn::stream()
                    .tool_call("mcp__mock__echo", json!({"text": "echoed by the server"})),
            )
            .turn(Turn::stream().tool_call("mcp__mock__env", json!({"name": "TOKEN"})))
            .turn(Turn::text("Done.")),
    )
    .await
    .unwrap();
    let arbor = Arbor::new();
    let project = tempfile::tempdir().unwrap();
    let root = project.path();

    let empty = arbor_in(&arbor, root, &["mcp"]).await;
    assert!(empty.stdout.contains("No MCP servers"), "{}", empty.stdout);
    let bad = arbor_in(&arbor, root, &["mcp", "add", "bad!name", "--", "node"]).await;
    assert_ne!(bad.status, 0);
    assert!(bad.stderr.contains("letters, digits"), "{}", bad.stderr);

    let secret = arbor
        .run_with_stdin(&["mcp", "secret", "mock-token"], "tok-s3cret-value-123\n")
        .await;
    assert_eq!(secret.status, 0, "{}", secret.stderr);
    let added = arbor_in(
        &arbor,
        root,
        &[
            "mcp",
            "add",
            "mock",
            "--env",
            "TOKEN=${keychain:mock-token}",
            "--",
            "node",
            &script(),
        ],
    )
    .await;
    assert_eq!(added.status, 0, "{}", added.stderr);
    let listed = arbor_in(&arbor, root, &["mcp", "list"]).await;
    assert!(
        listed.stdout.contains("mock") && listed.stdout.contains("0 tools"),
        "{}",
        listed.stdout
    );

    let unanswered = arbor_in(&arbor, root, &["mcp", "approve", "mock"]).await;
    assert_eq!(unanswered.status, 1);
    assert!(
        unanswered.stdout.contains("new      mcp__mock__echo"),
        "{}",
        unanswered.stdout
    );
    assert!(
        unanswered.stdout.contains("pass --yes"),
        "{}",
        unanswered.stdout
    );
    let approved = arbor_in(&arbor, root, &["mcp", "approve", "mock", "--yes"]).await;
    assert_eq!(approved.status, 0, "{}{}", approved.stdout, approved.stderr);
    let listed = arbor_in(&arbor, root, &["mcp", "list", "--json"]).await;
    let view: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(view["servers"][0]["tools_approved"], 9);

    let mut args: Vec<String> = vec!["-p".into(), "--allow".into(), "Mcp(mock:*)".into()];
    args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
    args.push("use the server".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arbor_in(&arbor, root, &args).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    let requests = mock.requests();
    assert!(requests[0]
        .offered_tools()
        .contains(&"mcp__mock__echo".to_owned()));
    let results = requests.last().unwrap().tool_results().join("\n");
    assert!(results.contains("echoed by the server"), "{results}");
    assert!(
        !results.contains("tok-s3cret-value-123"),
        "the server got its secret, the model never: {results}"
    );
    assert!(
        !results.contains("(unset)"),
        "the server did get it: {results}"
    );
}

#[tokio::test]
async fn a_projects_mcp_json_is_pending_and_never_started_until_approved() {
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::text("one"))
            .turn(Turn::text("two")),
    )
    .await
    .unwrap();
    let arbor = Arbor::new();
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    let log = root.join("started.log");
    std::fs::write(
        root.join(".mcp.json"),
        json!({"mcpServers": {"repo": {"command": "node", "args": [script()],
            "env": {"MOCK_MCP_LOG": log.display().to_string()}}}})
        .to_string(),
    )
    .unwrap();
    let listed = arbor_in(&arbor, root, &["mcp"]).await;
    assert!(
        listed.stdout.contains("repo") && listed.stdout.contains("pending"),
        "{}",
        listed.stdout
    );

    let mut args: Vec<String> = vec!["-p".into()];
    args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
    args.push("hello".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arbor_in(&arbor, root, &args).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!mock.requests()[0]
        .offered_tools()
        .iter()
        .any(|t| t.starts_with("mcp__")));
    assert!(!log.exists(), "a pending server is never started");

    let approved = arbor_in(&arbor, root, &["mcp", "approve", "repo", "--yes"]).await;
    assert_eq!(approved.status, 0, "{}{}", approved.stdout, approved.stderr);
    assert!(
        approved.stdout.contains("\"command\": \"node\""),
        "{}",
        approved.stdout
    );
    let run = arbor_in(&arbor, root, &args).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(mock.requests()[1]
        .offered_tools()
        .contains(&"mcp__repo__echo".to_owned()));
}
