//! Export and import of sessions: JSONL round trip, Markdown snapshot, HTML safety, bad input.

use arbor_coding::export::{
    export_session, import_jsonl, normalize_jsonl, ExportFormat, ExportScope, ImportError,
};
use arbor_store::{NewNode, NodeKind, Session, Store};
use serde_json::{json, Value};

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    root: std::path::PathBuf,
    session: Session,
}

fn user(text: &str) -> NewNode {
    NewNode::new(
        NodeKind::User,
        json!({"role": "user", "content": [{"type": "text", "text": text}]}),
        text,
    )
}

fn assistant(blocks: Value, text: &str, stop: &str) -> NewNode {
    NewNode::new(
        NodeKind::Assistant,
        json!({
            "role": "assistant", "content": blocks, "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-test",
            "usage": {"input": 10, "output": 5, "cache_read": 0, "cache_write": 0,
                      "cost": {"input": 0.0, "output": 0.0, "cache_read": 0.0, "cache_write": 0.0, "total": 0.0}},
            "stop_reason": stop
        }),
        text,
    )
    .with_usage(json!({"input": 10, "output": 5}))
}

fn tool_result(call: &str, name: &str, output: &str, is_error: bool) -> NewNode {
    NewNode::new(
        NodeKind::ToolResult,
        json!({"role": "tool_result", "tool_call_id": call, "tool_name": name,
               "content": [{"type": "text", "text": output}], "is_error": is_error,
               "details": {"exit_code": if is_error { 1 } else { 0 }}}),
        output,
    )
}

/// A session with a branch, a compaction, an aborted message, tool calls/results and a label.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("data")).unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let project = store.open_project(&root, None).unwrap();
    let s = store
        .create_session(&project.id, Some("anthropic/claude-test"), Some("medium"))
        .unwrap();
    let id = s.id.clone();
    let u1 = store.append(&id, user("List the files, please")).unwrap();
    let a1 = store
        .append(
            &id,
            assistant(
                json!([
                    {"type": "thinking", "thinking": "I should call ls.", "signature": "sig"},
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_call", "id": "call_1", "name": "ls", "arguments": {"path": "."}}
                ]),
                "Let me look.",
                "tool_use",
            ),
        )
        .unwrap();
    let output: String = (1..=100).map(|i| format!("file{i}.rs\n")).collect();
    let r1 = store
        .append(&id, tool_result("call_1", "ls", output.trim_end(), false))
        .unwrap();
    let a2 = store
        .append(
            &id,
            assistant(
                json!([{"type": "text", "text": "There are 100 files."}]),
                "There are 100 files.",
                "stop",
            ),
        )
        .unwrap();
    store.set_label(&id, &a2.id, Some("checkpoint")).unwrap();
    // Branch 1 (left): an aborted answer.
    store.append(&id, user("Now delete them")).unwrap();
    store
        .append(
            &id,
            assistant(
                json!([{"type": "text", "text": "Deleting fi"}]),
                "Deleting fi",
                "aborted",
            )
            .with_aborted(true),
        )
        .unwrap();
    // Branch 2 (current): back to a2, a failing tool and a compaction.
    store.set_leaf(&id, Some(&a2.id)).unwrap();
    let u3 = store.append(&id, user("Run the tests")).unwrap();
    store
        .append(
            &id,
            assistant(
                json!([{"type": "tool_call", "id": "call_2", "name": "bash",
                        "arguments": {"command": "cargo test"}}]),
                "",
                "tool_use",
            ),
        )
        .unwrap();
    store
        .append(
            &id,
            tool_result("call_2", "bash", "error: 1 test failed", true),
        )
        .unwrap();
    store
        .append(
            &id,
            NewNode::compaction(
                "Goal: make the tests pass. Files read: none.",
                &u3.id,
                12_345,
            ),
        )
        .unwrap();
    store
        .append(
            &id,
            assistant(
                json!([{"type": "text", "text": "Summary noted; fixing the test."}]),
                "Summary noted; fixing the test.",
                "stop",
            ),
        )
        .unwrap();
    let _ = (u1, a1, r1);
    let session = store.get_session(&id).unwrap();
    Fixture {
        _dir: dir,
        store,
        root,
        session,
    }
}

fn jsonl(f: &Fixture, id: &str, scope: ExportScope) -> String {
    export_session(&f.store, id, scope, ExportFormat::Jsonl).unwrap()
}

