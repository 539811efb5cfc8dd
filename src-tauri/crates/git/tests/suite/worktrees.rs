//! Worktrees on real repositories: create (with `.worktreeinclude`), bad names and bases,
//! review and discard, commit, merge (fast-forward, merge commit, conflict, a dirty main
//! checkout), archive and add back, push over loopback HTTP with a token.

use std::fs;
use std::path::{Path, PathBuf};

use arbor_git::clone::HostToken;
use arbor_git::worktrees::{self, MergeOutcome, NewWorktree, WorktreeError};
use arbor_secrets::Secret;
use arbor_test_support::git_http::{make_repository, GitHttpServer, GitServerOptions};
use git2::{Repository, Signature};

/// A repository at `<tmp>/main` on `main` with `a.txt`, `b.txt`, a `.gitignore` and a
/// `.worktreeinclude`, and the ignored files a checkout accumulates.
fn project(tmp: &Path) -> PathBuf {
    let root = tmp.join("main");
    fs::create_dir_all(&root).unwrap();
    let repo = Repository::init_opts(
        &root,
        git2::RepositoryInitOptions::new().initial_head("main"),
    )
    .unwrap();
    let mut config = repo.config().unwrap();
    config.set_str("user.name", "Ada Tester").unwrap();
    config.set_str("user.email", "ada@example.invalid").unwrap();
    fs::write(root.join("a.txt"), numbered("a", 20)).unwrap();
    fs::write(root.join("b.txt"), numbered("b", 40)).unwrap();
    fs::write(
        root.join(".gitignore"),
        ".env\n.env.*\nnode_modules/\ntarget/\n",
    )
    .unwrap();
    fs::write(root.join(".worktreeinclude"), ".env\n.env.local\n").unwrap();
    commit_everything(&repo, "first");
    fs::write(root.join(".env"), "TOKEN=local-secret\n").unwrap();
    fs::write(root.join(".env.local"), "MODE=dev\n").unwrap();
    fs::write(root.join(".env.production"), "MODE=prod\n").unwrap();
    fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
    fs::write(root.join("node_modules/pkg/.env"), "NOT=copied\n").unwrap();
    root
}

fn numbered(prefix: &str, lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("{prefix} line {i}\n"))
        .collect()
}

fn commit_everything(repo: &Repository, message: &str) -> git2::Oid {
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.update_all(["*"], None).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::now("Ada Tester", "ada@example.invalid").unwrap();
    let parents: Vec<git2::Commit<'_>> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .unwrap()
}

fn new_worktree(root: &Path, tmp: &Path, name: &str) -> worktrees::CreatedWorktree {
    worktrees::create(&NewWorktree {
        repo_root: root.to_owned(),
        name: name.to_owned(),
        base: None,
        folder: tmp.join("worktrees").join(name),
    })
    .unwrap()
}

fn clean(root: &Path) -> bool {
    worktrees::uncommitted_files(root).unwrap().is_empty()
}

fn tip(root: &Path, branch: &str) -> git2::Oid {
    let repo = Repository::open(root).unwrap();
    let id = repo
        .find_branch(branch, git2::BranchType::Local)
        .unwrap()
        .get()
        .target()
        .unwrap();
    id
}

#[test]
fn a_worktree_is_made_on_its_own_branch_with_the_included_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let made = new_worktree(&root, tmp.path(), "feature-a");
    assert_eq!(made.branch, "arbor/feature-a");
    assert_eq!(made.base_branch, "main");
    assert_eq!(made.base_commit, tip(&root, "main").to_string());
    let wt = Repository::open(&made.path).unwrap();
    assert_eq!(wt.head().unwrap().shorthand(), Some("arbor/feature-a"));
    assert_eq!(
        fs::read_to_string(made.path.join("a.txt")).unwrap(),
        numbered("a", 20)
    );

    let copied = worktrees::copy_included(&root, &made.path).unwrap();
    assert_eq!(copied, vec![".env".to_owned(), ".env.local".to_owned()]);
    assert_eq!(
        fs::read_to_string(made.path.join(".env")).unwrap(),
        "TOKEN=local-secret\n"
    );
    assert!(!made.path.join(".env.production").exists(), "not listed");
    assert!(
        !made.path.join("node_modules").exists(),
        "ignored folder not walked"
    );
    // A second copy never overwrites what the worktree has now.
    fs::write(made.path.join(".env"), "TOKEN=changed\n").unwrap();
    assert!(worktrees::copy_included(&root, &made.path)
        .unwrap()
        .is_empty());
    assert_eq!(
        fs::read_to_string(made.path.join(".env")).unwrap(),
        "TOKEN=changed\n"
    );
    // The main checkout is untouched.
    assert!(clean(&root));
    assert_eq!(
        Repository::open(&root).unwrap().head().unwrap().shorthand(),
        Some("main")
    );
}

