//! `bash` and the watchdog that kills a command's process group when Arbor dies: a command that
//! finished on its own keeps its background children, and what starting a command costs.
// Reads /proc.
#![cfg(target_os = "linux")]

use crate::common;

use std::time::{Duration, Instant};

use common::TestWorkspace;
use serde_json::json;

/// `(state, process group)` of a process, from `/proc/PID/stat`; `None` once it is reaped.
fn state_and_group(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.rsplit(')').next()?.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let group = fields.nth(1)?.parse().ok()?;
    Some((state, group))
}

/// Every process (zombies included) in process group `group`.
fn members(group: u32) -> Vec<u32> {
    let mut found: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .filter(|&pid| state_and_group(pid).is_some_and(|(_, g)| g == group))
        .collect();
    found.sort_unstable();
    found
}

#[tokio::test]
async fn a_finished_commands_background_child_is_left_alone() {
    let ws = TestWorkspace::full();
    let text = ws
        .ok(
            "bash",
            json!({"command": "sleep 30 & echo $! > bg.pid; echo started"}),
        )
        .await;
    assert_eq!(text, "started\n\n[Exit code 0]");
    let pid: u32 = std::fs::read_to_string(ws.path("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Long after the watchdog was stopped: the child still runs…
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (state, group) = state_and_group(pid).expect("the background child was killed");
    assert_ne!(state, 'Z', "the background child was killed");
    // …alone in the command's group: the watchdog that led it is gone, and reaped.
    assert_eq!(members(group), vec![pid]);
    let _ = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
}

#[tokio::test]
async fn the_command_runs_in_the_group_its_watchdog_leads() {
    let ws = TestWorkspace::full();
    // While the command runs, its group holds the watchdog (the leader) and the command.
    let text = ws
        .ok(
            "bash",
            json!({"command": "read -r _ _ _ _ group _ < /proc/$$/stat; echo $group; cat /proc/$group/cmdline | tr '\\0' ' '"}),
        )
        .await;
    let mut lines = text.lines();
    let group: u32 = lines.next().unwrap().parse().unwrap();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("/bin/sh -c trap '' INT HUP QUIT TERM; read -r line; kill -KILL 0"),
        "{text}"
    );
    // Once the tool returned, nothing of the group is left.
    assert_eq!(members(group), Vec::<u32>::new());
}

/// The bash tool's round trip for `true`, averaged: a figure to compare, never an assertion.
/// Run: `cargo test -p arbor-coding --test suite -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "a measurement, not a check"]
async fn round_trip_figures() {
    let ws = TestWorkspace::new();
    for _ in 0..10 {
        ws.ok("bash", json!({"command": "true"})).await;
    }
    let runs = 200;
    let (mut tool, mut watchdog) = (Duration::ZERO, Duration::ZERO);
    // Interleaved, so load from elsewhere weighs on both figures alike.
    for _ in 0..runs {
        let started = Instant::now();
        ws.ok("bash", json!({"command": "true"})).await;
        tool += started.elapsed();
        let started = Instant::now();
        watchdog_alone().await;
        watchdog += started.elapsed();
    }
    println!(
        "bash round trip (`true`, {runs} runs): {:?} each; a watchdog alone (start, stop, \
         reap): {:?} each",
        tool / runs,
        watchdog / runs
    );
}

/// What the watchdog costs: the same `/bin/sh` started, killed and reaped.
async fn watchdog_alone() {
    let mut child = tokio::process::Command::new("/bin/sh")
        .args([
            "-c",
            "trap '' INT HUP QUIT TERM; read -r line; kill -KILL 0",
        ])
        .env_clear()
        .current_dir("/")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take();
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    drop(stdin);
}
