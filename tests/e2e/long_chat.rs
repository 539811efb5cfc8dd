//! End to end: a long stored chat in the real app. The window receives only the tail of the
//! branch (`VIEW_TAIL` entries) and shows its last messages; scrolling to the top brings earlier
//! ones in, keeping the message read on screen; "Show earlier" first reveals what it holds, then
//! reads the rest from the store page by page until the first question is shown.

use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::generated::import_generated;
use crate::support::ui::{element, type_path_and_open, WAIT};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");
const MESSAGES: usize = 500;

/// (number of messages in the DOM, text of the first one).
async fn messages(client: &fantoccini::Client) -> Result<(usize, String)> {
    let read = client
        .execute(
            "const m = document.querySelectorAll('[data-testid=message]'); \
             return [m.length, m.length ? m[0].textContent : ''];",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(read)?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_chat_shows_its_tail_and_reads_earlier_messages_on_request() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let data = tempfile::tempdir()?;
    let models = json!({"providers": {"mock": {
        "api": "openai-completions",
        "baseUrl": "http://127.0.0.1:9/v1",
        "models": [{"id": "m1", "contextWindow": 200000}]
    }}});
    std::fs::write(data.path().join("models.json"), models.to_string())?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    import_generated("long-session.mjs", MESSAGES, data.path(), &root)?;
    let root = root.to_str().context("temp path is not UTF-8")?.to_owned();
    let session =
        DesktopSession::start(APP, &[("ARBOR_DATA_DIR", data.path().as_os_str())]).await?;
    session
        .run_then_stop("long-chat", async |session| long_chat(session, &root).await)
        .await
}

async fn long_chat(session: &DesktopSession, root: &str) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    element(client, "[data-testid=message][data-node-id]").await?;
    let (shown, first) = messages(client).await?;
    ensure!(
        shown < MESSAGES && !first.contains("Question 0:"),
        "the window shows {shown} messages from {first:?}"
    );
    // Scrolling up to the top brings earlier messages in, without a press, and the message
    // that was at the top stays on screen (it does not jump away).
    let kept = client
        .execute(
            "const log = document.querySelector('[role=log]'); \
             const first = log.querySelector('[data-testid=message]'); \
             log.parentElement.scrollTop = 0; \
             return first.dataset.nodeId;",
            vec![],
        )
        .await?;
    let settle = Instant::now() + WAIT;
    while messages(client).await?.0 <= shown {
        ensure!(
            Instant::now() < settle,
            "scrolling to the top brought no earlier messages in"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let in_view = client
        .execute(
            "const scroller = document.querySelector('[role=log]').parentElement; \
             const kept = scroller.querySelector(`[data-node-id=\"${arguments[0]}\"]`); \
             const box = kept.getBoundingClientRect(), view = scroller.getBoundingClientRect(); \
             return box.bottom > view.top && box.top < view.bottom;",
            vec![kept],
        )
        .await?;
    ensure!(
        in_view == json!(true),
        "the message read before the earlier ones came in left the screen"
    );
    session.screenshot("long-chat-scrolled-up.png").await?;
    // Reveal, then read from the store, until the first question is there.
    let deadline = Instant::now() + 2 * WAIT;
    let mut read_from_store = false;
    loop {
        let (count, first) = messages(client).await?;
        if first.contains("Question 0:") {
            ensure!(
                count == MESSAGES,
                "{count} messages once the first is shown"
            );
            break;
        }
        ensure!(
            Instant::now() < deadline,
            "never reached the first message ({count} shown)"
        );
        let stored = client
            .execute(
                "return !!document.querySelector('[data-testid=load-earlier]');",
                vec![],
            )
            .await?;
        // The button sits above messages that take their real height as they scroll into
        // view, so a pointer click can land where it was a moment ago: press it in the page.
        let button = if stored == json!(true) {
            if !read_from_store {
                session.screenshot("long-chat-load-earlier.png").await?;
            }
            read_from_store = true;
            "[data-testid=load-earlier]"
        } else {
            ".earlier"
        };
        element(client, button).await?;
        client
            .execute(
                "document.querySelector(arguments[0]).click();",
                vec![json!(button)],
            )
            .await?;
        // Wait for the count to change before the next press.
        let before = count;
        let settle = Instant::now() + WAIT;
        while messages(client).await?.0 == before {
            ensure!(
                Instant::now() < settle,
                "pressing Show earlier changed nothing"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    ensure!(
        read_from_store,
        "the window never asked the store for earlier messages"
    );
    session.screenshot("long-chat-first-message.png").await?;
    Ok(())
}
