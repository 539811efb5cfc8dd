//! Cloning over a loopback smart-HTTP server (`git http-backend`) and `file://`: progress in
//! order, shallow, a branch, private repositories with the right, no and a wrong token, cancels
//! at several moments, an existing destination, a connection broken mid-pack — and after every
//! failure, nothing left behind.

// Test helpers panic on setup failures like the tests that call them.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arbor_coding::clone::{
    clean_stale_clones, clone_repository, CloneError, ClonePhase, CloneProgress, CloneRequest,
    HostToken,
};
use arbor_coding::secrets::Secret;
use arbor_test_support::git_http::{make_repository, GitHttpServer, GitServerOptions};

const TOKEN: &str = "ghp_clone-test-token-51c9e2";

struct Fixture {
    served: tempfile::TempDir,
    workspaces: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let served = tempfile::tempdir().unwrap();
    make_repository(served.path(), "repo", 60, 4096).unwrap();
    Fixture {
        served,
        workspaces: tempfile::tempdir().unwrap(),
    }
}

fn request(source: &str) -> CloneRequest {
    CloneRequest {
        source: source.to_owned(),
        ..CloneRequest::default()
    }
}

fn run(
    request: &CloneRequest,
    workspaces: &Path,
    token: Option<&HostToken>,
) -> (
    Result<arbor_coding::clone::ClonedRepository, CloneError>,
    Vec<CloneProgress>,
) {
    let cancel = AtomicBool::new(false);
    let mut seen = Vec::new();
    let result = clone_repository(request, workspaces, token, &cancel, &mut |p| {
        seen.push(p.clone())
    });
    (result, seen)
}

