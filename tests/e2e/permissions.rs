//! End to end: permissions in the real app against the mock provider (dark theme). A write
//! outside the project asks in the permission dialog (the resolved path, Deny focused); Deny
//! with a reason reaches the model; "Always allow" shows the exact rule before saving it and
//! the write happens; a sandboxed command that writes outside fails without asking; the saved
//! rule shows in the settings with its source; the mode switches from the header. A repository
//! cloned from a URL opens read-only with the trust banner, and trusting it switches to
//! workspace.

use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::Client;
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    answered, click, element, press, send_prompt, type_path_and_open, until,
    wait_for_permission_mode, wait_for_text,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

/// The open permission dialog's request id, if one is shown.
async fn open_request(client: &Client) -> Result<Option<String>> {
    let id = client
        .execute(
            "const d = document.querySelector('[data-testid=permission-dialog]'); \
             return d && d.open !== false ? d.dataset.requestId : null;",
            vec![],
        )
        .await?;
    Ok(id.as_str().map(str::to_owned))
}

async fn wait_for_request(client: &Client, after: Option<&str>) -> Result<String> {
    until("a permission request", async || {
        Ok(open_request(client)
            .await?
            .filter(|id| Some(id.as_str()) != after))
    })
    .await
}

async fn focused(client: &Client) -> Result<serde_json::Value> {
    Ok(client
        .execute(
            "return document.activeElement && document.activeElement.dataset.testid;",
            vec![],
        )
        .await?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_outside_asks_deny_and_always_allow_work_and_the_sandbox_holds() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    // Outside the project, and not under /tmp (a sandboxed command has a private one).
    let outside = tempfile::tempdir_in("/var/tmp")?;
    let outside = std::fs::canonicalize(outside.path())?;
    let target = outside.join("notes.txt");
    let escaped = outside.join("escaped.txt");
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call(
                "write",
                json!({"path": target.display().to_string(), "content": "first"}),
            ))
            .turn(Turn::text("Understood, I will not write there."))
            .turn(Turn::stream().tool_call(
                "write",
                json!({"path": target.display().to_string(), "content": "second"}),
            ))
            .turn(Turn::text("Written outside."))
            .turn(Turn::stream().tool_call(
                "bash",
                json!({"command": format!("echo out > {}", escaped.display())}),
            ))
            .turn(Turn::text("The sandbox stopped it.")),
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
    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("permissions", async |session| {
            permissions_run(session, &root, &mock, &target, &escaped).await
        })
        .await
}

