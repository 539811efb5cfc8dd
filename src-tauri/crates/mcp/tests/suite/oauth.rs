//! Signing in to an HTTP server (OAuth 2.1 with PKCE and dynamic registration) against a local
//! authorization server whose tokens live two seconds (`test-support/mcp/oauth-mcp-server.mjs`):
//! the 401 asks for a sign-in, the tokens go to the keychain, a call after the token expired is
//! carried on by a refresh (no second sign-in), and another hub — a later session — reuses the
//! stored tokens.

use std::sync::Arc;
use std::time::Duration;

use arbor_mcp::{HubLimits, McpError, McpHub, ServerDefinition, ServerState, Transport};
use arbor_secrets::{MemoryStore, Redactor, SecretStore, ToolEnvironment};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use super::args;

fn hub(keychain: Arc<MemoryStore>) -> McpHub {
    McpHub::new(
        keychain,
        ToolEnvironment::default(),
        Redactor::new(),
        HubLimits {
            start: Duration::from_secs(20),
            list: Duration::from_secs(20),
            call: Duration::from_secs(20),
        },
    )
}

async fn stats(port: u16) -> Value {
    let text = reqwest::get(format!("http://127.0.0.1:{port}/stats"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn a_sign_in_keeps_its_tokens_in_the_keychain_and_a_refresh_carries_the_calls_on() {
    let script = arbor_test_support::mcp::mock_mcp_server().with_file_name("oauth-mcp-server.mjs");
    let mut child = tokio::process::Command::new("node")
        .arg(script)
        .env("MOCK_OAUTH_TTL", "2")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next_line().await.unwrap().unwrap();
    let port: u16 = first.strip_prefix("listening ").unwrap().parse().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let definition = ServerDefinition {
        name: "secured".into(),
        transport: Transport::Http {
            url: url.clone(),
            headers: Default::default(),
            oauth: None,
        },
    };
    let keychain = Arc::new(MemoryStore::default());
    let first_hub = hub(keychain.clone());
    let server = first_hub.server("secured", &definition, std::env::temp_dir());
    let refused = server.tools().await.unwrap_err();
    assert!(matches!(refused, McpError::NeedsAuth { .. }), "{refused}");
    assert_eq!(server.status().state, ServerState::NeedsAuth);

    // "The browser": a GET that follows the authorization server's redirect back to Arbor.
    let open = |page: String| {
        tokio::spawn(async move {
            let _ = reqwest::get(&page).await;
        });
    };
    server
        .sign_in(&open, Duration::from_secs(20))
        .await
        .unwrap();
    let account = arbor_mcp::oauth::credentials_account(&url);
    let kept = keychain
        .get(&account)
        .unwrap()
        .expect("the tokens are in the keychain");
    assert!(kept.expose().contains("refresh_token"));

    let cancel = CancellationToken::new();
    let tools = server.tools().await.unwrap();
    assert_eq!(tools[0].name, "echo");
    let one = server
        .call("echo", args(json!({"text": "one"})), &cancel)
        .await
        .unwrap();
    assert_eq!(one["content"][0]["text"], "one");
    // The token has expired by now: the next call refreshes it instead of failing.
    tokio::time::sleep(Duration::from_millis(2_600)).await;
    let two = server
        .call("echo", args(json!({"text": "two"})), &cancel)
        .await
        .unwrap();
    assert_eq!(two["content"][0]["text"], "two");
    let counted = stats(port).await;
    assert_eq!(counted["authorization_code"], 1, "{counted}");
    assert!(counted["refresh_token"].as_u64().unwrap() >= 1, "{counted}");
    assert_eq!(counted["calls"], 2);
    first_hub.stop_all().await;

    // A later session (another hub) goes on with the kept tokens: no second sign-in.
    tokio::time::sleep(Duration::from_millis(2_600)).await;
    let later = hub(keychain.clone());
    let again = later.server("secured", &definition, std::env::temp_dir());
    let three = again
        .call("echo", args(json!({"text": "three"})), &cancel)
        .await
        .unwrap();
    assert_eq!(three["content"][0]["text"], "three");
    assert_eq!(stats(port).await["authorization_code"], 1);
    later.stop_all().await;
}
