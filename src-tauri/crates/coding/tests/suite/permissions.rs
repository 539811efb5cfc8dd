//! The tools enforce the project's policy themselves (issue 22): in the default `workspace`
//! mode nothing outside the project is written without a grant, no secret path is read,
//! links do not lead out, and a sandboxed command's background processes end with it.

use std::time::Duration;

use arbor_agent::ToolContext;
use arbor_permissions::Rule;
use arbor_protocol::views::permissions::{PermissionMode, RuleEffect, RuleSource};
use serde_json::json;

use crate::common::{text_of, TestWorkspace};

/// A scene: the project inside a folder that also holds an "outside" and a fake secret.
fn scene() -> (TestWorkspace, std::path::PathBuf, std::path::PathBuf) {
    let ws = TestWorkspace::new();
    // Not under /tmp: a sandboxed command gets a private /tmp of its own.
    let outside = tempfile::tempdir_in("/var/tmp").unwrap().keep();
    let secret = outside.join("secret-keys");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("id_rsa"), "PRIVATE KEY MATERIAL").unwrap();
    let secret_real = secret.canonicalize().unwrap();
    ws.workspace
        .guard()
        .update(|policy| policy.secret_paths.push(secret_real));
    (ws, outside, secret)
}

#[tokio::test]
async fn writes_outside_the_project_are_refused_without_a_grant_and_made_with_one() {
    let (ws, outside, _) = scene();
    let target = outside.join("profile");
    let target_text = target.display().to_string();
    for (tool, arguments) in [
        (
            "write",
            json!({"path": target_text, "content": "export PATH=/tmp/evil:$PATH"}),
        ),
        ("write", json!({"path": "../escape.txt", "content": "x"})),
    ] {
        let error = ws.err(tool, arguments).await;
        assert!(
            error.contains("Not allowed without the user's permission"),
            "{error}"
        );
        assert!(error.contains("outside the project"), "{error}");
    }
    assert!(!target.exists());
    // The gate granted this call: it goes through.
    ws.workspace.guard().grant("granted-call");
    ws.call_with(
        "write",
        json!({"path": target_text, "content": "ok"}),
        ToolContext::detached("granted-call"),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ok");
    // Inside the project nothing asks.
    ws.ok("write", json!({"path": "src/a.txt", "content": "in"}))
        .await;
}

#[tokio::test]
async fn a_symbolic_link_does_not_lead_a_write_out() {
    let (ws, outside, _) = scene();
    std::fs::write(outside.join("victim"), "original").unwrap();
    std::os::unix::fs::symlink(&outside, ws.path("link")).unwrap();
    let error = ws
        .err("write", json!({"path": "link/victim", "content": "pwned"}))
        .await;
    assert!(error.contains("outside the project"), "{error}");
    let error = ws
        .err(
            "edit",
            json!({"path": "link/victim", "edits": [{"old_text": "original", "new_text": "pwned"}]}),
        )
        .await;
    assert!(error.contains("outside the project"), "{error}");
    assert_eq!(
        std::fs::read_to_string(outside.join("victim")).unwrap(),
        "original"
    );
}

#[tokio::test]
async fn secret_paths_are_refused_to_every_file_tool_and_skipped_by_walks() {
    let (ws, outside, secret) = scene();
    let key = secret.join("id_rsa").display().to_string();
    for (tool, arguments) in [
        ("read", json!({"path": key})),
        ("ls", json!({"path": secret.display().to_string()})),
        (
            "grep",
            json!({"pattern": "PRIVATE", "path": secret.display().to_string()}),
        ),
        (
            "find",
            json!({"pattern": "*", "path": secret.display().to_string()}),
        ),
    ] {
        let error = ws.err(tool, arguments).await;
        assert!(error.contains("secret-path list"), "{tool}: {error}");
    }
    // A link inside the project to the secret is followed before the check.
    std::os::unix::fs::symlink(secret.join("id_rsa"), ws.path("innocent.txt")).unwrap();
    let error = ws.err("read", json!({"path": "innocent.txt"})).await;
    assert!(error.contains("secret-path list"), "{error}");
    // Searching the folder around it finds nothing inside it.
    let found = ws
        .call(
            "grep",
            json!({"pattern": "PRIVATE", "path": outside.display().to_string()}),
        )
        .await;
    let text = match found {
        Ok(output) => text_of(&output),
        Err(error) => error.to_string(),
    };
    assert!(!text.contains("KEY MATERIAL"), "{text}");
    let listed = ws
        .ok(
            "find",
            json!({"pattern": "*", "path": outside.display().to_string()}),
        )
        .await;
    assert!(!listed.contains("id_rsa"), "{listed}");
}

#[tokio::test]
async fn read_only_mode_writes_nothing_and_deny_rules_hold_in_full() {
    let (ws, _, _) = scene();
    let guard = ws.workspace.guard().clone();
    guard.update(|policy| policy.mode = PermissionMode::ReadOnly);
    let error = ws
        .err("write", json!({"path": "a.txt", "content": "x"}))
        .await;
    assert!(error.contains("read-only mode"), "{error}");
    assert!(!ws.path("a.txt").exists());
    guard.update(|policy| {
        policy.mode = PermissionMode::Full;
        policy.rules.push(arbor_permissions::SourcedRule {
            rule: Rule::parse("Edit(**/*.lock)").unwrap(),
            effect: RuleEffect::Deny,
            source: RuleSource::User,
        });
    });
    let error = ws
        .err("write", json!({"path": "Cargo.lock", "content": "x"}))
        .await;
    assert!(error.contains("deny rule"), "{error}");
    ws.ok("write", json!({"path": "b.txt", "content": "x"}))
        .await;
}

#[tokio::test]
async fn a_sandboxed_command_cannot_write_outside_and_is_told_how_to_ask() {
    let (ws, outside, _) = scene();
    let target = outside.join("escaped.txt");
    let error = ws
        .err(
            "bash",
            json!({"command": format!("echo x > {}", target.display())}),
        )
        .await;
    assert!(!target.exists(), "the sandbox let a write out: {error}");
    assert!(error.contains("escalate"), "{error}");
    // An escalation the user did not grant widens nothing: refused before it runs.
    let error = ws
        .err(
            "bash",
            json!({"command": "true", "escalate": {"reason": "need it", "unsandboxed": true}}),
        )
        .await;
    assert!(
        error.contains("Not allowed without the user's permission"),
        "{error}"
    );
}

#[tokio::test]
async fn a_sandboxed_commands_background_child_ends_with_it() {
    let ws = TestWorkspace::new();
    ws.ok(
        "bash",
        json!({"command": "(sleep 1; echo late > late.txt) > /dev/null 2>&1 & echo started"}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert!(
        !ws.path("late.txt").exists(),
        "the background child outlived its call"
    );
}

#[test]
fn the_dialog_previews_what_a_write_or_an_edit_would_change() {
    let ws = TestWorkspace::new();
    std::fs::write(ws.path("a.txt"), "one\ntwo\n").unwrap();
    let args = |value: serde_json::Value| value.as_object().unwrap().clone();
    let write = arbor_coding::tools::preview::preview_diff(
        ws.root(),
        "write",
        &args(json!({"path": "a.txt", "content": "one\nTWO\n"})),
    )
    .unwrap();
    assert!(write.contains("-two") && write.contains("+TWO"), "{write}");
    let edit = arbor_coding::tools::preview::preview_diff(
        ws.root(),
        "edit",
        &args(json!({"path": "a.txt", "edits": [{"old_text": "one", "new_text": "ONE"}]})),
    )
    .unwrap();
    assert!(edit.contains("-one") && edit.contains("+ONE"), "{edit}");
    assert!(
        std::fs::read_to_string(ws.path("a.txt")).unwrap() == "one\ntwo\n",
        "previewing wrote"
    );
    let new_file = arbor_coding::tools::preview::preview_diff(
        ws.root(),
        "write",
        &args(json!({"path": "new.txt", "content": "fresh"})),
    )
    .unwrap();
    assert!(new_file.contains("+fresh"), "{new_file}");
}
