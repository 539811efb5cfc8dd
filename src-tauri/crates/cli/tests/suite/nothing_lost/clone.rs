//! A killed `arbor clone` leaves nothing behind for long.

use super::*;

/// A killed `arbor clone … DIR` leaves its temporary folder beside DIR; the next start
/// removes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_clones_leftovers_go_at_the_next_start() {
    let repos = tempfile::tempdir().unwrap();
    arbor_test_support::git_http::make_repository(repos.path(), "big", 200, 32 * 1024).unwrap();
    let server = arbor_test_support::git_http::GitHttpServer::start(
        repos.path(),
        arbor_test_support::git_http::GitServerOptions {
            pace: Some((16 * 1024, Duration::from_millis(20))),
            ..Default::default()
        },
    )
    .unwrap();
    let parent = tempfile::tempdir().unwrap();
    let dest = parent.path().join("clone-here");
    let arbor = Arbor::new();
    let mut command = arbor.command();
    command.args(["clone", &server.url("big")]).arg(&dest);
    let mut child = command.spawn().unwrap();
    let temp_beside = || {
        std::fs::read_dir(parent.path())
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".arbor-clone-"))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !temp_beside() {
        assert!(
            std::time::Instant::now() < deadline,
            "no temporary folder appeared"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    child.start_kill().unwrap();
    let _ = child.wait().await;
    assert!(
        temp_beside(),
        "the kill left the temporary folder (the trial's setup)"
    );
    assert!(!dest.exists());
    let out = arbor.run(&["sessions"]).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(!temp_beside(), "the next start removed it");
}
