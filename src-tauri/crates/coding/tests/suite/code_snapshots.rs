//! Snapshots of real folders in a real shadow repository: unchanged states share an id, changes
//! are counted, going back restores every byte, mode and link (edits, creations, deletions,
//! renames), a restore can be undone, ignored files, oversized files and the user's own `.git`
//! are never touched, and a file changed outside Arbor is reported instead of overwritten.

use std::collections::BTreeMap;
use std::path::Path;

use arbor_coding::snapshots::{ChangeStatus, SnapshotOptions, Snapshots};

/// Every entry under `root` (`.git` included when asked): path → (kind, bytes or link, mode).
fn state(root: &Path, with_git: bool) -> BTreeMap<String, (char, Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !with_git && (rel == ".git" || rel.starts_with(".git/")) {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, ('l', target.to_string_lossy().as_bytes().to_vec(), 0));
            } else if meta.is_dir() {
                out.insert(rel, ('d', Vec::new(), 0));
                stack.push(path);
            } else {
                let mode = meta.permissions().mode() & 0o111;
                out.insert(rel, ('f', std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    out
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn chmod(root: &Path, path: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

struct Fixture {
    _data: tempfile::TempDir,
    workspace: tempfile::TempDir,
    snapshots: Snapshots,
}

fn fixture(options: SnapshotOptions, files: &[(&str, &str)]) -> Fixture {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    for (path, text) in files {
        write(workspace.path(), path, text);
    }
    let snapshots = Snapshots::open(
        &data.path().join("snapshots/project.git"),
        workspace.path(),
        options,
    )
    .unwrap();
    Fixture {
        _data: data,
        workspace,
        snapshots,
    }
}

#[test]
fn an_unchanged_workspace_keeps_its_id_and_changes_are_counted() {
    let mut fx = fixture(
        SnapshotOptions::default(),
        &[("src/a.rs", "one\ntwo\nthree\n"), ("README.md", "# hi\n")],
    );
    let first = fx.snapshots.take().unwrap();
    assert_eq!(fx.snapshots.take().unwrap(), first);
    let added = fx.snapshots.changes(None, &first).unwrap();
    let paths: Vec<_> = added.iter().map(|c| (c.path.as_str(), c.status)).collect();
    assert_eq!(
        paths,
        [
            ("README.md", ChangeStatus::Added),
            ("src/a.rs", ChangeStatus::Added)
        ]
    );

    write(
        fx.workspace.path(),
        "src/a.rs",
        "one\n2\nthree\nfour\nfive\n",
    );
    let second = fx.snapshots.take().unwrap();
    assert_ne!(second, first);
    let changes = fx.snapshots.changes(Some(&first), &second).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, "src/a.rs");
    assert_eq!(changes[0].status, ChangeStatus::Modified);
    assert_eq!((changes[0].added, changes[0].removed), (3, 1));
    let patch = fx.snapshots.unified_diff(Some(&first), &second).unwrap();
    assert!(patch.contains("-two\n+2\n"), "{patch}");

    // Back to the first content: the same state, the same id.
    write(fx.workspace.path(), "src/a.rs", "one\ntwo\nthree\n");
    assert_eq!(fx.snapshots.take().unwrap(), first);
}

#[test]
fn going_back_restores_every_byte_mode_and_link_and_the_restore_can_be_undone() {
    let mut fx = fixture(
        SnapshotOptions::default(),
        &[
            ("a.txt", "alpha\n"),
            ("dir/b.txt", "beta\n"),
            ("script.sh", "#!/bin/sh\necho hi\n"),
        ],
    );
    let root = fx.workspace.path().to_owned();
    chmod(&root, "script.sh", 0o755);
    std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
    let before = fx.snapshots.take().unwrap();
    let state_before = state(&root, false);

    // What an agent does: edit, create, delete (its folder goes too), rename, chmod, relink.
    write(&root, "a.txt", "alpha, edited\n");
    write(&root, "new/deep/c.txt", "gamma\n");
    std::fs::remove_file(root.join("dir/b.txt")).unwrap();
    std::fs::remove_dir(root.join("dir")).unwrap();
    std::fs::create_dir_all(root.join("tools")).unwrap();
    std::fs::rename(root.join("script.sh"), root.join("tools/run.sh")).unwrap();
    chmod(&root, "a.txt", 0o755);
    std::fs::remove_file(root.join("link")).unwrap();
    std::os::unix::fs::symlink("new/deep/c.txt", root.join("link")).unwrap();
    let after = fx.snapshots.take().unwrap();
    let state_after = state(&root, false);
    // Only the changed folders were written again: a fresh scan of everything agrees.
    let mut fresh = Snapshots::open(
        &fx._data.path().join("snapshots/fresh.git"),
        &root,
        SnapshotOptions::default(),
    )
    .unwrap();
    assert_eq!(fresh.take().unwrap(), after);
    let renamed = fx.snapshots.changes(Some(&before), &after).unwrap();
    assert!(
        renamed.iter().any(|c| c.status == ChangeStatus::Renamed
            && c.path == "tools/run.sh"
            && c.old_path.as_deref() == Some("script.sh")),
        "{renamed:?}"
    );

    let plan = fx.snapshots.preview_restore(&before, Some(&after)).unwrap();
    assert_eq!(plan.present, after);
    assert!(plan.changed_outside().is_empty());
    let planned: Vec<_> = plan
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.write))
        .collect();
    assert_eq!(
        planned,
        [
            ("a.txt", true),
            ("dir/b.txt", true),
            ("link", true),
            ("new/deep/c.txt", false),
            ("script.sh", true),
            ("tools/run.sh", false),
        ]
    );
    // The preview wrote nothing.
    assert_eq!(state(&root, false), state_after);

    let outcome = fx.snapshots.restore(&before, Some(&after), false).unwrap();
    assert_eq!(outcome.restored, before);
    assert_eq!(outcome.undo, after);
    assert_eq!((outcome.written, outcome.deleted), (4, 2));
    assert_eq!(
        state(&root, false),
        state_before,
        "every byte, mode and link"
    );

    // Undo restore: back to where the agent had left it.
    let undone = fx
        .snapshots
        .restore(&outcome.undo, Some(&before), false)
        .unwrap();
    assert_eq!(undone.restored, after);
    assert_eq!(state(&root, false), state_after);
}

/// A path that turns from a file into a folder, and back: the restore writes it and records the
/// state it wrote (the target itself), both ways, and the undo point works.
#[test]
fn a_file_that_became_a_folder_and_back_is_restored_and_recorded() {
    let mut fx = fixture(
        SnapshotOptions::default(),
        &[("a", "a file\n"), ("keep.txt", "k\n")],
    );
    let root = fx.workspace.path().to_owned();
    let as_file = fx.snapshots.take().unwrap();
    std::fs::remove_file(root.join("a")).unwrap();
    write(&root, "a/b.txt", "inside a folder\n");
    let as_folder = fx.snapshots.take().unwrap();

    // Folder → file.
    let back = fx
        .snapshots
        .restore(&as_file, Some(&as_folder), false)
        .unwrap();
    assert_eq!(back.restored, as_file);
    assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "a file\n");
    assert_eq!(
        fx.snapshots.take().unwrap(),
        as_file,
        "what was recorded is what is there"
    );

    // File → folder.
    let again = fx
        .snapshots
        .restore(&as_folder, Some(&as_file), false)
        .unwrap();
    assert_eq!(again.restored, as_folder);
    assert_eq!(
        std::fs::read_to_string(root.join("a/b.txt")).unwrap(),
        "inside a folder\n"
    );
    assert_eq!(fx.snapshots.take().unwrap(), as_folder);
    assert_eq!(
        std::fs::read_to_string(root.join("keep.txt")).unwrap(),
        "k\n"
    );
}

