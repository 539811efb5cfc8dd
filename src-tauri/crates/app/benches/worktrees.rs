//! Issue 25's figures: (1) the time to make a worktree for a new session on a 10,000-file
//! repository — `git worktree add` on a new branch, `.worktreeinclude` copied, recorded, and the
//! live session started in it — before any setup command (target: under 1 s); (2) the memory
//! each extra session running at once costs (resident set growth with 1, 2, 4 and 8 sessions
//! each in the middle of a run against a stalled mock stream). Run:
//! `cargo bench -p arbor-app --bench worktrees` (prints the figures, and git's own `git worktree
//! add` on the same repository side by side; `TMPDIR=/dev/shm` takes the disk out of it;
//! `ARBOR_BENCH_PARTS=1` also prints git2's worktree add and the `.worktreeinclude` copy apart).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbor_app::{ArborApp, LiveSession, ModelRequest, SessionConfig, SessionStart};
use arbor_llm::ThinkingLevel;
use arbor_test_support::{MockProvider, Script, WireApi};
use serde_json::json;

const FILES: usize = 10_000;

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args([
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.invalid",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
}

/// A repository of `FILES` files of ~1 KB in 100 folders, one commit, an ignored `.env`.
fn repository(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q"]);
    for i in 0..FILES {
        let dir = root.join(format!("src/m{:03}", i % 100));
        std::fs::create_dir_all(&dir).unwrap();
        let body = format!("// file {i}\n{}\n", "pub fn f() -> u32 { 42 }\n".repeat(40));
        std::fs::write(dir.join(format!("f{i}.rs")), body).unwrap();
    }
    std::fs::write(root.join(".gitignore"), ".env\ntarget/\n").unwrap();
    std::fs::write(root.join(".worktreeinclude"), ".env\n").unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "files"]);
    std::fs::write(root.join(".env"), "TOKEN=x\n").unwrap();
}

fn app(data: &Path, mock: &MockProvider) -> ArborApp {
    let models = json!({"providers": {"mock": {
        "api": "openai-completions", "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
        "apiKeyEnv": "MOCK_KEY", "models": [{"id": "m1"}]}}});
    std::fs::write(data.join("models.json"), models.to_string()).unwrap();
    ArborApp::open(Some(data))
        .unwrap()
        .with_env(Arc::new(|n| (n == "MOCK_KEY").then(|| "k".to_owned())))
}

fn session_in(app: &ArborApp, cwd: &Path) -> LiveSession {
    let selection = app
        .select(&ModelRequest {
            model: Some("mock/m1".into()),
            ..ModelRequest::default()
        })
        .unwrap();
    let config = SessionConfig {
        cwd: cwd.to_owned(),
        selection,
        thinking: ThinkingLevel::Off,
        tools: vec!["read".into(), "write".into(), "bash".into()],
        system_prompt: None,
        append_system_prompt: None,
        tool_environment: app.tool_environment(&[]),
        stream_idle_timeout: arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT,
        permissions: None,
    };
    let mut session = app.start_session(config, Some(SessionStart::New)).unwrap();
    session.attach(|_| {});
    session
}

fn resident_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // Every request stalls mid-stream, so each session stays in its run.
        let turns: Vec<serde_json::Value> = (0..64)
            .map(|_| {
                json!({"stream": {"steps": [{"text": "working on it, slowly"}],
                "chunk_size": 4, "stall_after_chunks": 1, "stall_ms": 600_000}})
            })
            .collect();
        let script: Script = serde_json::from_value(json!({"turns": turns})).unwrap();
        let mock = MockProvider::start(script).await.unwrap();
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let root = project.path().join("repo");
        repository(&root);
        let app = app(data.path(), &mock);

        if std::env::var_os("ARBOR_BENCH_PARTS").is_some() {
            let started = Instant::now();
            let made = arbor_coding::worktrees::create(&arbor_coding::worktrees::NewWorktree {
                repo_root: root.clone(),
                name: "parts".into(),
                base: None,
                folder: project.path().join("parts"),
            })
            .unwrap();
            let add = started.elapsed();
            let copied = arbor_coding::worktrees::copy_included(&root, &made.path).unwrap();
            println!(
                "parts: git2 worktree add {:.0} ms, .worktreeinclude {:.0} ms ({} copied)",
                add.as_secs_f64() * 1000.0,
                (started.elapsed() - add).as_secs_f64() * 1000.0,
                copied.len()
            );
        }
        let mut times = Vec::new();
        for i in 0..5 {
            let started = Instant::now();
            let made = app
                .create_worktree(&root, Some(&format!("bench-{i}")), None)
                .unwrap();
            let created = started.elapsed();
            let session = session_in(&app, Path::new(&made.worktree.path));
            times.push(started.elapsed());
            println!(
                "  {i}: worktree made in {:.0} ms, session started {:.0} ms later",
                created.as_secs_f64() * 1000.0,
                (started.elapsed() - created).as_secs_f64() * 1000.0
            );
            drop(session);
        }
        times.sort();
        // The peer, side by side: git's own `git worktree add` on the same repository.
        let mut git_times = Vec::new();
        for i in 0..5 {
            let started = Instant::now();
            let folder = project.path().join(format!("git-{i}"));
            git(
                &root,
                &[
                    "worktree",
                    "add",
                    "-q",
                    "-b",
                    &format!("git-{i}"),
                    folder.to_str().unwrap(),
                ],
            );
            git_times.push(started.elapsed());
        }
        git_times.sort();
        println!(
            "git worktree add (the git command) on the same repository: median {:.0} ms; \
             Arbor / git = {:.2}",
            git_times[2].as_secs_f64() * 1000.0,
            times[2].as_secs_f64() / git_times[2].as_secs_f64()
        );
        println!(
            "worktree session on {FILES} files: median {:.0} ms (min {:.0}, max {:.0}) — git \
             worktree add, .worktreeinclude, recorded, session started",
            times[2].as_secs_f64() * 1000.0,
            times[0].as_secs_f64() * 1000.0,
            times[4].as_secs_f64() * 1000.0
        );

        let before = resident_mb();
        let mut running = Vec::new();
        let mut handles = Vec::new();
        for (n, target) in [1usize, 2, 4, 8].into_iter().enumerate() {
            while running.len() < target {
                let i = running.len();
                let made = app
                    .create_worktree(&root, Some(&format!("run-{n}-{i}")), None)
                    .unwrap();
                let session = session_in(&app, Path::new(&made.worktree.path));
                handles.push(session.start_prompt("go on".into(), Vec::new()).unwrap());
                running.push(session);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
            let now = resident_mb();
            println!(
                "{target} sessions running at once: resident {now:.1} MB, {:.1} MB over none, \
                 {:.1} MB per session",
                now - before,
                (now - before) / target as f64
            );
        }
        for session in &running {
            session.interrupter().abort();
        }
        drop(handles);
    });
}
