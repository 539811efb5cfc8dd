//! `arbor mcp serve` through the real binary: over stdio, driven by Arbor's own MCP client — a
//! prompt answered by a new session in a project (the mock provider), the stored session then
//! listed, read and found, a second prompt going on in it, and a write outside the project
//! refused because nobody can approve it —; over HTTP, refused without its bearer token; and
//! the official conformance suite's server scenarios against it (`expected-failures.yml`).

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arbor_mcp::{HubLimits, McpHub, ServerDefinition, Transport};
use arbor_secrets::{MemoryStore, Redactor, ToolEnvironment};
use arbor_test_support::{MockProvider, Script, Turn};
use serde_json::{json, Map, Value};
use support::Arbor;
use tokio_util::sync::CancellationToken;

fn hub() -> McpHub {
    McpHub::new(
        Arc::new(MemoryStore::default()),
        ToolEnvironment::default(),
        Redactor::new(),
        HubLimits {
            start: Duration::from_secs(30),
            list: Duration::from_secs(30),
            call: Duration::from_secs(60),
        },
    )
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

fn answer(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn prepare(arbor: &Arbor, mock: &MockProvider) {
    support::write_mock_provider(arbor, mock);
    std::fs::write(
        arbor.data_path().join("settings.json"),
        json!({"defaultModel": "mockai/m1"}).to_string(),
    )
    .unwrap();
}

#[tokio::test]
async fn sessions_are_started_prompted_listed_read_and_searched_over_stdio() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("planted.txt");
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::text("Hello from an Arbor session."))
            .turn(Turn::stream().tool_call("write", json!({"path": target, "content": "x"})))
            .turn(Turn::text("I could not write there.")),
    )
    .await
    .unwrap();
    let arbor = Arbor::new();
    prepare(&arbor, &mock);
    let project = tempfile::tempdir().unwrap();
    let definition = ServerDefinition {
        name: "arbor".into(),
        transport: Transport::Stdio {
            command: env!("CARGO_BIN_EXE_arbor").into(),
            args: vec!["mcp".into(), "serve".into()],
            env: [
                (
                    "ARBOR_DATA_DIR".to_owned(),
                    arbor.data_path().display().to_string(),
                ),
                ("MOCKAI_API_KEY".to_owned(), "k".to_owned()),
                (
                    "ARBOR_KEYCHAIN_SERVICE".to_owned(),
                    "arbor-test-mcp-serve".to_owned(),
                ),
            ]
            .into(),
        },
    };
    let hub = hub();
    let server = hub.server("arbor", &definition, project.path().to_owned());
    let tools = server.tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "prompt",
            "list_sessions",
            "read_session",
            "session_tree",
            "search_sessions"
        ]
    );
    let cancel = CancellationToken::new();

    let first = server
        .call(
            "prompt",
            args(json!({"project": project.path(), "text": "say hello"})),
            &cancel,
        )
        .await
        .unwrap();
    let first: Value = serde_json::from_str(&answer(&first)).unwrap();
    assert_eq!(first["answer"], "Hello from an Arbor session.");
    let id = first["session_id"].as_str().unwrap().to_owned();

    let listed = server
        .call(
            "list_sessions",
            args(json!({"project": project.path()})),
            &cancel,
        )
        .await
        .unwrap();
    assert!(answer(&listed).contains(&id), "{}", answer(&listed));
    let read = server
        .call("read_session", args(json!({"session_id": id})), &cancel)
        .await
        .unwrap();
    assert!(
        answer(&read).contains("say hello")
            && answer(&read).contains("Hello from an Arbor session.")
    );
    let tree = server
        .call("session_tree", args(json!({"session_id": id})), &cancel)
        .await
        .unwrap();
    assert!(answer(&tree).contains("\"nodes\""), "{}", answer(&tree));
    // The session is also a resource, read as Markdown.
    let resources = server.resources().await.unwrap();
    let resource = resources
        .iter()
        .find(|r| r.uri == format!("arbor://session/{id}"))
        .expect("the session is listed as a resource");
    assert_eq!(resource.mime_type.as_deref(), Some("text/markdown"));
    let text = server.read_resource(&resource.uri).await.unwrap();
    assert!(text.contains("say hello") && text.contains("Hello from an Arbor session."));
    let unknown = server
        .read_resource("file:///etc/passwd")
        .await
        .unwrap_err();
    assert!(
        unknown.to_string().contains("arbor://session/<id>"),
        "{unknown}"
    );
    let found = server
        .call("search_sessions", args(json!({"query": "hello"})), &cancel)
        .await
        .unwrap();
    assert!(answer(&found).contains(&id));

    let second = server
        .call(
            "prompt",
            args(json!({"project": project.path(), "text": "plant a file", "session_id": id})),
            &cancel,
        )
        .await
        .unwrap();
    let second: Value = serde_json::from_str(&answer(&second)).unwrap();
    assert_eq!(
        second["session_id"],
        id.as_str(),
        "the same session went on"
    );
    assert!(!target.exists(), "nothing needing approval ran unanswered");
    let requests = mock.requests();
    let refused = requests.last().unwrap().body.as_ref().unwrap()["messages"].to_string();
    assert!(
        refused.contains("say hello"),
        "the second prompt went on in the first session"
    );
    assert!(
        refused.to_lowercase().contains("permission")
            || refused.contains("refused")
            || refused.contains("denied"),
        "{refused}"
    );

    let missing = server
        .call("read_session", args(json!({"session_id": "nope"})), &cancel)
        .await;
    assert!(missing.is_err() || answer(&missing.unwrap()).contains("nope"));
    hub.stop_all().await;
}

async fn wait_for_port(port: u16) {
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("arbor mcp serve did not listen on {port}");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn over_http_a_request_without_the_token_is_refused_and_the_conformance_suite_runs() {
    let arbor = Arbor::new();
    let token = "serve-token-0123456789abcdef";
    let port = free_port();
    let mut command = arbor.command();
    command
        .args(["mcp", "serve", "--http", &port.to_string()])
        .env("ARBOR_MCP_TOKEN", token);
    let mut serve = command.spawn().unwrap();
    wait_for_port(port).await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let hub = hub();
    let without = ServerDefinition {
        name: "open".into(),
        transport: Transport::Http {
            url: url.clone(),
            headers: Default::default(),
            oauth: None,
        },
    };
    let refused = hub
        .server("open", &without, std::env::temp_dir())
        .tools()
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("sign in") || refused.to_string().contains("Auth required"),
        "{refused}"
    );
    let with = ServerDefinition {
        name: "bearer".into(),
        transport: Transport::Http {
            url: url.clone(),
            headers: [("Authorization".to_owned(), format!("Bearer {token}"))].into(),
            oauth: None,
        },
    };
    let tools = hub
        .server("bearer", &with, std::env::temp_dir())
        .tools()
        .await
        .unwrap();
    assert_eq!(tools.len(), 5);
    hub.stop_all().await;

    // The official suite's server scenarios (its fetches carry the token: `bearer.mjs`).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp-conformance");
    assert!(
        dir.join("node_modules/.bin/node").exists(),
        "run `npm ci --prefix tests/mcp-conformance`"
    );
    let run = tokio::process::Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", &url, "--expected-failures"])
        .arg(dir.join("expected-failures.yml"))
        .env(
            "NODE_OPTIONS",
            format!("--import {}", dir.join("bearer.mjs").display()),
        )
        .env("ARBOR_MCP_TOKEN", token)
        .current_dir(&dir)
        .output()
        .await
        .unwrap();
    let _ = serve.kill().await;
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}
