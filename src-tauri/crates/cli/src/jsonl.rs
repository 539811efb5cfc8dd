//! JSON lines on stdout for `--mode json` and `--mode rpc`: one writer task so events and
//! responses never interleave mid-line, and the session header.

use arbor_protocol::ErrorCode;
use std::io::Write;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use arbor_app::LiveSession;

/// Sends whole JSON lines to stdout in order.
#[derive(Clone)]
pub struct LineWriter {
    sender: mpsc::UnboundedSender<String>,
}

impl LineWriter {
    /// Starts the writer task; the returned handle finishes once every sender is dropped and
    /// everything sent has been written.
    pub fn start() -> (Self, tokio::task::JoinHandle<()>) {
        let (sender, mut receiver) = mpsc::unbounded_channel::<String>();
        let task = tokio::task::spawn_blocking(move || {
            let stdout = std::io::stdout();
            while let Some(line) = receiver.blocking_recv() {
                let mut out = stdout.lock();
                // A closed stdout (the reader went away) ends the output, not the process.
                if out
                    .write_all(line.as_bytes())
                    .and_then(|_| out.write_all(b"\n"))
                    .and_then(|_| out.flush())
                    .is_err()
                {
                    break;
                }
            }
        });
        (Self { sender }, task)
    }

    pub fn send(&self, value: &impl serde::Serialize) {
        let line = serde_json::to_string(value).unwrap_or_else(|error| {
            json!({"type": "error", "message": format!("could not serialize output: {error}")})
                .to_string()
        });
        let _ = self.sender.send(line);
    }
}

/// The first line of a JSON or RPC session.
pub fn header(session: &LiveSession) -> Value {
    let model = &session.selection().model;
    json!({
        "type": "session",
        "version": env!("CARGO_PKG_VERSION"),
        "cwd": session.workspace_root().display().to_string(),
        "provider": model.provider,
        "model": model.id,
        "api": model.api.as_str(),
        "thinking_level": session.thinking().as_str(),
        "tools": session.tool_names(),
        "session_id": session.session_id(),
    })
}

/// A reply to a line that could not be understood; the process keeps going.
pub fn parse_error(line: &str, error: &serde_json::Error) -> Value {
    let shown: String = line.chars().take(200).collect();
    json!({
        "type": "response",
        "command": Value::Null,
        "success": false,
        "code": ErrorCode::InvalidCommand,
        "error": format!("invalid command: {error}. Each line must be one JSON object such as {{\"type\":\"prompt\",\"message\":\"hi\"}}; got: {shown}"),
    })
}
