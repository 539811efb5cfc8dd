//! What the sandbox adds to starting a command: `bash -c true` unconfined, then through
//! bubblewrap and the helper (and Landlock), interleaved so load elsewhere weighs on each alike.
//! Prints the median and the 90th percentile of each, and the difference.
//!
//! `cargo run --release -p arbor-sandbox --example bench [RUNS]` (the helper must be built:
//! `cargo build --release -p arbor-sandbox`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbor_sandbox::{wrap, Backend, SandboxPolicy};

fn time(program: &PathBuf, args: &[OsString]) -> Duration {
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{program:?} failed");
    started.elapsed()
}

fn figures(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (samples[samples.len() / 2], samples[samples.len() * 9 / 10])
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let helper = arbor_sandbox::helper_path()
        .expect("build the helper: cargo build --release -p arbor-sandbox");
    let project = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let policy = SandboxPolicy {
        writable: vec![project.path().to_owned()],
        read_only: Vec::new(),
        hidden: ["~/.ssh", "~/.aws", "~/.gnupg"]
            .iter()
            .filter_map(|p| {
                p.strip_prefix("~/")
                    .and_then(|rest| dirs_home().map(|h| h.join(rest)))
            })
            .collect(),
        network: false,
        temp_dir: temp.path().to_owned(),
    };
    let command = [OsString::from("-c"), OsString::from("true")];
    let backends = [
        (
            "bubblewrap + seccomp",
            Backend::Bubblewrap {
                bwrap: "/usr/bin/bwrap".into(),
                helper: helper.clone(),
            },
        ),
        (
            "landlock + seccomp",
            Backend::Landlock {
                helper: helper.clone(),
            },
        ),
    ];
    let wrapped: Vec<_> = backends
        .iter()
        .map(|(name, backend)| (*name, wrap(backend, &policy, "bash", &command).unwrap()))
        .collect();
    let bash = PathBuf::from("/bin/bash");
    let mut plain = Vec::new();
    let mut confined: Vec<Vec<Duration>> = vec![Vec::new(); wrapped.len()];
    for _ in 0..runs {
        plain.push(time(&bash, &command));
        for (index, (_, w)) in wrapped.iter().enumerate() {
            confined[index].push(time(&w.program, &w.args));
        }
    }
    let (plain_median, plain_p90) = figures(plain);
    println!("{runs} runs of `bash -c true` each, interleaved");
    println!("unconfined            median {plain_median:>10.2?}  p90 {plain_p90:>10.2?}");
    for ((name, _), samples) in wrapped.iter().zip(confined) {
        let (median, p90) = figures(samples);
        println!(
            "{name:<21} median {median:>10.2?}  p90 {p90:>10.2?}  added {:>8.2?} ({:.1}x)",
            median.saturating_sub(plain_median),
            median.as_secs_f64() / plain_median.as_secs_f64()
        );
    }
}

fn dirs_home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}
