//! Worktrees through the session API: two sessions at once against two mock providers, each
//! in its own worktree (each keeps only its own changes, the main checkout untouched, both
//! listed with their worktree); archive and restore byte for byte; the setup command pinned
//! by its hash, its output seen, a failure reported; commit and merge back.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor_app::permissions::{load_setup_in, PermissionOverrides};
use arbor_app::{ArborApp, LiveSession, ModelRequest, SessionConfig, SessionStart};
use arbor_llm::ThinkingLevel;
use arbor_protocol::views::worktrees::{MergeOutcome, WorktreeState};
use arbor_protocol::RunStatus;
use arbor_test_support::git_repo::working_repository;
use arbor_test_support::{MockProvider, Script, WireApi};
use serde_json::json;

/// A repository on `main` with two files, an ignored `.env` and a `.worktreeinclude`.
fn repository(root: &Path) {
    working_repository(
        root,
        &[
            ("README.md", "# project\n"),
            ("lib.txt", "one\ntwo\nthree\n"),
            (".gitignore", ".env\nbuild/\n"),
            (".worktreeinclude", ".env\n"),
        ],
    )
    .unwrap();
    std::fs::write(root.join(".env"), "API=local\n").unwrap();
}

/// Every file under `root` but `.git`: path → bytes.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap() == ".git" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

fn write_turns(path: &str, content: &str) -> Script {
    serde_json::from_value(json!({"turns": [
        {"stream": {"steps": [{"tool_call": {"id": "call_w", "name": "write",
            "arguments": {"path": path, "content": content}}}],
            "stall_after_chunks": 1, "stall_ms": 300}},
        {"stream": {"steps": [{"text": "written"}]}}
    ]}))
    .unwrap()
}

struct Two {
    app: ArborApp,
    data: tempfile::TempDir,
    _mocks: (MockProvider, MockProvider),
}

async fn two_providers() -> Two {
    let first = MockProvider::start(write_turns("from-a.txt", "agent a\n"))
        .await
        .unwrap();
    let second = MockProvider::start(write_turns("from-b.txt", "agent b\n"))
        .await
        .unwrap();
    let data = tempfile::tempdir().unwrap();
    let provider = |mock: &MockProvider| {
        json!({"api": "openai-completions", "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
               "apiKeyEnv": "MOCK_KEY", "models": [{"id": "plain"}]})
    };
    let models = json!({"providers": {"mock-a": provider(&first), "mock-b": provider(&second)}});
    std::fs::write(data.path().join("models.json"), models.to_string()).unwrap();
    let app = ArborApp::open(Some(data.path()))
        .unwrap()
        .with_env(Arc::new(|name| {
            (name == "MOCK_KEY").then(|| "sk-mock".to_owned())
        }));
    Two {
        app,
        data,
        _mocks: (first, second),
    }
}

fn session_in(app: &ArborApp, data: &Path, cwd: &Path, provider: &str) -> LiveSession {
    let selection = app
        .select(&ModelRequest {
            model: Some(format!("{provider}/plain")),
            ..ModelRequest::default()
        })
        .unwrap();
    let config = SessionConfig {
        cwd: cwd.to_owned(),
        selection,
        thinking: ThinkingLevel::Off,
        tools: vec!["read".into(), "write".into()],
        system_prompt: Some("You are a test agent.".into()),
        append_system_prompt: None,
        tool_environment: app.tool_environment(&[]),
        stream_idle_timeout: arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT,
        // The project's real permissions: Arbor's data folder is secret, its worktrees not.
        permissions: Some(load_setup_in(data, cwd, &PermissionOverrides::default()).unwrap()),
    };
    let mut session = app.start_session(config, Some(SessionStart::New)).unwrap();
    session.attach(|_| {});
    session
}

async fn run(session: &LiveSession, prompt: &str) -> RunStatus {
    session
        .start_prompt(prompt.into(), Vec::new())
        .unwrap()
        .await
        .unwrap()
        .unwrap()
        .status
}

