//! The adapter the official MCP conformance suite (`@modelcontextprotocol/conformance`) drives
//! as a client: `arbor-mcp-conformance-client URL`, the scenario in `MCP_CONFORMANCE_SCENARIO`.
//! It connects with Arbor's own client ([`arbor_mcp::McpHub`], the code sessions use), lists the
//! tools and calls each as the scenario expects, then exits; the suite judges what it saw.

use std::sync::Arc;
use std::time::Duration;

use arbor_mcp::{HubLimits, McpError, McpHub, ServerDefinition, Transport};
use arbor_secrets::{MemoryStore, Redactor, ToolEnvironment};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

/// Sign-ins one request may cause before the client gives up (a server that keeps refusing
/// must not loop it forever).
const SIGN_IN_ATTEMPTS: usize = 3;

/// A client registered beforehand, when the scenario's context names one: its secret or private
/// key kept in the (in-memory) keychain and named by reference, as a person's definition would.
/// The client-credentials scenarios' client is a machine client (it signs in by itself).
fn preregistered(
    keychain: &MemoryStore,
    scenario: &str,
) -> Option<arbor_mcp::definition::OAuthClient> {
    let context: Value =
        serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let client_id = context.get("client_id")?.as_str()?.to_owned();
    let kept = |key: &str, account: &str| {
        context.get(key).and_then(Value::as_str).map(|value| {
            use arbor_secrets::SecretStore;
            // A keychain entry holds no line breaks: a PEM key is kept on one line.
            if let Some(secret) = arbor_secrets::Secret::new(value.replace(['\r', '\n'], " ")) {
                let _ = keychain.set(&arbor_mcp::environment::keychain_account(account), &secret);
            }
            format!("${{keychain:{account}}}")
        })
    };
    Some(arbor_mcp::definition::OAuthClient {
        client_id,
        client_secret: kept("client_secret", "client"),
        private_key: kept("private_key_pem", "client-key"),
        signing_algorithm: context
            .get("signing_algorithm")
            .and_then(Value::as_str)
            .map(str::to_owned),
        grant: scenario
            .starts_with("auth/client-credentials")
            .then(|| arbor_mcp::definition::CLIENT_CREDENTIALS.to_owned()),
    })
}

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
    let keychain = Arc::new(MemoryStore::default());
    let hub = McpHub::new(
        keychain.clone(),
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
            oauth: preregistered(&keychain, &scenario),
        },
    };
    let server = hub.server("conformance", &definition, std::env::temp_dir());
    // The suite's authorization server consents at once: "the browser" is a GET that follows
    // its redirect back to the loopback listener, as a person's browser would.
    let open = |page: String| {
        tokio::spawn(async move {
            if let Err(error) = reqwest::get(&page).await {
                eprintln!("opening {page}: {error}");
            }
        });
    };
    // A request refused for want of a sign-in (or of scope) signs in again — with the scope
    // the server's challenge names — a few times at most.
    let signed_in = || async {
        match server.sign_in(&open, Duration::from_secs(20)).await {
            Ok(()) => true,
            Err(error) => {
                eprintln!("{scenario}: {error}");
                false
            }
        }
    };
    let mut listed = server.tools().await;
    for _ in 0..SIGN_IN_ATTEMPTS {
        if !matches!(listed, Err(McpError::NeedsAuth { .. })) || !signed_in().await {
            break;
        }
        listed = server.tools().await;
    }
    let tools = match listed {
        Ok(tools) => tools,
        Err(error) => {
            eprintln!("{scenario}: {error}");
            hub.stop_all().await;
            return std::process::ExitCode::from(1);
        }
    };
    let mut code = std::process::ExitCode::SUCCESS;
    let cancel = CancellationToken::new();
    for tool in tools {
        // A server's question mid-call is answered as a person who reads the form (pre-filled
        // with the server's defaults) and presses Accept.
        let call = || {
            server.call_asking(
                &tool.name,
                arguments_for(&tool.name),
                &cancel,
                Some(Arc::new(arbor_mcp::elicitation::AcceptDefaults)),
            )
        };
        let mut result = call().await;
        for _ in 0..SIGN_IN_ATTEMPTS {
            if !matches!(result, Err(McpError::NeedsAuth { .. })) || !signed_in().await {
                break;
            }
            result = call().await;
        }
        match result {
            Ok(value) => println!("{}: {value}", tool.name),
            Err(error) => {
                eprintln!("{}: {error}", tool.name);
                code = std::process::ExitCode::from(1);
            }
        }
    }
    hub.stop_all().await;
    code
}
