//! Issue 24's figure: what MCP tools' schemas cost the first request of a session, with 5
//! servers of 20 tools each (about 500 tokens a tool, the size of GitHub's server's tools) —
//! offered whole, and replaced by the search tool (the default once they would take more than
//! 10 % of the context window) — beside a session without MCP. Prints the request's `tools`
//! array and its whole body in bytes and estimated tokens (bytes / 4). Run:
//! `cargo bench -p arbor-app --bench mcp_context`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arbor_app::views::mcp::{McpScope, McpServerConfig, McpTransport};
use arbor_app::{ArborApp, ModelRequest, SessionConfig, SessionStart};
use arbor_llm::ThinkingLevel;
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::json;

const SERVERS: [&str; 5] = ["alpha", "beta", "gamma", "delta", "epsilon"];

async fn first_request(
    app: &ArborApp,
    mock: &MockProvider,
    root: &std::path::Path,
) -> (usize, usize, usize) {
    let selection = app
        .select(&ModelRequest {
            model: Some("mock/m".into()),
            ..ModelRequest::default()
        })
        .unwrap();
    let config = SessionConfig {
        cwd: root.to_owned(),
        selection,
        thinking: ThinkingLevel::Off,
        tools: arbor_app::DEFAULT_TOOLS
            .iter()
            .map(|t| (*t).to_owned())
            .collect(),
        system_prompt: None,
        append_system_prompt: None,
        tool_environment: app.tool_environment(&[]),
        stream_idle_timeout: arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT,
        permissions: None,
    };
    let mut session = app.start_session(config, Some(SessionStart::New)).unwrap();
    session.attach(|_| {});
    session
        .start_prompt("hello".into(), Vec::new())
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    let request = mock.requests().last().unwrap().body.clone().unwrap();
    let tools = request["tools"].as_array().map_or(0, Vec::len);
    (
        serde_json::to_string(&request["tools"]).unwrap().len(),
        serde_json::to_string(&request).unwrap().len(),
        tools,
    )
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mock = MockProvider::start(Script::new().turn(Turn::text("a")).turn(Turn::text("b")).turn(Turn::text("c")))
            .await
            .unwrap();
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let models = json!({"providers": {"mock": {
            "api": "openai-completions", "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
            "apiKeyEnv": "MOCK_KEY", "models": [{"id": "m", "contextWindow": 200000}]}}});
        std::fs::write(data.path().join("models.json"), models.to_string()).unwrap();
        let app = ArborApp::open(Some(data.path()))
            .unwrap()
            .with_env(Arc::new(|name| (name == "MOCK_KEY").then(|| "k".to_owned())));
        let root = project.path();
        let without = first_request(&app, &mock, root).await;
        for prefix in SERVERS {
            let file = root.join(format!("{prefix}.json"));
            std::fs::write(&file, arbor_test_support::mcp::many_tools(prefix, 20).to_string()).unwrap();
            let config = McpServerConfig {
                name: prefix.into(),
                transport: McpTransport::Stdio,
                command: "node".into(),
                args: vec![arbor_test_support::mcp::mock_mcp_server().display().to_string()],
                env: [("MOCK_MCP_TOOLS".to_owned(), file.display().to_string())].into(),
                url: String::new(),
                headers: Default::default(),
                enabled: true,
                ..Default::default()
            };
            app.add_mcp_server(root, config).unwrap();
            let review = app.mcp_tools_review(root, McpScope::User, prefix).await.unwrap();
            app.approve_mcp_tools(root, McpScope::User, prefix, &review.hash).await.unwrap();
        }
        let searched = first_request(&app, &mock, root).await;
        let mut settings = app.settings();
        settings.mcp_search_at_percent = Some(100);
        app.save_settings(settings).unwrap();
        let whole = first_request(&app, &mock, root).await;
        app.stop_mcp_servers().await;
        println!("first request of a session, 5 MCP servers x 20 tools, model context 200,000 tokens");
        println!("{:<34} {:>6} {:>12} {:>12} {:>14}", "", "tools", "tools bytes", "body bytes", "body ~tokens");
        for (label, (tools_bytes, body, count)) in [
            ("no MCP server", without),
            ("MCP tools offered whole", whole),
            ("MCP search tool (default)", searched),
        ] {
            println!("{label:<34} {count:>6} {tools_bytes:>12} {body:>12} {:>14}", body / 4);
        }
        println!(
            "MCP schemas whole: {:.1} % of the context; with search: {:.1} %; the request is {:.1}x smaller",
            (whole.1 - without.1) as f64 / 4.0 / 2000.0,
            (searched.1 - without.1) as f64 / 4.0 / 2000.0,
            whole.1 as f64 / searched.1 as f64
        );
    });
}
