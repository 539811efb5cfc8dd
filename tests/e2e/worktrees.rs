//! End to end: two agents in two worktrees of one repository, in the real app against the mock
//! provider (dark theme). A new chat in a worktree asks for the project's setup command once
//! and shows its output; the first agent writes its file; the second asks for a permission and
//! is left waiting while the first is shown — the sidebar shows its state and a badge, and the
//! request is answered from it; the review pane shows what the first agent did, commits it and
//! merges it into the main checkout, which nothing touched before.

use std::path::Path;

use anyhow::{ensure, Context, Result};
use arbor_test_support::git_repo::working_repository;
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::Client;
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    answered, click, element, press, send_prompt, type_path_and_open, until, wait_for_text,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

/// `attribute` of the session item of the session working in `worktree`.
async fn item_attribute(
    client: &Client,
    worktree: &str,
    attribute: &str,
) -> Result<Option<String>> {
    let value = client
        .execute(
            "const item = document.querySelector(`[data-testid=session-item][data-worktree='${arguments[0]}']`); \
             return item ? item.getAttribute(arguments[1]) : null;",
            vec![json!(worktree), json!(attribute)],
        )
        .await?;
    Ok(value.as_str().map(str::to_owned))
}

async fn wait_for_state(client: &Client, worktree: &str, state: &str) -> Result<()> {
    until(&format!("{worktree}'s session {state}"), async || {
        Ok((item_attribute(client, worktree, "data-state")
            .await?
            .as_deref()
            == Some(state))
        .then_some(()))
    })
    .await
}

async fn pick_model(client: &Client) -> Result<()> {
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;
    Ok(())
}

/// "New chat in a worktree" named `name`; answers when its chat is open.
async fn new_worktree_chat(client: &Client, name: &str) -> Result<()> {
    click(client, "[data-testid=new-worktree-session]").await?;
    element(client, "[data-testid=worktree-name]")
        .await?
        .send_keys(name)
        .await?;
    click(client, "[data-testid=worktree-create]").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_in_two_worktrees_one_answered_from_its_badge_one_reviewed_and_merged(
) -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let outside = tempfile::tempdir_in("/var/tmp")?;
    let outside = std::fs::canonicalize(outside.path())?;
    let target = outside.join("beta-notes.txt");
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call(
                "write",
                json!({"path": "alpha.txt", "content": "written by alpha\n"}),
            ))
            .turn(Turn::text("Alpha is done."))
            // Slow to get to its question: the user has moved on to alpha by then.
            .turn(
                Turn::stream()
                    .text("Let me note that down.")
                    .tool_call(
                        "write",
                        json!({"path": target.display().to_string(), "content": "beta"}),
                    )
                    .stall_for(2, 6000),
            )
            .turn(Turn::text("Beta is done.")),
    )
    .await?;
    let data = tempfile::tempdir()?;
    crate::support::write_mock_catalog(
        data.path(),
        &mock.url_for(WireApi::OpenAiCompletions),
        |_| {},
    )?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?.join("app");
    working_repository(
        &root,
        &[
            ("README.md", "# app\n"),
            (".gitignore", ".env\n.setup-done\n"),
            (".worktreeinclude", ".env\n"),
            (
                ".arbor/worktree.toml",
                "setup = \"echo installing dependencies; echo ok > .setup-done\"\n",
            ),
        ],
    )?;
    std::fs::write(root.join(".env"), "TOKEN=local\n")?;
    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("worktrees", async |session| {
            worktrees_run(session, &root, data.path(), &target).await
        })
        .await
}

