//! End to end: the real `arbor-desktop` binary in a real WebKitGTK webview, driven over WebDriver
//! (`tauri-driver` in front of `WebKitWebDriver`), under Xvfb when no display is set.
//!
//! Needs the packages `scripts/setup.sh` installs (xvfb, webkit2gtk-driver) and `tauri-driver`;
//! when one is missing the test fails and says which, because a skipped E2E test would hide a
//! broken app. Screenshots go to `test-artifacts/` (or `$ARBOR_TEST_ARTIFACTS`).

use anyhow::{ensure, Context, Result};
use fantoccini::Locator;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{start_view_shown, text_of, type_path_and_open, wait_for_text, WAIT};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_state_opens_a_project_through_rust_and_shows_it() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let data = tempfile::tempdir()?;
    let session = DesktopSession::start(
        env!("CARGO_BIN_EXE_arbor-desktop"),
        &[("ARBOR_DATA_DIR", data.path().as_os_str())],
    )
    .await?;
    session
        .run_then_stop("open-a-project", async |session| {
            open_a_project(session).await
        })
        .await
}

async fn open_a_project(session: &DesktopSession) -> Result<()> {
    let client = session.client();

    // The first screen is the app's own layout with the empty state, not a blank page.
    start_view_shown(client).await?;

    let shot = session.screenshot("empty-state.png").await?;
    crate::support::image::assert_rendered(&shot)?;

    // Bad input: a folder that does not exist comes back from Rust as a `{code, message}` error.
    let workspace = tempfile::tempdir()?;
    let missing = workspace.path().join("no-such-folder");
    type_path_and_open(client, missing.to_str().context("temp path is not UTF-8")?).await?;
    let alert = wait_for_text(client, "[data-testid=error]", "There is no folder at").await?;
    ensure!(
        alert.contains("no-such-folder"),
        "the error does not name the path: {alert}"
    );
    let code = client
        .find(Locator::Css("[data-testid=error]"))
        .await?
        .attr("data-code")
        .await?;
    ensure!(
        code.as_deref() == Some("not_found"),
        "error code was {code:?}"
    );

    // A real git repository opens as the current project.
    let repo = workspace.path().join("demo-repo");
    std::fs::create_dir(&repo)?;
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .arg(&repo)
        .status()?;
    ensure!(status.success(), "git init failed");
    type_path_and_open(client, repo.to_str().context("temp path is not UTF-8")?).await?;
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("[data-testid=project-view]"))
        .await
        .context("the project view never appeared after opening a real folder")?;
    // WebKitWebDriver reports "" as the rendered text of an ellipsis-truncated span, so read the
    // DOM text here; the screenshot below shows what was rendered.
    let current = client
        .find(Locator::Css("[data-testid=current-project]"))
        .await?
        .prop("textContent")
        .await?
        .unwrap_or_default();
    ensure!(current.contains("demo-repo"), "sidebar shows {current:?}");
    let canonical = std::fs::canonicalize(&repo)?;
    let shown_path = client
        .find(Locator::Css("[data-testid=current-project-path]"))
        .await?
        .attr("title")
        .await?;
    ensure!(
        shown_path.as_deref() == canonical.to_str(),
        "sidebar path {shown_path:?} is not the canonical {canonical:?}"
    );
    text_of(client, "[data-testid=git-badge]").await?;
    ensure!(
        client
            .find(Locator::Css("[data-testid=error]"))
            .await
            .is_err(),
        "the old error is still shown after a successful open"
    );
    session.screenshot("project-open.png").await?;

    client
        .find(Locator::Css("[data-testid=close-project]"))
        .await?
        .click()
        .await?;
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("[data-testid=empty-state]"))
        .await
        .context("closing the project did not return to the empty state")?;
    Ok(())
}
