//! End to end: what a person reaches for in the composer, in the real app against the mock
//! provider (dark theme; the light one at the end).
//!
//! a PDF and an image attached with the file picker and a file @-mentioned → the model gets the
//! PDF's text with its page markers, the file's content and the image, and a `read` of a PNG
//! shows the picture in its tool card → `/plan` → a plan with its checklist → Build → the
//! checklist updates as the model works → a steer queued while it works, taken back to edit,
//! queued again, and given back to the composer by Stop → the files panel (ignored files dimmed,
//! the changed file marked, a preview, "Mention in chat").

use std::path::Path;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::Client;
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    answered, click, element, press, send_prompt, text_of, type_path_and_open, until, wait_for_text,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

/// A real PNG to attach and to read: the app's 128-pixel icon.
const PNG: &[u8] = include_bytes!("../../icons/128x128.png");

fn todos(statuses: &[&str]) -> serde_json::Value {
    let steps = ["Write the exporter", "Test it", "Document it"];
    json!({"todos": steps.iter().zip(statuses).map(|(content, status)| {
        json!({"content": content, "status": status})
    }).collect::<Vec<_>>()})
}

fn script() -> Script {
    Script::new()
        // 1. The attachments and the mention: the model reads the project's PNG.
        .turn(Turn::stream().tool_call("read", json!({"path": "dot.png"})))
        .turn(Turn::text("It is a spec for the exporter."))
        // 2. Plan mode: a checklist, then the plan.
        .turn(Turn::stream().tool_call("todo", todos(&["pending", "pending", "pending"])))
        .turn(Turn::text(
            "Plan:\n1. Write the exporter\n2. Test it\n3. Document it",
        ))
        // 3. Build: a file written, the checklist moved on.
        .turn(Turn::stream().tool_call(
            "write",
            json!({"path": "src/exporter.rs", "content": "pub fn export() {}\n"}),
        ))
        .turn(Turn::stream().tool_call("todo", todos(&["done", "done", "in_progress"])))
        .turn(Turn::text("Built."))
        // 4. A long answer to queue behind.
        .turn(
            Turn::stream()
                .text("Working on a long task")
                .chunk_size(4)
                .stall_for(3, 60_000),
        )
}

fn project() -> Result<tempfile::TempDir> {
    let project = tempfile::tempdir()?;
    let root = project.path();
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::create_dir_all(root.join("build"))?;
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n")?;
    std::fs::write(root.join("build/out.o"), "o")?;
    std::fs::write(root.join(".gitignore"), "build/\n")?;
    std::fs::write(root.join("dot.png"), PNG)?;
    Ok(project)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_mentions_commands_plan_queue_and_the_files_panel() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(script()).await?;
    let data = tempfile::tempdir()?;
    crate::support::write_mock_catalog(
        data.path(),
        &mock.url_for(WireApi::OpenAiCompletions),
        |mock| mock["models"][0]["images"] = json!(true),
    )?;
    let project = project()?;
    let root = std::fs::canonicalize(project.path())?;
    let root = root.to_str().context("temp path is not UTF-8")?.to_owned();
    // The files the picker gets live outside the project, as a user's downloads do.
    let downloads = tempfile::tempdir()?;
    let pdf = downloads.path().join("spec.pdf");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src-tauri/crates/documents/tests/fixtures/spec.pdf"),
        &pdf,
    )?;
    let picture = downloads.path().join("sketch.png");
    std::fs::write(&picture, PNG)?;

    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("composer", async |session| {
            attach_and_mention(session, &root, &pdf, &picture).await?;
            plan_then_build(session).await?;
            queue_and_stop(session).await?;
            files_panel(session).await
        })
        .await?;

    // What the model was sent with the first message.
    let sent = mock.requests();
    let first = &sent[0].body_text;
    ensure!(
        first.contains("[spec.pdf: PDF, 2 pages]") && first.contains("--- page 2 ---"),
        "the PDF's text with its page markers was not sent: {first}"
    );
    ensure!(
        first.contains("[src/main.rs: file, 1 line]") && first.contains("fn main() {}"),
        "the mentioned file was not sent: {first}"
    );
    ensure!(first.contains("image/png"), "the image was not sent");
    // Plan mode told the model to plan; Build's request no longer does.
    ensure!(
        sent[2].body_text.contains("Plan mode"),
        "no plan instruction"
    );
    ensure!(
        !sent[4].body_text.contains("Plan mode"),
        "plan mode did not end"
    );
    ensure!(
        project.path().join("src/exporter.rs").is_file(),
        "the build did not write its file"
    );

    // The light theme: the session reopened, its checklist and the files panel.
    let session =
        DesktopSession::start(APP, &[("ARBOR_DATA_DIR", data.path().as_os_str())]).await?;
    session
        .run_then_stop("composer-light", async |session| {
            let client = session.client();
            type_path_and_open(client, &root).await?;
            element(client, "[data-testid=todo-list]").await?;
            click(client, "[data-testid=files-toggle]").await?;
            element(client, "[data-testid=files-panel]").await?;
            session.screenshot("composer-light.png").await?;
            Ok(())
        })
        .await
}

