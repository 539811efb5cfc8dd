//! Data-loss trials through the real `arbor` binary, each with the real failure as its setup:
//! the data folder inside the project (`HOME` as the project) and a restore, two processes
//! writing one session, a data folder on a full disk, a damaged database, a read-only data
//! folder, a killed clone, tool processes outliving a `kill -9`, and the kill -9 soak.
#![cfg(unix)]

use crate::support;

mod clone;
mod data_folder;
mod interrupts;
mod soak;
mod store_failures;
mod tool_processes;
mod writers;

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::Arbor;

fn args_with(mock: &MockProvider, dir: &Path, rest: &[&str]) -> Vec<String> {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(support::endpoint_args(mock, WireApi::OpenAiCompletions));
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    all
}

async fn run(arbor: &Arbor, all: &[String]) -> support::Run {
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

async fn json_of(arbor: &Arbor, args: &[&str]) -> Value {
    let out = arbor.run(args).await;
    assert_eq!(out.status, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

async fn only_session(arbor: &Arbor, project: &Path) -> String {
    let sessions = json_of(
        arbor,
        &["-C", &project.display().to_string(), "sessions", "--json"],
    )
    .await;
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
    sessions[0]["id"].as_str().unwrap().to_owned()
}

async fn tree(arbor: &Arbor, session: &str) -> Vec<Value> {
    json_of(arbor, &["tree", session, "--json"]).await["nodes"]
        .as_array()
        .unwrap()
        .clone()
}

fn git(args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(args)
        .output()
        .unwrap()
}

fn count_files(dir: &Path) -> usize {
    walk(dir).len()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// Unmounts `dir` when dropped (a bind mount a test made).
struct Unmount(PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}
