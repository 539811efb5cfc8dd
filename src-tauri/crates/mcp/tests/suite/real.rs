//! Real servers nobody here wrote, installed from npm by `npm ci`.

use std::time::Duration;

use arbor_agent::{AgentTool, ToolContext};
use arbor_mcp::{McpTool, ServerDefinition, Transport};
use serde_json::json;

use super::*;

#[tokio::test]
async fn server_everything_over_stdio() {
    let hub = hub(&[], Duration::from_secs(30));
    let bin = arbor_test_support::mcp::npm_server("mcp-server-everything");
    let definition = stdio("everything", bin.to_str().unwrap(), &["stdio"], &[]);
    let server = hub.server("everything", &definition, std::env::temp_dir());
    let tools = server.tools().await.unwrap();
    let echo = tools
        .iter()
        .find(|t| t.name == "echo")
        .expect("server-everything offers echo");
    let output = McpTool::new(server.clone(), echo)
        .execute(
            args(json!({"message": "hi there"})),
            ToolContext::detached("1"),
        )
        .await
        .unwrap();
    assert!(
        text_of(&output).contains("hi there"),
        "{}",
        text_of(&output)
    );
    let image = tools
        .iter()
        .find(|t| t.name == "get-tiny-image")
        .expect("get-tiny-image");
    let output = McpTool::new(server.clone(), image)
        .execute(args(json!({})), ToolContext::detached("2"))
        .await
        .unwrap();
    assert!(output
        .content
        .iter()
        .any(|c| matches!(c, arbor_llm::UserContent::Image(_))));
    hub.stop_all().await;
}

#[tokio::test]
async fn server_everything_over_streamable_http() {
    let (mut child, port) = everything_over_http("streamableHttp").await;
    let hub = hub(&[], Duration::from_secs(30));
    let definition = ServerDefinition {
        name: "web".into(),
        transport: Transport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: Default::default(),
            oauth: None,
        },
    };
    let server = hub.server("web", &definition, std::env::temp_dir());
    let tools = server.tools().await.unwrap();
    let sum = tools.iter().find(|t| t.name == "get-sum").expect("get-sum");
    let output = McpTool::new(server.clone(), sum)
        .execute(args(json!({"a": 2, "b": 40})), ToolContext::detached("1"))
        .await
        .unwrap();
    assert!(text_of(&output).contains("42"), "{}", text_of(&output));
    hub.stop_all().await;
    let _ = child.kill().await;
}

#[tokio::test]
async fn server_filesystem_lists_and_reads_only_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("note.txt"), "from the filesystem server").unwrap();
    let hub = hub(&[], Duration::from_secs(30));
    let bin = arbor_test_support::mcp::npm_server("mcp-server-filesystem");
    let root = dir.path().canonicalize().unwrap();
    let definition = stdio("fs", bin.to_str().unwrap(), &[root.to_str().unwrap()], &[]);
    let server = hub.server("fs", &definition, root.clone());
    let tools = server.tools().await.unwrap();
    let read = tools
        .iter()
        .find(|t| t.name == "read_text_file" || t.name == "read_file")
        .expect("a read tool");
    let path = root.join("note.txt");
    let output = McpTool::new(server.clone(), read)
        .execute(args(json!({"path": path})), ToolContext::detached("1"))
        .await
        .unwrap();
    assert!(text_of(&output).contains("from the filesystem server"));
    let outside = McpTool::new(server.clone(), read)
        .execute(
            args(json!({"path": "/etc/passwd"})),
            ToolContext::detached("2"),
        )
        .await;
    assert!(
        outside.is_err(),
        "the server refuses outside its folder: {outside:?}"
    );
    hub.stop_all().await;
}

#[tokio::test]
async fn mcp_server_time_and_mcp_server_git_from_pypi() {
    let hub = hub(&[], Duration::from_secs(30));
    let time = arbor_test_support::mcp::pypi_server("mcp-server-time");
    let definition = stdio(
        "time",
        time.to_str().unwrap(),
        &["--local-timezone", "UTC"],
        &[],
    );
    let server = hub.server("time", &definition, std::env::temp_dir());
    let tools = server.tools().await.unwrap();
    let now = tools
        .iter()
        .find(|t| t.name == "get_current_time")
        .expect("get_current_time");
    let output = McpTool::new(server.clone(), now)
        .execute(args(json!({"timezone": "UTC"})), ToolContext::detached("1"))
        .await
        .unwrap();
    assert!(
        text_of(&output).contains("\"timezone\": \"UTC\""),
        "{}",
        text_of(&output)
    );

    let repo = tempfile::tempdir().unwrap();
    let root = repo.path().join("project");
    arbor_test_support::git_repo::working_repository(&root, &[("notes.txt", "first\n")]).unwrap();
    std::fs::write(root.join("notes.txt"), "first\nchanged\n").unwrap();
    let git = arbor_test_support::mcp::pypi_server("mcp-server-git");
    let definition = stdio(
        "git",
        git.to_str().unwrap(),
        &["--repository", root.to_str().unwrap()],
        &[],
    );
    let server = hub.server("git", &definition, root.clone());
    let tools = server.tools().await.unwrap();
    let status = tools
        .iter()
        .find(|t| t.name == "git_status")
        .expect("git_status");
    let output = McpTool::new(server.clone(), status)
        .execute(args(json!({"repo_path": root})), ToolContext::detached("2"))
        .await
        .unwrap();
    assert!(
        text_of(&output).contains("notes.txt"),
        "{}",
        text_of(&output)
    );
    hub.stop_all().await;
}
