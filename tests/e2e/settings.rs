//! End to end: keys and endpoints from the settings view of the real app, with the real OS
//! keychain (a throwaway gnome-keyring on a private D-Bus session: `npm test` runs the suites
//! under `scripts/with-keyring.sh`). The provider `keyed` is the project's mock provider, which
//! refuses any request without the right key.
//!
//! 1. open a folder → the picker marks `keyed` as having no key → Ctrl+, opens settings → the
//!    key is saved (the field is cleared; the row says keychain) and tested → chat with it (the
//!    mock saw the key) → remove it → the picker marks it missing again → add a custom endpoint;
//!    every file the app wrote, and the page, are searched for the key.
//! 2. relaunched with no reachable keychain (and the dark theme): saving offers "this session
//!    only", which works for a chat.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{click, dom_text, element, type_path_and_open, wait_for_text, WAIT};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");
const KEY: &str = "sk-keyed-e2e-7c41d09b2f6e";
const ROW: &str = "[data-testid=provider-row][data-provider=keyed]";

fn write_catalog(data: &Path, mock: &MockProvider) -> Result<()> {
    let models = json!({"providers": {"keyed": {
        "api": "openai-completions",
        "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
        "displayName": "Keyed mock",
        "apiKeyEnv": "KEYED_API_KEY",
        "models": [{"id": "m1", "contextWindow": 32000}]
    }}});
    std::fs::write(data.join("models.json"), models.to_string())?;
    Ok(())
}

/// Waits until the first element matching `css` has `attribute` = `wanted`.
async fn wait_attr(client: &Client, css: &str, attribute: &str, wanted: &str) -> Result<()> {
    let deadline = Instant::now() + WAIT;
    loop {
        let value = match client.find(Locator::Css(css)).await {
            Ok(found) => found.attr(attribute).await?.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if value == wanted {
            return Ok(());
        }
        ensure!(
            Instant::now() < deadline,
            "{css} has {attribute}={value:?}, expected {wanted:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn open_settings(client: &Client) -> Result<()> {
    // The keyboard shortcut, as a user would (Ctrl+,).
    let body = element(client, "body").await?;
    body.send_keys(&format!("{},", char::from(Key::Control)))
        .await?;
    if client
        .wait()
        .at_most(Duration::from_secs(3))
        .for_element(Locator::Css("[data-testid=settings-view]"))
        .await
        .is_err()
    {
        click(client, "[data-testid=open-settings]").await?;
    }
    element(client, "[data-testid=settings-view]").await?;
    Ok(())
}

async fn close_settings(client: &Client) -> Result<()> {
    click(client, "[data-testid=settings-close]").await?;
    let deadline = Instant::now() + WAIT;
    while client
        .find(Locator::Css("[data-testid=settings-view]"))
        .await
        .is_ok_and(|_| Instant::now() < deadline)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn save_key(client: &Client, key: &str) -> Result<()> {
    let input = element(client, &format!("{ROW} [data-testid=api-key-input]")).await?;
    input.send_keys(key).await?;
    click(client, &format!("{ROW} [data-testid=api-key-save]")).await
}

async fn chat(client: &Client, text: &str, answer: &str) -> Result<()> {
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='keyed/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;
    let composer = element(client, "[data-testid=composer]").await?;
    composer.send_keys(text).await?;
    click(client, "[data-testid=send]").await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant][data-status=done]",
        answer,
    )
    .await?;
    Ok(())
}

/// Every file under `dir` that contains `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default())
                .contains(needle)
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_live_in_the_keychain_reach_the_provider_and_nothing_else() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::text("OK"))
            .turn(Turn::text("Hello with a key from the keychain."))
            .require_api_key(KEY),
    )
    .await?;
    let data = tempfile::tempdir()?;
    write_catalog(data.path(), &mock)?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    let root = root.to_str().context("temp path is not UTF-8")?.to_owned();
    let service = format!("arbor-e2e-{}", std::process::id());

    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("ARBOR_KEYCHAIN_SERVICE", service.as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("settings-keychain", async |session| {
            keychain_run(session, &root, &mock).await
        })
        .await?;

    let leaks = files_containing(data.path(), KEY);
    ensure!(leaks.is_empty(), "the key was written to {leaks:?}");
    let catalog = std::fs::read_to_string(data.path().join("models.json"))?;
    ensure!(
        catalog.contains("local-llm"),
        "the endpoint is not in models.json"
    );
    Ok(())
}