async fn worktrees_run(
    session: &DesktopSession,
    root: &Path,
    data: &Path,
    target: &Path,
) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
    element(client, "[data-testid=session-list]").await?;

    // 1. A chat in worktree `alpha`: the setup command is shown and approved once, its output
    // seen; the chat opens in the worktree.
    new_worktree_chat(client, "alpha").await?;
    wait_for_text(
        client,
        "[data-testid=worktree-setup-command]",
        "echo installing dependencies",
    )
    .await?;
    session.screenshot("worktree-setup-approval.png").await?;
    click(client, "[data-testid=worktree-setup-approve]").await?;
    wait_for_text(
        client,
        "[data-testid=worktree-setup-log]",
        "installing dependencies",
    )
    .await?;
    element(client, "[data-testid=worktree-setup-result]").await?;
    session.screenshot("worktree-setup-log.png").await?;
    click(client, "[data-testid=worktree-done]").await?;
    let alpha = data.join("worktrees");
    until("the alpha worktree set up", async || {
        Ok(find_file(&alpha, ".setup-done").then_some(()))
    })
    .await?;
    element(client, "[data-testid=composer]").await?;
    pick_model(client).await?;
    send_prompt(client, "write the alpha file").await?;
    answered(client, "Alpha is done.").await?;
    wait_for_state(client, "alpha", "done").await?;
    ensure!(
        !root.join("alpha.txt").exists(),
        "the main checkout is untouched"
    );

    // 2. A chat in worktree `beta` (the setup runs unasked now), whose agent asks.
    new_worktree_chat(client, "beta").await?;
    element(client, "[data-testid=worktree-setup-result]").await?;
    click(client, "[data-testid=worktree-done]").await?;
    element(client, "[data-testid=composer]").await?;
    pick_model(client).await?;
    send_prompt(client, "note it outside").await?;
    wait_for_state(client, "beta", "running").await?;

    // 3. Alpha shown while beta runs on in the background; beta comes to its question there:
    // its state and a badge in the sidebar, no dialog over alpha.
    click(client, "[data-testid=session-item][data-worktree=alpha]").await?;
    answered(client, "Alpha is done.").await?;
    wait_for_state(client, "beta", "waiting").await?;
    ensure!(
        client
            .find(fantoccini::Locator::Css(
                "[data-testid=permission-dialog][open]"
            ))
            .await
            .is_err(),
        "beta's question is not asked over alpha"
    );
    wait_for_state(client, "beta", "waiting").await?;
    element(
        client,
        "[data-testid=session-item][data-worktree=beta] [data-testid=session-badge]",
    )
    .await?;
    ensure!(!target.exists(), "nothing written before the answer");
    session
        .screenshot("worktree-sidebar-waiting-badge.png")
        .await?;

    // 4. Answered from the badge: beta is shown, its request in the dialog.
    click(
        client,
        "[data-testid=session-item][data-worktree=beta] [data-testid=session-badge]",
    )
    .await?;
    until("beta shown", async || {
        Ok(item_attribute(client, "beta", "class")
            .await?
            .filter(|class| class.split(' ').any(|c| c == "current")))
    })
    .await?;
    element(client, "[data-testid=permission-dialog][open]").await?;
    press(client, "[data-testid=permission-allow-once]").await?;
    answered(client, "Beta is done.").await?;
    ensure!(std::fs::read_to_string(target)? == "beta");
    wait_for_state(client, "beta", "done").await?;

    // 5. Alpha's review: its file, committed and merged into the main checkout.
    click(client, "[data-testid=session-item][data-worktree=alpha]").await?;
    click(client, "[data-testid=review-toggle]").await?;
    element(client, "[data-testid=review-pane]").await?;
    let file = element(client, "[data-testid=review-file][data-path='alpha.txt']").await?;
    ensure!(file.attr("data-status").await?.as_deref() == Some("added"));
    wait_for_text(client, "[data-testid=review-hunk]", "written by alpha").await?;
    session.screenshot("worktree-review.png").await?;
    element(client, "[data-testid=commit-message]")
        .await?
        .send_keys("Add alpha.txt")
        .await?;
    click(client, "[data-testid=commit-submit]").await?;
    wait_for_text(client, "[data-testid=review-pane]", "Committed").await?;
    click(client, "[data-testid=merge-submit]").await?;
    let result = element(client, "[data-testid=merge-result]").await?;
    until("the merge's outcome", async || {
        Ok(result
            .attr("data-outcome")
            .await?
            .filter(|o| o == "fast_forward"))
    })
    .await?;
    session.screenshot("worktree-merged.png").await?;
    ensure!(std::fs::read_to_string(root.join("alpha.txt"))? == "written by alpha\n");
    ensure!(!root.join("beta-notes.txt").exists());

    // The worktree list shows both, on their branches.
    let rows = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=worktree-row]')] \
             .map(r => [r.dataset.name, r.dataset.branch]).sort();",
            vec![],
        )
        .await?;
    ensure!(
        rows == json!([["alpha", "arbor/alpha"], ["beta", "arbor/beta"]]),
        "worktree rows: {rows}"
    );
    Ok(())
}

/// Whether a file called `name` lies somewhere under `dir`.
fn find_file(dir: &Path, name: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == name) {
            return true;
        }
        path.is_dir() && path.file_name().is_some_and(|n| n != ".git") && find_file(&path, name)
    })
}
