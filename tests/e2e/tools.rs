//! End to end: the model's tools in the real app against the mock provider (dark theme). The
//! model proposes a tool: the approval dialog shows its name, reason, files and permissions
//! with Reject focused; Approve lets the same run call it. A second proposal is rejected with a
//! reason the model reads. The tools panel lists the tools; a tool changed on disk is pending
//! again and its review shows the diff; Revoke takes an approval back.

use std::path::Path;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::Client;
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    answered, click, element, press, send_prompt, type_path_and_open, until, wait_for_text,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

const SKILL: &str = "---\nname: shout\ndescription: Upper-cases a file's text.\nparameters:\n  type: object\n  properties:\n    path: {type: string}\n  required: [path]\nentry: main.js\nallowed-tools: read\n---\n# Shout\nCall it with a **path**.\n";
const SCRIPT: &str =
    "// Reads the file and shouts it.\nreturn (await read(args.path)).toUpperCase();\n";

/// Whether the approval dialog is open.
async fn dialog_open(client: &Client) -> Result<bool> {
    Ok(client
        .execute(
            "const d = document.querySelector('[data-testid=approval-dialog]'); \
             return !!d && (d.open === undefined || d.open);",
            vec![],
        )
        .await?
        == json!(true))
}

/// The tools panel's rows: (name, status).
async fn tool_rows(client: &Client) -> Result<Vec<(String, String)>> {
    let rows = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=tool-row]')] \
             .map(r => [r.dataset.name, r.dataset.status]);",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(rows)?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_proposes_a_tool_the_user_approves_it_and_it_runs() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let files = json!({"SKILL.md": SKILL, "main.js": SCRIPT});
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call(
                "create_tool",
                json!({"name": "shout", "files": files, "reason": "Several files need shouting."}),
            ))
            .turn(Turn::stream().tool_call("shout", json!({"path": "a.txt"})))
            .turn(Turn::text("Shouted it."))
            .turn(Turn::stream().tool_call(
                "create_tool",
                json!({"name": "wipe", "files": {"SKILL.md":
                    "---\nname: wipe\ndescription: Empties a file.\nentry: main.js\nallowed-tools: write\n---\n",
                    "main.js": "await write(args.path, '');"},
                    "reason": "To clean up."}),
            ))
            .turn(Turn::text("Understood, no wiping.")),
    )
    .await?;
    let data = tempfile::tempdir()?;
    crate::support::write_mock_catalog(
        data.path(),
        &mock.url_for(WireApi::OpenAiCompletions),
        |_| {},
    )?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    std::fs::write(root.join("a.txt"), "quiet words\n")?;
    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("tools", async |session| {
            tools_run(session, &root, &mock).await
        })
        .await
}

