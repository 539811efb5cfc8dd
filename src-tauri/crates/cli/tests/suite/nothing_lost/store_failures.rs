//! The store failing under a run: a full disk, a damaged database, a read-only data folder.

use super::*;

/// The data folder fills up during a run: the run stops with an error and a non-zero exit,
/// and nothing is stored under the wrong parent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_the_run_and_is_never_reported_as_success() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let data = tempfile::tempdir().unwrap();
    let _tmpfs = match arbor_test_support::tmpfs::Tmpfs::mount(data.path(), "3m") {
        Ok(tmpfs) => tmpfs,
        Err(why) => {
            eprintln!("SKIPPED: the full-disk trial: {why}");
            return;
        }
    };
    let filler = data.path().join("filler");
    let mut script = Script::new().turn(Turn::stream().tool_call(
        "bash",
        json!({"command": format!("head -c 8M /dev/zero > {} ; echo filled", filler.display())}),
    ));
    for _ in 0..5 {
        script = script.turn(Turn::stream().tool_call("bash", json!({"command": "echo more"})));
    }
    let mock = MockProvider::start(script.turn(Turn::text("All done.")))
        .await
        .unwrap();
    // The command fills Arbor's own data folder, which no sandboxed command may touch: this
    // trial is about the disk, not permissions.
    let mut command = args_with(
        &mock,
        project.path(),
        &[
            "--tools",
            "bash",
            "--permission-mode",
            "full",
            "-p",
            "fill it",
        ],
    );
    command.splice(
        0..0,
        ["--data-dir".to_owned(), data.path().display().to_string()],
    );
    let out = run(&arbor, &command).await;
    assert_ne!(
        out.status, 0,
        "a run that could not be stored exited 0: {}",
        out.stderr
    );
    assert!(out.stderr.contains("could not be stored"), "{}", out.stderr);
    assert!(!out.stdout.contains("All done."), "{}", out.stdout);
    // With room again, the database is whole and every node sits under its own parent.
    std::fs::remove_file(&filler).unwrap();
    let data_arg = data.path().display().to_string();
    let doctor = arbor.run(&["--data-dir", &data_arg, "doctor"]).await;
    assert_eq!(doctor.status, 0, "{}{}", doctor.stdout, doctor.stderr);
    let sessions = json_of(
        &arbor,
        &[
            "--data-dir",
            &data_arg,
            "-C",
            &project.path().display().to_string(),
            "sessions",
            "--json",
        ],
    )
    .await;
    let session = sessions[0]["id"].as_str().unwrap().to_owned();
    let nodes = json_of(
        &arbor,
        &["--data-dir", &data_arg, "tree", &session, "--json"],
    )
    .await;
    let nodes = nodes["nodes"].as_array().unwrap();
    for node in nodes {
        if node["kind"] == "tool_result" {
            let parent = nodes.iter().find(|n| n["id"] == node["parent_id"]).unwrap();
            assert_eq!(parent["kind"], "assistant", "{nodes:#?}");
        }
    }
    assert!(
        nodes.len() < 13,
        "the run went on after the failed write: {nodes:#?}"
    );
}

/// A damaged database: writing refuses with what to do, `doctor` names the damage, and an
/// export leaves out only what cannot be read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_database_is_detected_and_still_exported() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let marker = "MARKER-".repeat(2000);
    let mut script = Script::new();
    for i in 0..4 {
        script = script.turn(Turn::text(format!("answer {i} {marker}{i}")));
    }
    let mock = MockProvider::start(script).await.unwrap();
    for i in 0..4 {
        let mut rest = vec!["-p"];
        if i > 0 {
            rest.insert(0, "-c");
        }
        let prompt = format!("question {i}");
        rest.push(&prompt);
        let out = run(&arbor, &args_with(&mock, project.path(), &rest)).await;
        assert_eq!(out.status, 0, "{}", out.stderr);
    }
    let session = only_session(&arbor, project.path()).await;
    // Fold the WAL into the file, then damage the page holding the end of answer 2's text.
    let db = arbor.data_path().join("arbor.db");
    let conn = rusqlite_checkpoint(&db);
    drop(conn);
    let mut bytes = std::fs::read(&db).unwrap();
    let needle = format!("{marker}2");
    let needle = &needle.as_bytes()[needle.len() - 64..];
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("answer 2 in the file");
    let page_size = 4096;
    let page = at / page_size * page_size;
    for byte in &mut bytes[page..page + 16] {
        *byte = 0xff;
    }
    std::fs::write(&db, &bytes).unwrap();

    let out = run(
        &arbor,
        &args_with(&mock, project.path(), &["-c", "-p", "more"]),
    )
    .await;
    assert_ne!(
        out.status, 0,
        "damage at byte {at} not refused: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains("damaged") && out.stderr.contains("arbor doctor"),
        "{}",
        out.stderr
    );
    let doctor = arbor.run(&["doctor"]).await;
    assert_eq!(doctor.status, 1, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("damaged"),
        "{}{}",
        doctor.stdout,
        doctor.stderr
    );
    let export = arbor
        .run(&[
            "export", &session, "--format", "markdown", "--scope", "tree",
        ])
        .await;
    assert_eq!(export.status, 0, "{}", export.stderr);
    assert!(export.stdout.contains("answer 0") && export.stdout.contains("answer 3"));
    assert!(!export.stdout.contains("answer 2"));
    assert!(
        export.stderr.contains("could not be read"),
        "{}",
        export.stderr
    );
}

/// `sqlite3`-free WAL checkpoint: opening the store for writing folds the WAL in at close.
/// Folds the write-ahead log into the database file (closing a store leaves it).
fn rusqlite_checkpoint(db: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    conn
}

/// A read-only data folder (a read-only bind mount: root cannot write there either) still
/// lists, shows and exports sessions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_data_folder_still_lists_and_exports() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let mock = MockProvider::start(Script::new().turn(Turn::text("Stored.")))
        .await
        .unwrap();
    let out = run(
        &arbor,
        &args_with(&mock, project.path(), &["-p", "keep this"]),
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let session = only_session(&arbor, project.path()).await;
    let dir = arbor.data_path();
    let bind = std::process::Command::new("mount")
        .args(["--bind"])
        .arg(dir)
        .arg(dir)
        .output()
        .unwrap();
    if !bind.status.success() {
        eprintln!(
            "SKIPPED: cannot bind-mount here ({}): the read-only trial needs root",
            String::from_utf8_lossy(&bind.stderr).trim()
        );
        return;
    }
    let _guard = Unmount(dir.to_owned());
    let ro = std::process::Command::new("mount")
        .args(["-o", "remount,ro,bind"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(ro.success());
    assert!(
        std::fs::write(dir.join("probe"), "x").is_err(),
        "the mount is read-only"
    );
    let list = arbor
        .run(&["-C", &project.path().display().to_string(), "sessions"])
        .await;
    assert_eq!(list.status, 0, "{}", list.stderr);
    assert!(list.stdout.contains("keep this"), "{}", list.stdout);
    let export = arbor
        .run(&["export", &session, "--format", "markdown"])
        .await;
    assert_eq!(export.status, 0, "{}", export.stderr);
    assert!(export.stdout.contains("Stored."), "{}", export.stdout);
    let search = arbor.run(&["search", "keep"]).await;
    assert_eq!(search.status, 0, "{}", search.stderr);
    // Writing says plainly why not.
    let write = run(&arbor, &args_with(&mock, project.path(), &["-p", "more"])).await;
    assert_ne!(write.status, 0);
    assert!(write.stderr.contains("read-only"), "{}", write.stderr);
}