#[test]
fn jsonl_header_and_lines() {
    let f = fixture();
    let out = jsonl(&f, &f.session.id, ExportScope::WholeTree);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + 11);
    let h = &lines[0];
    assert_eq!(h["type"], "arbor_session");
    assert_eq!(h["version"], 1);
    assert_eq!(h["session"]["id"], f.session.id.as_str());
    assert_eq!(h["session"]["title"], "List the files, please");
    assert_eq!(h["session"]["model"], "anthropic/claude-test");
    assert_eq!(h["session"]["thinking_level"], "medium");
    assert_eq!(
        h["session"]["current_leaf"],
        f.session.leaf_id.clone().unwrap().as_str()
    );
    assert_eq!(h["session"]["node_count"], 11);
    // Parents before children, every field present.
    let mut seen = std::collections::HashSet::new();
    for l in &lines[1..] {
        assert_eq!(l["type"], "node");
        if let Some(p) = l["parent_id"].as_str() {
            assert!(seen.contains(p), "parent after child: {l}");
        }
        seen.insert(l["id"].as_str().unwrap().to_string());
        for key in [
            "session_id",
            "kind",
            "role",
            "content",
            "text",
            "usage",
            "aborted",
            "first_kept_id",
            "tokens_before",
            "created_at",
            "label",
        ] {
            assert!(l.get(key).is_some(), "missing {key} in {l}");
        }
    }
    assert_eq!(
        lines.iter().filter(|l| l["label"] == "checkpoint").count(),
        1
    );
    assert_eq!(lines.iter().filter(|l| l["aborted"] == true).count(), 1);
    assert_eq!(
        lines.iter().filter(|l| l["kind"] == "compaction").count(),
        1
    );

    // The current branch only: root → leaf.
    let branch = jsonl(&f, &f.session.id, ExportScope::CurrentBranch);
    assert_eq!(branch.lines().count(), 1 + 9);
    assert!(!branch.contains("Deleting fi"));
}

