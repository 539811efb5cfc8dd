//! No key where a tool or a file can see it. A model runs `env`, echoes the key variables, reads
//! a `.env` that holds the key and prints enough output to spill to a file; then every file the
//! CLI wrote (data folder, temporary folder, exports), its output, and what was sent back to the
//! model are searched for every key the run knew.

use crate::support;

use std::path::Path;

use arbor_test_support::{MockProvider, Script, Turn};
use serde_json::json;
use support::{write_mock_provider, Arbor};

/// The key the session uses (kept in the keychain).
const KEYCHAIN_KEY: &str = "sk-mockai-kept-3f9c2d7e81a4";
/// Another provider's key, in the environment as a user's shell would have it.
const ENV_KEY: &str = "sk-openai-env-5b7e19c4d2aa";
/// A key variable passed through to tools on purpose (`--pass-env`).
const PASSED_KEY: &str = "gsk-groq-passed-8d1e6f0b3c";

/// The `.env` first and 2,500 lines, so the full output spills to a file that holds the key;
/// then the environment, which the model sees.
const COMMAND: &str = "cat .env; seq 1 2500; env; \
    echo \"mockai=[$MOCKAI_API_KEY] openai=[$OPENAI_API_KEY] copy=[$MY_COPY]\"; \
    test -n \"$GROQ_API_KEY\" && echo groq-visible; cat .env";

/// Every file under `dir` that holds any of `needles`, with the needle found.
fn files_containing(dir: &Path, needles: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in walk(dir) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        for needle in needles {
            if text.contains(needle) {
                found.push(format!("{} holds {needle}", entry.display()));
            }
        }
    }
    found
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_reach_no_tool_no_file_no_export_and_no_output() {
    let arbor = Arbor::new();
    let script = Script::new()
        .turn(
            Turn::stream()
                .tool_call("bash", json!({"command": COMMAND}))
                .tool_call("read", json!({"path": ".env"})),
        )
        .turn(Turn::text("Checked."))
        .require_api_key(KEYCHAIN_KEY);
    let mock = MockProvider::start(script).await.unwrap();
    write_mock_provider(&arbor, &mock);
    let set = arbor
        .run_with_stdin(&["auth", "set", "mockai"], KEYCHAIN_KEY)
        .await;
    assert_eq!(set.status, 0, "{}", set.stderr);

    let project = tempfile::tempdir().unwrap();
    // The user's own file: it holds the key, and the model reads it.
    std::fs::write(
        project.path().join(".env"),
        format!("MOCKAI_API_KEY={KEYCHAIN_KEY}\n"),
    )
    .unwrap();
    let temp = tempfile::tempdir().unwrap();
    let mut command = arbor.command();
    command
        .env("OPENAI_API_KEY", ENV_KEY)
        .env("MY_COPY", ENV_KEY)
        .env("GROQ_API_KEY", PASSED_KEY)
        .env("TMPDIR", temp.path())
        .args(["-C", project.path().to_str().unwrap()])
        .args([
            "--mode",
            "json",
            "--model",
            "mockai/m1",
            "--pass-env",
            "GROQ_API_KEY",
        ])
        .arg("check the environment");
    let run = arbor.run_command_with_stdin(command, "").await;
    assert_eq!(run.status, 0, "{}", run.stderr);

    // What went back to the model: the variables were withheld, the passed one was not, and
    // the key read from the file was redacted.
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let sent = &requests[1].body_text;
    let tail = &sent[sent.len().saturating_sub(4000)..];
    assert!(sent.contains("mockai=[] openai=[] copy=[]"), "…{tail}");
    assert!(sent.contains("groq-visible"), "…{tail}");
    assert!(sent.contains("MOCKAI_API_KEY=[redacted]"), "…{tail}");
    assert!(
        !sent.contains("OPENAI_API_KEY="),
        "env printed a withheld variable"
    );
    let keys = [KEYCHAIN_KEY, ENV_KEY, PASSED_KEY];
    for key in keys {
        assert!(!sent.contains(key), "the model was sent {key}");
        assert!(!run.stdout.contains(key), "the event stream holds {key}");
        assert!(!run.stderr.contains(key), "stderr holds {key}");
    }
    // The bash output was long enough to be saved to a file; it is there, without keys.
    let saved = walk(temp.path());
    let log = saved
        .iter()
        .find(|p| p.to_string_lossy().contains("arbor-bash-"))
        .unwrap_or_else(|| panic!("no saved output in {saved:?}"));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.starts_with("MOCKAI_API_KEY=[redacted]\n1\n2\n"),
        "{}",
        &log[..80]
    );

    let listed = arbor
        .run(&["-C", project.path().to_str().unwrap(), "sessions", "--json"])
        .await;
    let sessions: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let id = sessions[0]["id"].as_str().unwrap().to_owned();
    let exports = tempfile::tempdir().unwrap();
    for format in ["markdown", "jsonl", "html"] {
        let file = exports.path().join(format!("session.{format}"));
        let export = arbor
            .run(&[
                "export",
                &id,
                "--format",
                format,
                "-o",
                file.to_str().unwrap(),
            ])
            .await;
        assert_eq!(export.status, 0, "{}", export.stderr);
        assert!(file.metadata().unwrap().len() > 0);
    }

    let mut leaks = files_containing(arbor.data_path(), &keys);
    leaks.extend(files_containing(temp.path(), &keys));
    leaks.extend(files_containing(exports.path(), &keys));
    // The project holds the user's .env and nothing else the run wrote with a key.
    leaks.extend(
        files_containing(project.path(), &keys)
            .into_iter()
            .filter(|leak| !leak.contains("/.env holds")),
    );
    assert!(leaks.is_empty(), "keys written to disk: {leaks:#?}");
    // The data folder really was searched: it holds the session.
    assert!(walk(arbor.data_path()).len() >= 2);
    arbor.run(&["auth", "remove", "mockai"]).await;
}