#[test]
fn ignored_and_oversized_files_and_the_users_git_are_never_touched() {
    let mut fx = fixture(
        SnapshotOptions {
            max_file_bytes: 1_000,
            extra_ignores: vec!["*.tmp".into()],
            ..SnapshotOptions::default()
        },
        &[
            (".gitignore", "target/\n*.log\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("target/out.bin", "built\n"),
            ("debug.log", "log 1\n"),
            ("scratch.tmp", "tmp 1\n"),
        ],
    );
    let root = fx.workspace.path().to_owned();
    write(&root, "big.dat", &"x".repeat(2_000));
    // The user's own repository: a commit, a stash, an index with a staged change.
    let mut repo = git2::Repository::init(&root).unwrap();
    let signature = git2::Signature::now("User", "user@example.com").unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("src/main.rs")).unwrap();
    index.add_path(Path::new(".gitignore")).unwrap();
    index.write().unwrap();
    {
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        repo.commit(Some("HEAD"), &signature, &signature, "first", &tree, &[])
            .unwrap();
    }
    write(
        &root,
        "src/main.rs",
        "fn main() { println!(\"stashed\"); }\n",
    );
    repo.stash_save(&signature, "work in progress", None)
        .unwrap();
    write(
        &root,
        "src/main.rs",
        "fn main() { println!(\"staged\"); }\n",
    );
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("src/main.rs")).unwrap();
    index.write().unwrap();
    let git_before = state(&root.join(".git"), true);

    let first = fx.snapshots.take().unwrap();
    let recorded: Vec<String> = fx
        .snapshots
        .changes(None, &first)
        .unwrap()
        .into_iter()
        .map(|c| c.path)
        .collect();
    assert_eq!(recorded, [".gitignore", "src/main.rs"]);

    // Everything changes, ignored files included; going back restores only what is recorded.
    write(&root, "src/main.rs", "fn main() { panic!() }\n");
    write(&root, "target/out.bin", "built again\n");
    write(&root, "debug.log", "log 2\n");
    write(&root, "scratch.tmp", "tmp 2\n");
    write(&root, "big.dat", &"y".repeat(2_000));
    let second = fx.snapshots.take().unwrap();
    fx.snapshots.restore(&first, Some(&second), false).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("src/main.rs")).unwrap(),
        "fn main() { println!(\"staged\"); }\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("target/out.bin")).unwrap(),
        "built again\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("debug.log")).unwrap(),
        "log 2\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("scratch.tmp")).unwrap(),
        "tmp 2\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("big.dat")).unwrap(),
        "y".repeat(2_000)
    );
    // The user's index, refs, stash and objects: byte for byte as before.
    assert_eq!(state(&root.join(".git"), true), git_before);
    assert!(repo
        .stash_foreach(|_, message, _| {
            assert!(message.contains("work in progress"));
            true
        })
        .is_ok());
}

