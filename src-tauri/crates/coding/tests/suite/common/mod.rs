//! Helpers shared by the tool tests: a temp workspace and calling a tool with JSON arguments.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_coding::{builtin_tools, BuiltinToolOptions, Workspace};
use arbor_llm::UserContent;
use serde_json::Value;

pub struct TestWorkspace {
    pub dir: tempfile::TempDir,
    pub workspace: Workspace,
    tools: Vec<Arc<dyn AgentTool>>,
}

impl TestWorkspace {
    pub fn new() -> Self {
        Self::with_images(false)
    }

    /// Unsandboxed, no limits but the secret paths (`full` mode): for tests of the process
    /// group and special files themselves, which a sandbox would change.
    pub fn full() -> Self {
        let test = Self::new();
        test.workspace.guard().update(|policy| {
            policy.mode = arbor_protocol::views::permissions::PermissionMode::Full
        });
        test
    }

    pub fn with_images(accepts_images: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(dir.path());
        let options = BuiltinToolOptions {
            accepts_images,
            ..BuiltinToolOptions::default()
        };
        let tools = builtin_tools(&workspace, &options).unwrap();
        Self {
            dir,
            workspace,
            tools,
        }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, relative: &str, content: impl AsRef<[u8]>) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read_bytes(&self, relative: &str) -> Vec<u8> {
        std::fs::read(self.path(relative)).unwrap()
    }

    pub fn tool(&self, name: &str) -> Arc<dyn AgentTool> {
        self.tools
            .iter()
            .find(|tool| tool.spec().name == name)
            .unwrap()
            .clone()
    }

    pub async fn call(&self, name: &str, arguments: Value) -> Result<ToolOutput, ToolError> {
        self.call_with(name, arguments, ToolContext::detached("call"))
            .await
    }

    pub async fn call_with(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        self.tool(name).execute(arguments, context).await
    }

    /// The text of a successful call.
    pub async fn ok(&self, name: &str, arguments: Value) -> String {
        match self.call(name, arguments).await {
            Ok(output) => text_of(&output),
            Err(error) => panic!("{name} failed: {error}"),
        }
    }

    /// The message of a failed call.
    pub async fn err(&self, name: &str, arguments: Value) -> String {
        match self.call(name, arguments).await {
            Ok(output) => panic!("{name} succeeded: {}", text_of(&output)),
            Err(error) => error.to_string(),
        }
    }
}

pub fn text_of(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|content| match content {
            UserContent::Text(text) => Some(text.text.as_str()),
            UserContent::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("")
}
