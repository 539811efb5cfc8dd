//! The `arbor` binary as a coding agent against the mock provider: multi-turn tool scripts in
//! every wire format, checking the files on disk afterwards, the tool results the agent sent
//! back (from the mock's request log), and the JSON and RPC modes.

use crate::support;

use std::process::Stdio;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::Arbor;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn endpoint(mock: &MockProvider, api: WireApi) -> Vec<String> {
    support::endpoint_args(mock, api)
}

/// `LEADING… <the mock's endpoint for api> TRAILING…` as owned arguments.
fn arguments(
    leading: &[&str],
    mock: &MockProvider,
    api: WireApi,
    trailing: &[&str],
) -> Vec<String> {
    let mut args: Vec<String> = leading.iter().map(|a| (*a).to_owned()).collect();
    args.extend(endpoint(mock, api));
    args.extend(trailing.iter().map(|a| (*a).to_owned()));
    args
}

/// Runs `arbor` with [`arguments`].
async fn run_against(
    arbor: &Arbor,
    leading: &[&str],
    mock: &MockProvider,
    api: WireApi,
    trailing: &[&str],
) -> support::Run {
    let args = arguments(leading, mock, api, trailing);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arbor.run(&args).await
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\nsecond line\n").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_turn_tool_run_changes_the_files_in_every_format() {
    for api in WireApi::ALL {
        let dir = workspace();
        let script = Script::new()
            .turn(Turn::stream().text("Let me look.").tool_call("read", json!({"path": "notes.txt"})))
            .turn(
                Turn::stream()
                    .tool_call("edit", json!({"path": "notes.txt", "edits": [{"old_text": "hello", "new_text": "goodbye"}]}))
                    .tool_call("write", json!({"path": "out/new.txt", "content": "created\n"})),
            )
            .turn(Turn::stream().tool_call("bash", json!({"command": "cat notes.txt out/new.txt; exit 0"})))
            .turn(Turn::text("All done."));
        let mock = MockProvider::start(script).await.unwrap();
        let arbor = Arbor::new();
        let dir_arg = dir.path().display().to_string();
        let run = run_against(
            &arbor,
            &["-p", "-C", &dir_arg],
            &mock,
            api,
            &["update the notes"],
        )
        .await;
        assert_eq!(run.status, 0, "{api:?}: {}", run.stderr);
        assert_eq!(run.stdout, "All done.\n", "{api:?}");

        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
            "goodbye\nsecond line\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out/new.txt")).unwrap(),
            "created\n"
        );

        let sent = mock.requests();
        assert_eq!(sent.len(), 4, "{api:?}");
        // The first request offers the built-in tools.
        for tool in ["read", "write", "edit", "bash", "ls", "grep", "find"] {
            assert!(
                sent[0].body_text.contains(&format!("\"{tool}\"")),
                "{api:?}: tool {tool} not offered"
            );
        }
        // The read result (line-numbered) went back to the model, then both edit results,
        // then the bash output showing the changed files.
        assert!(
            sent[1].body_text.contains("hello") && sent[1].body_text.contains("second line"),
            "{api:?}"
        );
        assert!(sent[2].body_text.contains("out/new.txt"), "{api:?}");
        assert!(
            sent[3].body_text.contains("goodbye") && sent[3].body_text.contains("created"),
            "{api:?}: {}",
            sent[3].body_text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_tool_is_an_error_result_the_model_reads() {
    let dir = workspace();
    let script = Script::new()
        .turn(Turn::stream().tool_call("read", json!({"path": "missing.txt"})))
        .turn(Turn::stream().tool_call("bash", json!({"command": "echo boom; exit 3"})))
        .turn(Turn::stream().tool_call("nonexistent_tool", json!({})))
        .turn(Turn::text("Recovered."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let dir_arg = dir.path().display().to_string();
    let run = run_against(
        &arbor,
        &["-p", "-C", &dir_arg],
        &mock,
        WireApi::AnthropicMessages,
        &["try things"],
    )
    .await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Recovered.\n");
    let sent = mock.requests();
    let error_results = |index: usize| {
        sent[index].json()["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone()
    };
    for (index, wanted) in [(1, "missing.txt"), (2, "boom"), (3, "nonexistent_tool")] {
        let last = error_results(index);
        let text = last.to_string();
        assert!(
            text.contains("\"is_error\":true"),
            "request {index}: {text}"
        );
        assert!(text.contains(wanted), "request {index}: {text}");
    }
}

/// Event types of a JSON-mode transcript, runs of `message_update` collapsed, tool names shown.
fn transcript(stdout: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in stdout.lines() {
        let event: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        let kind = event["type"].as_str().unwrap().to_owned();
        let entry = match kind.as_str() {
            "tool_execution_start" | "tool_execution_end" => {
                format!("{kind} {}", event["tool_name"].as_str().unwrap())
            }
            "message_start" | "message_end" => {
                format!("{kind} {}", event["message"]["role"].as_str().unwrap())
            }
            "agent_end" => format!("{kind} {}", event["status"].as_str().unwrap()),
            _ => kind,
        };
        if entry == "message_update"
            && lines
                .last()
                .is_some_and(|last| last.starts_with("message_update"))
        {
            continue;
        }
        lines.push(entry);
    }
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_mode_prints_a_header_and_every_event() {
    let dir = workspace();
    let script = Script::new()
        .turn(Turn::stream().tool_call("ls", json!({})))
        .turn(Turn::text("Two files."));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let dir_arg = dir.path().display().to_string();
    let run = run_against(
        &arbor,
        &["--mode", "json", "-C", &dir_arg],
        &mock,
        WireApi::OpenAiCompletions,
        &["what is here?"],
    )
    .await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    let header: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(header["type"], "session");
    assert_eq!(header["model"], "mock-model");
    assert_eq!(
        header["tools"],
        json!([
            "read",
            "write",
            "edit",
            "bash",
            "ls",
            "grep",
            "find",
            "js",
            "create_tool"
        ])
    );
    insta::assert_debug_snapshot!("json_mode_transcript", transcript(&run.stdout));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_mode_reads_commands_and_survives_malformed_lines() {
    let mock = MockProvider::start(Script::new().turn(Turn::text("hi there")))
        .await
        .unwrap();
    let arbor = Arbor::new();
    let args = arguments(
        &["--mode", "json", "--no-tools"],
        &mock,
        WireApi::OpenAiResponses,
        &[],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arbor
        .run_with_stdin(
            &args,
            "this is not json\n{\"type\":\"prompt\",\"message\":\"hello\"}\n",
        )
        .await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["tools"], json!([]));
    assert_eq!(lines[1]["success"], false, "{}", lines[1]);
    assert_eq!(lines[1]["code"], "invalid_command", "{}", lines[1]);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .contains("invalid command"));
    assert_eq!(lines.last().unwrap()["type"], "agent_end");
    assert!(run.stdout.contains("hi there"));
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_mode_answers_each_command_with_its_id() {
    let dir = workspace();
    let mock = MockProvider::start(Script::new().turn(Turn::text("rpc answer")))
        .await
        .unwrap();
    let arbor = Arbor::new();
    let mut command = arbor.command();
    // A catalogued thinking model behind the mock, so the thinking level set over RPC shows.
    let url = mock.url_for(WireApi::GoogleGenerativeAi);
    command.args(["--mode", "rpc", "-C"]).arg(dir.path()).args([
        "--model",
        "google/gemini-2.5-flash",
        "--base-url",
        &url,
        "--api-key",
        "k",
    ]);
    command.stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();

    let mut send = async |line: &str| {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    };
    send(r#"{"id":"a","type":"get_state"}"#).await;
    send(r#"{"id":"b","type":"set_thinking_level","level":"high"}"#).await;
    send(r#"{"id":"c","type":"prompt","message":"hello rpc"}"#).await;
    send(r#"{"id":"d","type":"bogus_command"}"#).await;

    let mut responses = std::collections::BTreeMap::new();
    let mut saw_agent_end = false;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while !(saw_agent_end && responses.len() >= 4) {
        let line = tokio::time::timeout_at(deadline, stdout.next_line())
            .await
            .expect("rpc timed out")
            .unwrap()
            .expect("stdout closed");
        let value: Value = serde_json::from_str(&line).unwrap();
        match value["type"].as_str() {
            Some("response") => {
                responses.insert(value["id"].as_str().unwrap_or("?").to_owned(), value);
            }
            Some("agent_end") => saw_agent_end = true,
            _ => {}
        }
    }
    assert_eq!(responses["a"]["command"], "get_state");
    assert_eq!(responses["a"]["data"]["model"], "gemini-2.5-flash");
    assert_eq!(responses["a"]["data"]["thinking_level"], "off");
    assert_eq!(responses["a"]["data"]["is_streaming"], false);
    // The key came from the endpoint flags (`--api-key`); the state says so, never the key.
    assert_eq!(responses["a"]["data"]["key_source"], "given");
    // One state for RPC and the desktop's chat header: the context window and cost are there too.
    assert!(responses["a"]["data"]["context_window"].as_u64().unwrap() > 0);
    assert!(responses["a"]["data"]["cost"].is_number());
    assert!(responses["a"]["data"]["pending_tool_calls"].is_array());
    assert_eq!(responses["b"]["success"], true);
    assert_eq!(responses["c"]["success"], true);
    assert_eq!(responses["d"]["success"], false);
    assert!(responses["d"]["error"]
        .as_str()
        .unwrap()
        .contains("invalid command"));

    send(r#"{"id":"e","type":"get_messages"}"#).await;
    send(r#"{"id":"f","type":"new_session"}"#).await;
    send(r#"{"id":"g","type":"get_state"}"#).await;
    drop(stdin);
    let mut rest = Vec::new();
    while let Some(line) = stdout.next_line().await.unwrap() {
        rest.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    let messages = rest.iter().find(|v| v["id"] == "e").unwrap()["data"]["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1]["role"], "assistant");
    assert!(messages[1].to_string().contains("rpc answer"));
    let after_new = rest.iter().find(|v| v["id"] == "g").unwrap();
    assert_eq!(after_new["data"]["message_count"], 0);
    assert_eq!(after_new["data"]["thinking_level"], "high");
    let status = child.wait().await.unwrap();
    assert!(status.success());
    // The thinking level set over RPC reached the provider request.
    let body = mock.requests()[0].json().clone();
    assert!(
        body["generationConfig"]["thinkingConfig"].is_object(),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_mode_reports_a_scheduled_retry() {
    let script = Script::new()
        .turn(
            Turn::http_error(503, json!({"error": {"message": "busy, try later"}}))
                .header("retry-after", "0"),
        )
        .turn(Turn::text("second time lucky"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let run = run_against(
        &arbor,
        &["--mode", "json", "--no-tools", "--no-session"],
        &mock,
        WireApi::AnthropicMessages,
        &["hi"],
    )
    .await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let retry = events
        .iter()
        .position(|e| e["type"] == "retry_scheduled")
        .expect("no retry_scheduled event");
    assert_eq!(events[retry]["attempt"], 1);
    assert_eq!(
        events[retry]["error"]["kind"], "overloaded",
        "{}",
        events[retry]
    );
    let end = events
        .iter()
        .position(|e| e["type"] == "agent_end")
        .unwrap();
    assert!(retry < end);
    assert_eq!(events[end]["status"], "completed");
    assert_eq!(mock.requests().len(), 2);
}