#[test]
fn a_file_changed_outside_arbor_is_reported_not_overwritten() {
    let mut fx = fixture(
        SnapshotOptions::default(),
        &[("notes.txt", "v1\n"), ("code.rs", "a\n")],
    );
    let root = fx.workspace.path().to_owned();
    let start = fx.snapshots.take().unwrap();
    // The agent edits code.rs; Arbor records it.
    write(&root, "code.rs", "b\n");
    let recorded = fx.snapshots.take().unwrap();
    // The user edits notes.txt in their editor.
    write(&root, "notes.txt", "my own change\n");

    let plan = fx
        .snapshots
        .preview_restore(&start, Some(&recorded))
        .unwrap();
    let marked: Vec<_> = plan
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.changed_outside))
        .collect();
    assert_eq!(marked, [("code.rs", false), ("notes.txt", true)]);
    let refused = fx
        .snapshots
        .restore(&start, Some(&recorded), false)
        .unwrap_err();
    assert_eq!(refused.code(), "changed_outside");
    assert!(refused.to_string().contains("notes.txt"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "my own change\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("code.rs")).unwrap(),
        "b\n"
    );

    // Asked again with overwriting allowed: done, and the user's change is in the undo point.
    let outcome = fx.snapshots.restore(&start, Some(&recorded), true).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "v1\n"
    );
    let kept = fx
        .snapshots
        .unified_diff(Some(&start), &outcome.undo)
        .unwrap();
    assert!(kept.contains("+my own change"), "{kept}");
}

