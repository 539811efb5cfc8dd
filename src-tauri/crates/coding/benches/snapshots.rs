//! What recording the code state costs (issue 15): a 10,000-file workspace (100 folders of 100
//! source-like files of about 1 KB) snapshotted once, then checked again unchanged (target: well
//! under 100 ms: the stat cache means no file is read), and with one file changed (cost in
//! proportion to the change), and a restore of one changed file back. Run:
//! `cargo bench -p arbor-coding --bench snapshots` (medians printed after criterion's report).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use arbor_coding::snapshots::{SnapshotOptions, Snapshots};
use criterion::Criterion;

const FOLDERS: usize = 100;
const FILES: usize = 100;

fn workspace(root: &Path) {
    for folder in 0..FOLDERS {
        let dir = root.join(format!("src/module_{folder:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for file in 0..FILES {
            let mut text = String::new();
            for line in 0..24 {
                text.push_str(&format!(
                    "let value_{folder}_{file}_{line} = compute({line});\n"
                ));
            }
            std::fs::write(dir.join(format!("file_{file:03}.rs")), text).unwrap();
        }
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
}

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(20)
        .configure_from_args();
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let mut snapshots = Snapshots::open(
        &data.path().join("shadow.git"),
        dir.path(),
        SnapshotOptions::default(),
    )
    .unwrap();
    let started = Instant::now();
    let first = snapshots.take().unwrap();
    let initial = started.elapsed();
    // Past the racy window, so the files count as settled (as they would in a real session).
    std::thread::sleep(Duration::from_millis(2_100));
    snapshots.take().unwrap();

    c.bench_function("snapshot_unchanged_10k_files", |b| {
        b.iter(|| assert_eq!(snapshots.take().unwrap(), first))
    });
    let changed = dir.path().join("src/module_042/file_007.rs");
    let mut n = 0;
    c.bench_function("snapshot_one_changed_of_10k_files", |b| {
        b.iter(|| {
            n += 1;
            std::fs::write(&changed, format!("let changed = {n};\n")).unwrap();
            snapshots.take().unwrap()
        })
    });
    c.final_summary();

    let runs = 15;
    let unchanged = median(
        || {
            snapshots.take().unwrap();
        },
        runs,
    );
    let one_changed = median(
        || {
            n += 1;
            std::fs::write(&changed, format!("let changed = {n};\n")).unwrap();
            snapshots.take().unwrap();
        },
        runs,
    );
    let hundred = median(
        || {
            n += 1;
            for file in 0..100 {
                let path = dir.path().join(format!(
                    "src/module_{:03}/file_{file:03}.rs",
                    file % FOLDERS
                ));
                std::fs::write(path, format!("let changed = {n};\n")).unwrap();
            }
            snapshots.take().unwrap();
        },
        runs,
    );
    // What a session does after a tool call: the snapshot, then the files changed since the
    // previous one with their line counts.
    let mut previous = snapshots.take().unwrap();
    let step = median(
        || {
            n += 1;
            std::fs::write(&changed, format!("let changed = {n};\n")).unwrap();
            let next = snapshots.take().unwrap();
            assert_eq!(snapshots.changes(Some(&previous), &next).unwrap().len(), 1);
            previous = next;
        },
        runs,
    );
    let now = snapshots.take().unwrap();
    let restore = median(
        || {
            snapshots.restore(&first, None, true).unwrap();
            snapshots.restore(&now, None, true).unwrap();
        },
        runs,
    );
    println!("\n{} files; medians of {runs} runs:", FOLDERS * FILES);
    println!("  first snapshot (every file read and stored)   {initial:>10.3?}");
    println!("  unchanged workspace checked                   {unchanged:>10.3?}  (target well under 100 ms)");
    println!("  one file changed, snapshotted                 {one_changed:>10.3?}");
    println!("  100 files changed, snapshotted                {hundred:>10.3?}");
    println!("  a session's step: one changed + its changes   {step:>10.3?}");
    println!("  restore one file and back (two restores)      {restore:>10.3?}");

    // The peer, side by side: a shadow repository driven by the git command line (what other
    // agents do: `git add -A` into a private index, then `git write-tree`).
    let peer = data.path().join("peer.git");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg(format!("--git-dir={}", peer.display()))
            .arg(format!("--work-tree={}", dir.path().display()))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let init = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&peer)
        .status()
        .unwrap();
    assert!(init.success());
    let peer_snapshot = || {
        git(&["add", "-A", "."]);
        git(&["write-tree"]);
    };
    let started = Instant::now();
    peer_snapshot();
    let peer_first = started.elapsed();
    std::thread::sleep(Duration::from_millis(2_100));
    peer_snapshot();
    let peer_unchanged = median(peer_snapshot, runs);
    let peer_one = median(
        || {
            n += 1;
            std::fs::write(&changed, format!("let changed = {n};\n")).unwrap();
            peer_snapshot();
        },
        runs,
    );
    let ratio = |ours: Duration, theirs: Duration| ours.as_secs_f64() / theirs.as_secs_f64();
    println!("\npeer (git add -A + write-tree into a shadow repository), medians of {runs}:");
    println!(
        "  first snapshot         {peer_first:>10.3?}  (Arbor / peer {:.2})",
        ratio(initial, peer_first)
    );
    println!(
        "  unchanged checked      {peer_unchanged:>10.3?}  (Arbor / peer {:.2})",
        ratio(unchanged, peer_unchanged)
    );
    println!(
        "  one file changed       {peer_one:>10.3?}  (Arbor / peer {:.2})",
        ratio(one_changed, peer_one)
    );
}
