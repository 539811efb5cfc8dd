//! Sessions made by the generators in `scripts/bench/` (lossless JSONL exports), imported into
//! a data folder, and the small statistics the webview benchmarks print.

// Each suite or benchmark is its own crate and uses part of these helpers.
#![allow(dead_code)]

use std::path::Path;

use anyhow::{ensure, Context, Result};
use serde_json::Value;

/// Runs `node scripts/bench/<script> <count> <root>` and imports the session it prints into the
/// data folder `data`, for the project at `root`; returns the session's id.
pub fn import_generated(script: &str, count: usize, data: &Path, root: &Path) -> Result<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/bench")
        .join(script);
    let output = std::process::Command::new("node")
        .arg(&path)
        .arg(count.to_string())
        .arg(root)
        .output()
        .with_context(|| format!("running node {}", path.display()))?;
    ensure!(
        output.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let app = arbor_app::ArborApp::open(Some(data))?;
    let store = app.session_store()?;
    let session = arbor_app::export::import_jsonl(&store, &output.stdout, root)?;
    Ok(session.id)
}

/// Median, 99th percentile and maximum of `values` (sorted in place).
pub fn spread(values: &mut [f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    values.sort_by(f64::total_cmp);
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
    (at(0.5), at(0.99), at(1.0))
}

/// The numbers of a JSON array (others skipped).
pub fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}