#[test]
fn bad_names_bases_and_folders_are_refused_with_nothing_left_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    for name in [
        "",
        "../up",
        ".hidden",
        "-flag",
        "a b",
        "x.lock",
        "a/b",
        &"n".repeat(65),
    ] {
        let error = worktrees::create(&NewWorktree {
            repo_root: root.clone(),
            name: name.to_owned(),
            base: None,
            folder: tmp.path().join("w").join("x"),
        })
        .unwrap_err();
        assert!(
            matches!(error, WorktreeError::InvalidName { .. }),
            "{name}: {error}"
        );
        assert_eq!(error.code(), "invalid_worktree_name");
    }
    let unknown = worktrees::create(&NewWorktree {
        repo_root: root.clone(),
        name: "ok".into(),
        base: Some("no-such-branch".into()),
        folder: tmp.path().join("w/ok"),
    })
    .unwrap_err();
    assert!(
        matches!(unknown, WorktreeError::UnknownBase { .. }),
        "{unknown}"
    );
    assert!(
        Repository::open(&root)
            .unwrap()
            .find_branch("arbor/ok", git2::BranchType::Local)
            .is_err(),
        "no branch left behind"
    );
    new_worktree(&root, tmp.path(), "twice");
    let again = worktrees::create(&NewWorktree {
        repo_root: root.clone(),
        name: "twice".into(),
        base: None,
        folder: tmp.path().join("elsewhere"),
    })
    .unwrap_err();
    assert_eq!(again.code(), "worktree_exists");
    let plain = tmp.path().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let not_repo = worktrees::create(&NewWorktree {
        repo_root: plain,
        name: "x".into(),
        base: None,
        folder: tmp.path().join("w/x"),
    })
    .unwrap_err();
    assert_eq!(not_repo.code(), "not_a_repository");
    assert!(!tmp.path().join("w/x").exists());
}

