//! Data-loss trials through the real `arbor` binary, each with the real failure as its setup:
//! the data folder inside the project (`HOME` as the project) and a restore, two processes
//! writing one session, a data folder on a full disk, a killed clone, a damaged database, a
//! read-only data folder.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::{json, Value};
use support::Arbor;

fn args_with(mock: &MockProvider, dir: &Path, rest: &[&str]) -> Vec<String> {
    let mut all = vec!["-C".to_owned(), dir.display().to_string()];
    all.extend(support::endpoint_args(mock, WireApi::OpenAiCompletions));
    all.extend(rest.iter().map(|a| (*a).to_owned()));
    all
}

async fn run(arbor: &Arbor, all: &[String]) -> support::Run {
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    arbor.run(&all).await
}

async fn json_of(arbor: &Arbor, args: &[&str]) -> Value {
    let out = arbor.run(args).await;
    assert_eq!(out.status, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

async fn only_session(arbor: &Arbor, project: &Path) -> String {
    let sessions = json_of(
        arbor,
        &["-C", &project.display().to_string(), "sessions", "--json"],
    )
    .await;
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
    sessions[0]["id"].as_str().unwrap().to_owned()
}

async fn tree(arbor: &Arbor, session: &str) -> Vec<Value> {
    json_of(arbor, &["tree", session, "--json"]).await["nodes"]
        .as_array()
        .unwrap()
        .clone()
}

fn git(args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(args)
        .output()
        .unwrap()
}

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
    let mut command = args_with(&mock, &home, &["--tools", "bash", "-p", "change notes"]);
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
    // No snapshot recorded the data folder.
    let trees = git(&[
        "--git-dir",
        &shadow[0].display().to_string(),
        "rev-list",
        "--all",
        "--objects",
    ]);
    let _ = trees;
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

fn count_files(dir: &Path) -> usize {
    walk(dir).len()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
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

/// Two `arbor -c` on one session: each appends under its own last node, so the second's turn
/// is a branch and the first's tool result stays under its own call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_writers_on_one_session_make_branches_not_a_weave() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let first = MockProvider::start(Script::new().turn(Turn::text("Hello.")))
        .await
        .unwrap();
    let out = run(&arbor, &args_with(&first, project.path(), &["-p", "start"])).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let session = only_session(&arbor, project.path()).await;

    // Writer A: a bash call that takes a while, then an answer.
    let slow = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call("bash", json!({"command": "sleep 2; echo slow"})))
            .turn(Turn::text("A done.")),
    )
    .await
    .unwrap();
    let a_args = args_with(
        &slow,
        project.path(),
        &["--tools", "bash", "-c", "-p", "from A"],
    );
    let mut a = arbor.command();
    a.args(&a_args);
    let a = a.spawn().unwrap();
    // Once A's call is stored, writer B answers in between.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let nodes = tree(&arbor, &session).await;
        if nodes
            .iter()
            .any(|n| n["kind"] == "assistant" && n["first_line"] != "Hello.")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "A's call never stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let quick = MockProvider::start(Script::new().turn(Turn::text("B done.")))
        .await
        .unwrap();
    let out = run(
        &arbor,
        &args_with(&quick, project.path(), &["-c", "-p", "from B"]),
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let a = a.wait_with_output().await.unwrap();
    let a_err = String::from_utf8_lossy(&a.stderr);
    assert!(a.status.success(), "{a_err}");
    assert!(
        a_err.contains("another window or terminal wrote"),
        "{a_err}"
    );

    let nodes = tree(&arbor, &session).await;
    let by_id = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap().clone();
    let parent_of = |node: &Value| by_id(node["parent_id"].as_str().unwrap());
    let find = |text: &str| {
        nodes
            .iter()
            .find(|n| n["first_line"].as_str().unwrap_or("").contains(text))
            .unwrap_or_else(|| panic!("no node {text:?} in {nodes:#?}"))
            .clone()
    };
    let result = nodes.iter().find(|n| n["kind"] == "tool_result").unwrap();
    let call = parent_of(result);
    assert_eq!(call["kind"], "assistant", "{nodes:#?}");
    assert_eq!(parent_of(&call)["first_line"], "from A");
    assert!(
        result["first_line"].as_str().unwrap().contains("slow"),
        "{result}"
    );
    assert_eq!(parent_of(&find("A done."))["id"], result["id"]);
    assert_eq!(parent_of(&find("B done."))["first_line"], "from B");
    // B's turn is a branch beside A's result, not inside A's chain.
    assert_ne!(parent_of(&find("from B"))["id"], result["id"]);
    assert!(!nodes.iter().any(|n| n["first_line"]
        .as_str()
        .unwrap_or("")
        .contains("interrupted")));
}

/// Mounts a tmpfs of `size` at `dir` (root only); `None` with the reason when not allowed.
fn mount_tmpfs(dir: &Path, size: &str) -> Option<()> {
    let out = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .output()
        .ok()?;
    if out.status.success() {
        Some(())
    } else {
        eprintln!(
            "SKIPPED: cannot mount a tmpfs here ({}): the full-disk trial needs root",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        None
    }
}

fn unmount(dir: &Path) {
    let _ = std::process::Command::new("umount").arg(dir).status();
}

/// The data folder fills up during a run: the run stops with an error and a non-zero exit,
/// and nothing is stored under the wrong parent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_the_run_and_is_never_reported_as_success() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let data = tempfile::tempdir().unwrap();
    if mount_tmpfs(data.path(), "3m").is_none() {
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            unmount(&self.0);
        }
    }
    let _guard = Unmount(data.path().to_owned());
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
    let mut command = args_with(&mock, project.path(), &["--tools", "bash", "-p", "fill it"]);
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
fn rusqlite_checkpoint(db: &Path) -> arbor_store::Store {
    arbor_store::Store::open(db.parent().unwrap()).unwrap()
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
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            unmount(&self.0);
        }
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

/// A small random source (no `rand` needed for picking moments to kill).
struct Lcg(u64);

impl Lcg {
    fn seeded() -> Self {
        let seed = std::env::var("ARBOR_SOAK_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            });
        eprintln!("soak seed {seed} (ARBOR_SOAK_SEED to repeat)");
        Self(seed | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n.max(1)
    }
}

/// What the model was sent that must be stored: user prompts, the ids of the tool calls it
/// made and of the results it was given.
fn sent_messages(mock: &MockProvider) -> Vec<String> {
    let mut sent = Vec::new();
    for request in mock.requests() {
        let Some(messages) = request.json()["messages"].as_array() else {
            continue;
        };
        for message in messages {
            match message["role"].as_str() {
                Some("user") => {
                    if let Some(text) = message["content"].as_str() {
                        sent.push(text.to_owned());
                    }
                }
                Some("tool") => {
                    sent.push(message["tool_call_id"].as_str().unwrap_or("").to_owned());
                }
                Some("assistant") => {
                    for call in message["tool_calls"].as_array().into_iter().flatten() {
                        sent.push(call["id"].as_str().unwrap_or("").to_owned());
                    }
                }
                _ => {}
            }
        }
    }
    sent.retain(|s| !s.is_empty());
    sent.sort();
    sent.dedup();
    sent
}

/// The soak: `kill -9` of `arbor -c -p` at random moments of a multi-turn run with writes,
/// bash and (every fifth trial) a restore, each followed by SQLite's integrity check,
/// `git fsck` of the snapshot store, and a check that everything the model was sent is
/// stored. Prints the counts; `scripts/soak-kill9.sh` runs it (`ARBOR_SOAK_TRIALS`, default
/// 200).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a soak of several minutes: run by scripts/soak-kill9.sh"]
async fn soak_kill9_at_random_moments() {
    let trials: usize = std::env::var("ARBOR_SOAK_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(200);
    let mut random = Lcg::seeded();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("code.txt"), "start\n").unwrap();
    let arbor = Arbor::new();
    let (mut killed, mut finished, mut restores) = (0, 0, 0);
    let (mut damaged, mut fsck_failed, mut missing) = (0, 0, 0);
    let mut all_sent = 0;
    for trial in 0..trials {
        let mock = MockProvider::start(
            Script::new()
                .turn(Turn::stream().tool_call(
                    "write",
                    json!({"path": format!("f{}.txt", trial % 7), "content": format!("trial {trial}\n")}),
                ))
                .turn(Turn::stream().tool_call(
                    "bash",
                    json!({"command": format!("echo {trial} >> code.txt; sleep 0.0{}", trial % 10)}),
                ))
                .turn(Turn::stream().tool_call(
                    "edit",
                    json!({"path": "code.txt", "edits": [{"oldText": format!("{trial}\n"), "newText": format!("{trial} edited\n")}]}),
                ))
                .turn(Turn::text(format!("trial {trial} done")).delay_ms(2)),
        )
        .await
        .unwrap();
        let mut command = arbor.command();
        let restore_trial = trial % 5 == 4;
        if restore_trial {
            // A restore to an earlier user message, killed (or not) at a random moment.
            let sessions = arbor
                .run(&[
                    "-C",
                    &project.path().display().to_string(),
                    "sessions",
                    "--json",
                ])
                .await;
            let sessions: Value = serde_json::from_str(&sessions.stdout).unwrap_or(Value::Null);
            let Some(session) = sessions[0]["id"].as_str() else {
                continue;
            };
            let nodes = tree(&arbor, session).await;
            let users: Vec<&Value> = nodes.iter().filter(|n| n["kind"] == "user").collect();
            let target = users[random.below(users.len() as u64) as usize]["id"]
                .as_str()
                .unwrap()
                .to_owned();
            command.args([
                "-C",
                &project.path().display().to_string(),
                "restore",
                &target,
                "--yes",
            ]);
            restores += 1;
        } else {
            let mut rest = vec!["--tools", "read,write,edit,bash"];
            if trial > 0 {
                rest.push("-c");
            }
            let prompt = format!("trial {trial}");
            rest.extend(["-p", &prompt]);
            command.args(args_with(&mock, project.path(), &rest));
        }
        let mut child = command.spawn().unwrap();
        let wait = Duration::from_millis(random.below(700));
        match tokio::time::timeout(wait, child.wait()).await {
            Ok(_) => finished += 1,
            Err(_) => {
                child.start_kill().unwrap();
                let _ = child.wait().await;
                killed += 1;
            }
        }
        // SQLite's full check.
        let store = arbor_store::Store::open_read_only(arbor.data_path()).ok();
        match store.as_ref().map(arbor_store::Store::check_integrity) {
            Some(Ok(problems)) if problems.is_empty() => {}
            None => {}
            other => {
                damaged += 1;
                eprintln!("trial {trial}: database damaged: {other:?}");
            }
        }
        for shadow in walk_dirs(&arbor.data_path().join("snapshots")) {
            let fsck = git(&[
                "--git-dir",
                &shadow.display().to_string(),
                "fsck",
                "--no-dangling",
            ]);
            if !fsck.status.success() {
                fsck_failed += 1;
                eprintln!(
                    "trial {trial}: git fsck: {}",
                    String::from_utf8_lossy(&fsck.stderr)
                );
            }
        }
        // Everything the model was sent is stored.
        if let Some(store) = &store {
            let sessions = store.list_sessions(None, None).unwrap();
            let mut stored = String::new();
            for session in &sessions {
                for node in store.session_tree(&session.session.id).unwrap().nodes {
                    let node = store.get_node(&node.id).unwrap();
                    stored.push_str(node.content.get());
                    stored.push('\n');
                }
            }
            for message in sent_messages(&mock) {
                all_sent += 1;
                if !stored.contains(&message) {
                    missing += 1;
                    eprintln!("trial {trial}: sent but not stored: {message}");
                }
            }
        }
    }
    println!(
        "soak: {trials} trials ({killed} killed mid-run, {finished} finished, {restores} restores); \
         {all_sent} messages sent to the model; database damaged after {damaged}, git fsck failed \
         {fsck_failed}, messages sent but not stored {missing}"
    );
    println!(
        "soak: {} passed, {} failed",
        trials - damaged.min(trials),
        damaged + fsck_failed + missing
    );
    assert_eq!((damaged, fsck_failed, missing), (0, 0, 0));
}

fn walk_dirs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default()
}
