//! End to end: a chat in the real app against the project's mock provider. A `models.json` in a
//! temporary data folder points the provider `mock` at it; the test drives the window only
//! through the public `data-testid`s (AGENTS.md) and saves a screenshot of every state.
//!
//! open a folder → pick the mock model → a streamed Markdown answer → a scripted `read`, `edit`
//! (diff shown) and slow `bash` (output seen while it runs) → stop mid-stream → edit the first
//! message (switcher `2/2`, `1/2` shows the old branch) → quit and relaunch → the session is
//! there at its leaf.

use std::path::Path;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::{Client, Locator};
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    click, click_element, dom_text, element, type_path_and_open, wait_for_text,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");
const BASH: &str = "for i in 1 2 3 4; do echo line$i; sleep 1; done";

fn script() -> Script {
    let story = "Once upon a time there was a parser. ".repeat(200);
    Script::new()
        .turn(
            Turn::stream()
                .text("# Hello\n\nHere is **Markdown** and code:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nDone.")
                .chunk_size(6)
                .delay_ms(5),
        )
        .turn(Turn::stream().text("Reading it.").tool_call("read", json!({"path": "notes.txt"})))
        .turn(Turn::stream().tool_call(
            "edit",
            json!({"path": "notes.txt", "edits": [{"old_text": "hello", "new_text": "goodbye"}]}),
        ))
        .turn(Turn::stream().tool_call("bash", json!({"command": BASH})))
        .turn(Turn::text("All done."))
        .turn(Turn::stream().text(&story).chunk_size(8).delay_ms(40))
        .turn(Turn::text("Second branch answer."))
}

async fn send(client: &Client, text: &str) -> Result<()> {
    let composer = element(client, "[data-testid=composer]").await?;
    composer.send_keys(text).await?;
    click(client, "[data-testid=send]").await
}

