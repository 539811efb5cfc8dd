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
