//! End to end: nothing lost in the real app against the mock provider (dark theme).
//! - The desktop window and `arbor -c` on one session: the terminal's turn is noticed by the
//!   idle window (`external-write-notice`), and the window's next turn goes on from its own last
//!   message, so the tree holds both as branches (before, they wove into one chain).
//! - The data folder fills up during a run: the window shows a store error (`run-error`,
//!   `data-kind=store`), keeps the unsaved turn, and "Send again" stores it once there is room.
//!   Needs a tmpfs (root); skipped with a visible reason where mounting is not allowed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::Client;
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{answered, click, element, press, send_prompt, type_path_and_open, until};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

/// The `arbor` command line, built beside this test by `cargo test --workspace`.
pub(crate) fn arbor_cli() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .context("the test binary has no target folder")?;
    let cli = dir.join("arbor");
    ensure!(
        cli.is_file(),
        "{} is missing: build it with `cargo build -p arbor-cli` (cargo test --workspace does)",
        cli.display()
    );
    Ok(cli)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_and_the_terminal_branch_and_a_full_disk_loses_nothing() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let cli = arbor_cli()?;
    let data = tempfile::tempdir()?;
    let tmpfs = arbor_test_support::tmpfs::Tmpfs::mount(data.path(), "6m")
        .inspect_err(|why| eprintln!("SKIPPED (the full-disk part): {why}"))
        .ok();
    let on_tmpfs = tmpfs.is_some();
    let filler = data.path().join("filler");
    let window = MockProvider::start(
        Script::new()
            .turn(Turn::text("Hello from the window."))
            .turn(Turn::text("The window goes on."))
            .turn(Turn::stream().tool_call(
                "bash",
                json!({"command": format!("head -c 8M /dev/zero > {} ; echo filled", filler.display())}),
            ))
            .turn(Turn::text("Stored after all.")),
    )
    .await?;
    let terminal =
        MockProvider::start(Script::new().turn(Turn::text("Hello from the terminal."))).await?;
    crate::support::write_mock_catalog(
        data.path(),
        &window.url_for(WireApi::OpenAiCompletions),
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
        .run_then_stop("nothing-lost", async |session| {
            run(
                session,
                &root,
                data.path(),
                &cli,
                &terminal,
                on_tmpfs,
                &filler,
            )
            .await
        })
        .await
}

async fn count(client: &Client, css: &str) -> Result<usize> {
    let found = client
        .execute(
            "return document.querySelectorAll(arguments[0]).length;",
            vec![json!(css)],
        )
        .await?;
    Ok(found.as_u64().unwrap_or(0) as usize)
}

async fn run(
    session: &DesktopSession,
    root: &Path,
    data: &Path,
    cli: &Path,
    terminal: &MockProvider,
    on_tmpfs: bool,
    filler: &Path,
) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    send_prompt(client, "from the window").await?;
    answered(client, "Hello from the window.").await?;

    // The terminal continues the same session while the window is idle.
    let out = tokio::process::Command::new(cli)
        .env("ARBOR_DATA_DIR", data)
        .args(["-C"])
        .arg(root)
        .args([
            "--api",
            "openai-completions",
            "--base-url",
            &terminal.url_for(WireApi::OpenAiCompletions),
            "--model",
            "mock-model",
            "--api-key",
            "k",
            "-c",
            "-p",
            "from the terminal",
        ])
        .output()
        .await?;
    ensure!(
        out.status.success(),
        "arbor -c failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let notice = until("the notice of the other writer", async || {
        let shown = count(client, "[data-testid=external-write-notice]").await?;
        Ok((shown > 0).then_some(()))
    })
    .await;
    notice?;
    let text = element(client, "[data-testid=external-write-notice]")
        .await?
        .text()
        .await?;
    ensure!(text.contains("another window or terminal"), "{text}");
    session.screenshot("nothing-lost-other-writer.png").await?;

    // The window goes on from its own last message: the terminal's turn is a branch.
    send_prompt(client, "again from the window").await?;
    answered(client, "The window goes on.").await?;
    let shows_terminal = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=message]')]\
             .some(m => m.textContent.includes('Hello from the terminal.'));",
            vec![],
        )
        .await?;
    ensure!(
        shows_terminal == json!(false),
        "the window shows its own branch, not the terminal's"
    );
    click(client, "[data-testid=tree-toggle]").await?;
    element(client, "[data-testid=tree-node]").await?;
    press(client, "[data-testid=tree-fit]").await?;
    let leaves = until("two branches in the tree", async || {
        let leaves = count(client, "[data-testid=tree-node][data-leaf=true]").await?;
        Ok((leaves == 2).then_some(leaves))
    })
    .await?;
    ensure!(leaves == 2);
    session.screenshot("nothing-lost-branches.png").await?;
    click(client, "[data-testid=tree-toggle]").await?;

    if !on_tmpfs {
        return Ok(());
    }
    // The data folder fills up while a command runs: the run stops, the turn stays in view. No
    // sandboxed command may write Arbor's data folder, so the user switches to the full mode
    // first (this trial is about the disk).
    crate::support::ui::switch_permission_mode(client, "full").await?;
    send_prompt(client, "fill the disk").await?;
    until("the store error, the run ended", async || {
        let shown = count(client, "[data-testid=run-error][data-kind=store]").await?;
        let running = count(client, "[data-testid=stop]").await?;
        Ok((shown > 0 && running == 0).then_some(()))
    })
    .await?;
    let error = element(client, "[data-testid=run-error][data-kind=store]").await?;
    ensure!(error.is_displayed().await?, "the store error is shown");
    let said = error.text().await?;
    ensure!(said.contains("could not be saved"), "{said}");
    // The command did run (it filled the disk): its card says so, though its result is not
    // stored.
    let card = client
        .execute(
            "const cards = document.querySelectorAll('[data-testid=tool-card][data-tool-name=bash]');\
             return cards[cards.length - 1].dataset.status;",
            vec![],
        )
        .await?;
    ensure!(card == json!("done"), "the bash card says {card}");
    let user_messages = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=message][data-role=user]')]\
             .some(m => m.textContent.includes('fill the disk'));",
            vec![],
        )
        .await?;
    ensure!(
        user_messages == json!(true),
        "the unsaved user message stays on screen"
    );
    session.screenshot("nothing-lost-store-error.png").await?;
    // With room again, "Send again" sends the unsaved message and it is stored.
    std::fs::remove_file(filler)?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    press(client, "[data-testid=run-retry]").await?;
    answered(client, "Stored after all.").await?;
    ensure!(count(client, "[data-testid=run-error][data-kind=store]").await? == 0);
    session.screenshot("nothing-lost-sent-again.png").await?;
    Ok(())
}