#[test]
fn review_shows_committed_and_uncommitted_changes_and_discards_one_hunk_or_file() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let wt = new_worktree(&root, tmp.path(), "review");
    fs::write(
        wt.path.join("a.txt"),
        numbered("a", 20).replace("a line 3\n", "A LINE 3\n"),
    )
    .unwrap();
    let committed = worktrees::commit_all(&wt.path, "Change a").unwrap();
    assert_eq!(committed.files, 1);
    assert_eq!(committed.branch, "arbor/review");
    let two_hunks = numbered("b", 40)
        .replace("b line 2\n", "b line two\n")
        .replace("b line 35\n", "b line thirty-five\n");
    fs::write(wt.path.join("b.txt"), &two_hunks).unwrap();
    fs::write(wt.path.join("c.txt"), "new file\n").unwrap();

    let review = worktrees::review("review", &wt.path, &wt.branch, "main").unwrap();
    let committed_paths: Vec<_> = review
        .committed
        .iter()
        .map(|f| f.change.path.as_str())
        .collect();
    assert_eq!(committed_paths, ["a.txt"]);
    assert_eq!(
        (
            review.committed[0].change.added,
            review.committed[0].change.removed
        ),
        (1, 1)
    );
    let uncommitted: Vec<_> = review
        .uncommitted
        .iter()
        .map(|f| (f.change.path.as_str(), f.change.status, f.hunks.len()))
        .collect();
    use arbor_protocol::views::code::ChangeStatus;
    assert_eq!(
        uncommitted,
        [
            ("b.txt", ChangeStatus::Modified, 2),
            ("c.txt", ChangeStatus::Added, 1)
        ]
    );
    let b = &review.uncommitted[0];
    assert!(
        b.hunks[1].lines.contains("+b line thirty-five\n"),
        "{}",
        b.hunks[1].lines
    );

    worktrees::discard_hunk(&wt.path, "b.txt", &b.hunks[1].id).unwrap();
    assert_eq!(
        fs::read_to_string(wt.path.join("b.txt")).unwrap(),
        numbered("b", 40).replace("b line 2\n", "b line two\n")
    );
    // A hunk named by its header alone, or whose lines changed since: refused.
    assert_eq!(
        worktrees::discard_hunk(&wt.path, "b.txt", &b.hunks[0].header)
            .unwrap_err()
            .code(),
        "stale_review"
    );
    // Same header, other lines (the agent rewrote the change after the review): refused.
    let shown = worktrees::review("review", &wt.path, &wt.branch, "main").unwrap();
    let first = shown.uncommitted[0].hunks[0].clone();
    fs::write(
        wt.path.join("b.txt"),
        numbered("b", 40)
            .replace("b line 2\n", "b line TWO\n")
            .replace("b line 35\n", "b line thirty-five\n"),
    )
    .unwrap();
    assert_eq!(
        worktrees::discard_hunk(&wt.path, "b.txt", &first.id)
            .unwrap_err()
            .code(),
        "stale_review"
    );
    fs::write(
        wt.path.join("b.txt"),
        numbered("b", 40).replace("b line 2\n", "b line two\n"),
    )
    .unwrap();
    // The same hunk again: the file no longer has it.
    let stale = worktrees::discard_hunk(&wt.path, "b.txt", &b.hunks[1].id).unwrap_err();
    assert_eq!(stale.code(), "stale_review");
    let unknown = worktrees::discard_file(&wt.path, "../main/a.txt").unwrap_err();
    assert_eq!(
        unknown.code(),
        "stale_review",
        "only a reviewed file is touched"
    );
    assert!(root.join("a.txt").exists());

    worktrees::discard_file(&wt.path, "c.txt").unwrap();
    assert!(!wt.path.join("c.txt").exists());
    worktrees::discard_file(&wt.path, "b.txt").unwrap();
    assert_eq!(
        fs::read_to_string(wt.path.join("b.txt")).unwrap(),
        numbered("b", 40)
    );
    assert!(clean(&wt.path));
    let nothing = worktrees::commit_all(&wt.path, "again").unwrap_err();
    assert_eq!(nothing.code(), "nothing_to_commit");
    assert_eq!(
        worktrees::commit_all(&wt.path, "   ").unwrap_err().code(),
        "invalid_command"
    );
}

#[test]
fn merge_fast_forwards_into_the_checked_out_base_and_updates_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let wt = new_worktree(&root, tmp.path(), "ff");
    fs::write(wt.path.join("new.txt"), "from the worktree\n").unwrap();
    let made = worktrees::commit_all(&wt.path, "Add new.txt").unwrap();
    let status = worktrees::status(&root, &wt.path, &wt.branch, "main").unwrap();
    assert_eq!((status.ahead, status.behind), (1, 0));
    assert!(
        !root.join("new.txt").exists(),
        "main untouched until the merge"
    );

    let outcome = worktrees::merge_into_base(&root, &wt.branch, "main").unwrap();
    assert_eq!(
        outcome,
        MergeOutcome::FastForward {
            commit: made.commit.clone()
        }
    );
    assert_eq!(tip(&root, "main").to_string(), made.commit);
    assert_eq!(
        fs::read_to_string(root.join("new.txt")).unwrap(),
        "from the worktree\n"
    );
    assert!(
        clean(&root),
        "{:?}",
        worktrees::uncommitted_files(&root).unwrap()
    );
    assert_eq!(
        worktrees::merge_into_base(&root, &wt.branch, "main").unwrap(),
        MergeOutcome::UpToDate
    );
}