async fn attach_and_mention(
    session: &DesktopSession,
    root: &str,
    pdf: &Path,
    picture: &Path,
) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    element(client, "[data-testid=composer]").await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;

    // The picker's input takes the files as the system dialog would give them.
    let input = element(client, "[data-testid=attach-input]").await?;
    input
        .send_keys(&format!("{}\n{}", pdf.display(), picture.display()))
        .await?;
    let chip = element(
        client,
        "[data-testid=attachment-chip][data-name='spec.pdf'][data-kind=document]",
    )
    .await?;
    until("the PDF to be read", async || {
        Ok((chip.attr("aria-busy").await?.as_deref() != Some("true")).then_some(()))
    })
    .await?;
    ensure!(
        text_of(
            client,
            "[data-testid=attachment-chip][data-name='spec.pdf']"
        )
        .await?
        .contains("2 pages"),
        "the PDF chip does not say its pages"
    );
    element(
        client,
        "[data-testid=attachment-chip][data-name='sketch.png'][data-kind=image]",
    )
    .await?;

    // @ opens the finder; choosing a file inserts it and attaches its content.
    let composer = element(client, "[data-testid=composer]").await?;
    composer.send_keys("Summarise the spec and @main").await?;
    element(client, "[data-testid=mention-menu]").await?;
    element(
        client,
        "[data-testid=mention-option][data-path='src/main.rs']",
    )
    .await?;
    ensure!(
        client
            .find_all(fantoccini::Locator::Css(
                "[data-testid=mention-option][data-path^='build/']"
            ))
            .await?
            .is_empty(),
        "an ignored file was offered"
    );
    session.screenshot("composer-mention-menu.png").await?;
    click(
        client,
        "[data-testid=mention-option][data-path='src/main.rs']",
    )
    .await?;
    element(
        client,
        "[data-testid=attachment-chip][data-name='src/main.rs']",
    )
    .await?;
    let typed = composer.prop("value").await?.unwrap_or_default();
    ensure!(typed.contains("@src/main.rs"), "composer: {typed:?}");
    session.screenshot("composer-attachments.png").await?;

    // A chip can be removed before sending; the picture goes, the rest stays.
    press(
        client,
        "[data-testid=attachment-chip][data-name='sketch.png'] [data-testid=attachment-remove]",
    )
    .await?;
    until("the picture's chip to go", async || {
        let left = client
            .find_all(fantoccini::Locator::Css(
                "[data-testid=attachment-chip][data-name='sketch.png']",
            ))
            .await?;
        Ok(left.is_empty().then_some(()))
    })
    .await?;
    input.send_keys(&picture.display().to_string()).await?;
    element(
        client,
        "[data-testid=attachment-chip][data-name='sketch.png']",
    )
    .await?;

    click(client, "[data-testid=send]").await?;
    answered(client, "It is a spec for the exporter.").await?;
    // The sent message shows its documents as chips, not their text.
    element(
        client,
        "[data-testid=message-document][data-name*='spec.pdf']",
    )
    .await?;
    let shown = text_of(client, "[data-testid=message][data-role=user]").await?;
    ensure!(
        !shown.contains("--- page 1 ---"),
        "the document's text is shown in the bubble"
    );
    // The PNG the model read is shown in its tool card.
    element(
        client,
        "[data-testid=tool-card][data-tool-name=read] [data-testid=tool-image]",
    )
    .await?;
    session.screenshot("composer-sent.png").await?;
    Ok(())
}