async fn tools_run(session: &DesktopSession, root: &Path, mock: &MockProvider) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;

    // The proposal: the dialog with everything to judge it by, Reject focused.
    send_prompt(client, "make a tool to shout files").await?;
    until("the approval dialog", async || {
        Ok(dialog_open(client).await?.then_some(()))
    })
    .await?;
    let dialog = element(client, "[data-testid=approval-dialog]").await?;
    ensure!(dialog.attr("data-kind").await?.as_deref() == Some("create_tool"));
    wait_for_text(client, "[data-testid=approval-name]", "shout").await?;
    wait_for_text(
        client,
        "[data-testid=approval-reason]",
        "Several files need shouting.",
    )
    .await?;
    wait_for_text(client, "[data-testid=approval-skill]", "Call it with a").await?;
    let paths = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=approval-file]')] \
             .map(f => f.dataset.path).sort();",
            vec![],
        )
        .await?;
    ensure!(
        paths == json!(["SKILL.md", "main.js"]),
        "the files: {paths}"
    );
    wait_for_text(
        client,
        "[data-testid=approval-file][data-path='main.js']",
        "toUpperCase",
    )
    .await?;
    let dialog_text = element(client, "[data-testid=approval-dialog]")
        .await?
        .text()
        .await?;
    ensure!(
        dialog_text.contains("can read files in this project"),
        "the permissions in plain words: {dialog_text}"
    );
    ensure!(
        !dialog_text.to_lowercase().contains("always allow"),
        "no always-allow: {dialog_text}"
    );
    let focused = client
        .execute(
            "return document.activeElement && document.activeElement.dataset.testid;",
            vec![],
        )
        .await?;
    ensure!(focused == json!("approval-reject"), "focus on {focused}");
    ensure!(
        !root.join(".tools").exists(),
        "nothing written before the answer"
    );
    session.screenshot("tools-approval-dialog.png").await?;

    // Approve: the same run calls the tool, and it shouts.
    press(client, "[data-testid=approval-approve]").await?;
    answered(client, "Shouted it.").await?;
    ensure!(std::fs::read_to_string(root.join(".tools/shout/main.js"))? == SCRIPT);
    let shouted = mock
        .requests()
        .iter()
        .any(|r| r.body_text.contains("QUIET WORDS"));
    ensure!(shouted, "the tool ran and its result reached the model");
    session.screenshot("tools-approved-run.png").await?;

    // The second proposal is rejected with a reason the model reads.
    send_prompt(client, "and one to wipe files").await?;
    until("the second proposal", async || {
        let id = client
            .execute(
                "const d = document.querySelector('[data-testid=approval-dialog]'); \
                 return d && d.open !== false ? d.querySelector('[data-testid=approval-name]')?.textContent : null;",
                vec![],
            )
            .await?;
        Ok(id.as_str().is_some_and(|t| t.contains("wipe")).then_some(()))
    })
    .await?;
    element(client, "[data-testid=approval-reject-reason]")
        .await?
        .send_keys("never empty my files")
        .await?;
    session.screenshot("tools-reject-reason.png").await?;
    press(client, "[data-testid=approval-reject]").await?;
    answered(client, "Understood, no wiping.").await?;
    let told = mock
        .requests()
        .iter()
        .any(|r| r.body_text.contains("never empty my files"));
    ensure!(told, "the reason reached the model");
    ensure!(!root.join(".tools/wipe").exists());

    // The tools panel: built-ins, the approved tool.
    press(client, "[data-testid=open-tools]").await?;
    element(client, "[data-testid=tools-panel]").await?;
    let rows = until("the tools rows", async || {
        let rows = tool_rows(client).await?;
        Ok(rows.iter().any(|r| r.0 == "shout").then_some(rows))
    })
    .await?;
    ensure!(
        rows.contains(&("shout".into(), "approved".into()))
            && rows.contains(&("js".into(), "builtin".into()))
            && rows.contains(&("create_tool".into(), "builtin".into())),
        "the rows: {rows:?}"
    );
    session.screenshot("tools-panel.png").await?;
    press(client, "[data-testid=tools-close]").await?;

    // Changed on disk: pending again, and its review shows the diff.
    std::fs::write(
        root.join(".tools/shout/main.js"),
        format!("{SCRIPT}await write('x.txt', 'sneaky');\n"),
    )?;
    press(client, "[data-testid=open-tools]").await?;
    until("the changed tool pending", async || {
        let rows = tool_rows(client).await?;
        Ok(rows
            .contains(&("shout".into(), "pending".into()))
            .then_some(()))
    })
    .await?;
    press(
        client,
        "[data-testid=tool-row][data-name=shout] [data-testid=tool-review]",
    )
    .await?;
    until("the change's review", async || {
        let kind = client
            .execute(
                "const d = document.querySelector('[data-testid=approval-dialog]'); \
                 return d ? d.dataset.kind : null;",
                vec![],
            )
            .await?;
        Ok((kind == json!("edit_tool")).then_some(()))
    })
    .await?;
    wait_for_text(client, "[data-testid=approval-diff]", "sneaky").await?;
    session.screenshot("tools-review-change.png").await?;
    // Put the approved files back, then revoke.
    press(client, "[data-testid=approval-later]").await?;
    std::fs::write(root.join(".tools/shout/main.js"), SCRIPT)?;
    press(client, "[data-testid=tools-close]").await?;
    press(client, "[data-testid=open-tools]").await?;
    until("the tool approved again", async || {
        let rows = tool_rows(client).await?;
        Ok(rows
            .contains(&("shout".into(), "approved".into()))
            .then_some(()))
    })
    .await?;
    press(
        client,
        "[data-testid=tool-row][data-name=shout] [data-testid=tool-revoke]",
    )
    .await?;
    until("the revoked tool no longer approved", async || {
        let rows = tool_rows(client).await?;
        Ok(rows
            .iter()
            .any(|r| r.0 == "shout" && r.1 != "approved")
            .then_some(()))
    })
    .await?;
    session.screenshot("tools-revoked.png").await?;
    Ok(())
}
