//! End to end: code state in the tree, in the real app against the mock provider. Two turns
//! change files through `bash`; the tree's turns show how many files each changed; "restore
//! files to here" on the first message previews, restores (and goes there), and "undo restore"
//! brings the files back; a file changed outside Arbor is marked in the preview and nothing is
//! written on cancel; the compare view's Files tab shows the files between two turns. In the
//! light theme, with the tools panel's look at the end.

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

/// Clicks an SVG tree node (SVG elements have no `click()`).
async fn click_node(client: &Client, id: &str) -> Result<()> {
    let css = format!("[data-testid=tree-node][data-node-id='{id}']");
    let found = element(client, &css).await?;
    if found.click().await.is_err() {
        client
            .execute(
                "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));",
                vec![serde_json::to_value(&found)?],
            )
            .await?;
    }
    Ok(())
}

fn read(root: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(root.join(path)).ok()
}

/// The project's files (a.txt, b.txt, c.txt) as they are.
fn files(root: &Path) -> [Option<String>; 3] {
    [
        read(root, "a.txt"),
        read(root, "b.txt"),
        read(root, "c.txt"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_show_their_files_and_going_back_brings_them_back() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call(
                "bash",
                json!({"command": "printf 'one\\nTWO\\n' > a.txt && echo new > b.txt"}),
            ))
            .turn(Turn::text("Changed."))
            .turn(
                Turn::stream().tool_call("bash", json!({"command": "rm b.txt && echo c > c.txt"})),
            )
            .turn(Turn::text("Changed again.")),
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
    std::fs::write(root.join("a.txt"), "one\ntwo\n")?;
    let session = DesktopSession::start(
        APP,
        &[
            // The light theme (the tools suite sees the dark one).
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("code-state", async |session| {
            code_state_run(session, &root, data.path()).await
        })
        .await
}

async fn code_state_run(session: &DesktopSession, root: &Path, data: &Path) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;
    send_prompt(client, "change the files").await?;
    answered(client, "Changed.").await?;
    send_prompt(client, "change them again").await?;
    answered(client, "Changed again.").await?;
    let at_end = [Some("one\nTWO\n".to_owned()), None, Some("c\n".to_owned())];
    ensure!(files(root) == at_end, "the script ran: {:?}", files(root));

    // Each turn that ran a command shows how many files it changed.
    click(client, "[data-testid=tree-toggle]").await?;
    element(client, "[data-testid=tree-node]").await?;
    press(client, "[data-testid=tree-fit]").await?;
    let badges: Vec<(String, String)> = until("two files badges", async || {
        let found = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=node-files-badge]')].map(b => \
                 [b.closest('[data-testid=tree-node]').dataset.nodeId, b.dataset.count]);",
                vec![],
            )
            .await?;
        let found: Vec<(String, String)> = serde_json::from_value(found)?;
        Ok((found.len() == 2).then_some(found))
    })
    .await?;
    ensure!(
        badges.iter().all(|b| b.1 == "2"),
        "each command changed two files: {badges:?}"
    );
    session.screenshot("code-state-badges.png").await?;

    // The first message (ids are time-ordered).
    let users = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=tree-node][data-kind=user]')] \
             .map(n => n.dataset.nodeId).sort();",
            vec![],
        )
        .await?;
    let users: Vec<String> = serde_json::from_value(users)?;
    ensure!(users.len() == 2, "two user turns: {users:?}");
    let first = users[0].clone();

    // Restore files to the first message: the preview, then the files and the conversation.
    click_node(client, &first).await?;
    press(
        client,
        "[data-testid=node-menu] [data-testid=restore-files]",
    )
    .await?;
    let rows: Vec<(String, String, String)> = until("the restore preview", async || {
        let rows = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=restore-preview] \
                 [data-testid=restore-change]')].map(r => [r.dataset.path, r.dataset.action, \
                 r.dataset.outside]);",
                vec![],
            )
            .await?;
        let rows: Vec<(String, String, String)> = serde_json::from_value(rows)?;
        Ok((!rows.is_empty()).then_some(rows))
    })
    .await?;
    let mut sorted = rows.clone();
    sorted.sort();
    ensure!(
        sorted
            == [
                ("a.txt".into(), "write".into(), "false".into()),
                ("c.txt".into(), "delete".into(), "false".into()),
            ],
        "the preview: {rows:?}"
    );
    ensure!(files(root) == at_end, "a preview writes nothing");
    session.screenshot("code-state-restore-preview.png").await?;
    press(client, "[data-testid=restore-confirm]").await?;
    let original = [Some("one\ntwo\n".to_owned()), None, None];
    until("the first message's files", async || {
        Ok((files(root) == original).then_some(()))
    })
    .await?;
    until("the composer to hold the first message", async || {
        let value = element(client, "[data-testid=composer]")
            .await?
            .prop("value")
            .await?;
        Ok((value.as_deref() == Some("change the files")).then_some(()))
    })
    .await?;
    element(client, "[data-testid=undo-restore]").await?;
    session.screenshot("code-state-restored.png").await?;

    // Undo restore: the files as they were before it.
    press(client, "[data-testid=undo-restore]").await?;
    until("the files before the restore", async || {
        Ok((files(root) == at_end).then_some(()))
    })
    .await?;
    // The undo is over when its answer is shown, not when its files are written: Arbor records
    // the restored state after writing, and an edit made before that would count as its own.
    wait_for_text(
        client,
        "[data-testid=tree-view] p.note[role=status]",
        "Undone",
    )
    .await?;

    // A file changed outside Arbor is marked, the button says it overwrites, and Cancel
    // writes nothing.
    std::fs::write(root.join("a.txt"), "my own edit\n")?;
    click_node(client, &first).await?;
    press(
        client,
        "[data-testid=node-menu] [data-testid=restore-files]",
    )
    .await?;
    element(
        client,
        "[data-testid=restore-change][data-path='a.txt'][data-outside=true]",
    )
    .await?;
    wait_for_text(client, "[data-testid=restore-confirm]", "Overwrite").await?;
    session.screenshot("code-state-changed-outside.png").await?;
    press(client, "[data-testid=restore-cancel]").await?;
    until("the dialog to close", async || {
        let open = client
            .execute(
                "return !!document.querySelector('[data-testid=restore-preview]');",
                vec![],
            )
            .await?;
        Ok((open == json!(false)).then_some(()))
    })
    .await?;
    ensure!(read(root, "a.txt").as_deref() == Some("my own edit\n"));

    // Compare the two commands' turns: the Files tab shows what differs between them.
    click_node(client, &badges[0].0).await?;
    press(
        client,
        "[data-testid=node-menu] [data-testid=compare-select]",
    )
    .await?;
    element(client, "[data-testid=compare-pick]").await?;
    click_node(client, &badges[1].0).await?;
    wait_for_text(
        client,
        "[data-testid=node-menu] [data-testid=compare-select]",
        "Compare with A",
    )
    .await?;
    press(
        client,
        "[data-testid=node-menu] [data-testid=compare-select]",
    )
    .await?;
    element(client, "[data-testid=compare-view]").await?;
    press(client, "[data-testid=compare-files]").await?;
    let paths: Vec<String> = until("the files tab", async || {
        let paths = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=file-diff]')] \
                 .map(f => f.dataset.path).sort();",
                vec![],
            )
            .await?;
        let paths: Vec<String> = serde_json::from_value(paths)?;
        Ok((!paths.is_empty()).then_some(paths))
    })
    .await?;
    ensure!(
        paths == ["b.txt", "c.txt"],
        "the files between the turns: {paths:?}"
    );
    let text = wait_for_text(client, "[data-testid=file-diff][data-path='c.txt']", "c").await?;
    ensure!(text.contains('+'), "the added file's patch: {text}");
    session.screenshot("code-state-compare-files.png").await?;
    press(client, "[data-testid=compare-close]").await?;

    // The settings' extra ignores: saved for the next sessions' snapshots.
    press(client, "[data-testid=open-settings]").await?;
    let field = element(client, "[data-testid=settings-snapshot-ignores]").await?;
    client
        .execute(
            "document.querySelector('[data-testid=settings-snapshot-ignores]').scrollIntoView();",
            vec![],
        )
        .await?;
    // WebDriver's Enter key (a "\n" types nothing in WebKit's textarea).
    field.send_keys("*.sqlite\u{e007}data/").await?;
    press(client, "[data-testid=settings-defaults-save]").await?;
    let saved = until("the settings saved", async || {
        let text = std::fs::read_to_string(data.join("settings.json")).unwrap_or_default();
        Ok(text.contains("snapshotIgnores").then_some(text))
    })
    .await?;
    let saved: serde_json::Value = serde_json::from_str(&saved)?;
    ensure!(
        saved["snapshotIgnores"] == json!(["*.sqlite", "data/"]),
        "the saved ignores: {saved}"
    );
    session
        .screenshot("code-state-settings-ignores.png")
        .await?;
    press(client, "[data-testid=settings-close]").await?;
    press(client, "[data-testid=open-tools]").await?;
    element(client, "[data-testid=tool-row][data-name=js]").await?;
    session
        .screenshot("code-state-tools-panel-light.png")
        .await?;
    Ok(())
}
