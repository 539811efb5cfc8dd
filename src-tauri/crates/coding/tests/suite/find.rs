use crate::common;

use common::TestWorkspace;
use serde_json::json;

fn project() -> TestWorkspace {
    let ws = TestWorkspace::new();
    ws.write(".gitignore", "target/\n");
    ws.write("src/main.rs", "");
    ws.write("src/lib/mod.rs", "");
    ws.write("target/debug/build.rs", "");
    ws.write("README.md", "");
    ws.write(".github/ci.yml", "");
    ws
}

#[tokio::test]
async fn name_globs_match_at_any_depth_and_respect_gitignore() {
    let ws = project();
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.rs"})).await,
        "src/lib/mod.rs\nsrc/main.rs"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.yml"})).await,
        ".github/ci.yml"
    );
    assert_eq!(ws.ok("find", json!({"pattern": "lib"})).await, "src/lib/");
}

#[tokio::test]
async fn path_globs_match_relative_to_the_search_folder() {
    let ws = project();
    assert_eq!(
        ws.ok("find", json!({"pattern": "src/*.rs"})).await,
        "src/main.rs"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "src/**/*.rs"})).await,
        "src/lib/mod.rs\nsrc/main.rs"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.rs", "path": "src/lib"}))
            .await,
        "src/lib/mod.rs"
    );
}

#[tokio::test]
async fn limit_notice_and_errors() {
    let ws = TestWorkspace::new();
    for n in 0..5 {
        ws.write(&format!("f{n}.txt"), "");
    }
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.txt", "limit": 2})).await,
        "f0.txt\nf1.txt\n\n[Showing 2 of 5 matches (limit=2). Use a narrower pattern or path, or a larger limit.]"
    );
    assert_eq!(
        ws.ok("find", json!({"pattern": "*.zip"})).await,
        "No files found matching \"*.zip\"."
    );
    assert_eq!(
        ws.err("find", json!({"pattern": "a[", "path": "."}))
            .await
            .split(':')
            .next()
            .unwrap(),
        "Invalid glob \"a[\""
    );
    assert_eq!(
        ws.err("find", json!({"pattern": "*", "path": "nope"}))
            .await,
        "Folder not found: nope."
    );
}
