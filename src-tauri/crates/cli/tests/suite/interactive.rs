//! The interactive mode in a real terminal: `arbor` runs inside tmux against the mock provider;
//! keys are sent with `send-keys` and the screen is read with `capture-pane`.

use std::process::Command;
use std::time::{Duration, Instant};

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::json;

struct Tmux {
    session: String,
}

impl Tmux {
    /// Runs `program ARGS…` as the pane's only process (`exec`: a shell in between would die of
    /// the Ctrl+C the test sends), keeping the pane after it exits to read its status.
    fn start(cwd: &std::path::Path, env: (&str, &str), program: &str, args: &[String]) -> Self {
        let session = format!("arbor-test-{}-{}", std::process::id(), rand_suffix());
        let command = std::iter::once(program.to_owned())
            .chain(args.iter().cloned())
            .map(|word| format!("'{}'", word.replace('\'', "'\\''")))
            .collect::<Vec<_>>()
            .join(" ");
        let status = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                &session,
                "-x",
                "120",
                "-y",
                "40",
                "-c",
            ])
            .arg(cwd)
            .args(["-e", &format!("{}={}", env.0, env.1)])
            .arg(format!("exec {command}"))
            .status()
            .expect("tmux is needed for this test (scripts/setup.sh installs it)");
        assert!(status.success(), "tmux new-session failed");
        let status = Command::new("tmux")
            .args(["set-option", "-t", &session, "remain-on-exit", "on"])
            .status()
            .unwrap();
        assert!(status.success());
        Self { session }
    }

    /// `Some(status)` once the program has exited; the status is `None` when tmux does not
    /// report it (tmux 3.3 sometimes leaves `pane_dead_status` empty).
    fn exit_status(&self) -> Option<Option<i32>> {
        let output = Command::new("tmux")
            .args([
                "display-message",
                "-p",
                "-t",
                &self.session,
                "#{pane_dead} #{pane_dead_status}",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        let mut parts = text.split_whitespace();
        match parts.next() {
            Some("1") => Some(parts.next().and_then(|s| s.parse().ok())),
            _ => None,
        }
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.session])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn screen(&self) -> String {
        let output = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.session])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen contains `text`, or fails showing the screen.
    fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.session])
            .status();
    }
}

