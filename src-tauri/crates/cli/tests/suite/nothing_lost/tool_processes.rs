//! A `bash` command's processes die with Arbor, even when Arbor is killed with SIGKILL (no
//! chance to clean up): the command's watchdog sees Arbor's end of its pipe close and kills the
//! command's whole process group. Before, a background loop started by the model kept changing
//! the project after Arbor was gone.
// Reads /proc.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::Arbor;
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::json;

/// The processes of group `group` that still run (zombies, dead but not yet reaped by whoever
/// inherited them, do not count).
fn running_members(group: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
            let state = fields.next().unwrap_or("Z");
            let member = fields.nth(1).and_then(|g| g.parse::<u32>().ok()) == Some(group);
            member && state != "Z"
        })
        .collect()
}

/// Kills what is left of the group when the test ends, passed or not: a regression must not
/// leave a loop writing into a temp folder forever.
struct KillGroup(Option<u32>);

impl Drop for KillGroup {
    fn drop(&mut self) {
        // Never 0 or 1 (`kill -- -1` is every process there is): a group id read inside a
        // PID namespace would be one of those.
        if let Some(group) = self.0.filter(|group| *group > 1) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{group}")])
                .status();
        }
    }
}

async fn wait_for(what: &str, seconds: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {seconds} s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_arbor_kills_the_commands_background_processes() {
    let dir = tempfile::tempdir().unwrap();
    // The group id first, then a grandchild loop growing a file every 100 ms, then a long wait.
    let command = "read -r _ _ _ _ group _ < /proc/$$/stat; echo $group > group.txt; \
                   (while :; do echo x >> grow.txt; sleep 0.1; done) & sleep 60";
    let script = Script::new()
        .turn(Turn::stream().tool_call("bash", json!({"command": command, "timeout": 120})))
        .turn(Turn::text("done"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let mut run = arbor.command();
    // Unsandboxed (`full`): this trial reads the command's process group from the host's
    // `/proc`, which a sandboxed command (its own PID namespace) cannot name. The sandboxed
    // case is below.
    run.arg("-C")
        .arg(dir.path())
        .args(["--permission-mode", "full"])
        .arg("-p")
        .args(crate::support::endpoint_args(
            &mock,
            WireApi::OpenAiCompletions,
        ))
        .arg("start the loop");
    let mut child = run.spawn().unwrap();
    let grow = dir.path().join("grow.txt");
    let mut cleanup = KillGroup(None);

    wait_for("the loop started", 30, || size(&grow) > 0).await;
    let group: u32 = std::fs::read_to_string(dir.path().join("group.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    cleanup.0 = Some(group);
    assert!(!running_members(group).is_empty());

    child.start_kill().unwrap(); // SIGKILL: Arbor cleans nothing up itself.
    child.wait().await.unwrap();

    wait_for("every process of the command's group gone", 5, || {
        running_members(group).is_empty()
    })
    .await;
    // And nothing writes any more.
    let settled = size(&grow);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(size(&grow), settled, "the loop still writes");
    // `kill -0 -GROUP` finds no live process either (zombies aside, which cannot write).
    assert!(running_members(group).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_arbor_ends_a_sandboxed_commands_background_processes() {
    let dir = tempfile::tempdir().unwrap();
    let command = "(while :; do echo x >> grow.txt; sleep 0.1; done) & sleep 60";
    let script = Script::new()
        .turn(Turn::stream().tool_call("bash", json!({"command": command, "timeout": 120})))
        .turn(Turn::text("done"));
    let mock = MockProvider::start(script).await.unwrap();
    let arbor = Arbor::new();
    let mut run = arbor.command();
    run.arg("-C")
        .arg(dir.path())
        .arg("-p")
        .args(crate::support::endpoint_args(
            &mock,
            WireApi::OpenAiCompletions,
        ))
        .arg("start the loop");
    let mut child = run.spawn().unwrap();
    let grow = dir.path().join("grow.txt");
    wait_for("the loop started", 30, || size(&grow) > 0).await;
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    // The sandbox's PID namespace dies with its first process: the loop stops.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let settled = size(&grow);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(size(&grow), settled, "the sandboxed loop still writes");
}
