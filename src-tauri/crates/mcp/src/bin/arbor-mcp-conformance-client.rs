//! The adapter the official MCP conformance suite (`@modelcontextprotocol/conformance`) drives
//! as a client: `arbor-mcp-conformance-client URL`, the scenario in `MCP_CONFORMANCE_SCENARIO`.
//! It connects with Arbor's own client ([`arbor_mcp::McpHub`], the code sessions use), lists the
//! tools and calls each as the scenario expects, then exits; the suite judges what it saw.

use std::sync::Arc;
use std::time::Duration;

use arbor_mcp::{HubLimits, McpHub, ServerDefinition, Transport};
use arbor_secrets::{MemoryStore, Redactor, ToolEnvironment};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

fn arguments_for(tool: &str) -> Map<String, Value> {
    let value = match tool {
        "add_numbers" => json!({"a": 2, "b": 3}),
        _ => json!({}),
    };
    value.as_object().cloned().unwrap_or_default()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: arbor-mcp-conformance-client URL");
        return std::process::ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let hub = McpHub::new(
        Arc::new(MemoryStore::default()),
        ToolEnvironment::default(),
        Redactor::new(),
        HubLimits {
            start: Duration::from_secs(20),
            list: Duration::from_secs(20),
            call: Duration::from_secs(20),
        },
    );
    let definition = ServerDefinition {
        name: "conformance".into(),
        transport: Transport::Http {
            url,
            headers: Default::default(),
        },
    };
    let server = hub.server("conformance", &definition, std::env::temp_dir());
    let code = match server.tools().await {
        Err(error) => {
            eprintln!("{scenario}: {error}");
            std::process::ExitCode::from(1)
        }
        Ok(tools) => {
            let mut code = std::process::ExitCode::SUCCESS;
            for tool in tools {
                let result = server
                    .call(
                        &tool.name,
                        arguments_for(&tool.name),
                        &CancellationToken::new(),
                    )
                    .await;
                match result {
                    Ok(value) => println!("{}: {value}", tool.name),
                    Err(error) => {
                        eprintln!("{}: {error}", tool.name);
                        code = std::process::ExitCode::from(1);
                    }
                }
            }
            code
        }
    };
    hub.stop_all().await;
    code
}
