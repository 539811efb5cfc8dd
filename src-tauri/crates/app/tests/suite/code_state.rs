//! Code state in the tree against the mock provider: a scripted session edits with `edit`,
//! creates, deletes and renames files and flips a mode with `bash`; every node records what it
//! changed, going back to each node brings exactly its files back (bytes and modes), a restore
//! can be undone, ignored files and the user's own `.git` (index, refs, stash) are untouched,
//! and a file changed outside Arbor is reported instead of overwritten.
#![cfg(unix)]

use crate::live;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use arbor_app::views::branch::NodeKind;
use arbor_app::{FilesMode, LiveSession};
use arbor_coding::snapshots::ChangeStatus;
use arbor_protocol::{CodingEvent, RunStatus, SessionEvent};
use arbor_test_support::{Script, Turn};
use live::{run, Setup};
use serde_json::json;

/// Every file of the workspace except `.git`: path → (bytes, mode).
fn files(root: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut found = BTreeMap::new();
    for entry in walk(root) {
        let rel = entry
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let mode = std::fs::metadata(&entry).unwrap().permissions().mode() & 0o777;
        found.insert(rel, (std::fs::read(&entry).unwrap(), mode));
    }
    found
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() == ".git" {
            continue;
        }
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn git(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The user's repository as git sees it: refs, stash, the index file's bytes.
fn user_git_state(root: &Path) -> (String, String, Vec<u8>) {
    (
        git(root, &["show-ref"]),
        git(root, &["stash", "list"]),
        std::fs::read(root.join(".git/index")).unwrap(),
    )
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn chmod(root: &Path, path: &str, mode: u32) {
    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

fn script() -> Script {
    Script::new()
        .turn(Turn::stream().tool_call(
            "edit",
            json!({"path": "src/a.txt", "edits": [{"old_text": "two", "new_text": "TWO"}]}),
        ))
        .turn(Turn::stream().tool_call(
            "bash",
            json!({"command": "echo new > created.txt && rm gone.txt && chmod 755 run.sh \
                               && echo more >> ignored.log"}),
        ))
        .turn(Turn::stream().tool_call("bash", json!({"command": "mv old.txt renamed.txt"})))
        .turn(Turn::stream().tool_call("read", json!({"path": "renamed.txt"})))
        .turn(Turn::stream().text("Done."))
}

/// A project with a git repository of its own: a commit, a staged change and a stash entry.
fn project(root: &Path) {
    write(root, "src/a.txt", "one\ntwo\n");
    write(root, "gone.txt", "bye\n");
    write(root, "run.sh", "#!/bin/sh\necho hi\n");
    chmod(root, "run.sh", 0o644);
    write(root, "old.txt", "rename me\n");
    write(root, ".gitignore", "ignored.log\n");
    write(root, "ignored.log", "log\n");
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "init"]);
    write(root, "gone.txt", "bye for now\n");
    git(root, &["stash", "-q"]);
    write(root, "staged.txt", "staged\n");
    git(root, &["add", "staged.txt"]);
}

struct Nodes {
    user: String,
    edited: String,
    bashed: String,
    renamed: String,
    read: String,
}

/// Runs the script; the tool-result nodes in order.
async fn scripted(setup: &Setup) -> (LiveSession, Nodes) {
    let session = setup.session_with_tools("plain", &["read", "edit", "bash"]);
    assert_eq!(
        run(&session, "change the files").await,
        RunStatus::Completed
    );
    let tree = session.tree_view().unwrap();
    let user = tree
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::User)
        .unwrap();
    let results: Vec<_> = tree
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::ToolResult)
        .map(|n| n.id.clone())
        .collect();
    assert_eq!(results.len(), 4);
    let nodes = Nodes {
        user: user.id.clone(),
        edited: results[0].clone(),
        bashed: results[1].clone(),
        renamed: results[2].clone(),
        read: results[3].clone(),
    };
    (session, nodes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_node_knows_its_files_and_going_back_brings_exactly_them_back() {
    let setup = Setup::new(script()).await;
    let root = setup.project.path().to_owned();
    project(&root);
    let git_before = user_git_state(&root);

    let mut expected = Vec::new();
    let mut state = files(&root);
    expected.push(state.clone());
    state.insert("src/a.txt".into(), (b"one\nTWO\n".to_vec(), 0o644));
    expected.push(state.clone());
    state.insert("created.txt".into(), (b"new\n".to_vec(), 0o644));
    state.remove("gone.txt");
    state.get_mut("run.sh").unwrap().1 = 0o755;
    state.get_mut("ignored.log").unwrap().0 = b"log\nmore\n".to_vec();
    expected.push(state.clone());
    let moved = state.remove("old.txt").unwrap();
    state.insert("renamed.txt".into(), moved);
    expected.push(state.clone());

    let (session, nodes) = scripted(&setup).await;
    assert_eq!(files(&root), expected[3], "the script ran as planned");
    assert!(
        !setup
            .events()
            .iter()
            .any(|e| matches!(e, SessionEvent::Coding(CodingEvent::SnapshotError { .. }))),
        "no snapshot failed"
    );

    // The tree knows what each node changed; reading changes nothing.
    let tree = session.tree_view().unwrap();
    let files_of = |id: &str| {
        tree.nodes
            .iter()
            .find(|n| n.id == id)
            .unwrap()
            .files
            .clone()
    };
    assert!(
        files_of(&nodes.user).is_empty(),
        "the first state of a path"
    );
    let edited = files_of(&nodes.edited);
    assert_eq!(edited.len(), 1);
    assert_eq!(
        (
            edited[0].path.as_str(),
            edited[0].status,
            edited[0].added,
            edited[0].removed
        ),
        ("src/a.txt", ChangeStatus::Modified, 1, 1)
    );
    let bashed: Vec<_> = files_of(&nodes.bashed)
        .into_iter()
        .map(|f| (f.path, f.status))
        .collect();
    assert_eq!(
        bashed,
        [
            ("created.txt".into(), ChangeStatus::Added),
            ("gone.txt".into(), ChangeStatus::Deleted),
            ("run.sh".into(), ChangeStatus::ModeChanged),
        ],
        "bash's changes are captured like edit's; the ignored log is not"
    );
    let renamed = files_of(&nodes.renamed);
    assert_eq!(renamed.len(), 1);
    assert_eq!(renamed[0].status, ChangeStatus::Renamed);
    assert_eq!(
        (renamed[0].path.as_str(), renamed[0].old_path.as_deref()),
        ("renamed.txt", Some("old.txt"))
    );
    assert!(files_of(&nodes.read).is_empty(), "read changes nothing");

    // The diff between two nodes, with patches.
    let diff = session.diff_nodes(&nodes.user, &nodes.renamed).unwrap();
    let paths: Vec<_> = diff.files.iter().map(|f| f.change.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "created.txt",
            "gone.txt",
            "renamed.txt",
            "run.sh",
            "src/a.txt"
        ]
    );
    let patch = &diff
        .files
        .iter()
        .find(|f| f.change.path == "src/a.txt")
        .unwrap()
        .patch;
    assert!(patch.contains("-two\n+TWO\n"), "{patch}");

    // Back to each node, newest last, then to the first again: exactly its files each time,
    // the log the script appended to (ignored) kept as it is.
    let log = std::fs::read(root.join("ignored.log")).unwrap();
    for (node, want) in [
        (&nodes.user, &expected[0]),
        (&nodes.edited, &expected[1]),
        (&nodes.bashed, &expected[2]),
        (&nodes.renamed, &expected[3]),
        (&nodes.read, &expected[3]),
        (&nodes.user, &expected[0]),
    ] {
        let preview = session.preview_restore(node).unwrap();
        assert!(preview.changes.iter().all(|c| !c.changed_outside));
        session.restore_files(node, false).unwrap();
        let mut want = want.clone();
        want.insert("ignored.log".into(), (log.clone(), 0o644));
        assert_eq!(files(&root), want, "restoring {node}");
    }

    // Undo brings the files from before the last restore back; undoing again redoes.
    let undone = session.undo_restore(false).unwrap();
    assert!(undone.node_id.is_none());
    let mut at_end = expected[3].clone();
    at_end.insert("ignored.log".into(), (log.clone(), 0o644));
    assert_eq!(files(&root), at_end);
    session.undo_restore(false).unwrap();
    assert_eq!(files(&root)["src/a.txt"].0, b"one\ntwo\n");
    session.undo_restore(false).unwrap();
    assert_eq!(files(&root), at_end);

    // A file changed outside Arbor is reported and not overwritten unless asked.
    write(&root, "src/a.txt", "the user's own edit\n");
    let preview = session.preview_restore(&nodes.user).unwrap();
    let outside: Vec<_> = preview
        .changes
        .iter()
        .filter(|c| c.changed_outside)
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(outside, ["src/a.txt"]);
    let refused = session.restore_files(&nodes.user, false).unwrap_err();
    assert_eq!(refused.code(), "changed_outside");
    assert!(refused.to_string().contains("src/a.txt"), "{refused}");
    assert_eq!(
        std::fs::read(root.join("src/a.txt")).unwrap(),
        b"the user's own edit\n"
    );
    assert!(root.join("renamed.txt").exists(), "nothing was written");
    session.restore_files(&nodes.user, true).unwrap();
    assert_eq!(
        std::fs::read(root.join("src/a.txt")).unwrap(),
        b"one\ntwo\n"
    );
    // …and the user's edit is in the undo point.
    session.undo_restore(false).unwrap();
    assert_eq!(
        std::fs::read(root.join("src/a.txt")).unwrap(),
        b"the user's own edit\n"
    );

    // The user's repository never moved: refs, stash and index byte for byte.
    assert_eq!(user_git_state(&root), git_before);
    assert!(
        setup
            .app
            .data_dir()
            .join(arbor_app::SNAPSHOTS_DIR)
            .read_dir()
            .unwrap()
            .count()
            == 1,
        "one shadow repository, in the data folder"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn going_to_a_node_with_its_files_moves_both_or_neither() {
    let setup = Setup::new(script()).await;
    let root = setup.project.path().to_owned();
    project(&root);
    let start = files(&root);
    let (session, nodes) = scripted(&setup).await;

    // Conversation only: the files stay.
    let kept = session
        .navigate_with_files(&nodes.edited, FilesMode::Keep, false)
        .unwrap();
    assert!(kept.restore.is_none());
    assert!(root.join("renamed.txt").exists());

    // A bad id restores nothing.
    let error = session
        .navigate_with_files("no-such-node", FilesMode::Restore, false)
        .unwrap_err();
    assert_eq!(error.code(), "invalid_id");
    assert!(root.join("renamed.txt").exists());

    // Conversation and files.
    let moved = session
        .navigate_with_files(&nodes.user, FilesMode::Restore, false)
        .unwrap();
    assert_eq!(
        moved.navigation.leaf_id, None,
        "a user message hands its text back"
    );
    assert_eq!(
        moved.navigation.editor_text.as_deref(),
        Some("change the files")
    );
    let preview = moved.preview.unwrap();
    let planned: Vec<_> = preview
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.write))
        .collect();
    assert_eq!(
        planned,
        [
            ("created.txt", false),
            ("gone.txt", true),
            ("old.txt", true),
            ("renamed.txt", false),
            ("run.sh", true),
            ("src/a.txt", true),
        ]
    );
    let restored = moved.restore.unwrap();
    assert_eq!((restored.written, restored.deleted), (4, 2));
    let mut want = start.clone();
    want.insert("ignored.log".into(), (b"log\nmore\n".to_vec(), 0o644));
    assert_eq!(files(&root), want);

    // Changed outside: neither the files nor the conversation move.
    session
        .navigate_with_files(&nodes.renamed, FilesMode::Keep, false)
        .unwrap();
    write(&root, "old.txt", "edited by hand\n");
    let refused = session
        .navigate_with_files(&nodes.renamed, FilesMode::Restore, false)
        .unwrap_err();
    assert_eq!(refused.code(), "changed_outside");
    assert_eq!(
        std::fs::read(root.join("old.txt")).unwrap(),
        b"edited by hand\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_without_code_state_and_nothing_to_undo_say_so() {
    let setup = Setup::new(Script::new().turn(Turn::stream().text("Hi."))).await;
    let session = setup.session("plain");
    let error = session.undo_restore(false).unwrap_err();
    assert_eq!(error.code(), "nothing_to_undo");
    assert!(
        error.to_string().contains("nothing was restored"),
        "{error}"
    );
    assert_eq!(run(&session, "hello").await, RunStatus::Completed);
    // Both nodes of the turn see its first state; restoring it changes nothing.
    let tree = session.tree_view().unwrap();
    for node in &tree.nodes {
        assert!(session
            .preview_restore(&node.id)
            .unwrap()
            .changes
            .is_empty());
    }
    let error = session.preview_restore("zzzz").unwrap_err();
    assert_eq!(error.code(), "invalid_id");
}

/// The user turn's snapshot is taken beside the request it starts, not before it: a tool that
/// may change files still waits for it, so a change the first tool makes is that tool's, never
/// swallowed into the turn's own state (many files make a snapshot slower than a request).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_tool_waits_for_the_turns_snapshot_taken_beside_the_request() {
    let script = Script::new()
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": "src/0/0.txt", "content": "changed at once\n"}),
        ))
        .turn(Turn::stream().text("Done."));
    let setup = Setup::new(script).await;
    let root = setup.project.path().to_owned();
    for folder in 0..60 {
        for file in 0..50 {
            write(
                &root,
                &format!("src/{folder}/{file}.txt"),
                &format!("{folder}/{file}\n"),
            );
        }
    }
    let session = setup.session_with_tools("plain", &["write"]);
    assert_eq!(run(&session, "change one file").await, RunStatus::Completed);
    let tree = session.tree_view().unwrap();
    let written = tree
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::ToolResult)
        .unwrap();
    let changed: Vec<_> = written.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        changed,
        ["src/0/0.txt"],
        "the write is the tool's own change"
    );
    let user = tree
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::User)
        .unwrap();
    let preview = session.preview_restore(&user.id).unwrap();
    assert_eq!(
        preview.changes.len(),
        1,
        "going back to the turn undoes exactly the write: {:?}",
        preview.changes
    );
}
