//! Worktrees through the real `arbor` binary: `arbor -p --worktree NAME` works in a new
//! worktree (the project folder untouched), `arbor worktrees list`, `arbor review`, `commit`,
//! `merge`, `worktrees remove -y` (archive) and `restore`, and bad input with clear errors.
#![cfg(unix)]

use crate::support;

use std::path::Path;

use arbor_test_support::git_repo::working_repository;
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::Arbor;

fn repository(root: &Path) {
    working_repository(root, &[("notes.txt", "first\n")]).unwrap();
}

async fn arbor_in(arbor: &Arbor, dir: &Path, rest: &[&str]) -> support::Run {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

#[tokio::test]
async fn a_run_in_a_worktree_is_reviewed_committed_merged_archived_and_restored() {
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call(
                "write",
                json!({"path": "notes.txt", "content": "first\nfrom the agent\n"}),
            ))
            .turn(Turn::text("Done.")),
    )
    .await
    .unwrap();
    let arbor = Arbor::new();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);

    let mut args: Vec<String> = vec!["-p".into(), "--worktree".into(), "feature".into()];
    args.extend(support::endpoint_args(&mock, WireApi::OpenAiCompletions));
    args.push("add a line".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arbor_in(&arbor, &root, &args).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("worktree feature on arbor/feature"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "first\n"
    );

    let listed = arbor_in(&arbor, &root, &["worktrees", "list", "--json"]).await;
    assert_eq!(listed.status, 0, "{}", listed.stderr);
    let views: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(views[0]["name"], "feature");
    assert_eq!(views[0]["uncommitted"], 1);
    let path = views[0]["path"].as_str().unwrap().to_owned();
    assert_eq!(
        std::fs::read_to_string(Path::new(&path).join("notes.txt")).unwrap(),
        "first\nfrom the agent\n"
    );
    // The session is listed with the project's, and the worktree's folder knows its name.
    let sessions = arbor_in(&arbor, Path::new(&path), &["sessions", "--json"]).await;
    let sessions: Value = serde_json::from_str(&sessions.stdout).unwrap();
    assert_eq!(sessions[0]["worktree"], "feature", "{sessions}");
    // A session's id names its worktree too.
    let id = sessions[0]["id"].as_str().unwrap().to_owned();
    let by_session = arbor_in(&arbor, &root, &["review", &id[..8], "--stat"]).await;
    assert!(
        by_session.stdout.contains("notes.txt"),
        "{}",
        by_session.stderr
    );

    let review = arbor_in(&arbor, Path::new(&path), &["review", "--stat"]).await;
    assert_eq!(review.status, 0, "{}", review.stderr);
    assert!(
        review.stdout.contains("modified +1 -0  notes.txt"),
        "{}",
        review.stdout
    );
    let commit = arbor_in(&arbor, &root, &["commit", "feature", "-m", "Add a line"]).await;
    assert_eq!(commit.status, 0, "{}", commit.stderr);
    let merge = arbor_in(&arbor, &root, &["merge", "feature"]).await;
    assert_eq!(merge.status, 0, "{}", merge.stderr);
    assert!(
        merge.stdout.contains("main fast-forwarded"),
        "{}",
        merge.stdout
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "first\nfrom the agent\n"
    );

    std::fs::write(Path::new(&path).join("scratch.txt"), "unsaved\n").unwrap();
    let refused = arbor_in(&arbor, &root, &["worktrees", "remove", "feature"]).await;
    assert_eq!(refused.status, 1, "no terminal, no --yes: nothing removed");
    assert!(Path::new(&path).join("scratch.txt").exists());
    let removed = arbor_in(&arbor, &root, &["worktrees", "remove", "feature", "-y"]).await;
    assert_eq!(removed.status, 0, "{}", removed.stderr);
    assert!(removed.stdout.contains("scratch.txt"), "{}", removed.stdout);
    assert!(!Path::new(&path).exists());
    let restored = arbor_in(&arbor, &root, &["worktrees", "restore", "feature"]).await;
    assert_eq!(restored.status, 0, "{}", restored.stderr);
    assert_eq!(
        std::fs::read_to_string(Path::new(&path).join("scratch.txt")).unwrap(),
        "unsaved\n"
    );
}

#[tokio::test]
async fn bad_worktree_input_gets_clear_errors() {
    let arbor = Arbor::new();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().join("app");
    repository(&root);
    let bad = arbor_in(&arbor, &root, &["worktrees", "new", "../escape"]).await;
    assert_eq!(bad.status, 1);
    assert!(
        bad.stderr.contains("cannot name a worktree"),
        "{}",
        bad.stderr
    );
    let missing = arbor_in(&arbor, &root, &["review", "nope"]).await;
    assert_eq!(missing.status, 1);
    assert!(
        missing.stderr.contains("no worktree named `nope`"),
        "{}",
        missing.stderr
    );
    let here = arbor_in(&arbor, &root, &["merge"]).await;
    assert!(here.stderr.contains("is not a worktree"), "{}", here.stderr);
    let plain = tempfile::tempdir().unwrap();
    let not_git = arbor_in(&arbor, plain.path(), &["worktrees", "new", "x"]).await;
    assert!(
        not_git.stderr.contains("not a git repository"),
        "{}",
        not_git.stderr
    );
    let base = arbor_in(&arbor, &root, &["worktrees", "new", "x", "--base", "nope"]).await;
    assert!(
        base.stderr.contains("`nope` is not a branch"),
        "{}",
        base.stderr
    );
}
