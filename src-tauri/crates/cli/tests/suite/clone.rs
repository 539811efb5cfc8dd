//! `arbor clone` against a loopback smart-HTTP git server: JSON progress and the default
//! workspace folder, a private repository with the keychain's GitHub token, Ctrl+C (exit 130,
//! nothing left), and the errors for an existing folder and an SSH URL.

use crate::support;

use std::time::Duration;

use arbor_test_support::git_http::{make_repository, GitHttpServer, GitServerOptions};
use serde_json::Value;
use support::Arbor;
use tokio::io::{AsyncBufReadExt, BufReader};

const TOKEN: &str = "ghp_cli-clone-token-8a2f47";

fn served() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    make_repository(dir.path(), "repo", 40, 4096).unwrap();
    dir
}

#[tokio::test]
async fn clones_into_the_workspace_with_json_progress() {
    let served = served();
    let server = GitHttpServer::start(served.path(), GitServerOptions::default()).unwrap();
    let arbor = Arbor::new();
    let run = arbor.run(&["clone", &server.url("repo"), "--json"]).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let phases: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "progress")
        .map(|l| l["progress"]["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases.first(), Some(&"connecting"));
    assert_eq!(phases.last(), Some(&"done"));
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "cloned");
    let path = std::path::PathBuf::from(last["path"].as_str().unwrap());
    let port = server.host().rsplit(':').next().unwrap().to_owned();
    let expected = arbor
        .data_path()
        .join("workspaces")
        .join(format!("127.0.0.1-{port}"))
        .join("repo");
    assert_eq!(path, std::fs::canonicalize(&expected).unwrap());
    assert!(path.join("file0039.txt").is_file());

    // A second clone to the same place says it is there already.
    let again = arbor.run(&["clone", &server.url("repo")]).await;
    assert_eq!(again.status, 1);
    assert!(
        again.stderr.contains("already a clone of this repository"),
        "{}",
        again.stderr
    );
}

#[tokio::test]
async fn a_private_repository_uses_the_keychains_github_token() {
    let served = served();
    let server = GitHttpServer::start(
        served.path(),
        GitServerOptions {
            token: Some(TOKEN.into()),
            ..GitServerOptions::default()
        },
    )
    .unwrap();
    let arbor = Arbor::new();
    // The token is for this (GitHub Enterprise-like) host.
    std::fs::write(
        arbor.data_path().join("settings.json"),
        format!("{{\"githubHost\": \"{}\"}}", server.host()),
    )
    .unwrap();
    let dest = tempfile::tempdir().unwrap();
    let target = dest.path().join("private");
    let target_arg = target.to_str().unwrap();

    let without = arbor.run(&["clone", &server.url("repo"), target_arg]).await;
    assert_eq!(without.status, 1);
    assert!(
        without.stderr.contains("arbor auth set github"),
        "{}",
        without.stderr
    );
    assert!(!target.exists());

    let set = arbor
        .run_with_stdin(&["auth", "set", "github"], TOKEN)
        .await;
    assert_eq!(set.status, 0, "{}", set.stderr);
    let with = arbor.run(&["clone", &server.url("repo"), target_arg]).await;
    assert_eq!(with.status, 0, "{}", with.stderr);
    assert!(target.join("README.md").is_file());
    for output in [&with.stdout, &with.stderr] {
        assert!(!output.contains(TOKEN));
    }
    let config = std::fs::read_to_string(target.join(".git/config")).unwrap();
    assert!(!config.contains(TOKEN) && config.contains(&server.url("repo")));
    // Not in any file of the clone or of the data folder (the keychain holds it).
    for root in [target.as_path(), arbor.data_path()] {
        let mut stack = vec![root.to_owned()];
        while let Some(folder) = stack.pop() {
            for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                    assert!(!text.contains(TOKEN), "{} holds the token", path.display());
                }
            }
        }
    }
    arbor.run(&["auth", "remove", "github"]).await;
}

#[tokio::test]
async fn ctrl_c_cancels_with_130_and_leaves_nothing() {
    let served = served();
    let server = GitHttpServer::start(
        served.path(),
        GitServerOptions {
            pace: Some((4 * 1024, Duration::from_millis(30))),
            ..GitServerOptions::default()
        },
    )
    .unwrap();
    let arbor = Arbor::new();
    let dest = tempfile::tempdir().unwrap();
    let target = dest.path().join("cancelled");
    let mut command = arbor.command();
    command.args([
        "clone",
        &server.url("repo"),
        target.to_str().unwrap(),
        "--json",
    ]);
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Wait until objects arrive, then interrupt as a terminal's Ctrl+C would.
    while let Some(line) = lines.next_line().await.unwrap() {
        if line.contains("\"receiving\"") {
            break;
        }
    }
    let pid = child.id().unwrap();
    let status = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        rest.push_str(&line);
    }
    let exit = child.wait().await.unwrap();
    assert_eq!(exit.code(), Some(130), "{rest}");
    assert!(rest.contains("\"cancelled\""), "{rest}");
    let left: Vec<_> = std::fs::read_dir(dest.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[tokio::test]
async fn bad_sources_and_destinations_say_what_to_do() {
    let arbor = Arbor::new();
    let ssh = arbor.run(&["clone", "git@github.com:owner/repo.git"]).await;
    assert_eq!(ssh.status, 1);
    assert!(
        ssh.stderr.contains("Arbor clones over HTTPS"),
        "{}",
        ssh.stderr
    );
    let taken = tempfile::tempdir().unwrap();
    std::fs::write(taken.path().join("mine.txt"), "x").unwrap();
    let served = served();
    let url = format!("file://{}", served.path().join("repo.git").display());
    let exists = arbor
        .run(&["clone", &url, taken.path().to_str().unwrap()])
        .await;
    assert_eq!(exists.status, 1);
    assert!(
        exists.stderr.contains("already exists and is not empty"),
        "{}",
        exists.stderr
    );
    let depth = arbor.run(&["clone", &url, "--depth", "0"]).await;
    assert_eq!(depth.status, 2, "{}", depth.stderr);
}