#[test]
fn merge_makes_a_merge_commit_when_both_moved_and_a_conflict_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let main_repo = Repository::open(&root).unwrap();
    let good = new_worktree(&root, tmp.path(), "good");
    let bad = new_worktree(&root, tmp.path(), "bad");
    fs::write(
        good.path.join("b.txt"),
        numbered("b", 40).replace("b line 30\n", "B30\n"),
    )
    .unwrap();
    worktrees::commit_all(&good.path, "Change b").unwrap();
    fs::write(
        bad.path.join("a.txt"),
        numbered("a", 20).replace("a line 1\n", "worktree\n"),
    )
    .unwrap();
    worktrees::commit_all(&bad.path, "Change a's first line").unwrap();
    // The base moves on its own: line 1 of a.txt differently, line 1 of b.txt.
    fs::write(
        root.join("a.txt"),
        numbered("a", 20).replace("a line 1\n", "main\n"),
    )
    .unwrap();
    commit_everything(&main_repo, "main's own change");
    let before = tip(&root, "main");

    let conflict = worktrees::merge_into_base(&root, &bad.branch, "main").unwrap();
    assert_eq!(
        conflict,
        MergeOutcome::Conflict {
            files: vec!["a.txt".into()]
        }
    );
    assert_eq!(tip(&root, "main"), before, "the base did not move");
    assert!(fs::read_to_string(root.join("a.txt"))
        .unwrap()
        .starts_with("main\n"));
    assert!(clean(&root), "no half-merged files");

    let merged = worktrees::merge_into_base(&root, &good.branch, "main").unwrap();
    let MergeOutcome::Merged { commit } = merged else {
        panic!("expected a merge commit, got {merged:?}");
    };
    let commit = main_repo
        .find_commit(git2::Oid::from_str(&commit).unwrap())
        .unwrap();
    assert_eq!(commit.parent_count(), 2);
    assert_eq!(commit.author().name(), Some("Ada Tester"));
    assert!(
        !commit.message().unwrap_or("").contains("Co-Authored"),
        "no attribution line"
    );
    assert!(fs::read_to_string(root.join("b.txt"))
        .unwrap()
        .contains("B30\n"));
    assert!(fs::read_to_string(root.join("a.txt"))
        .unwrap()
        .starts_with("main\n"));
    assert!(clean(&root));
}

#[test]
fn a_merge_that_would_overwrite_the_users_uncommitted_change_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let wt = new_worktree(&root, tmp.path(), "dirty");
    fs::write(wt.path.join("a.txt"), "from the worktree\n").unwrap();
    worktrees::commit_all(&wt.path, "Rewrite a").unwrap();
    fs::write(root.join("a.txt"), "the user's unsaved work\n").unwrap();
    let before = tip(&root, "main");
    let error = worktrees::merge_into_base(&root, &wt.branch, "main").unwrap_err();
    assert_eq!(error.code(), "checkout_dirty");
    assert!(error.to_string().contains("a.txt"), "{error}");
    assert_eq!(tip(&root, "main"), before);
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "the user's unsaved work\n"
    );
}

#[test]
fn a_removed_worktree_comes_back_on_its_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let wt = new_worktree(&root, tmp.path(), "archive-me");
    fs::write(wt.path.join("kept.txt"), "committed\n").unwrap();
    worktrees::commit_all(&wt.path, "Keep").unwrap();
    let elsewhere = tmp.path().join("not-the-worktree");
    fs::create_dir_all(&elsewhere).unwrap();
    assert!(worktrees::remove_folder(&root, "archive-me", &elsewhere).is_err());
    assert!(
        elsewhere.exists(),
        "only the worktree's own folder is removed"
    );

    worktrees::remove_folder(&root, "archive-me", &wt.path).unwrap();
    assert!(!wt.path.exists());
    let repo = Repository::open(&root).unwrap();
    assert!(
        repo.find_worktree("archive-me").is_err(),
        "git's record pruned"
    );
    assert!(repo
        .find_branch("arbor/archive-me", git2::BranchType::Local)
        .is_ok());

    worktrees::add_back(&root, "archive-me", &wt.path).unwrap();
    assert_eq!(
        fs::read_to_string(wt.path.join("kept.txt")).unwrap(),
        "committed\n"
    );
    let back = Repository::open(&wt.path).unwrap();
    assert_eq!(back.head().unwrap().shorthand(), Some("arbor/archive-me"));
}