#[test]
fn jsonl_round_trip_is_identical_after_normalisation() {
    let f = fixture();
    for scope in [ExportScope::WholeTree, ExportScope::CurrentBranch] {
        let first = jsonl(&f, &f.session.id, scope);
        let imported = import_jsonl(&f.store, first.as_bytes(), &f.root).unwrap();
        assert_ne!(imported.id, f.session.id);
        assert_eq!(imported.title, f.session.title);
        assert_eq!(imported.model, f.session.model);
        assert_eq!(imported.thinking_level, f.session.thinking_level);
        let second = jsonl(&f, &imported.id, scope);
        // Ids really are new ...
        let ids = |s: &str| -> Vec<String> {
            s.lines()
                .skip(1)
                .map(|l| {
                    serde_json::from_str::<Value>(l).unwrap()["id"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        };
        for id in ids(&second) {
            assert!(!first.contains(&id));
        }
        // ... and everything else is the same.
        assert_eq!(
            normalize_jsonl(&first).unwrap(),
            normalize_jsonl(&second).unwrap(),
            "scope {scope:?}"
        );
        // The compaction still works in the imported session: context starts with it.
        let context = f.store.context(&imported.id).unwrap();
        if scope == ExportScope::WholeTree {
            assert_eq!(context[0].kind, NodeKind::Compaction);
            assert_eq!(
                context[0].content_value().unwrap()["first_kept_id"].as_str(),
                context[0].first_kept_id.as_deref()
            );
        }
    }
    assert!(f.store.check_integrity().unwrap().is_empty());
}

#[test]
fn normalisation_is_documented_shape() {
    let f = fixture();
    let raw = jsonl(&f, &f.session.id, ExportScope::CurrentBranch);
    let n = normalize_jsonl(&raw).unwrap();
    let first: Value = serde_json::from_str(n.lines().next().unwrap()).unwrap();
    assert_eq!(first["session"]["id"], "session");
    // Timestamps are left alone: import keeps them.
    assert_eq!(first["session"]["created_at"], f.session.created_at);
    let second: Value = serde_json::from_str(n.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["id"], "node-1");
    assert_eq!(second["session_id"], "session");
    let raw_second: Value = serde_json::from_str(raw.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["created_at"], raw_second["created_at"]);
}

#[test]
fn jsonl_writes_content_and_usage_as_stored() {
    let f = fixture();
    let out = jsonl(&f, &f.session.id, ExportScope::WholeTree);
    for line in out.lines().skip(1) {
        let v: Value = serde_json::from_str(line).unwrap();
        let node = f.store.get_node(v["id"].as_str().unwrap()).unwrap();
        // The stored text itself, which is also what re-serializing the parsed value gives
        // (the export before content was handed out raw).
        let stored = node.content.get();
        assert!(line.contains(&format!(",\"content\":{stored},")), "{line}");
        assert_eq!(serde_json::to_string(&v["content"]).unwrap(), stored);
        match &node.usage {
            Some(usage) => {
                assert!(
                    line.contains(&format!(",\"usage\":{},", usage.get())),
                    "{line}"
                );
                assert_eq!(serde_json::to_string(&v["usage"]).unwrap(), usage.get());
            }
            None => assert!(line.contains(",\"usage\":null,"), "{line}"),
        }
    }
}

#[test]
fn import_keeps_timestamps_labels_and_leaf() {
    let f = fixture();
    let first = jsonl(&f, &f.session.id, ExportScope::WholeTree);
    let imported = import_jsonl(&f.store, first.as_bytes(), &f.root).unwrap();
    assert_eq!(imported.created_at, f.session.created_at);
    assert_eq!(imported.updated_at, f.session.updated_at);
    assert_eq!(imported.title_is_custom, f.session.title_is_custom);
    let old = f.store.session_tree(&f.session.id).unwrap();
    let new = f.store.session_tree(&imported.id).unwrap();
    assert_eq!(old.nodes.len(), new.nodes.len());
    for (o, n) in old.nodes.iter().zip(&new.nodes) {
        assert_ne!(o.id, n.id);
        assert_eq!(
            (o.created_at, &o.label, o.is_leaf, o.kind, &o.first_line),
            (n.created_at, &n.label, n.is_leaf, n.kind, &n.first_line)
        );
    }
    // A renamed session stays renamed, with its title.
    f.store.rename_session(&f.session.id, "My title").unwrap();
    let renamed = jsonl(&f, &f.session.id, ExportScope::WholeTree);
    let imported = import_jsonl(&f.store, renamed.as_bytes(), &f.root).unwrap();
    assert_eq!(imported.title, "My title");
    assert!(imported.title_is_custom);
}

#[test]
fn markdown_snapshot_of_current_branch() {
    let f = fixture();
    let md = export_session(
        &f.store,
        &f.session.id,
        ExportScope::CurrentBranch,
        ExportFormat::Markdown,
    )
    .unwrap();
    let md = md.replace(f.root.to_str().unwrap(), "<ROOT>");
    insta::assert_snapshot!("markdown_current_branch", md);
}

#[test]
fn markdown_whole_tree_has_branches() {
    let f = fixture();
    let md = export_session(
        &f.store,
        &f.session.id,
        ExportScope::WholeTree,
        ExportFormat::Markdown,
    )
    .unwrap();
    let md = md.replace(f.root.to_str().unwrap(), "<ROOT>");
    insta::assert_snapshot!("markdown_whole_tree", md);
    assert!(md.contains("## Branch 1: Now delete them"));
    assert!(md.contains("## Branch 2 (current branch): Run the tests"));
    assert!(md.contains("(aborted)"));
}

#[test]
fn html_is_self_contained_and_escaped() {
    let f = fixture();
    let id = &f.session.id;
    f.store
        .append(id, user("<script>alert('x')</script> & \"quotes\""))
        .unwrap();
    f.store
        .set_label(
            id,
            &f.store.get_session(id).unwrap().leaf_id.unwrap(),
            Some("<b>bold</b>"),
        )
        .unwrap();
    for scope in [ExportScope::WholeTree, ExportScope::CurrentBranch] {
        let html = export_session(&f.store, id, scope, ExportFormat::Html).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert_eq!(html.matches("<script").count(), 1, "only our own script");
        assert!(html
            .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;"));
        assert!(!html.contains("<b>bold</b>"));
        let lower = html.to_ascii_lowercase();
        for external in [
            "http:", "https:", "//cdn", "src=", "<link", "@import", "url(",
        ] {
            assert!(!lower.contains(external), "{external} in the HTML");
        }
        assert!(html.contains("<details class=\"tool-call\">"));
        assert!(html.contains("<details class=\"tool-result\""));
        assert!(html.contains("class=\"path leaf\""), "current leaf marked");
    }
    let tree = export_session(&f.store, id, ExportScope::WholeTree, ExportFormat::Html).unwrap();
    assert!(
        tree.contains("<li class=\"fork\">"),
        "the tree shows the fork"
    );
    assert!(tree.contains("Deleting fi"), "the other branch is included");
}

#[test]
fn empty_session_exports_and_imports() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let project = store.open_project(dir.path(), None).unwrap();
    let s = store.create_session(&project.id, None, None).unwrap();
    for format in ExportFormat::ALL {
        for scope in [ExportScope::WholeTree, ExportScope::CurrentBranch] {
            export_session(&store, &s.id, scope, format).unwrap();
        }
    }
    let out = export_session(&store, &s.id, ExportScope::WholeTree, ExportFormat::Jsonl).unwrap();
    let imported = import_jsonl(&store, out.as_bytes(), dir.path()).unwrap();
    assert_eq!(imported.leaf_id, None);
}

fn import_err(f: &Fixture, bytes: &[u8]) -> ImportError {
    let before = f.store.list_sessions(None, None).unwrap().len();
    let e = import_jsonl(&f.store, bytes, &f.root).unwrap_err();
    assert_eq!(
        f.store.list_sessions(None, None).unwrap().len(),
        before,
        "no half-imported session after: {e}"
    );
    e
}

fn lines_of(f: &Fixture) -> Vec<String> {
    jsonl(f, &f.session.id, ExportScope::WholeTree)
        .lines()
        .map(str::to_string)
        .collect()
}

fn join(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

#[test]
fn import_rejects_bad_input_with_clear_errors() {
    let f = fixture();
    let good = lines_of(&f);

    let e = import_err(&f, b"");
    assert!(matches!(e, ImportError::Empty), "{e}");

    let e = import_err(&f, b"\xff\xfe garbage");
    assert!(matches!(e, ImportError::NotUtf8 { .. }), "{e}");

    let e = import_err(&f, b"# Just some markdown\n\nhello\n");
    assert!(matches!(e, ImportError::NotJsonl { line: 1, .. }), "{e}");
    assert!(e.to_string().contains("line 1 is not JSON"), "{e}");

    let e = import_err(&f, b"{\"type\":\"message\",\"role\":\"user\"}\n");
    assert!(matches!(e, ImportError::NotArborExport { .. }), "{e}");
    assert!(e.to_string().contains("not an Arbor session export"), "{e}");

    let future = good[0].replace("\"version\":1", "\"version\":7");
    let e = import_err(&f, join(&[future]).as_bytes());
    assert!(matches!(e, ImportError::UnsupportedVersion { .. }), "{e}");
    assert!(e.to_string().contains("version 7"), "{e}");

    // A node line that is not JSON, in the middle.
    let mut lines = good.clone();
    lines[3] = "{not json".into();
    let e = import_err(&f, join(&lines).as_bytes());
    assert!(matches!(e, ImportError::NotJsonl { line: 4, .. }), "{e}");

    // A bad field names the line and the field.
    let mut lines = good.clone();
    lines[2] = lines[2].replace("\"kind\":\"assistant\"", "\"kind\":\"wizard\"");
    let e = import_err(&f, join(&lines).as_bytes());
    assert!(matches!(e, ImportError::InvalidLine { line: 3, .. }), "{e}");
    assert!(e.to_string().contains("kind"), "{e}");

    // Duplicate id.
    let mut lines = good.clone();
    let dup = lines[2].clone();
    lines.insert(3, dup);
    let e = import_err(&f, join(&lines).as_bytes());
    assert!(
        matches!(
            e,
            ImportError::DuplicateId {
                line: 4,
                first_line: 3,
                ..
            }
        ),
        "{e}"
    );

    // Missing parent: drop the root, so line 2 (the old line 3) has a parent never seen.
    let mut lines = good.clone();
    lines.remove(1);
    let e = import_err(&f, join(&lines).as_bytes());
    assert!(
        matches!(e, ImportError::MissingParent { line: 2, .. }),
        "{e}"
    );
    assert!(
        e.to_string().contains("not among the nodes before it"),
        "{e}"
    );

    // Truncated in the middle of the last line.
    let text = join(&good);
    let cut = &text[..text.len() - 40];
    let e = import_err(&f, cut.as_bytes());
    assert!(matches!(e, ImportError::Truncated { .. }), "{e}");

    // Truncated at a line boundary: fewer nodes than announced.
    let e = import_err(&f, join(&good[..good.len() - 2]).as_bytes());
    assert!(matches!(e, ImportError::Truncated { .. }), "{e}");
    assert!(e.to_string().contains("announces 11 nodes"), "{e}");

    // Unknown leaf.
    let leaf = f.session.leaf_id.clone().unwrap();
    let mut lines = good.clone();
    lines[0] = lines[0].replace(&leaf, "0000");
    let e = import_err(&f, join(&lines).as_bytes());
    assert!(matches!(e, ImportError::InvalidLine { line: 1, .. }), "{e}");

    // And the good file still imports.
    import_jsonl(&f.store, join(&good).as_bytes(), &f.root).unwrap();
}

#[test]
fn format_names_parse() {
    for format in ExportFormat::ALL {
        assert_eq!(format.as_str().parse::<ExportFormat>().unwrap(), format);
    }
    assert_eq!(
        "md".parse::<ExportFormat>().unwrap(),
        ExportFormat::Markdown
    );
    assert!("pdf"
        .parse::<ExportFormat>()
        .unwrap_err()
        .to_string()
        .contains("markdown, jsonl or html"));
}
