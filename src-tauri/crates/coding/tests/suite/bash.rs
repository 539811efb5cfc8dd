use crate::common;

use std::time::Duration;

use arbor_agent::{ToolContext, ToolError};
use common::{text_of, TestWorkspace};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn runs_in_the_working_directory_and_reports_exit_code() {
    let ws = TestWorkspace::new();
    ws.write("here.txt", "");
    assert_eq!(
        ws.ok("bash", json!({"command": "ls; echo done"})).await,
        "here.txt\ndone\n\n[Exit code 0]"
    );
}

#[tokio::test]
async fn stdout_and_stderr_interleave_in_order() {
    let ws = TestWorkspace::new();
    assert_eq!(
        ws.ok(
            "bash",
            json!({"command": "echo 1; echo 2 >&2; echo 3; echo 4 >&2"})
        )
        .await,
        "1\n2\n3\n4\n\n[Exit code 0]"
    );
}

#[tokio::test]
async fn non_zero_exit_is_an_error_with_the_output() {
    let ws = TestWorkspace::new();
    let error = ws
        .call("bash", json!({"command": "echo oops; exit 3"}))
        .await
        .unwrap_err();
    let ToolError::RespondToModel { message, details } = error else {
        panic!("not a RespondToModel")
    };
    assert_eq!(message, "oops\n\n[Exit code 3]");
    assert_eq!(details.unwrap()["exit_code"], 3);
}

#[tokio::test]
async fn empty_output_is_said_so() {
    let ws = TestWorkspace::new();
    assert_eq!(
        ws.ok("bash", json!({"command": "true"})).await,
        "(no output)\n\n[Exit code 0]"
    );
}

#[tokio::test]
async fn output_streams_live_through_updates() {
    let ws = TestWorkspace::new();
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let context = ToolContext::new("c1", CancellationToken::new(), Some(sender));
    ws.call_with(
        "bash",
        json!({"command": "echo a; sleep 0.2; echo b"}),
        context,
    )
    .await
    .unwrap();
    let mut streamed = String::new();
    let mut chunks = 0;
    while let Ok(update) = receiver.try_recv() {
        assert_eq!(update.call_id, "c1");
        streamed.push_str(&update.output);
        chunks += 1;
    }
    assert_eq!(streamed, "a\nb\n");
    assert!(chunks >= 2, "the two lines came separately");
}

/// Whether a process with this pid is alive (and not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        })
        .unwrap_or(false)
}

async fn wait_dead(pid: u32) -> bool {
    for _ in 0..50 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn timeout_kills_the_whole_group_grandchildren_included() {
    let ws = TestWorkspace::full();
    // A grandchild (a subshell's sleep) records its pid, then everything hangs.
    let error = ws
        .call(
            "bash",
            json!({"command": "(sleep 30 & echo $! > grandchild.pid; wait) & echo started; wait", "timeout": 1}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "started\n\n[Timed out after 1 s: the command and its child processes were killed. Pass a larger timeout (at most 600) if it needs longer.]"
    );
    let pid: u32 = std::fs::read_to_string(ws.path("grandchild.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_dead(pid).await, "grandchild {pid} survived");
}

#[tokio::test]
async fn a_background_child_holding_the_pipe_does_not_hang() {
    let ws = TestWorkspace::full();
    let text = ws
        .ok(
            "bash",
            json!({"command": "sleep 5 & echo $! > bg.pid; echo foreground"}),
        )
        .await;
    assert_eq!(text, "foreground\n\n[Exit code 0]");
    // The tool returned while the background child still runs: it did not wait for the pipe.
    let pid = std::fs::read_to_string(ws.path("bg.pid")).unwrap();
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .status()
        .unwrap();
    assert!(
        alive.success(),
        "the tool only returned after the background child exited"
    );
    let _ = std::process::Command::new("kill").arg(pid.trim()).status();
}

#[tokio::test]
async fn abort_kills_the_group_and_returns_aborted() {
    let ws = TestWorkspace::full();
    let cancel = CancellationToken::new();
    let context = ToolContext::new("c", cancel.clone(), None);
    let canceller = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        })
    };
    let result = ws
        .call_with(
            "bash",
            json!({"command": "sleep 30 & echo $! > child.pid; wait"}),
            context,
        )
        .await;
    canceller.await.unwrap();
    assert_eq!(result.unwrap_err(), ToolError::Aborted);
    let pid: u32 = std::fs::read_to_string(ws.path("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_dead(pid).await, "child {pid} survived the abort");
}

#[tokio::test]
async fn long_output_keeps_the_tail_and_saves_the_full_log() {
    let ws = TestWorkspace::new();
    let text = ws.ok("bash", json!({"command": "seq 1 3000"})).await;
    let first_line = text.lines().next().unwrap();
    let prefix = "[Output cut to its last 2000 lines / 50 KiB: showing lines 1001-3000 of 3000. Full output: ";
    assert!(first_line.starts_with(prefix), "{first_line}");
    let path = first_line[prefix.len()..].split(' ').next().unwrap();
    let full = std::fs::read_to_string(path).unwrap();
    assert_eq!(full.lines().count(), 3000);
    std::fs::remove_file(path).unwrap();
    let expected_tail: String = (1001..=3000).map(|n| format!("{n}\n")).collect();
    assert!(text.ends_with(&format!("\n{}\n[Exit code 0]", expected_tail)));
}

#[tokio::test]
async fn byte_cap_applies_to_wide_output() {
    let ws = TestWorkspace::new();
    let text = ws
        .ok(
            "bash",
            json!({"command": "for i in $(seq 1 200); do printf '%0500d\\n' $i; done"}),
        )
        .await;
    // 501 bytes a line: 50 KiB holds 102 lines.
    assert!(
        text.starts_with(
            "[Output cut to its last 2000 lines / 50 KiB: showing lines 99-200 of 200."
        ),
        "{}",
        &text[..200]
    );
    let path = text
        .split("Full output: ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn details_carry_exit_code_and_duration() {
    let ws = TestWorkspace::new();
    let output = ws
        .call("bash", json!({"command": "echo hi"}))
        .await
        .unwrap();
    assert_eq!(text_of(&output), "hi\n\n[Exit code 0]");
    let details = output.details.unwrap();
    assert_eq!(details["exit_code"], 0);
    assert_eq!(details["timed_out"], false);
    assert!(details["full_output_path"].is_null());
}
