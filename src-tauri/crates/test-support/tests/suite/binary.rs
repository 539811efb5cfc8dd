//! The `arbor-mock-provider` binary: prints its URL, serves a script file, rejects bad scripts.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use arbor_test_support::RecordedRequest;
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_arbor-mock-provider");

/// Kills the child when the test ends, pass or fail.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn prints_its_url_and_serves_the_script_file() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        json!({"turns": [
            {"stream": {"steps": [{"text": "from a file"}]}},
        ]})
        .to_string(),
    )
    .unwrap();
    let mut child = Running(
        Command::new(BIN)
            .arg("--script")
            .arg(&script)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stdout = child.0.stdout.take().unwrap();
    let url = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let url = url.trim_end_matches('\n');
    assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
    assert!(!url.ends_with('/'));

    let body = reqwest::Client::new()
        .post(format!("{url}/v1/messages"))
        .json(&json!({"model": "claude", "stream": true, "messages": []}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let text: String = common::parse_sse(&body)
        .iter()
        .map(|e| e.json())
        .filter_map(|v| v["delta"]["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(text, "from a file");
    let recorded: Vec<RecordedRequest> = reqwest::get(format!("{url}/__mock/requests"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].json()["model"], "claude");
}

#[test]
fn bad_script_exits_2_naming_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.json");
    std::fs::write(&script, "{\"turns\": [\n  {\"stream\": {\"steps\": [}}\n]}").unwrap();
    let output = Command::new(BIN)
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.json"), "{stderr}");
    assert!(stderr.contains("line 2 column"), "{stderr}");
}

#[test]
fn missing_file_and_missing_flag_exit_2() {
    let output = Command::new(BIN)
        .arg("--script")
        .arg("/nonexistent/x.json")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/x.json"));
    let output = Command::new(BIN).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--script"));
}
