//! Driving `arbor --mode rpc` line by line.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::Arbor;

pub struct Rpc {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Rpc {
    /// `arbor --mode rpc --no-tools -C DIR ARGS…` with piped stdin and stdout (without
    /// `--no-tools` when ARGS name `--tools`).
    pub fn start(arbor: &Arbor, dir: &Path, args: &[String]) -> Self {
        let mut command = arbor.command();
        command.args(["--mode", "rpc"]);
        if !args.iter().any(|arg| arg == "--tools") {
            command.arg("--no-tools");
        }
        command.arg("-C").arg(dir).args(args);
        command.stdin(Stdio::piped());
        let mut child = command.spawn().unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()).lines(),
            child,
        }
    }

    /// Closes stdin, reads to the end and checks the exit status.
    pub async fn finish(mut self) {
        drop(self.stdin);
        while self.stdout.next_line().await.unwrap().is_some() {}
        assert!(self.child.wait().await.unwrap().success());
    }

    pub async fn send(&mut self, line: Value) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Reads lines until `stop` matches one; returns them all.
    pub async fn until(&mut self, stop: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        loop {
            let Ok(line) = tokio::time::timeout_at(deadline, self.stdout.next_line()).await else {
                panic!("rpc timed out; the lines read while waiting: {seen:#?}");
            };
            let line = line.unwrap().expect("stdout closed");
            let value: Value = serde_json::from_str(&line).unwrap();
            let done = stop(&value);
            seen.push(value);
            if done {
                return seen;
            }
        }
    }

    pub async fn call(&mut self, id: &str, command: Value) -> Value {
        let mut command = command;
        command["id"] = json!(id);
        self.send(command).await;
        let lines = self
            .until(|v| v["type"] == "response" && v["id"] == id)
            .await;
        lines.last().unwrap().clone()
    }
}