#[test]
fn bad_input_says_what_was_wrong() {
    let data = tempfile::tempdir().unwrap();
    let missing = data.path().join("no-such-folder");
    let error = Snapshots::open(
        &data.path().join("s.git"),
        &missing,
        SnapshotOptions::default(),
    )
    .unwrap_err();
    assert_eq!(error.code(), "snapshot_workspace");

    let mut fx = fixture(
        SnapshotOptions {
            extra_ignores: vec!["src/[".into()],
            ..SnapshotOptions::default()
        },
        &[("a", "a")],
    );
    assert_eq!(fx.snapshots.take().unwrap_err().code(), "invalid_ignore");

    // A workspace too large to record (a home folder opened by mistake) is refused with what
    // to do, not copied.
    for options in [
        SnapshotOptions {
            max_files: 2,
            ..SnapshotOptions::default()
        },
        SnapshotOptions {
            max_total_bytes: 5,
            ..SnapshotOptions::default()
        },
    ] {
        let mut fx = fixture(options, &[("a", "aaa"), ("b", "bbb"), ("c", "ccc")]);
        let error = fx.snapshots.take().unwrap_err();
        assert_eq!(error.code(), "workspace_too_large");
        assert!(error.to_string().contains("ignore"), "{error}");
    }

    let mut fx = fixture(SnapshotOptions::default(), &[("a", "a")]);
    let unknown =
        arbor_coding::snapshots::SnapshotId("0123456789abcdef0123456789abcdef01234567".into());
    assert_eq!(
        fx.snapshots
            .preview_restore(&unknown, None)
            .unwrap_err()
            .code(),
        "unknown_snapshot"
    );
    let nonsense = arbor_coding::snapshots::SnapshotId("not hex".into());
    assert_eq!(
        fx.snapshots.changes(None, &nonsense).unwrap_err().code(),
        "unknown_snapshot"
    );
}

#[test]
fn a_tracker_reports_a_too_large_workspace_once_then_records_nothing() {
    let data = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "a", "a");
    write(root.path(), "b", "b");
    let tracker = arbor_coding::snapshots::CodeTracker::new(
        &data.path().join("s.git"),
        root.path(),
        SnapshotOptions {
            max_files: 1,
            ..SnapshotOptions::default()
        },
    );
    assert_eq!(tracker.take().unwrap_err().code(), "workspace_too_large");
    assert_eq!(tracker.take().unwrap(), None);
    assert_eq!(tracker.undo_point().unwrap(), None);
    assert_eq!(
        tracker.undo_restore(false).unwrap_err().code(),
        "nothing_to_undo"
    );
}

