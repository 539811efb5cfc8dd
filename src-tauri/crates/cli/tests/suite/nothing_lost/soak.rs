//! The kill -9 soak (ignored in `npm test`; `scripts/soak-kill9.sh` runs it).

use super::*;

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
        let wait = Duration::from_millis(random.below(350));
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
         {all_sent} messages sent to the model checked; database damaged after {damaged}, git fsck failed \
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
