//! End to end: an MCP server's question in the middle of a call (elicitation), in the light
//! theme. The model calls the mock server's `ask` tool; after the permission dialog, the
//! server's form opens pre-filled with its default; Accept with the required field empty is
//! refused in the dialog; filled in, the answer reaches the server, and its result the tool
//! card and the model. A hostile message is shown as text.

use std::path::Path;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    answered, click, element, press, send_prompt, type_path_and_open, until, wait_for_text,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");
const QUESTION: &str = "How old are you? <img src=x onerror=alert(1)>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_question_mid_call_is_answered_in_its_dialog() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call("mcp__mock__ask", json!({"question": QUESTION})))
            .turn(Turn::text("Thanks, noted.")),
    )
    .await?;
    let data = tempfile::tempdir()?;
    crate::support::write_mock_catalog(
        data.path(),
        &mock.url_for(WireApi::OpenAiCompletions),
        |_| {},
    )?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    // The user's server, its tools approved, in the data folder the app uses.
    let app = arbor_app::ArborApp::open(Some(data.path()))?;
    app.add_mcp_server(
        &root,
        arbor_app::views::mcp::McpServerConfig {
            name: "mock".into(),
            command: "node".into(),
            args: vec![arbor_test_support::mcp::mock_mcp_server()
                .display()
                .to_string()],
            enabled: true,
            ..Default::default()
        },
    )?;
    let scope = arbor_app::views::mcp::McpScope::User;
    let review = app.mcp_tools_review(&root, scope, "mock").await?;
    app.approve_mcp_tools(&root, scope, "mock", &review.hash)
        .await?;
    app.stop_mcp_servers().await;
    drop(app);

    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("mcp-elicitation", async |session| {
            elicitation_run(session, &root, &mock).await
        })
        .await
}

async fn elicitation_run(session: &DesktopSession, root: &Path, mock: &MockProvider) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root.to_str().context("temp path is not UTF-8")?).await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;

    send_prompt(client, "ask me something").await?;
    element(
        client,
        "[data-testid=permission-dialog][data-tool-name=mcp__mock__ask]",
    )
    .await?;
    press(client, "[data-testid=permission-allow-once]").await?;

    let dialog = "[data-testid=mcp-elicitation-dialog][data-server=mock]";
    element(client, dialog).await?;
    wait_for_text(client, "[data-testid=mcp-elicitation-message]", QUESTION).await?;
    let injected = client
        .execute(
            "return document.querySelectorAll('[data-testid=mcp-elicitation-message] img').length;",
            vec![],
        )
        .await?;
    ensure!(
        injected == json!(0),
        "the server's message was rendered as HTML"
    );
    let name =
        "[data-testid=mcp-elicitation-field][data-name=name] [data-testid=mcp-elicitation-input]";
    let prefilled = client
        .execute(
            &format!("return document.querySelector('{name}').value;"),
            vec![],
        )
        .await?;
    ensure!(
        prefilled == json!("Ada"),
        "the default fills the form: {prefilled}"
    );
    session.screenshot("mcp-elicitation-form.png").await?;

    // The required age left empty: refused in the dialog, nothing sent.
    press(client, "[data-testid=mcp-elicitation-accept]").await?;
    until("the missing age is shown", async || {
        let shown = client
            .execute(
                "const f = document.querySelector('[data-testid=mcp-elicitation-field][data-name=age]'); \
                 return f && f.querySelector('[aria-invalid=true]') !== null;",
                vec![],
            )
            .await?;
        Ok((shown == json!(true)).then_some(()))
    })
    .await?;
    element(client, dialog).await?;
    ensure!(
        mock.requests().len() == 1,
        "nothing went on while the form was refused"
    );
    session.screenshot("mcp-elicitation-invalid.png").await?;

    let age =
        "[data-testid=mcp-elicitation-field][data-name=age] [data-testid=mcp-elicitation-input]";
    element(client, age).await?.send_keys("36").await?;
    client
        .execute(
            "const s = document.querySelector('[data-testid=mcp-elicitation-field][data-name=colour] select'); \
             s.value = 'green'; s.dispatchEvent(new Event('change', {bubbles: true})); \
             s.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![],
        )
        .await?;
    press(client, "[data-testid=mcp-elicitation-accept]").await?;
    answered(client, "Thanks, noted.").await?;
    wait_for_text(
        client,
        "[data-testid=tool-card][data-tool-name=mcp__mock__ask]",
        "\"age\":36",
    )
    .await?;
    let told = mock
        .requests()
        .last()
        .context("no request")?
        .body_text
        .replace("\\\"", "\"");
    ensure!(
        told.contains(r#""content":{"age":36,"colour":"green","name":"Ada"}"#),
        "the answer reached the server and the model: {told}"
    );
    ensure!(
        client
            .find_all(fantoccini::Locator::Css(dialog))
            .await?
            .is_empty(),
        "the dialog closed"
    );
    session.screenshot("mcp-elicitation-answered.png").await?;
    Ok(())
}
