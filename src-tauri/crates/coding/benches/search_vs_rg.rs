//! `grep` and `find` against `rg` and `fd` (Debian: `ripgrep`, `fd-find`) on the same large tree,
//! with equivalent options, in one process; prints the ratios at the end (budget: within 1.25×).
//!
//! Tree: `$ARBOR_BENCH_TREE`, default `~/.cargo/registry/src`. A peer that is not installed is
//! skipped with a notice. Run: `cargo bench -p arbor-coding --bench search_vs_rg`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arbor_agent::{AgentTool, ToolContext};
use arbor_coding::tools::{FindTool, GrepTool};
use arbor_coding::Workspace;
use criterion::{criterion_group, Criterion};
use serde_json::{json, Value};

/// Regex searched for: selective enough that output cost does not dominate.
const PATTERN: &str = r"fn \w+_unchecked\(";
const GLOB: &str = "*.toml";
/// Large enough that neither tool stops early: both do the whole tree.
const NO_LIMIT: u64 = 10_000_000;

static TIMES: Mutex<BTreeMap<String, Vec<Duration>>> = Mutex::new(BTreeMap::new());

fn tree() -> PathBuf {
    if let Some(tree) = std::env::var_os("ARBOR_BENCH_TREE") {
        return PathBuf::from(tree);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    home.join(".cargo/registry/src")
}

fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn supports(program: &str, flag: &str) -> bool {
    Command::new(program)
        .arg("--help")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains(flag))
}

fn run_peer(program: &str, args: &[&str], tree: &Path) {
    let status = Command::new(program)
        .args(args)
        .arg(tree)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // rg exits 1 when nothing matched; anything else is a broken run.
    assert!(
        status.code().is_some_and(|code| code <= 1),
        "{program} failed: {status}"
    );
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

fn timed(c: &mut Criterion, name: &str, mut run: impl FnMut()) {
    let mut group = c.benchmark_group("search");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function(name, |b| {
        b.iter_custom(|iterations| {
            let start = Instant::now();
            for _ in 0..iterations {
                run();
            }
            let elapsed = start.elapsed();
            if let Ok(mut times) = TIMES.lock() {
                times
                    .entry(name.to_string())
                    .or_default()
                    .push(elapsed / iterations as u32);
            }
            elapsed
        })
    });
    group.finish();
}

fn bench_search(c: &mut Criterion) {
    let tree = tree();
    assert!(
        tree.is_dir(),
        "no tree at {}: set ARBOR_BENCH_TREE",
        tree.display()
    );
    println!("tree: {}", tree.display());
    // One untimed pass first, so every contender meets the same (warm) page cache.
    if installed("rg") {
        run_peer(
            "rg",
            &["-n", "--hidden", "--no-require-git", PATTERN],
            &tree,
        );
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let workspace = Workspace::new(&tree);
    let grep = GrepTool::new(workspace.clone());
    let find = FindTool::new(workspace);
    let tree_arg = tree.display().to_string();

    let grep_args = object(json!({"pattern": PATTERN, "path": tree_arg, "limit": NO_LIMIT}));
    timed(c, "arbor_grep", || {
        runtime
            .block_on(grep.execute(grep_args.clone(), ToolContext::detached("b")))
            .unwrap();
    });
    if installed("rg") {
        // Same walk as ours: hidden files included, .gitignore honoured outside git too, .git skipped.
        timed(c, "rg", || {
            run_peer(
                "rg",
                &["-n", "--hidden", "--no-require-git", "-g", "!.git", PATTERN],
                &tree,
            )
        });
    } else {
        println!("rg is not installed (Debian package ripgrep): skipped");
    }

    let find_args = object(json!({"pattern": GLOB, "path": tree_arg, "limit": NO_LIMIT}));
    timed(c, "arbor_find", || {
        runtime
            .block_on(find.execute(find_args.clone(), ToolContext::detached("b")))
            .unwrap();
    });
    let fd = ["fdfind", "fd"]
        .into_iter()
        .find(|program| installed(program));
    match fd {
        Some(fd) => {
            let mut args = vec!["--hidden", "--exclude", ".git", "--glob", GLOB];
            // fd < 8.7 lacks it, and then honours .gitignore only inside git repositories.
            if supports(fd, "--no-require-git") {
                args.push("--no-require-git");
            } else {
                println!("{fd} has no --no-require-git: it skips .gitignore files outside git repositories");
            }
            timed(c, "fd", || run_peer(fd, &args, &tree))
        }
        None => println!("fd is not installed (Debian package fd-find): skipped"),
    }
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn print_ratios() {
    let Ok(times) = TIMES.lock() else { return };
    let medians: BTreeMap<&str, Duration> = times
        .iter()
        .map(|(name, samples)| (name.as_str(), median(samples)))
        .collect();
    println!("\nmedian per run:");
    for (name, time) in &medians {
        println!("  {name:<11} {:>8.1} ms", time.as_secs_f64() * 1000.0);
    }
    for (ours, peer) in [("arbor_grep", "rg"), ("arbor_find", "fd")] {
        if let (Some(ours_time), Some(peer_time)) = (medians.get(ours), medians.get(peer)) {
            println!(
                "{ours} / {peer} = {:.2}x (budget 1.25x)",
                ours_time.as_secs_f64() / peer_time.as_secs_f64()
            );
        }
    }
}

criterion_group!(benches, bench_search);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    print_ratios();
}