#[tokio::test]
async fn two_sessions_work_at_once_each_in_its_own_worktree() {
    let two = two_providers().await;
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);
    let before = files(&root);
    let a = two.app.create_worktree(&root, Some("alpha"), None).unwrap();
    let b = two.app.create_worktree(&root, None, None).unwrap();
    assert_eq!(
        b.worktree.name, "agent-1",
        "a name is made up when none is given"
    );
    assert_eq!(a.worktree.branch, "arbor/alpha");
    assert_eq!(a.included, vec![".env".to_owned()]);
    let (path_a, path_b) = (
        PathBuf::from(&a.worktree.path),
        PathBuf::from(&b.worktree.path),
    );
    assert!(
        path_a.starts_with(two.data.path().join("worktrees")),
        "{}",
        path_a.display()
    );

    let session_a = session_in(&two.app, two.data.path(), &path_a, "mock-a");
    let session_b = session_in(&two.app, two.data.path(), &path_b, "mock-b");
    let (done_a, done_b) = tokio::join!(run(&session_a, "write a"), run(&session_b, "write b"));
    assert_eq!(
        (done_a, done_b),
        (RunStatus::Completed, RunStatus::Completed)
    );

    assert_eq!(
        std::fs::read_to_string(path_a.join("from-a.txt")).unwrap(),
        "agent a\n"
    );
    assert_eq!(
        std::fs::read_to_string(path_b.join("from-b.txt")).unwrap(),
        "agent b\n"
    );
    assert!(!path_a.join("from-b.txt").exists() && !path_b.join("from-a.txt").exists());
    assert_eq!(files(&root), before, "the main checkout is untouched");

    let listed = two.app.project_sessions(&root).unwrap();
    let mut worktrees: Vec<_> = listed.iter().filter_map(|s| s.worktree.clone()).collect();
    worktrees.sort();
    assert_eq!(worktrees, ["agent-1", "alpha"]);
    let views = two.app.worktrees(&root).unwrap();
    let alpha = views.iter().find(|w| w.name == "alpha").unwrap();
    assert_eq!((alpha.uncommitted, alpha.ahead), (1, 0));
    // A worktree's folder answers for its project.
    assert_eq!(two.app.worktrees(&path_a).unwrap().len(), 2);
}

#[tokio::test]
async fn an_archived_worktree_comes_back_byte_for_byte() {
    let two = two_providers().await;
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);
    let made = two.app.create_worktree(&root, Some("keep"), None).unwrap();
    let path = PathBuf::from(&made.worktree.path);
    std::fs::write(path.join("lib.txt"), "one\nTWO\nthree\n").unwrap();
    std::fs::create_dir_all(path.join("src/deep")).unwrap();
    std::fs::write(path.join("src/deep/new.rs"), "fn main() {}\n").unwrap();
    std::fs::remove_file(path.join("README.md")).unwrap();
    std::fs::create_dir_all(path.join("build")).unwrap();
    std::fs::write(path.join("build/out.bin"), vec![7u8; 4096]).unwrap();
    let mut kept = files(&path);
    kept.remove("build/out.bin");

    let preview = two.app.archive_preview(&root, "keep").unwrap();
    let mut uncommitted = preview.uncommitted.clone();
    uncommitted.sort();
    assert_eq!(uncommitted, ["README.md", "lib.txt", "src/deep/new.rs"]);
    assert!(preview.ignored_bytes >= 4096, "{preview:?}");

    let archived = two.app.archive_worktree(&root, "keep").unwrap();
    assert_eq!(archived.state, WorktreeState::Archived);
    assert!(!path.exists());
    assert_eq!(
        two.app.review_worktree(&root, "keep").unwrap_err().code(),
        "invalid_command"
    );

    let restored = two.app.restore_worktree(&root, "keep").unwrap();
    assert_eq!(restored.state, WorktreeState::Active);
    assert_eq!(files(&path), kept, "every kept file back, byte for byte");
    assert_eq!(restored.uncommitted, 3);
}

