//! Running the real `arbor` binary with a clean environment and a private data folder.

#![allow(dead_code)]
// Test helpers panic on setup failures like the tests that call them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use arbor_test_support::{MockProvider, WireApi};

pub mod rpc;

/// Every variable a provider key could come from: removed so the host's keys never leak in.
pub const KEY_VARIABLES: [&str; 9] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "CEREBRAS_API_KEY",
];

pub struct Arbor {
    pub data_dir: tempfile::TempDir,
}

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Arbor {
    pub fn new() -> Self {
        Self {
            data_dir: tempfile::tempdir().expect("temp data dir"),
        }
    }

    pub fn data_path(&self) -> &Path {
        self.data_dir.path()
    }

    pub fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_arbor"));
        for name in KEY_VARIABLES {
            command.env_remove(name);
        }
        // A keychain service of this test's own: no test sees another's (or the user's) keys.
        let service = format!(
            "arbor-test-{}",
            self.data_dir
                .path()
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        command
            .env("ARBOR_DATA_DIR", self.data_dir.path())
            .env("ARBOR_KEYCHAIN_SERVICE", service)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    pub async fn run(&self, args: &[&str]) -> Run {
        let mut command = self.command();
        command.args(args);
        finish(command.output().await.expect("run arbor"))
    }

    pub async fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        let mut command = self.command();
        command.args(args);
        self.run_command_with_stdin(command, stdin).await
    }

    /// Runs a prepared `command` (extra variables, another folder) with `stdin`.
    pub async fn run_command_with_stdin(
        &self,
        mut command: tokio::process::Command,
        stdin: &str,
    ) -> Run {
        use tokio::io::AsyncWriteExt;
        command.stdin(Stdio::piped());
        let mut child = command.spawn().expect("spawn arbor");
        let mut pipe = child.stdin.take().expect("stdin");
        pipe.write_all(stdin.as_bytes()).await.expect("write stdin");
        drop(pipe);
        finish(child.wait_with_output().await.expect("wait for arbor"))
    }
}

pub fn finish(output: Output) -> Run {
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Writes a `models.json` with provider `mockai` (key variable `MOCKAI_API_KEY`, model `m1`)
/// speaking chat completions to `mock`.
pub fn write_mock_provider(arbor: &Arbor, mock: &MockProvider) {
    let catalog = serde_json::json!({"providers": {"mockai": {
        "api": "openai-completions",
        "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
        "apiKeyEnv": "MOCKAI_API_KEY",
        "models": [{"id": "m1"}]
    }}});
    std::fs::write(arbor.data_path().join("models.json"), catalog.to_string()).unwrap();
}

pub fn api_name(api: WireApi) -> &'static str {
    api.as_str()
}

/// The repository's provider fixtures (`tests/fixtures/providers`).
pub fn fixtures_dir() -> PathBuf {
    arbor_test_support::provider_fixtures_dir().unwrap()
}

/// The `arbor-mock-provider` binary of the test-support crate, built on demand.
pub fn mock_provider_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/debug/deps/<test> → target/debug/arbor-mock-provider
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target profile dir");
    let binary = profile_dir.join("arbor-mock-provider");
    if !binary.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = std::process::Command::new(cargo)
            .args([
                "build",
                "-p",
                "arbor-test-support",
                "--bin",
                "arbor-mock-provider",
            ])
            .status()
            .expect("build arbor-mock-provider");
        assert!(status.success(), "building arbor-mock-provider failed");
    }
    assert!(
        binary.is_file(),
        "arbor-mock-provider not found at {}",
        binary.display()
    );
    binary
}

/// `--api API --base-url URL --model mock-model --api-key k`: the mock speaking `api`.
pub fn endpoint_args(mock: &MockProvider, api: WireApi) -> Vec<String> {
    [
        "--api",
        api.as_str(),
        "--base-url",
        &mock.url_for(api),
        "--model",
        "mock-model",
        "--api-key",
        "k",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}