async fn permissions_run(
    session: &DesktopSession,
    root: &Path,
    mock: &MockProvider,
    target: &Path,
    escaped: &Path,
) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
    let mode = element(client, "[data-testid=permission-mode]").await?;
    ensure!(mode.attr("data-mode").await?.as_deref() == Some("workspace"));
    ensure!(
        client
            .find(fantoccini::Locator::Css("[data-testid=trust-banner]"))
            .await
            .is_err(),
        "a folder the user opened is trusted"
    );
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;

    // 1. A write outside the project: the dialog, with the resolved path, Deny focused.
    send_prompt(client, "note it down in my notes").await?;
    let first = wait_for_request(client, None).await?;
    let dialog = element(client, "[data-testid=permission-dialog]").await?;
    ensure!(dialog.attr("data-tool-name").await?.as_deref() == Some("write"));
    wait_for_text(
        client,
        "[data-testid=permission-target]",
        &target.display().to_string(),
    )
    .await?;
    // What the write would change, as a diff.
    wait_for_text(client, "[data-testid=permission-diff]", "first").await?;
    let part = element(client, "[data-testid=permission-part]").await?;
    ensure!(part.attr("data-verdict").await?.as_deref() == Some("ask"));
    until("Deny focused", async || {
        Ok((focused(client).await? == json!("permission-deny")).then_some(()))
    })
    .await?;
    ensure!(!target.exists(), "nothing written before the answer");
    session.screenshot("permissions-write-outside.png").await?;

    // Deny, with a reason the model reads.
    element(client, "[data-testid=permission-deny-reason]")
        .await?
        .send_keys("keep my notes alone")
        .await?;
    press(client, "[data-testid=permission-deny]").await?;
    answered(client, "Understood, I will not write there.").await?;
    ensure!(!target.exists(), "denied, yet written");
    let told = mock.requests().iter().any(|r| {
        r.body_text.contains("the user denied this") && r.body_text.contains("keep my notes alone")
    });
    ensure!(told, "the denial and its reason reached the model");

    // 2. Again; "Always allow" shows the exact rule before it saves it.
    send_prompt(client, "now please write it").await?;
    wait_for_request(client, Some(&first)).await?;
    press(client, "[data-testid=permission-allow-always]").await?;
    let rule = wait_for_text(
        client,
        "[data-testid=permission-rule]",
        &format!("Write({})", target.display()),
    )
    .await?;
    ensure!(!target.exists(), "saved before the second press");
    session
        .screenshot("permissions-always-allow-rule.png")
        .await?;
    press(client, "[data-testid=permission-allow-always]").await?;
    answered(client, "Written outside.").await?;
    ensure!(std::fs::read_to_string(target)? == "second");

    // 3. A sandboxed command writing outside: no dialog, it fails, nothing escapes.
    send_prompt(client, "and copy it with a command").await?;
    answered(client, "The sandbox stopped it.").await?;
    ensure!(!escaped.exists(), "the sandbox let a write out");
    let card = element(client, "[data-testid=tool-card][data-tool-name=bash]").await?;
    ensure!(card.attr("data-status").await?.as_deref() == Some("error"));
    ensure!(
        open_request(client).await?.is_none(),
        "a sandboxed command asked"
    );
    session
        .screenshot("permissions-sandboxed-command.png")
        .await?;

    // 4. The saved rule in the settings, with where it comes from.
    click(client, "[data-testid=open-settings]").await?;
    element(client, "[data-testid=permission-rules]").await?;
    // The section reads the project's permissions again when it opens (`permissions.load()`).
    until("the saved rule in the settings", async || {
        let rows = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=permission-rule-row]')] \
                 .map(r => [r.textContent, r.dataset.effect, r.dataset.source]);",
                vec![],
            )
            .await?;
        let rows: Vec<(String, String, String)> = serde_json::from_value(rows)?;
        Ok(rows
            .iter()
            .any(|(text, effect, source)| {
                text.contains(rule.trim()) && effect == "allow" && source == "project"
            })
            .then_some(()))
    })
    .await?;
    let sandbox = element(client, "[data-testid=sandbox-status]").await?;
    ensure!(sandbox.attr("data-backend").await?.as_deref() == Some("bubblewrap"));
    session.screenshot("permissions-settings-rules.png").await?;
    click(client, "[data-testid=settings-close]").await?;
    until("the settings closed", async || {
        let gone = client
            .find(fantoccini::Locator::Css("[data-testid=settings-view]"))
            .await
            .is_err();
        Ok(gone.then_some(()))
    })
    .await?;

    // 5. The mode from the header.
    click(client, "[data-testid=permission-mode]").await?;
    element(
        client,
        "[data-testid=permission-mode-option][data-mode=full]",
    )
    .await?;
    session.screenshot("permissions-mode-menu.png").await?;
    click(
        client,
        "[data-testid=permission-mode-option][data-mode=read-only]",
    )
    .await?;
    wait_for_permission_mode(client, "read-only").await?;
    session.screenshot("permissions-read-only.png").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloned_repository_starts_read_only_and_can_be_trusted() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let served = tempfile::tempdir()?;
    arbor_test_support::git_http::make_repository(served.path(), "repo", 3, 64)?;
    let url = format!("file://{}", served.path().join("repo.git").display());
    let data = tempfile::tempdir()?;
    let destination = tempfile::tempdir()?;
    let cloned = destination.path().join("repo");
    let cli = crate::nothing_lost::arbor_cli()?;
    let status = std::process::Command::new(cli)
        .arg("--data-dir")
        .arg(data.path())
        .args(["clone", &url])
        .arg(&cloned)
        .status()?;
    ensure!(status.success(), "arbor clone failed");
    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    let root = std::fs::canonicalize(&cloned)?;
    session
        .run_then_stop("permissions-clone", async |session| {
            let client = session.client();
            type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
            let banner = wait_for_text(client, "[data-testid=trust-banner]", "repo.git").await?;
            ensure!(banner.contains("read-only"), "the banner: {banner}");
            let mode = element(client, "[data-testid=permission-mode]").await?;
            ensure!(mode.attr("data-mode").await?.as_deref() == Some("read-only"));
            session
                .screenshot("permissions-untrusted-clone.png")
                .await?;
            click(client, "[data-testid=trust-project]").await?;
            wait_for_permission_mode(client, "workspace").await?;
            tokio::time::sleep(Duration::from_millis(200)).await;
            ensure!(
                client
                    .find(fantoccini::Locator::Css("[data-testid=trust-banner]"))
                    .await
                    .is_err(),
                "the banner stays after trusting"
            );
            session.screenshot("permissions-trusted.png").await?;
            Ok(())
        })
        .await
}
