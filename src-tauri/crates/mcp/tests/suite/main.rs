#![allow(clippy::unwrap_used, clippy::expect_used)]
//! arbor-mcp against real processes: the misbehaving mock server (crash, hang, flood, malformed
//! JSON, a 10 MB answer, a tool rewritten after approval) and real servers from npm.

mod conformance;
mod elicitation;
mod legacy_sse;
mod mock;
mod oauth;
mod real;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use arbor_mcp::{HubLimits, McpHub, ServerDefinition, ServerSlot, Transport};
use arbor_secrets::{MemoryStore, Redactor, ToolEnvironment};

/// A hub with short limits, scrubbing `scrubbed`.
pub fn hub(scrubbed: &[&str], call: Duration) -> McpHub {
    McpHub::new(
        Arc::new(MemoryStore::default()),
        ToolEnvironment::new(
            scrubbed.iter().map(|s| (*s).to_owned()),
            Vec::<String>::new(),
        ),
        Redactor::new(),
        HubLimits {
            start: Duration::from_secs(30),
            list: Duration::from_secs(10),
            call,
        },
    )
}

pub fn stdio(name: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerDefinition {
    ServerDefinition {
        name: name.into(),
        transport: Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<BTreeMap<_, _>>(),
        },
    }
}

/// The mock server under `hub`, with extra variables.
pub fn mock(hub: &McpHub, env: &[(&str, &str)]) -> Arc<ServerSlot> {
    let script = arbor_test_support::mcp::mock_mcp_server();
    let definition = stdio("mock", "node", &[script.to_str().unwrap()], env);
    hub.server("mock", &definition, std::env::temp_dir())
}

pub fn args(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    value.as_object().cloned().unwrap_or_default()
}

pub fn text_of(output: &arbor_agent::ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|c| match c {
            arbor_llm::UserContent::Text(t) => Some(t.text.clone()),
            arbor_llm::UserContent::Image(_) => None,
        })
        .collect()
}

/// server-everything from npm started in `mode` (`streamableHttp`, `sse`) on a free port, once
/// it listens: the child (killed on drop) and its port.
pub async fn everything_over_http(mode: &str) -> (tokio::process::Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bin = arbor_test_support::mcp::npm_server("mcp-server-everything");
    let child = tokio::process::Command::new(bin)
        .arg(mode)
        .env("PORT", port.to_string())
        .kill_on_drop(true)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "server-everything did not listen"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, port)
}