/// `arbor` in a tmux pane in `dir`, on the mock provider's `api` endpoint, with a fresh data
/// folder (kept alive by the second value).
fn start_arbor(
    dir: &std::path::Path,
    mock: &MockProvider,
    api: WireApi,
) -> (Tmux, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    let args: Vec<String> = [
        "--api",
        api.as_str(),
        "--base-url",
        &mock.url_for(api),
        "--model",
        "m",
        "--api-key",
        "k",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let data_path = data.path().display().to_string();
    let tmux = Tmux::start(
        dir,
        ("ARBOR_DATA_DIR", &data_path),
        env!("CARGO_BIN_EXE_arbor"),
        &args,
    );
    (tmux, data)
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
        % 1_000_000
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_with_a_tool_a_spinner_and_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello from the notes\n").unwrap();
    let script = Script::new()
        .turn(
            Turn::stream()
                .text("Checking.")
                .tool_call("bash", json!({"command": "cat notes.txt"}))
                .delay_ms(300),
        )
        .turn(Turn::text("The notes say hello."))
        .turn(Turn::text("SUMMARY-TMUX"))
        .turn(
            Turn::stream()
                .text("word ".repeat(100))
                .chunk_size(5)
                .delay_ms(300),
        );
    let mock = MockProvider::start(script).await.unwrap();
    let (tmux, _data) = start_arbor(dir.path(), &mock, WireApi::AnthropicMessages);
    tmux.wait_for("/help for commands");

    tmux.keys(&["what do the notes say?", "Enter"]);
    // The spinner shows while the first delta is on its way (300 ms per event).
    tmux.wait_for("waiting for m");
    let screen = tmux.wait_for("The notes say hello.");
    assert!(screen.contains("● bash cat notes.txt"), "{screen}");
    assert!(
        screen.contains("hello from the notes"),
        "live bash output missing:\n{screen}"
    );
    tmux.wait_for("tokens:");

    tmux.keys(&["/help", "Enter"]);
    tmux.wait_for("/thinking [LEVEL]");

    // Compaction on demand, then an export of the tree with the compaction node in it.
    tmux.keys(&["/compact the notes", "Enter"]);
    tmux.wait_for("compacted: about");
    assert!(mock.requests()[2]
        .body_text
        .contains("Focus especially on: the notes"));
    tmux.keys(&["/export jsonl out.jsonl", "Enter"]);
    tmux.wait_for("(exported to out.jsonl)");
    let exported = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    assert!(exported.contains("SUMMARY-TMUX"), "{exported}");

    // Ctrl+C during a run aborts it and keeps the program running.
    tmux.keys(&["talk for a while", "Enter"]);
    tmux.wait_for("word word");
    tmux.keys(&["C-c"]);
    tmux.wait_for("(aborted)");
    tmux.keys(&["/thinking", "Enter"]);
    tmux.wait_for("thinking: off");
    tmux.keys(&["/plan", "Enter"]);
    tmux.wait_for("(plan mode: read-only;");
    tmux.keys(&["/plan", "Enter"]);
    tmux.wait_for("(plan mode off");

    // Ctrl+C twice when idle leaves, with status 0.
    tmux.keys(&["C-c"]);
    tmux.wait_for("press Ctrl+C again");
    tmux.keys(&["C-c"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = tmux.exit_status() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "arbor did not exit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(matches!(status, None | Some(0)), "exit status {status:?}");
    assert_eq!(mock.requests().len(), 4);
}

/// A permission request at the terminal: the request in full with how to answer, `/yes` lets
/// the write happen, `/no REASON` refuses the next one and the model reads the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_is_answered_at_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let first = outside.path().join("first.txt");
    let second = outside.path().join("second.txt");
    let script = Script::new()
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": first.display().to_string(), "content": "yes"}),
        ))
        .turn(Turn::text("Wrote the first."))
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": second.display().to_string(), "content": "no"}),
        ))
        .turn(Turn::text("Left the second alone."));
    let mock = MockProvider::start(script).await.unwrap();
    let (tmux, _data) = start_arbor(dir.path(), &mock, WireApi::OpenAiCompletions);
    tmux.wait_for("/help for commands");
    tmux.keys(&["write the first", "Enter"]);
    let screen = tmux.wait_for("Answer: /yes");
    assert!(
        screen.contains("permission needed (workspace mode)"),
        "{screen}"
    );
    assert!(screen.contains("outside the project"), "{screen}");
    tmux.keys(&["/yes", "Enter"]);
    tmux.wait_for("Wrote the first.");
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "yes");
    tmux.keys(&["write the second", "Enter"]);
    tmux.wait_for("second.txt: outside the project");
    tmux.keys(&["/no keep it", "Enter"]);
    tmux.wait_for("Left the second alone.");
    assert!(!second.exists(), "denied, yet written");
    let told = mock
        .requests()
        .iter()
        .any(|r| r.body_text.contains("the user denied this") && r.body_text.contains("keep it"));
    assert!(told, "the reason did not reach the model");
    tmux.keys(&["/quit", "Enter"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_prompt_is_filled_sent_and_its_tool_call_asked_with_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(Turn::text("Sunny."))
        .turn(
            Turn::stream().tool_call("mcp__everything__echo", json!({"message": "from the pane"})),
        )
        .turn(Turn::text("Echoed."));
    let mock = MockProvider::start(script).await.unwrap();
    let (tmux, data) = start_arbor(dir.path(), &mock, WireApi::OpenAiCompletions);
    tmux.wait_for("/help for commands");
    // The server is added and its tools approved in the data folder the pane uses.
    let app = arbor_app::ArborApp::open(Some(data.path())).unwrap();
    let everything = arbor_test_support::mcp::npm_server("mcp-server-everything");
    app.add_mcp_server(
        dir.path(),
        arbor_app::views::mcp::McpServerConfig {
            name: "everything".into(),
            command: everything.display().to_string(),
            args: vec!["stdio".into()],
            enabled: true,
            ..Default::default()
        },
    )
    .unwrap();
    let scope = arbor_app::views::mcp::McpScope::User;
    let review = app
        .mcp_tools_review(dir.path(), scope, "everything")
        .await
        .unwrap();
    app.approve_mcp_tools(dir.path(), scope, "everything", &review.hash)
        .await
        .unwrap();
    app.stop_mcp_servers().await;

    tmux.keys(&["/everything:args-prompt city=Lyon", "Enter"]);
    tmux.wait_for("What's weather in Lyon?");
    tmux.wait_for("Sunny.");
    assert!(mock.requests()[0]
        .body_text
        .contains("What's weather in Lyon?"));
    tmux.keys(&["/everything:args-prompt town", "Enter"]);
    tmux.wait_for("takes NAME=VALUE arguments");

    tmux.keys(&["echo something", "Enter"]);
    let screen = tmux.wait_for("Answer: /yes");
    assert!(
        screen.contains("\"message\": \"from the pane\""),
        "{screen}"
    );
    tmux.keys(&["/yes", "Enter"]);
    tmux.wait_for("Echoed.");
    assert!(mock
        .requests()
        .last()
        .unwrap()
        .body_text
        .contains("from the pane"));
    tmux.keys(&["/quit", "Enter"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_servers_question_is_answered_at_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(Turn::stream().tool_call("mcp__mock__ask", json!({"question": "Who are you?"})))
        .turn(Turn::text("Nice to meet you."));
    let mock = MockProvider::start(script).await.unwrap();
    let (tmux, data) = start_arbor(dir.path(), &mock, WireApi::OpenAiCompletions);
    tmux.wait_for("/help for commands");
    let app = arbor_app::ArborApp::open(Some(data.path())).unwrap();
    app.add_mcp_server(
        dir.path(),
        arbor_app::views::mcp::McpServerConfig {
            name: "mock".into(),
            command: "node".into(),
            args: vec![arbor_test_support::mcp::mock_mcp_server()
                .display()
                .to_string()],
            enabled: true,
            ..Default::default()
        },
    )
    .unwrap();
    let scope = arbor_app::views::mcp::McpScope::User;
    let review = app
        .mcp_tools_review(dir.path(), scope, "mock")
        .await
        .unwrap();
    app.approve_mcp_tools(dir.path(), scope, "mock", &review.hash)
        .await
        .unwrap();
    app.stop_mcp_servers().await;

    tmux.keys(&["ask me", "Enter"]);
    tmux.wait_for("Answer: /yes");
    tmux.keys(&["/yes", "Enter"]);
    let screen = tmux.wait_for("Answer: /accept");
    assert!(screen.contains("MCP server mock asks"), "{screen}");
    assert!(screen.contains("Who are you?"), "{screen}");
    assert!(screen.contains("age (whole number) required"), "{screen}");
    assert!(screen.contains("[default \"Ada\"]"), "{screen}");
    assert!(screen.contains("red = Red, green = Green"), "{screen}");
    tmux.keys(&["/accept age=old", "Enter"]);
    tmux.wait_for("age: \"old\" is not a whole number; answer again");
    tmux.keys(&["/accept age=36 'name=Grace Hopper' colour=green", "Enter"]);
    tmux.wait_for("Nice to meet you.");
    let told = mock
        .requests()
        .last()
        .unwrap()
        .body_text
        .replace("\\\"", "\"");
    assert!(
        told.contains(r#""content":{"age":36,"colour":"green","name":"Grace Hopper"}"#),
        "{told}"
    );
    tmux.keys(&["/quit", "Enter"]);
}
