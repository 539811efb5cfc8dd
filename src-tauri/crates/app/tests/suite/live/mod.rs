//! A live session over the mock provider, shared by the session-API suites (`app.rs`,
//! `tree.rs`): a data folder with a priced mock model, a project folder, and every event kept.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use arbor_app::{ArborApp, LiveSession, ModelRequest, SessionConfig, SessionStart};
use arbor_llm::ThinkingLevel;
use arbor_protocol::{RunStatus, SessionEvent};
use arbor_test_support::{MockProvider, Script, WireApi};
use serde_json::json;

pub const KEY: &str = "sk-mock-secret-0123456789";

pub struct Setup {
    pub mock: MockProvider,
    pub app: ArborApp,
    pub project: tempfile::TempDir,
    _data: tempfile::TempDir,
    pub events: Arc<Mutex<Vec<SessionEvent>>>,
}

impl Setup {
    pub async fn new(script: Script) -> Self {
        let mock = MockProvider::start(script).await.unwrap();
        let data = tempfile::tempdir().unwrap();
        let models = json!({"providers": {"mock": {
            "api": "openai-completions",
            "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
            "apiKeyEnv": "MOCK_KEY",
            "models": [
                {"id": "plain", "images": false,
                 "pricing": {"input": 1.0, "output": 2.0, "cacheRead": 0, "cacheWrite": 0}},
                {"id": "vision", "images": true}
            ]
        }}});
        std::fs::write(data.path().join("models.json"), models.to_string()).unwrap();
        let app = ArborApp::open(Some(data.path()))
            .unwrap()
            .with_env(Arc::new(|name| {
                (name == "MOCK_KEY").then(|| KEY.to_owned())
            }));
        Self {
            mock,
            app,
            project: tempfile::tempdir().unwrap(),
            _data: data,
            events: Arc::default(),
        }
    }

    pub fn session(&self, model: &str) -> LiveSession {
        self.session_with_tools(model, &["read", "write"])
    }

    pub fn session_with_tools(&self, model: &str, tools: &[&str]) -> LiveSession {
        let selection = self
            .app
            .select(&ModelRequest {
                model: Some(format!("mock/{model}")),
                ..ModelRequest::default()
            })
            .unwrap();
        let config = SessionConfig {
            cwd: self.project.path().to_owned(),
            selection,
            thinking: ThinkingLevel::Off,
            tools: tools.iter().map(|name| name.to_string()).collect(),
            system_prompt: Some("You are a test agent.".into()),
            append_system_prompt: None,
            tool_environment: self.app.tool_environment(&[]),
            stream_idle_timeout: arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT,
            permissions: None,
        };
        let mut session = self
            .app
            .start_session(config, Some(SessionStart::New))
            .unwrap();
        let events = self.events.clone();
        session.attach(move |event| events.lock().unwrap().push(event.clone()));
        session
    }

    pub fn events(&self) -> Vec<SessionEvent> {
        self.events.lock().unwrap().clone()
    }
}

pub async fn run(session: &LiveSession, prompt: &str) -> RunStatus {
    let outcome = session
        .start_prompt(prompt.into(), Vec::new())
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    outcome.status
}