/// The `n`th (0-based) message of `role`.
async fn message(client: &Client, role: &str, n: usize) -> Result<fantoccini::elements::Element> {
    let css = format!("[data-testid=message][data-role={role}]");
    let deadline = std::time::Instant::now() + crate::support::ui::WAIT;
    loop {
        let found = client.find_all(Locator::Css(&css)).await?;
        if let Some(found) = found.into_iter().nth(n) {
            return Ok(found);
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "no {role} message #{n}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn wait_status(element: &fantoccini::elements::Element, wanted: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + crate::support::ui::WAIT;
    loop {
        let status = element.attr("data-status").await?.unwrap_or_default();
        if status == wanted {
            return Ok(());
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "data-status is {status:?}, expected {wanted:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn start(data: &Path) -> Result<DesktopSession> {
    DesktopSession::start(APP, &[("ARBOR_DATA_DIR", data.as_os_str())]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_streams_runs_tools_stops_branches_and_survives_a_relaunch() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(script()).await?;
    let data = tempfile::tempdir()?;
    crate::support::write_mock_catalog(
        data.path(),
        &mock.url_for(WireApi::OpenAiCompletions),
        |mock| {
            mock["displayName"] = json!("Mock provider");
        },
    )?;
    let project = tempfile::tempdir()?;
    std::fs::write(project.path().join("notes.txt"), "hello world\n")?;
    let root = std::fs::canonicalize(project.path())?;
    let root = root.to_str().context("temp path is not UTF-8")?.to_owned();

    let session = start(data.path()).await?;
    session
        .run_then_stop("chat-first-run", async |session| {
            first_run(session, &root).await
        })
        .await?;
    ensure!(
        std::fs::read_to_string(project.path().join("notes.txt"))? == "goodbye world\n",
        "the edit tool did not change the file"
    );

    let session = start(data.path()).await?;
    session
        .run_then_stop("chat-relaunch", async |session| {
            relaunch(session, &root).await
        })
        .await
}

async fn first_run(session: &DesktopSession, root: &str) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    element(client, "[data-testid=composer]").await?;
    session.screenshot("chat-empty.png").await?;

    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;

    // A streamed Markdown answer with a highlighted code block.
    send(client, "hello").await?;
    let answer = message(client, "assistant", 0).await?;
    wait_status(&answer, "done").await?;
    let text = dom_text(&answer).await?;
    ensure!(
        text.contains("Hello") && text.contains("println!"),
        "answer: {text}"
    );
    ensure!(
        answer.find(Locator::Css("h1")).await.is_ok(),
        "the Markdown heading was not rendered as a heading"
    );
    ensure!(
        answer.attr("data-node-id").await?.is_some(),
        "the finished answer has no node id"
    );
    session.screenshot("chat-answer.png").await?;

    // read, edit with its diff, and a slow bash whose output shows while it runs.
    send(client, "read notes.txt and fix it").await?;
    let read = element(client, "[data-testid=tool-card][data-tool-name=read]").await?;
    wait_status(&read, "done").await?;
    let args = dom_text(&read.find(Locator::Css("[data-testid=tool-args]")).await?).await?;
    ensure!(args.contains("notes.txt"), "read arguments: {args}");
    let edit = element(client, "[data-testid=tool-card][data-tool-name=edit]").await?;
    wait_status(&edit, "done").await?;
    let diff = dom_text(&edit.find(Locator::Css("[data-testid=tool-diff]")).await?).await?;
    ensure!(
        diff.contains("goodbye") && diff.contains("hello"),
        "diff: {diff}"
    );
    let bash = element(client, "[data-testid=tool-card][data-tool-name=bash]").await?;
    wait_for_text(
        client,
        "[data-testid=tool-card][data-tool-name=bash] [data-testid=tool-output]",
        "line1",
    )
    .await?;
    ensure!(
        bash.attr("data-status").await?.as_deref() == Some("running"),
        "bash output was not shown while it ran"
    );
    session.screenshot("chat-bash-running.png").await?;
    wait_status(&bash, "done").await?;
    wait_for_text(
        client,
        "[data-testid=tool-card][data-tool-name=bash] [data-testid=tool-output]",
        "line4",
    )
    .await?;
    let deadline = std::time::Instant::now() + crate::support::ui::WAIT;
    loop {
        let all = client
            .find_all(Locator::Css("[data-testid=message][data-role=assistant]"))
            .await?;
        let mut done = false;
        for found in &all {
            if dom_text(found).await?.contains("All done.") {
                done = true;
            }
        }
        if done {
            break;
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "the tool run never finished"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    session.screenshot("chat-tools-done.png").await?;

    // Stop mid-stream: the partial answer stays, marked aborted.
    send(client, "tell me a long story").await?;
    let deadline = std::time::Instant::now() + crate::support::ui::WAIT;
    let streaming = loop {
        if let Ok(found) = client
            .find(Locator::Css(
                "[data-testid=message][data-role=assistant][data-status=streaming]",
            ))
            .await
        {
            if dom_text(&found).await?.contains("Once upon a time") {
                break found;
            }
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "the story never streamed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    session.screenshot("chat-streaming.png").await?;
    click(client, "[data-testid=stop]").await?;
    wait_status(&streaming, "aborted").await?;
    session.screenshot("chat-stopped.png").await?;

    // Edit the first message: a sibling branch; the switcher moves between the two.
    let first = message(client, "user", 0).await?;
    let edit = first
        .find(Locator::Css("[data-testid=edit-message]"))
        .await?;
    click_element(client, &edit).await?;
    let editor = element(client, "[data-testid=message][data-role=user] textarea").await?;
    editor.clear().await?;
    editor.send_keys("hello again").await?;
    click(client, "[data-testid=edit-submit]").await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant]",
        "Second branch answer.",
    )
    .await?;
    wait_for_text(client, "[data-testid=branch-position]", "2/2").await?;
    session.screenshot("chat-branch-2-of-2.png").await?;
    click(client, "[data-testid=branch-prev]").await?;
    wait_for_text(client, "[data-testid=branch-position]", "1/2").await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant]",
        "Hello",
    )
    .await?;
    // The switched message stays where it was on screen (the old branch is long: jumping to its
    // end would scroll the switcher away).
    let on_screen = client
        .execute(
            "const r = document.querySelector('[data-testid=branch-position]').getBoundingClientRect(); \
             return r.top >= 0 && r.bottom <= window.innerHeight;",
            vec![],
        )
        .await?;
    ensure!(
        on_screen == serde_json::Value::Bool(true),
        "the branch switcher scrolled out of view after switching"
    );
    session.screenshot("chat-branch-1-of-2.png").await?;
    Ok(())
}

async fn relaunch(session: &DesktopSession, root: &str) -> Result<()> {
    let client = session.client();
    let recent = element(
        client,
        &format!("[data-testid=recent-project][data-path='{root}']"),
    )
    .await?;
    click_element(client, &recent).await?;
    element(client, "[data-testid=composer]").await?;
    // The session reopens at its leaf: the first branch, ending in the stopped story.
    let stopped = element(
        client,
        "[data-testid=message][data-role=assistant][data-status=aborted]",
    )
    .await?;
    ensure!(
        dom_text(&stopped).await?.contains("Once upon a time"),
        "the stopped answer is not where the session was left"
    );
    wait_for_text(client, "[data-testid=branch-position]", "1/2").await?;
    element(client, "[data-testid=session-item]").await?;
    session.screenshot("chat-relaunched.png").await?;
    Ok(())
}
