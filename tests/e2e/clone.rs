//! End to end: cloning from the start window of the real app, from a loopback smart-HTTP git
//! server (`git http-backend`, paced so the progress can be watched and cancelled): an SSH URL
//! is refused in the form with the input kept; a cancel mid-transfer leaves nothing; a clone
//! shows its progress bar moving and opens as a project with its files.

use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use arbor_test_support::git_http::{make_repository, GitHttpServer, GitServerOptions};
use fantoccini::key::Key;
use fantoccini::Client;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{click, element, wait_for_text, WAIT};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

async fn fill(client: &Client, css: &str, text: &str) -> Result<()> {
    let input = element(client, css).await?;
    // Select all and delete, as a user would: WebDriver's clear() fires no input event, so the
    // form would keep its old value.
    let clear = format!(
        "{}a{}{}",
        char::from(Key::Control),
        char::from(Key::Null),
        char::from(Key::Backspace)
    );
    input.send_keys(&clear).await?;
    if !text.is_empty() {
        input.send_keys(text).await?;
    }
    Ok(())
}

/// The progress bar's (phase, value, max) as the browser has it (an indeterminate bar counts as
/// 0/0), or `None` when there is none. One script, so no element reference can go stale between
/// two calls as a clone finishes.
async fn read_bar(client: &Client) -> Result<Option<(String, f64, f64)>> {
    let read = client
        .execute(
            "const bar = document.querySelector('[data-testid=clone-progress]'); \
             if (!bar) return null; \
             return [bar.dataset.phase || '', \
                     bar.position < 0 ? 0 : bar.value, bar.position < 0 ? 0 : bar.max];",
            vec![],
        )
        .await?;
    Ok(read.as_array().map(|fields| {
        (
            fields[0].as_str().unwrap_or_default().to_owned(),
            fields[1].as_f64().unwrap_or(0.0),
            fields[2].as_f64().unwrap_or(0.0),
        )
    }))
}

/// Every (phase, value, max) the progress bar showed until it went away.
async fn watch_progress(client: &Client) -> Result<Vec<(String, f64, f64)>> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + WAIT;
    element(client, "[data-testid=clone-progress]").await?;
    while let Some(reading) = read_bar(client).await? {
        if seen.last() != Some(&reading) {
            seen.push(reading);
        }
        ensure!(
            Instant::now() < deadline,
            "the clone did not finish: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    Ok(seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clone_shows_progress_can_be_cancelled_and_opens_as_a_project() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let served = tempfile::tempdir()?;
    make_repository(served.path(), "repo", 120, 8192)?;
    let server = GitHttpServer::start(
        served.path(),
        GitServerOptions {
            pace: Some((16 * 1024, Duration::from_millis(25))),
            ..GitServerOptions::default()
        },
    )?;
    let data = tempfile::tempdir()?;
    let session =
        DesktopSession::start(APP, &[("ARBOR_DATA_DIR", data.path().as_os_str())]).await?;
    session
        .run_then_stop("clone", async |session| {
            clone_run(session, &server, data.path()).await
        })
        .await
}

async fn clone_run(
    session: &DesktopSession,
    server: &GitHttpServer,
    data: &std::path::Path,
) -> Result<()> {
    let client = session.client();
    element(client, "[data-testid=empty-state]").await?;
    click(client, "[data-testid=clone-repository]").await?;

    // An SSH URL: refused in the form, the input kept.
    fill(
        client,
        "[data-testid=clone-url]",
        "git@github.com:owner/repo.git",
    )
    .await?;
    click(client, "[data-testid=clone-submit]").await?;
    wait_for_text(client, "[data-testid=clone-error]", "HTTPS").await?;
    let kept = element(client, "[data-testid=clone-url]")
        .await?
        .prop("value")
        .await?;
    ensure!(
        kept.as_deref() == Some("git@github.com:owner/repo.git"),
        "the input was not kept: {kept:?}"
    );
    session.screenshot("clone-error.png").await?;

    // Cancel mid-transfer: nothing is left in the destination's folder.
    let scratch = tempfile::tempdir()?;
    let cancelled = scratch.path().join("cancelled");
    fill(client, "[data-testid=clone-url]", &server.url("repo")).await?;
    fill(
        client,
        "[data-testid=clone-dest]",
        cancelled.to_str().context("utf-8")?,
    )
    .await?;
    click(client, "[data-testid=clone-submit]").await?;
    let deadline = Instant::now() + WAIT;
    loop {
        let reading = read_bar(client).await?;
        if reading
            .as_ref()
            .is_some_and(|(phase, _, _)| phase == "receiving")
        {
            break;
        }
        ensure!(Instant::now() < deadline, "no receiving phase: {reading:?}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    session.screenshot("clone-receiving.png").await?;
    click(client, "[data-testid=clone-cancel]").await?;
    wait_for_text(client, "[data-testid=clone-error]", "cancelled").await?;
    let left: Vec<_> = std::fs::read_dir(scratch.path())?.flatten().collect();
    ensure!(left.is_empty(), "left behind: {left:?}");

    // A clone of the `feature` branch into the workspaces folder: the bar moves, then the
    // project opens on that branch.
    fill(client, "[data-testid=clone-dest]", "").await?;
    fill(client, "[data-testid=clone-depth]", "1").await?;
    fill(client, "[data-testid=clone-branch]", "feature").await?;
    click(client, "[data-testid=clone-submit]").await?;
    let seen = watch_progress(client).await?;
    ensure!(
        seen.iter().any(|(phase, _, _)| phase == "receiving"),
        "no receiving phase in {seen:?}"
    );
    let receiving: Vec<f64> = seen
        .iter()
        .filter(|(phase, _, max)| phase == "receiving" && *max > 0.0)
        .map(|(_, value, _)| *value)
        .collect();
    ensure!(
        receiving.windows(2).all(|w| w[0] <= w[1]) && receiving.len() >= 2,
        "the bar did not move forward: {seen:?}"
    );
    element(client, "[data-testid=project-view]").await?;
    wait_for_text(client, "[data-testid=current-project]", "repo").await?;
    let path = element(client, "[data-testid=current-project-path]")
        .await?
        .attr("title")
        .await?
        .unwrap_or_default();
    ensure!(path.contains("workspaces"), "opened {path}");
    ensure!(
        std::path::Path::new(&path).join("file0119.txt").is_file(),
        "the clone has no files at {path}"
    );
    ensure!(
        std::path::Path::new(&path).join("FEATURE.md").is_file(),
        "the clone is not of the branch asked for"
    );
    ensure!(path.starts_with(&std::fs::canonicalize(data)?.display().to_string()));
    session.screenshot("clone-opened.png").await?;
    Ok(())
}