async fn keychain_run(session: &DesktopSession, root: &str, mock: &MockProvider) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    element(client, "[data-testid=composer]").await?;

    // No key yet: the picker lists the provider, marked, with a way to its settings.
    click(client, "[data-testid=model-picker]").await?;
    element(client, "[data-testid=model-set-key]").await?;
    session.screenshot("settings-picker-no-key.png").await?;
    client
        .active_element()
        .await?
        .send_keys(&char::from(Key::Escape).to_string())
        .await?;

    open_settings(client).await?;
    wait_attr(client, ROW, "data-key-source", "none").await?;
    session.screenshot("settings-providers.png").await?;

    save_key(client, KEY).await?;
    wait_attr(client, ROW, "data-key-source", "keychain").await?;
    let input = element(client, &format!("{ROW} [data-testid=api-key-input]")).await?;
    ensure!(
        input.prop("value").await?.unwrap_or_default().is_empty(),
        "the key field still holds the key after saving"
    );
    click(client, &format!("{ROW} [data-testid=api-key-test]")).await?;
    let result = wait_for_text(
        client,
        &format!("{ROW} [data-testid=api-key-test-result]"),
        "keyed/m1",
    )
    .await?;
    ensure!(
        !result.to_lowercase().contains("not"),
        "test result: {result}"
    );
    session.screenshot("settings-key-saved.png").await?;
    let page = client.source().await?;
    ensure!(
        !page.contains(KEY),
        "the page holds the key after saving it"
    );
    close_settings(client).await?;

    chat(client, "hello", "Hello with a key from the keychain.").await?;
    let requests = mock.requests();
    ensure!(
        requests.len() == 2,
        "{} requests reached the mock",
        requests.len()
    );
    let bearer = format!("Bearer {KEY}");
    ensure!(
        requests
            .iter()
            .all(|r| r.header("authorization") == Some(bearer.as_str())),
        "a request went without the key"
    );
    session.screenshot("settings-chat-with-key.png").await?;

    open_settings(client).await?;
    click(client, &format!("{ROW} [data-testid=api-key-remove]")).await?;
    wait_attr(client, ROW, "data-key-source", "none").await?;

    // A custom endpoint, checked before it is saved.
    click(client, "[data-testid=custom-endpoint-add]").await?;
    let name = element(client, "[data-testid=custom-endpoint-name]").await?;
    name.send_keys("local-llm").await?;
    element(client, "[data-testid=custom-endpoint-url]")
        .await?
        .send_keys("not a url")
        .await?;
    element(client, "[data-testid=custom-endpoint-models]")
        .await?
        .send_keys("qwen3-coder")
        .await?;
    click(client, "[data-testid=custom-endpoint-save]").await?;
    element(client, "[data-testid=custom-endpoint-error]").await?;
    session.screenshot("settings-endpoint-error.png").await?;
    let url = element(client, "[data-testid=custom-endpoint-url]").await?;
    url.clear().await?;
    url.send_keys("http://127.0.0.1:11434/v1").await?;
    click(client, "[data-testid=custom-endpoint-save]").await?;
    wait_attr(
        client,
        "[data-testid=provider-row][data-provider=local-llm]",
        "data-key-source",
        "not-needed",
    )
    .await?;
    session.screenshot("settings-endpoint-added.png").await?;
    close_settings(client).await?;

    // The picker marks the provider whose key was removed, and lists the new endpoint.
    click(client, "[data-testid=model-picker]").await?;
    element(client, "[data-testid=model-set-key]").await?;
    element(
        client,
        "[data-testid=model-option][data-value='local-llm/qwen3-coder']",
    )
    .await?;
    let picker = dom_text(&element(client, "[data-testid=model-picker]").await?).await?;
    ensure!(!picker.contains(KEY));
    session
        .screenshot("settings-picker-after-remove.png")
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_keychain_a_key_can_be_kept_for_this_run_only() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::text("Hello for this run only."))
            .require_api_key(KEY),
    )
    .await?;
    let data = tempfile::tempdir()?;
    write_catalog(data.path(), &mock)?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    let root = root.to_str().context("temp path is not UTF-8")?.to_owned();

    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            // No Secret Service on this bus address: the keychain is unreachable.
            (
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/arbor-e2e-bus".as_ref(),
            ),
            // The dark theme, to see it.
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("settings-run-only", async |session| {
            run_only(session, &root).await
        })
        .await?;
    let leaks = files_containing(data.path(), KEY);
    ensure!(leaks.is_empty(), "the key was written to {leaks:?}");
    Ok(())
}

async fn run_only(session: &DesktopSession, root: &str) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    element(client, "[data-testid=composer]").await?;
    open_settings(client).await?;
    save_key(client, KEY).await?;
    // The offer, next to the keychain's error (the dark theme, to see it).
    element(client, &format!("{ROW} [data-testid=api-key-run-only]")).await?;
    session.screenshot("settings-no-keychain-dark.png").await?;
    click(client, &format!("{ROW} [data-testid=api-key-run-only]")).await?;
    wait_attr(client, ROW, "data-key-source", "keychain").await?;
    session.screenshot("settings-run-only-dark.png").await?;
    let row = dom_text(&element(client, ROW).await?).await?;
    ensure!(
        row.to_lowercase().contains("this session only"),
        "row: {row}"
    );
    close_settings(client).await?;
    chat(client, "hello", "Hello for this run only.").await?;
    session.screenshot("chat-dark.png").await?;
    Ok(())
}
