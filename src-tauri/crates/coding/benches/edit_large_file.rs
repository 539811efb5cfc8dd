//! `edit` on a 10 MB file: an exact match, and a match that needs the tolerant (normalising)
//! search. Run: `cargo bench -p arbor-coding --bench edit_large_file`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use arbor_agent::{AgentTool, ToolContext};
use arbor_coding::tools::EditTool;
use arbor_coding::Workspace;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

/// About 10 MB of source-like lines, with one unique marker line in the middle.
fn ten_megabytes(line_ending: &str) -> String {
    let mut text = String::with_capacity(10 * 1024 * 1024 + 1024);
    let mut n = 0;
    while text.len() < 10 * 1024 * 1024 {
        if n == 100_000 {
            text.push_str(&format!("    let marker = \"middle\";{line_ending}"));
        }
        text.push_str(&format!(
            "    let value_{n} = compute({n}, \"text\");{line_ending}"
        ));
        n += 1;
    }
    text
}

fn arguments(old: &str, new: &str) -> serde_json::Map<String, Value> {
    match json!({"path": "big.rs", "edits": [{"old_text": old, "new_text": new}]}) {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

fn bench_edit(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tool = EditTool::new(Workspace::new(dir.path()));
    let mut group = c.benchmark_group("edit_10mb");
    group.sample_size(20);

    std::fs::write(dir.path().join("big.rs"), ten_megabytes("\n")).unwrap();
    let forward = arguments("let marker = \"middle\";", "let marker = \"centre\";");
    let back = arguments("let marker = \"centre\";", "let marker = \"middle\";");
    let mut flip = false;
    group.bench_function("exact_match", |b| {
        b.iter(|| {
            flip = !flip;
            let args = if flip { forward.clone() } else { back.clone() };
            black_box(
                runtime
                    .block_on(tool.execute(args, ToolContext::detached("b")))
                    .unwrap(),
            );
        })
    });

    // CRLF file, LF old_text: the exact search fails and the tolerant one maps positions back.
    std::fs::write(dir.path().join("big.rs"), ten_megabytes("\r\n")).unwrap();
    flip = false;
    let forward = arguments(
        "let marker = \"middle\";\n    let value_100000",
        "let marker = \"centre\";\n    let value_100000",
    );
    let back = arguments(
        "let marker = \"centre\";\n    let value_100000",
        "let marker = \"middle\";\n    let value_100000",
    );
    group.bench_function("tolerant_match_crlf", |b| {
        b.iter(|| {
            flip = !flip;
            let args = if flip { forward.clone() } else { back.clone() };
            black_box(
                runtime
                    .block_on(tool.execute(args, ToolContext::detached("b")))
                    .unwrap(),
            );
        })
    });
    group.finish();
}

criterion_group!(benches, bench_edit);
criterion_main!(benches);