#[test]
fn push_sends_the_branch_with_the_token_only_to_its_host() {
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    fs::create_dir_all(&served).unwrap();
    make_repository(&served, "origin", 3, 100).unwrap();
    let server = GitHttpServer::start(
        &served,
        GitServerOptions {
            token: Some("ghp_right-token-000000".into()),
            ..GitServerOptions::default()
        },
    )
    .unwrap();
    let url = server.url("origin");
    let right = HostToken {
        host: server.host(),
        token: Secret::new("ghp_right-token-000000").unwrap(),
    };
    let root = tmp.path().join("clone");
    let mut callbacks = git2::RemoteCallbacks::new();
    callbacks.credentials(|_, _, _| {
        git2::Cred::userpass_plaintext("x-access-token", "ghp_right-token-000000")
    });
    let mut fetch = git2::FetchOptions::new();
    fetch.remote_callbacks(callbacks);
    let repo = git2::build::RepoBuilder::new()
        .fetch_options(fetch)
        .clone(&url, &root)
        .unwrap();
    let mut config = repo.config().unwrap();
    config.set_str("user.name", "Ada Tester").unwrap();
    config.set_str("user.email", "ada@example.invalid").unwrap();
    let wt = new_worktree(&root, tmp.path(), "pushed");
    fs::write(wt.path.join("pushed.txt"), "over http\n").unwrap();
    let made = worktrees::commit_all(&wt.path, "Push me").unwrap();

    let other_host = HostToken {
        host: "github.com".into(),
        token: Secret::new("ghp_other-host-000000").unwrap(),
    };
    let before = server.authorizations().len();
    let refused = worktrees::push_branch(&root, &wt.branch, Some(&other_host)).unwrap_err();
    assert_eq!(refused.code(), "auth_required", "{refused}");
    assert!(
        server.authorizations()[before..]
            .iter()
            .all(|a| !a.contains("ghp_other")),
        "a token for another host is never sent"
    );
    let wrong = HostToken {
        host: server.host(),
        token: Secret::new("ghp_wrong-token-000000").unwrap(),
    };
    let failed = worktrees::push_branch(&root, &wt.branch, Some(&wrong)).unwrap_err();
    assert_eq!(failed.code(), "auth_failed", "{failed}");

    let pushed = worktrees::push_branch(&root, &wt.branch, Some(&right)).unwrap();
    assert_eq!(pushed.commit, made.commit);
    assert!(!pushed.url.contains("ghp_"), "no credentials in the URL");
    let bare = Repository::open(served.join("origin.git")).unwrap();
    let remote_tip = bare
        .find_branch("arbor/pushed", git2::BranchType::Local)
        .unwrap()
        .get()
        .target()
        .unwrap();
    assert_eq!(remote_tip.to_string(), made.commit);
}

#[test]
fn discarding_a_file_whose_name_looks_like_a_pattern_touches_only_that_file() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path());
    let wt = new_worktree(&root, tmp.path(), "patterns");
    for dir in ["app/[id]", "app/i", "app/d"] {
        fs::create_dir_all(wt.path.join(dir)).unwrap();
        fs::write(wt.path.join(dir).join("page.tsx"), "original\n").unwrap();
    }
    worktrees::commit_all(&wt.path, "Pages").unwrap();
    for dir in ["app/[id]", "app/i", "app/d"] {
        fs::write(wt.path.join(dir).join("page.tsx"), "changed\n").unwrap();
    }
    worktrees::discard_file(&wt.path, "app/[id]/page.tsx").unwrap();
    let read = |dir: &str| fs::read_to_string(wt.path.join(dir).join("page.tsx")).unwrap();
    assert_eq!(read("app/[id]"), "original\n");
    assert_eq!(
        (read("app/i"), read("app/d")),
        ("changed\n".into(), "changed\n".into())
    );
}

#[test]
fn a_worktree_from_the_remotes_default_branch_merges_into_its_local_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    fs::create_dir_all(&served).unwrap();
    let bare = make_repository(&served, "origin", 3, 100).unwrap();
    let root = tmp.path().join("clone");
    Repository::clone(bare.to_str().unwrap(), &root).unwrap();
    // The local `main` is one commit behind what the remote has.
    arbor_test_support::git_repo::git(&root, &["reset", "-q", "--hard", "HEAD~1"]).unwrap();
    assert_eq!(
        worktrees::remote_default_branch(&root).as_deref(),
        Some("origin/main")
    );
    let made = worktrees::create(&NewWorktree {
        repo_root: root.clone(),
        name: "fresh".into(),
        base: Some("origin/main".into()),
        folder: tmp.path().join("worktrees/fresh"),
    })
    .unwrap();
    let repo = Repository::open(&root).unwrap();
    let remote_tip = repo
        .find_branch("origin/main", git2::BranchType::Remote)
        .unwrap()
        .get()
        .target()
        .unwrap();
    assert_eq!(
        made.base_commit,
        remote_tip.to_string(),
        "started from the remote's state"
    );
    assert_eq!(made.base_branch, "main", "and merges into the local branch");
    assert_ne!(tip(&root, "main"), remote_tip);
}
