//! Arbor's data folder inside the project (`arbor` run in `$HOME`): a restore never touches
//! Arbor's database or snapshot store, and no tool writes there; a relative `--data-dir` is
//! relative to where arbor started.

use super::*;

/// `arbor` run in `$HOME` with the default data folder puts the data folder inside the
/// project. A restore must leave Arbor's database and snapshot store alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_in_home_never_touches_arbors_own_data() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    std::fs::write(home.join("notes.txt"), "first\n").unwrap();
    let data_dir = home.join(".local/share/arbor");
    let mock = MockProvider::start(
        Script::new()
            // A model told to by a hostile README: its write into Arbor's data is refused.
            .turn(Turn::stream().tool_call(
                "write",
                json!({"path": ".local/share/arbor/arbor.db", "content": "gone"}),
            ))
            .turn(Turn::stream().tool_call(
                "bash",
                json!({"command": "echo second > notes.txt && echo new > added.txt"}),
            ))
            .turn(Turn::text("Changed."))
            .turn(Turn::text("Again.")),
    )
    .await
    .unwrap();
    let arbor = Arbor::new();
    let data = data_dir.display().to_string();
    let mut command = args_with(
        &mock,
        &home,
        &["--tools", "bash,write", "-p", "change notes"],
    );
    command.splice(0..0, ["--data-dir".to_owned(), data.clone()]);
    let out = run(&arbor, &command).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(data_dir.join("arbor.db").is_file());
    // A second run, so the database grows after the first snapshot.
    let mut command = args_with(&mock, &home, &["-c", "-p", "again"]);
    command.splice(0..0, ["--data-dir".to_owned(), data.clone()]);
    assert_eq!(run(&arbor, &command).await.status, 0);

    let sessions = json_of(
        &arbor,
        &[
            "--data-dir",
            &data,
            "-C",
            &home.display().to_string(),
            "sessions",
            "--json",
        ],
    )
    .await;
    let session = sessions[0]["id"].as_str().unwrap().to_owned();
    let nodes = json_of(&arbor, &["--data-dir", &data, "tree", &session, "--json"]).await;
    let nodes = nodes["nodes"].as_array().unwrap().clone();
    let refused = nodes.iter().find(|n| n["kind"] == "tool_result").unwrap();
    assert!(
        refused["first_line"]
            .as_str()
            .unwrap()
            .starts_with("Blocked: write"),
        "{refused}"
    );
    let first_user = nodes.iter().find(|n| n["kind"] == "user").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let shadow: Vec<PathBuf> = std::fs::read_dir(data_dir.join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(shadow.len(), 1);
    let objects_before = count_files(&shadow[0].join("objects"));

    let out = arbor
        .run(&[
            "--data-dir",
            &data,
            "-C",
            &home.display().to_string(),
            "restore",
            &first_user,
            "--yes",
        ])
        .await;
    assert_eq!(out.status, 0, "{}\n{}", out.stdout, out.stderr);
    // The user's files went back; Arbor's own did not move.
    assert_eq!(
        std::fs::read_to_string(home.join("notes.txt")).unwrap(),
        "first\n"
    );
    assert!(!home.join("added.txt").exists());
    assert!(!out.stdout.contains(".local"), "{}", out.stdout);
    let after = json_of(&arbor, &["--data-dir", &data, "tree", &session, "--json"]).await;
    assert_eq!(after["nodes"].as_array().unwrap().len(), nodes.len());
    assert!(count_files(&shadow[0].join("objects")) >= objects_before);
    let fsck = git(&[
        "--git-dir",
        &shadow[0].display().to_string(),
        "fsck",
        "--no-dangling",
    ]);
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
    let diff = arbor
        .run(&[
            "--data-dir",
            &data,
            "-C",
            &home.display().to_string(),
            "restore",
            "--undo",
            "--yes",
        ])
        .await;
    assert_eq!(diff.status, 0, "{}", diff.stderr);
    assert!(!diff.stdout.contains("arbor.db"), "{}", diff.stdout);
    assert_eq!(
        std::fs::read_to_string(home.join("notes.txt")).unwrap(),
        "second\n"
    );
}

/// A relative `--data-dir` is relative to where arbor started, not to `-C`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relative_data_dir_is_not_resolved_against_the_project() {
    let start = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let mut command = arbor.command();
    command
        .current_dir(start.path())
        .args(["--data-dir", "rel-data", "-C"])
        .arg(project.path())
        .args(["sessions", "--json"]);
    let out = command.output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(start.path().join("rel-data/arbor.db").is_file());
    assert!(!project.path().join("rel-data").exists());
}
