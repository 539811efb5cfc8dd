//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, installed with the
//! Node 22 it needs into `tests/mcp-conformance` by `scripts/setup.sh`) against Arbor's client:
//! every client scenario it lists, through the adapter `arbor-mcp-conformance-client`, judged
//! against `tests/mcp-conformance/expected-failures.yml` — a scenario failing that is not listed
//! fails this test, and so does a listed one that passes.

use std::path::PathBuf;
use std::process::Command;

fn conformance_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp-conformance");
    assert!(
        dir.join("node_modules/.bin/node").exists(),
        "the conformance suite is not installed: run `npm ci --prefix tests/mcp-conformance` \
         (scripts/setup.sh test does)"
    );
    dir
}

fn suite(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn every_client_scenario_passes_or_is_a_listed_expected_failure() {
    let dir = conformance_dir();
    let listed = suite(&dir, &["list"]);
    let listing = String::from_utf8_lossy(&listed.stdout);
    let scenarios: Vec<String> = listing
        .split("Client scenarios")
        .nth(1)
        .expect("the suite lists client scenarios")
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|entry| entry.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    assert!(scenarios.len() >= 10, "{listing}");
    assert!(scenarios.iter().any(|s| s == "tools_call"), "{scenarios:?}");
    let client = env!("CARGO_BIN_EXE_arbor-mcp-conformance-client");
    let baseline = dir.join("expected-failures.yml");
    let mut unexpected = Vec::new();
    for scenario in &scenarios {
        let run = suite(
            &dir,
            &[
                "client",
                "--command",
                client,
                "--scenario",
                scenario,
                "--timeout",
                "20000",
                "--expected-failures",
                baseline.to_str().unwrap(),
            ],
        );
        if !run.status.success() {
            unexpected.push(format!(
                "{scenario}:\n{}\n{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            ));
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n---\n"));
}
