//! Waiting for and acting on the app's `data-testid` elements over WebDriver.

// Each end-to-end suite is its own crate and uses part of these helpers.
#![allow(dead_code)]

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use fantoccini::elements::Element;
use fantoccini::{Client, Locator};

/// How long any one step may take before the test fails (a hang guard, not a speed check).
pub const WAIT: Duration = Duration::from_secs(30);

pub async fn element(client: &Client, css: &str) -> Result<Element> {
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
        .with_context(|| format!("waiting for {css}"))
}

/// Waits for the start window: the empty state, and the version read from Rust through the
/// `app_info` command (proof that IPC into Rust works at start-up).
pub async fn start_view_shown(client: &Client) -> Result<()> {
    element(client, "[data-testid=empty-state]")
        .await
        .context("the start window never appeared")?;
    text_of(client, "[data-testid=open-folder]").await?;
    wait_for_text(
        client,
        "[data-testid=app-version]",
        env!("CARGO_PKG_VERSION"),
    )
    .await?;
    Ok(())
}

pub async fn text_of(client: &Client, css: &str) -> Result<String> {
    Ok(element(client, css).await?.text().await?)
}

/// The DOM text (WebKitWebDriver reports "" for ellipsis-truncated or scrolled-off text).
pub async fn dom_text(element: &Element) -> Result<String> {
    Ok(element.prop("textContent").await?.unwrap_or_default())
}

/// Waits until the DOM text of the first element matching `css` contains `wanted`.
pub async fn wait_for_text(client: &Client, css: &str, wanted: &str) -> Result<String> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let text = match client.find(Locator::Css(css)).await {
            Ok(found) => dom_text(&found).await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if text.contains(wanted) {
            return Ok(text);
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "{css} shows {text:?}, expected it to contain {wanted:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn click(client: &Client, css: &str) -> Result<()> {
    let found = element(client, css).await?;
    click_element(client, &found).await
}

/// Scrolls `element` to the middle of its scroller, then clicks it like a user. WebKitWebDriver
/// refuses clicks on elements outside the viewport of an inner scroller (the chat's message
/// list), and sometimes fails a click with an empty error; then the DOM click is the fallback
/// (tauri-apps/tauri#6541).
pub async fn click_element(client: &Client, element: &Element) -> Result<()> {
    let arg = serde_json::to_value(element)?;
    client
        .execute(
            "arguments[0].scrollIntoView({block: 'center'});",
            vec![arg.clone()],
        )
        .await?;
    if element.click().await.is_err() {
        client
            .execute("arguments[0].click();", vec![arg])
            .await
            .context("clicking through the DOM")?;
    }
    Ok(())
}

pub async fn type_path_and_open(client: &Client, path: &str) -> Result<()> {
    let input = element(client, "[data-testid=path-input]").await?;
    input.clear().await?;
    input.send_keys(path).await?;
    click(client, "[data-testid=open-path]").await
}

/// Types `text` into the composer and sends it.
pub async fn send_prompt(client: &Client, text: &str) -> Result<()> {
    element(client, "[data-testid=composer]")
        .await?
        .send_keys(text)
        .await?;
    click(client, "[data-testid=send]").await
}

/// Presses a control with the DOM's `click()`: a pointer click can land on a list that moved
/// under it (a dialog's scrolling body, a menu above a growing chat).
pub async fn press(client: &Client, css: &str) -> Result<()> {
    element(client, css).await?;
    client
        .execute(
            "document.querySelector(arguments[0]).click();",
            vec![serde_json::json!(css)],
        )
        .await?;
    Ok(())
}

/// Runs `read` until it answers `Some`, or fails naming `what` after [`WAIT`].
pub async fn until<T>(what: &str, mut read: impl AsyncFnMut() -> Result<Option<T>>) -> Result<T> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        if let Some(value) = read().await? {
            return Ok(value);
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until a finished answer says `text` (any of them: a run's first answer may be a
/// tool call).
pub async fn answered(client: &Client, text: &str) -> Result<()> {
    until(&format!("an answer saying {text:?}"), async || {
        let said = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=message][data-role=assistant]\
                 [data-status=done]')].some(m => m.textContent.includes(arguments[0]));",
                vec![serde_json::json!(text)],
            )
            .await?;
        Ok((said == serde_json::json!(true)).then_some(()))
    })
    .await
}

/// Picks `mode` in the header's permission menu and waits until the padlock shows it.
pub async fn switch_permission_mode(client: &Client, mode: &str) -> Result<()> {
    click(client, "[data-testid=permission-mode]").await?;
    click(
        client,
        &format!("[data-testid=permission-mode-option][data-mode={mode}]"),
    )
    .await?;
    wait_for_permission_mode(client, mode).await
}

/// Waits until the header's padlock shows `mode`.
pub async fn wait_for_permission_mode(client: &Client, mode: &str) -> Result<()> {
    until(&format!("the {mode} mode"), async || {
        let shown = element(client, "[data-testid=permission-mode]")
            .await?
            .attr("data-mode")
            .await?;
        Ok((shown.as_deref() == Some(mode)).then_some(()))
    })
    .await
}
