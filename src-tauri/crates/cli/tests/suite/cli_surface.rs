//! The parts of `arbor` that need no model: usage errors, keys, the catalogue, the mock binary.

use crate::support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use support::Arbor;

#[tokio::test]
async fn version_and_help() {
    let arbor = Arbor::new();
    let run = arbor.run(&["--version"]).await;
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stdout.trim(),
        format!("arbor {}", env!("CARGO_PKG_VERSION"))
    );
    let run = arbor.run(&["--help"]).await;
    assert_eq!(run.status, 0);
    for flag in [
        "--provider",
        "--api",
        "--model",
        "--base-url",
        "--api-key",
        "--thinking",
        "--cwd",
        "--data-dir",
    ] {
        assert!(run.stdout.contains(flag), "--help lacks {flag}");
    }
}

#[tokio::test]
async fn usage_errors_exit_2_and_say_what_is_wrong() {
    let arbor = Arbor::new();
    let cases: [(&[&str], &str); 5] = [
        (&["-p"], "-p needs a prompt"),
        (&["-p", "--thinking", "max", "x"], "max"),
        (&["-p", "--api", "carrier-pigeon", "x"], "carrier-pigeon"),
        (
            &["-p", "--provider", "nope", "x"],
            "unknown provider `nope`",
        ),
        (&["--frobnicate"], "--frobnicate"),
    ];
    for (args, wanted) in cases {
        let run = arbor.run(args).await;
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(wanted), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "");
    }
}

#[tokio::test]
async fn a_missing_key_names_the_variable_and_sends_nothing() {
    let arbor = Arbor::new();
    for (provider, variable) in [
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("openai", "OPENAI_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("groq", "GROQ_API_KEY"),
    ] {
        let run = arbor.run(&["-p", "--provider", provider, "hello"]).await;
        assert_eq!(run.status, 1, "{provider}");
        assert!(
            run.stderr.contains(variable) && run.stderr.contains("--api-key"),
            "{provider}: {}",
            run.stderr
        );
    }
}

#[tokio::test]
async fn an_unreachable_server_is_a_network_error() {
    // A port nobody listens on: bind, note it, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let arbor = Arbor::new();
    let url = format!("http://127.0.0.1:{port}/v1");
    let run = arbor
        .run(&["-p", "--provider", "ollama", "--base-url", &url, "hi"])
        .await;
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("ollama/") && run.stderr.contains("(network)"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn models_lists_the_catalogue_and_models_json() {
    let arbor = Arbor::new();
    let run = arbor.run(&["models", "--provider", "groq"]).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("llama-3.3-70b-versatile"));
    assert!(run
        .stdout
        .lines()
        .skip(1)
        .all(|line| line.starts_with("groq ")));

    std::fs::write(
        arbor.data_path().join("models.json"),
        r#"{"providers":{"lab":{"api":"openai-completions","baseUrl":"http://127.0.0.1:1/v1","models":[{"id":"lab-coder"}]}}}"#,
    )
    .unwrap();
    let run = arbor.run(&["models"]).await;
    assert!(
        run.stdout
            .lines()
            .any(|line| line.starts_with("lab ") && line.contains("lab-coder")),
        "{}",
        run.stdout
    );

    // --data-dir wins over ARBOR_DATA_DIR.
    let other = tempfile::tempdir().unwrap();
    let run = arbor
        .run(&["models", "--data-dir", other.path().to_str().unwrap()])
        .await;
    assert!(!run.stdout.contains("lab-coder"));
}

#[tokio::test]
async fn a_broken_models_json_is_reported_with_its_place() {
    let arbor = Arbor::new();
    std::fs::write(
        arbor.data_path().join("models.json"),
        "{\n  \"providers\": {\n    oops\n}",
    )
    .unwrap();
    let run = arbor.run(&["models"]).await;
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("models.json") && run.stderr.contains("line 3"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn answers_through_the_mock_provider_binary() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"turns":[{"stream":{"steps":[{"text":"Hello from the mock binary."}]}}]}"#,
    )
    .unwrap();
    let mut mock = Command::new(support::mock_provider_binary())
        .arg("--script")
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    BufReader::new(mock.stdout.take().unwrap())
        .read_line(&mut first_line)
        .unwrap();
    let base = first_line.trim().to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");

    let arbor = Arbor::new();
    let run = arbor
        .run(&[
            "-p",
            "--api",
            "anthropic-messages",
            "--base-url",
            &base,
            "--model",
            "m",
            "--api-key",
            "k",
            "hi",
        ])
        .await;
    let _ = mock.kill();
    let _ = mock.wait();
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Hello from the mock binary.\n");
}