/// The data folder inside the workspace (`arbor` run in `$HOME`): its database, WAL and the
/// shadow repository itself are never recorded, and a restore never deletes or writes them,
/// even to a state recorded before the data folder existed.
#[test]
fn arbors_own_folder_inside_the_workspace_is_never_recorded_or_restored() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join(".local/share/arbor");
    write(home.path(), "notes.txt", "one\n");
    let mut snapshots = Snapshots::open(
        &data.join("snapshots/p.git"),
        home.path(),
        SnapshotOptions {
            protected_paths: vec![data.clone()],
            ..SnapshotOptions::default()
        },
    )
    .unwrap();
    let before = snapshots.take().unwrap();
    write(home.path(), ".local/share/arbor/arbor.db", "database");
    write(home.path(), ".local/share/arbor/arbor.db-wal", "wal");
    write(home.path(), "notes.txt", "two\n");
    let after = snapshots.take().unwrap();
    let changes = snapshots.changes(Some(&before), &after).unwrap();
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["notes.txt"]);
    let objects_before = std::fs::read_dir(data.join("snapshots/p.git/objects"))
        .unwrap()
        .count();
    let plan = snapshots.preview_restore(&before, Some(&after)).unwrap();
    assert!(
        plan.changes.iter().all(|c| !c.path.starts_with(".local")),
        "{plan:?}"
    );
    snapshots.restore(&before, Some(&after), false).unwrap();
    assert_eq!(
        std::fs::read_to_string(home.path().join("notes.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        std::fs::read_to_string(data.join("arbor.db")).unwrap(),
        "database"
    );
    assert!(
        std::fs::read_dir(data.join("snapshots/p.git/objects"))
            .unwrap()
            .count()
            >= objects_before
    );
}

/// A killed write's temporary file is not recorded; a non-UTF-8 name is recorded byte for byte
/// and comes back on restore.
#[test]
fn temporary_files_are_skipped_and_non_utf8_names_come_back() {
    use std::os::unix::ffi::OsStrExt;
    let fx = fixture(SnapshotOptions::default(), &[]);
    let root = fx.workspace.path().to_owned();
    let mut snapshots = fx.snapshots;
    let odd = root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
    std::fs::write(&odd, "latin-1 name\n").unwrap();
    write(&root, "src/.main.rs.Ab12Cd.arbor-tmp", "half a file");
    let first = snapshots.take().unwrap();
    let files = snapshots.changes(None, &first).unwrap();
    assert!(
        files.iter().all(|c| !c.path.ends_with(".arbor-tmp")),
        "{files:?}"
    );
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::remove_file(&odd).unwrap();
    let second = snapshots.take().unwrap();
    assert_ne!(first, second);
    snapshots.restore(&first, Some(&second), false).unwrap();
    assert_eq!(std::fs::read_to_string(&odd).unwrap(), "latin-1 name\n");
}

/// A repository's hooks and `core.fsmonitor` are code the repository brings: Arbor's own git
/// work (snapshots, diffs, restores — libgit2, which runs neither) never starts them.
#[test]
fn snapshots_and_restores_never_run_a_repositorys_hooks_or_fsmonitor() {
    use std::os::unix::fs::PermissionsExt;
    let mut fx = fixture(SnapshotOptions::default(), &[("a.txt", "one\n")]);
    let root = fx.workspace.path().to_owned();
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = |name: &str| marker_dir.path().join(name);
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    let fsmonitor = format!("touch {}", marker("fsmonitor").display());
    git(&["config", "core.fsmonitor", &fsmonitor]);
    for hook in [
        "pre-commit",
        "post-checkout",
        "post-index-change",
        "reference-transaction",
    ] {
        let path = root.join(".git/hooks").join(hook);
        std::fs::write(
            &path,
            format!("#!/bin/sh\ntouch {}\n", marker(hook).display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let first = fx.snapshots.take().unwrap();
    write(&root, "a.txt", "two\n");
    let second = fx.snapshots.take().unwrap();
    fx.snapshots.unified_diff(Some(&first), &second).unwrap();
    fx.snapshots.restore(&first, Some(&second), false).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\n"
    );
    let ran: Vec<_> = std::fs::read_dir(marker_dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(ran.is_empty(), "the repository's code ran: {ran:?}");
    // The hooks are live: the user's own `git commit` does run them.
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=T",
        "commit",
        "-qm",
        "x",
    ]);
    assert!(
        marker("pre-commit").exists(),
        "the hook was not live: the check proves nothing"
    );
}