/// Nothing under `dir` but what was there: no temporary clone folder, no destination.
fn assert_nothing_left(workspaces: &Path) {
    let mut left = Vec::new();
    let mut stack = vec![workspaces.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            left.push(path.display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    // The owner folder (`127.0.0.1-PORT/`) may stay, empty.
    let files: Vec<_> = left
        .iter()
        .filter(|p| !Path::new(p).is_dir() || p.contains(".arbor-clone-") || p.ends_with("repo"))
        .collect();
    assert!(files.is_empty(), "left behind: {files:?}");
}

fn phase_rank(phase: ClonePhase) -> u8 {
    match phase {
        ClonePhase::Connecting => 0,
        ClonePhase::Receiving => 1,
        ClonePhase::Resolving => 2,
        ClonePhase::CheckingOut => 3,
        ClonePhase::Done => 4,
    }
}

#[test]
fn a_public_clone_reports_progress_in_order_and_lands_in_the_workspace() {
    let fx = fixture();
    let server = GitHttpServer::start(fx.served.path(), GitServerOptions::default()).unwrap();
    let (result, seen) = run(&request(&server.url("repo")), fx.workspaces.path(), None);
    let cloned = result.unwrap();
    let expected = fx
        .workspaces
        .path()
        .join(format!(
            "127.0.0.1-{}",
            server.host().rsplit(':').next().unwrap()
        ))
        .join("repo");
    assert_eq!(cloned.path, expected);
    assert_eq!(cloned.origin_url, server.url("repo"));
    assert!(expected.join("file0059.txt").is_file());
    assert!(!expected.join("FEATURE.md").exists(), "main is checked out");
    let ranks: Vec<u8> = seen.iter().map(|p| phase_rank(p.phase)).collect();
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "phases out of order: {ranks:?}"
    );
    assert_eq!(seen.first().map(|p| p.phase), Some(ClonePhase::Connecting));
    let last = seen.last().unwrap();
    assert_eq!(last.phase, ClonePhase::Done);
    assert!(last.total_objects > 60 && last.received_objects == last.total_objects);
    assert!(last.received_bytes > 60 * 4096 / 2, "{last:?}");
    assert!(seen
        .iter()
        .any(|p| p.phase == ClonePhase::CheckingOut && p.total_files > 0));
    let leftovers: Vec<_> = std::fs::read_dir(expected.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".arbor-clone-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn shallow_clones_a_branch_and_file_urls() {
    let fx = fixture();
    let server = GitHttpServer::start(fx.served.path(), GitServerOptions::default()).unwrap();
    let shallow = CloneRequest {
        depth: Some(1),
        destination: Some(fx.workspaces.path().join("shallow")),
        ..request(&server.url("repo"))
    };
    let cloned = run(&shallow, fx.workspaces.path(), None).0.unwrap();
    let repo = git2::Repository::open(&cloned.path).unwrap();
    assert!(repo.is_shallow());
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    assert_eq!(walk.count(), 1);

    let branch = CloneRequest {
        branch: Some("feature".into()),
        destination: Some(fx.workspaces.path().join("feature")),
        ..request(&server.url("repo"))
    };
    let cloned = run(&branch, fx.workspaces.path(), None).0.unwrap();
    assert!(cloned.path.join("FEATURE.md").is_file());

    let file_url = format!("file://{}", fx.served.path().join("repo.git").display());
    let cloned = run(&request(&file_url), fx.workspaces.path(), None)
        .0
        .unwrap();
    assert_eq!(cloned.path, fx.workspaces.path().join("local/repo"));
    assert!(cloned.path.join("README.md").is_file());
}

#[test]
fn private_repositories_take_the_token_of_their_host_only() {
    let fx = fixture();
    let server = GitHttpServer::start(
        fx.served.path(),
        GitServerOptions {
            token: Some(TOKEN.into()),
            ..GitServerOptions::default()
        },
    )
    .unwrap();
    let url = server.url("repo");

    let (none, _) = run(&request(&url), fx.workspaces.path(), None);
    let none = none.unwrap_err();
    assert_eq!(none.code(), "auth_required", "{none}");
    assert!(none.to_string().contains("arbor auth set github"), "{none}");
    assert_nothing_left(fx.workspaces.path());

    let wrong = HostToken {
        host: server.host(),
        token: Secret::new("ghp_wrong-token-000000").unwrap(),
    };
    let error = run(&request(&url), fx.workspaces.path(), Some(&wrong))
        .0
        .unwrap_err();
    assert_eq!(error.code(), "auth_failed", "{error}");
    assert_nothing_left(fx.workspaces.path());

    // A token for another host is never offered.
    let elsewhere = HostToken {
        host: "github.com".into(),
        token: Secret::new(TOKEN).unwrap(),
    };
    let error = run(&request(&url), fx.workspaces.path(), Some(&elsewhere))
        .0
        .unwrap_err();
    assert_eq!(error.code(), "auth_required", "{error}");
    let sent_before = server.authorizations().len();

    let right = HostToken {
        host: server.host(),
        token: Secret::new(TOKEN).unwrap(),
    };
    let cloned = run(&request(&url), fx.workspaces.path(), Some(&right))
        .0
        .unwrap();
    assert!(cloned.path.join("README.md").is_file());
    assert!(
        server.authorizations().len() > sent_before,
        "the token was not sent"
    );
    assert!(!cloned.origin_url.contains(TOKEN));
    // The token is in no file of the clone (its git config, the pack, anything).
    let mut stack = vec![cloned.path.clone()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(TOKEN),
                    "{} holds the token",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn a_cancel_at_any_moment_leaves_nothing() {
    let fx = fixture();
    let server = GitHttpServer::start(
        fx.served.path(),
        GitServerOptions {
            pace: Some((8 * 1024, Duration::from_millis(15))),
            ..GitServerOptions::default()
        },
    )
    .unwrap();
    for cancel_at in [
        ClonePhase::Connecting,
        ClonePhase::Receiving,
        ClonePhase::CheckingOut,
    ] {
        let cancel = AtomicBool::new(false);
        let result = clone_repository(
            &request(&server.url("repo")),
            fx.workspaces.path(),
            None,
            &cancel,
            &mut |progress| {
                if progress.phase == cancel_at {
                    cancel.store(true, Ordering::Relaxed);
                }
            },
        );
        let error = result.unwrap_err();
        assert_eq!(error.code(), "cancelled", "at {cancel_at:?}: {error}");
        assert_nothing_left(fx.workspaces.path());
    }
}

#[test]
fn an_existing_destination_is_named_or_offered_to_open() {
    let fx = fixture();
    let server = GitHttpServer::start(fx.served.path(), GitServerOptions::default()).unwrap();
    let taken = fx.workspaces.path().join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("notes.txt"), "mine").unwrap();
    let into_taken = CloneRequest {
        destination: Some(taken.clone()),
        ..request(&server.url("repo"))
    };
    let error = run(&into_taken, fx.workspaces.path(), None).0.unwrap_err();
    assert_eq!(error.code(), "destination_exists");
    assert!(error.to_string().contains("taken"), "{error}");
    assert_eq!(
        std::fs::read_to_string(taken.join("notes.txt")).unwrap(),
        "mine"
    );

    // An empty folder (made by a folder picker) is fine.
    let empty = fx.workspaces.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let into_empty = CloneRequest {
        destination: Some(empty.clone()),
        ..request(&server.url("repo"))
    };
    run(&into_empty, fx.workspaces.path(), None).0.unwrap();
    let again = run(&into_empty, fx.workspaces.path(), None).0.unwrap_err();
    assert_eq!(again.code(), "already_cloned", "{again}");
}

#[test]
fn a_connection_broken_mid_pack_is_a_clear_error_and_leaves_nothing() {
    let fx = fixture();
    let server = GitHttpServer::start(
        fx.served.path(),
        GitServerOptions {
            drop_after_bytes: Some(20_000),
            ..GitServerOptions::default()
        },
    )
    .unwrap();
    let error = run(&request(&server.url("repo")), fx.workspaces.path(), None)
        .0
        .unwrap_err();
    assert_eq!(error.code(), "network", "{error:?}");
    assert!(error.to_string().contains("try again"), "{error}");
    assert_nothing_left(fx.workspaces.path());
    let missing = run(&request(&server.url("nope")), fx.workspaces.path(), None)
        .0
        .unwrap_err();
    assert_eq!(missing.code(), "not_found", "{missing}");
    assert_nothing_left(fx.workspaces.path());
}

#[test]
fn a_crashed_clones_temporary_folder_is_cleaned_up_later() {
    let workspaces = tempfile::tempdir().unwrap();
    let owner = workspaces.path().join("owner");
    let stale = owner.join(".arbor-clone-crashed");
    let live = owner.join(".arbor-clone-running");
    std::fs::create_dir_all(stale.join("repo")).unwrap();
    std::fs::create_dir_all(&live).unwrap();
    // A process that has exited: its pid names no running process.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    std::fs::write(stale.join("pid"), dead.to_string()).unwrap();
    std::fs::write(live.join("pid"), std::process::id().to_string()).unwrap();
    assert_eq!(clean_stale_clones(workspaces.path()), 1);
    assert!(!stale.exists());
    assert!(live.exists(), "a clone in progress is left alone");
}