async fn plan_then_build(session: &DesktopSession) -> Result<()> {
    let client = session.client();
    let composer = element(client, "[data-testid=composer]").await?;
    composer.send_keys("/pla").await?;
    element(client, "[data-testid=command-menu]").await?;
    element(client, "[data-testid=command-option][data-command=plan]").await?;
    session.screenshot("composer-command-menu.png").await?;
    click(client, "[data-testid=command-option][data-command=plan]").await?;
    until("plan mode", async || {
        let pressed = element(client, "[data-testid=plan-toggle]")
            .await?
            .attr("aria-pressed")
            .await?;
        Ok((pressed.as_deref() == Some("true")).then_some(()))
    })
    .await?;
    send_prompt(client, "Plan the exporter").await?;
    answered(client, "Plan:").await?;
    element(client, "[data-testid=plan-card]").await?;
    let items = todo_statuses(client).await?;
    ensure!(
        items == ["pending", "pending", "pending"],
        "checklist: {items:?}"
    );
    session.screenshot("composer-plan.png").await?;

    click(client, "[data-testid=plan-build]").await?;
    answered(client, "Built.").await?;
    let pressed = element(client, "[data-testid=plan-toggle]")
        .await?
        .attr("aria-pressed")
        .await?;
    ensure!(pressed.as_deref() == Some("false"), "still planning");
    until("the checklist to move on", async || {
        let items = todo_statuses(client).await?;
        Ok((items == ["done", "done", "in_progress"]).then_some(()))
    })
    .await?;
    session.screenshot("composer-built.png").await?;
    Ok(())
}

async fn todo_statuses(client: &Client) -> Result<Vec<String>> {
    let statuses = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=todo-item]')]\
             .map(i => i.getAttribute('data-status'));",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(statuses)?)
}

async fn queue_and_stop(session: &DesktopSession) -> Result<()> {
    let client = session.client();
    send_prompt(client, "Start the long task").await?;
    element(client, "[data-testid=stop]").await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant][data-status=streaming]",
        "Working",
    )
    .await?;

    // A steer waits above the composer while the agent works; taken back, it can be edited.
    send_prompt(client, "first note").await?;
    element(client, "[data-testid=queued-message][data-kind=steer]").await?;
    session.screenshot("composer-queued.png").await?;
    press(
        client,
        "[data-testid=queued-message] [data-testid=queued-edit]",
    )
    .await?;
    let composer = element(client, "[data-testid=composer]").await?;
    until("the steer back in the composer", async || {
        let value = composer.prop("value").await?.unwrap_or_default();
        Ok(value.contains("first note").then_some(()))
    })
    .await?;
    composer.send_keys(" and the docs").await?;
    click(client, "[data-testid=send]").await?;
    wait_for_text(
        client,
        "[data-testid=queued-message][data-kind=steer]",
        "first note and the docs",
    )
    .await?;

    // Stop: the undelivered steer comes back to the composer, nothing is lost.
    click(client, "[data-testid=stop]").await?;
    until("the steer given back", async || {
        let value = composer.prop("value").await?.unwrap_or_default();
        Ok(value.contains("first note and the docs").then_some(()))
    })
    .await?;
    ensure!(
        client
            .find_all(fantoccini::Locator::Css("[data-testid=queued-message]"))
            .await?
            .is_empty(),
        "the queue still shows after Stop"
    );
    session.screenshot("composer-stopped.png").await?;
    composer.clear().await?;
    Ok(())
}

async fn files_panel(session: &DesktopSession) -> Result<()> {
    let client = session.client();
    click(client, "[data-testid=files-toggle]").await?;
    element(client, "[data-testid=files-panel]").await?;
    let build = element(client, "[data-testid=file-node][data-path=build]").await?;
    ensure!(
        build.attr("data-ignored").await?.as_deref() == Some("true"),
        "the ignored folder is not marked"
    );
    click(client, "[data-testid=file-node][data-path=src]").await?;
    let written = element(
        client,
        "[data-testid=file-node][data-path='src/exporter.rs']",
    )
    .await?;
    until("the changed file marked", async || {
        Ok((written.attr("data-changed").await?.as_deref() == Some("true")).then_some(()))
    })
    .await?;
    click(client, "[data-testid=file-node][data-path='src/main.rs']").await?;
    wait_for_text(client, "[data-testid=file-preview]", "fn main() {}").await?;
    session.screenshot("composer-files-panel.png").await?;
    click(client, "[data-testid=file-mention]").await?;
    element(
        client,
        "[data-testid=attachment-chip][data-name='src/main.rs']",
    )
    .await?;
    Ok(())
}