#[tokio::test]
async fn the_setup_command_runs_only_once_approved_and_is_pinned_to_its_text() {
    let two = two_providers().await;
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);
    std::fs::create_dir_all(root.join(".arbor")).unwrap();
    let config = "setup = \"echo prepared > setup-ran.txt; echo line-one; echo line-two >&2\"\n";
    std::fs::write(root.join(".arbor/worktree.toml"), config).unwrap();

    let made = two.app.create_worktree(&root, Some("setup"), None).unwrap();
    let setup = made.setup.clone().unwrap();
    assert!(!setup.approved);
    let mut lines = Vec::new();
    let refused = two
        .app
        .run_worktree_setup(&root, "setup", &mut |line| lines.push(line.to_owned()))
        .unwrap_err();
    assert_eq!(refused.code(), "permission_denied");
    let path = PathBuf::from(&made.worktree.path);
    assert!(!path.join("setup-ran.txt").exists());
    assert!(two
        .app
        .approve_worktree_setup(&root, "not-the-hash")
        .is_err());

    two.app.approve_worktree_setup(&root, &setup.hash).unwrap();
    let outcome = two
        .app
        .run_worktree_setup(&root, "setup", &mut |line| lines.push(line.to_owned()))
        .unwrap();
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(lines, ["line-one", "line-two"]);
    assert_eq!(
        std::fs::read_to_string(path.join("setup-ran.txt")).unwrap(),
        "prepared\n"
    );

    // A changed command asks again; a failing one is reported, not hidden.
    std::fs::write(
        root.join(".arbor/worktree.toml"),
        "setup = \"echo broken; exit 3\"\n",
    )
    .unwrap();
    let changed = two.app.worktree_setup(&root).unwrap().unwrap();
    assert!(!changed.approved);
    two.app
        .approve_worktree_setup(&root, &changed.hash)
        .unwrap();
    let failed = two
        .app
        .run_worktree_setup(&root, "setup", &mut |_| {})
        .unwrap();
    assert_eq!(failed.exit_code, Some(3));
    std::fs::write(root.join(".arbor/worktree.toml"), "setup = 5\n").unwrap();
    assert_eq!(
        two.app.worktree_setup(&root).unwrap_err().code(),
        "invalid_settings"
    );
}

#[tokio::test]
async fn a_worktree_is_committed_and_merged_back_into_its_base() {
    let two = two_providers().await;
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);
    let made = two
        .app
        .create_worktree(&root, Some("merge-me"), None)
        .unwrap();
    let path = PathBuf::from(&made.worktree.path);
    std::fs::write(path.join("lib.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    let review = two.app.review_worktree(&root, "merge-me").unwrap();
    assert_eq!(review.uncommitted.len(), 1);
    assert!(review.committed.is_empty());
    let commit = two
        .app
        .commit_worktree(&root, "merge-me", "Add four")
        .unwrap();
    assert_eq!(commit.files, 1);
    let review = two.app.review_worktree(&root, "merge-me").unwrap();
    assert_eq!((review.committed.len(), review.uncommitted.len()), (1, 0));
    let merged = two.app.merge_worktree(&root, "merge-me").unwrap();
    assert_eq!(
        merged,
        MergeOutcome::FastForward {
            commit: commit.commit
        }
    );
    assert_eq!(
        std::fs::read_to_string(root.join("lib.txt")).unwrap(),
        "one\ntwo\nthree\nfour\n"
    );
    assert_eq!(
        two.app
            .create_worktree(&root, Some("merge-me"), None)
            .unwrap_err()
            .code(),
        "worktree_exists"
    );
    assert_eq!(
        two.app.review_worktree(&root, "nope").unwrap_err().code(),
        "not_found"
    );
}

#[tokio::test]
async fn a_branch_of_a_conversation_continues_in_a_worktree_at_its_nodes_files() {
    let two = two_providers().await;
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);
    // A session in the main checkout writes `from-a.txt`: its tool result node saw that file.
    let session = session_in(&two.app, two.data.path(), &root, "mock-a");
    assert_eq!(run(&session, "write a").await, RunStatus::Completed);
    let session_id = session.session_id().unwrap();
    // The last answer: its code state is the write's.
    let after_write = session.tree_view().unwrap().leaf_id.unwrap();
    // The main checkout moves on: the file is deleted there.
    std::fs::remove_file(root.join("from-a.txt")).unwrap();

    let fork = two
        .app
        .fork_into_worktree(&root, &session_id, &after_write, Some("carry-on"))
        .unwrap();
    let path = PathBuf::from(&fork.created.worktree.path);
    assert_eq!(
        std::fs::read_to_string(path.join("from-a.txt")).unwrap(),
        "agent a\n",
        "the worktree has the node's files"
    );
    assert_eq!(
        std::fs::read_to_string(path.join(".env")).unwrap(),
        "API=local\n"
    );
    assert!(
        !root.join("from-a.txt").exists(),
        "the main checkout is left as it is"
    );
    assert_eq!(
        two.app
            .session_worktree(&fork.session_id)
            .unwrap()
            .as_deref(),
        Some("carry-on")
    );
    let listed = two.app.project_sessions(&root).unwrap();
    let forked = listed.iter().find(|s| s.id == fork.session_id).unwrap();
    assert_eq!(forked.worktree.as_deref(), Some("carry-on"));
    assert!(
        forked.message_count >= 2,
        "the branch's messages came along"
    );
}
