//! Prints how long opening the shadow repository and taking one snapshot of a folder take, as
//! a fresh `arbor -p` process does at a user turn. Usage: snapshot_timing WORKSPACE [RUNS [SHADOW]]
use std::time::Instant;

use arbor_git::snapshots::{SnapshotOptions, Snapshots};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let workspace = std::path::PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let runs: usize = args.next().map_or(Ok(20), |r| r.parse())?;
    let temporary = tempfile::tempdir()?;
    // A shadow repository given (a fresh process over a warm stat cache, as `arbor -p` runs),
    // else a new one, filled once before timing.
    let shadow = match args.next() {
        Some(shadow) => shadow.into(),
        None => {
            let shadow = temporary.path().join("s.git");
            Snapshots::open(&shadow, &workspace, SnapshotOptions::default())?.take()?;
            shadow
        }
    };
    let (mut open_total, mut take_total) = (0.0, 0.0);
    for _ in 0..runs {
        let started = Instant::now();
        let mut snapshots = Snapshots::open(&shadow, &workspace, SnapshotOptions::default())?;
        let opened = started.elapsed().as_secs_f64();
        snapshots.take()?;
        open_total += opened;
        take_total += started.elapsed().as_secs_f64() - opened;
    }
    println!(
        "open {:.2} ms, take {:.2} ms (mean of {runs})",
        open_total * 1e3 / runs as f64,
        take_total * 1e3 / runs as f64
    );
    Ok(())
}
