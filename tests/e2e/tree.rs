//! End to end: the tree panel in the real app against the mock provider. A chat answered, the
//! answer regenerated and the first message edited makes three branches; the panel shows three
//! leaves with the current path marked; a click on another branch's leaf shows that branch in
//! the chat; a click on a user message brings its text back into the composer. Then the two
//! answers to the first message are compared (both sides with their cost), the offer to
//! summarise the branch left behind is accepted (a branch-summary turn joins the path), and a
//! search hit on the edited branch opens it with its turn selected in the tree.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::{Client, Locator};
use serde_json::json;

use crate::support::desktop::DesktopSession;
use crate::support::ui::{
    click, click_element, element, press, type_path_and_open, wait_for_text, WAIT,
};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

async fn send(client: &Client, text: &str) -> Result<()> {
    element(client, "[data-testid=composer]")
        .await?
        .send_keys(text)
        .await?;
    click(client, "[data-testid=send]").await
}

/// The tree nodes' (node id, kind, on-path, leaf), once there are `count` of them.
async fn tree_nodes(client: &Client, count: usize) -> Result<Vec<(String, String, bool, bool)>> {
    let deadline = Instant::now() + WAIT;
    loop {
        let read = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=tree-node]')].map(n => \
                 [n.dataset.nodeId, n.dataset.kind, n.dataset.onPath === 'true', \
                  n.dataset.leaf === 'true']);",
                vec![],
            )
            .await?;
        let nodes: Vec<(String, String, bool, bool)> = serde_json::from_value(read)?;
        if nodes.len() == count {
            return Ok(nodes);
        }
        ensure!(
            Instant::now() < deadline,
            "the tree shows {} nodes, expected {count}: {nodes:?}",
            nodes.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Zooms out until `count` turns lie wholly inside the panel (Fit keeps the reading size, so a
/// tree wider than the panel shows only part of it).
async fn whole_tree(client: &Client, count: usize) -> Result<()> {
    for _ in 0..8 {
        let inside = client
            .execute(
                "const view = document.querySelector('[data-testid=tree-view] svg').getBoundingClientRect(); \
                 return [...document.querySelectorAll('[data-testid=tree-node]')].filter(n => { \
                   const r = n.getBoundingClientRect(); \
                   return r.left >= view.left && r.right <= view.right && r.top >= view.top && r.bottom <= view.bottom; \
                 }).length;",
                vec![],
            )
            .await?;
        if inside == json!(count) {
            return Ok(());
        }
        press(
            client,
            "[data-testid=tree-view] button[aria-label='Zoom out']",
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    anyhow::bail!("zooming out never showed the whole tree of {count} turns")
}

/// Clicks an SVG node like a pointer would (SVG elements have no `click()` for the DOM
/// fallback, and WebKitWebDriver refuses some SVG clicks).
async fn click_node(client: &Client, css: &str) -> Result<()> {
    let found = element(client, css).await?;
    if found.click().await.is_err() {
        client
            .execute(
                "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));",
                vec![serde_json::to_value(&found)?],
            )
            .await?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tree_shows_three_branches_and_goes_to_any_of_them() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::text("First answer."))
            .turn(Turn::text("Regenerated answer."))
            .turn(Turn::text("Answer to the edit."))
            .turn(Turn::text("Summary: the first answer was kept as a draft.")),
    )
    .await?;
    let data = tempfile::tempdir()?;
    crate::support::write_mock_catalog(
        data.path(),
        &mock.url_for(WireApi::OpenAiCompletions),
        |mock| {
            mock["models"][0]["pricing"] =
                json!({"input": 3.0, "output": 15.0, "cacheRead": 0, "cacheWrite": 0});
        },
    )?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    let root = root.to_str().context("temp path is not UTF-8")?.to_owned();
    // In the dark theme: the other suites see the light one.
    let session = DesktopSession::start(
        APP,
        &[
            ("ARBOR_DATA_DIR", data.path().as_os_str()),
            ("GTK_THEME", "Adwaita:dark".as_ref()),
        ],
    )
    .await?;
    session
        .run_then_stop("tree", async |session| {
            tree_run(session, &root, data.path()).await
        })
        .await
}

async fn tree_run(session: &DesktopSession, root: &str, _data: &Path) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    wait_for_text(client, "[data-testid=model-picker]", "m1").await?;

    send(client, "hello").await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant][data-status=done]",
        "First answer.",
    )
    .await?;
    click(client, "[data-testid=regenerate]").await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant][data-status=done]",
        "Regenerated answer.",
    )
    .await?;
    let first = element(client, "[data-testid=message][data-role=user]").await?;
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
        "[data-testid=message][data-role=assistant][data-status=done]",
        "Answer to the edit.",
    )
    .await?;

    click(client, "[data-testid=tree-toggle]").await?;
    element(client, "[data-testid=tree-view]").await?;
    // Only what is on screen is drawn: once the tree is there, Fit shows all of it.
    element(client, "[data-testid=tree-node]").await?;
    // At Fit a five-turn tree is drawn at the reading size: a node's text renders at its CSS
    // font size (12 px) times the drawing's scale, which Fit keeps at 1 for up to 50 turns,
    // with the current path in view (a panel narrower than the tree shows part of it).
    click(client, "[data-testid=tree-fit]").await?;
    let rendered = client
        .execute(
            "const t = document.querySelector('[data-testid=tree-node] text.line'); \
             return parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;",
            vec![],
        )
        .await?
        .as_f64()
        .context("no node text")?;
    ensure!(
        rendered >= 11.9,
        "a node's text renders at {rendered:.1} px at Fit (12 px is the reading size)"
    );
    let on_path_shown = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=tree-node][data-on-path=true]')].length;",
            vec![],
        )
        .await?;
    ensure!(
        on_path_shown == json!(2),
        "the current path is not in view at Fit: {on_path_shown} of its 2 turns drawn"
    );
    session.screenshot("tree-three-branches.png").await?;

    // Zoomed out, the whole tree: two user messages (the first and its edit), three answers.
    whole_tree(client, 5).await?;
    let nodes = tree_nodes(client, 5).await?;
    let leaves: Vec<_> = nodes.iter().filter(|n| n.3).collect();
    ensure!(leaves.len() == 3, "leaves: {nodes:?}");
    let on_path: Vec<_> = nodes.iter().filter(|n| n.2).collect();
    ensure!(
        on_path.len() == 2
            && on_path.iter().any(|n| n.1 == "user")
            && on_path.iter().any(|n| n.1 == "assistant"),
        "the current path: {nodes:?}"
    );
    session.screenshot("tree-three-branches-whole.png").await?;

    // The first answer's leaf (off the path, under the first message): its branch shows.
    let off_path_leaf = nodes
        .iter()
        .find(|n| n.3 && !n.2 && n.1 == "assistant")
        .context("no leaf off the path")?
        .0
        .clone();
    let css = format!("[data-testid=tree-node][data-node-id='{off_path_leaf}']");
    click_node(client, &css).await?;
    let deadline = Instant::now() + WAIT;
    loop {
        let shown = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=message]')].map(m => m.textContent).join(' | ');",
                vec![],
            )
            .await?;
        let shown = shown.as_str().unwrap_or_default().to_owned();
        if shown.contains("hello")
            && !shown.contains("hello again")
            && (shown.contains("First answer.") || shown.contains("Regenerated answer."))
        {
            break;
        }
        ensure!(
            Instant::now() < deadline,
            "the chat did not switch branches: {shown}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The panel redraws with the clicked leaf on the path.
    let deadline = Instant::now() + WAIT;
    let nodes = loop {
        whole_tree(client, 5).await?;
        let nodes = tree_nodes(client, 5).await?;
        if nodes.iter().any(|n| n.0 == off_path_leaf && n.2) {
            break nodes;
        }
        ensure!(
            Instant::now() < deadline,
            "the clicked leaf is not on the path: {nodes:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    session.screenshot("tree-other-branch.png").await?;

    // Label the leaf from the node menu (the node is selected by the click).
    wait_for_text(client, "[data-testid=branch-cost]", "tokens").await?;
    click(client, "[data-testid=node-menu] [data-testid=node-label]").await?;
    element(client, "[data-testid=node-label-input]")
        .await?
        .send_keys("first try")
        .await?;
    click(client, "[data-testid=node-label-save]").await?;
    let deadline = Instant::now() + WAIT;
    loop {
        let named = client
            .execute(
                "const n = document.querySelector(`[data-testid=tree-node][data-node-id='${arguments[0]}']`); \
                 return n ? n.getAttribute('aria-label') : '';",
                vec![json!(off_path_leaf)],
            )
            .await?;
        if named
            .as_str()
            .unwrap_or_default()
            .contains("label first try")
        {
            break;
        }
        ensure!(Instant::now() < deadline, "no label on the node: {named}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    session.screenshot("tree-labelled.png").await?;

    // A user message: its text comes back into the composer, to edit and send.
    let user_node = nodes
        .iter()
        .find(|n| n.1 == "user" && !n.2)
        .context("no user node off the path")?
        .0
        .clone();
    click_node(
        client,
        &format!("[data-testid=tree-node][data-node-id='{user_node}']"),
    )
    .await?;
    let deadline = Instant::now() + WAIT;
    loop {
        let value = element(client, "[data-testid=composer]")
            .await?
            .prop("value")
            .await?;
        if value.as_deref() == Some("hello again") {
            break;
        }
        ensure!(Instant::now() < deadline, "the composer holds {value:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    session.screenshot("tree-edit-from-node.png").await?;

    compare_and_summarise(session, &nodes).await?;
    search_hit_selects_its_node(session).await
}

/// The tree node `id` once it shows (it may be redrawn at any moment).
async fn node_attribute(client: &Client, id: &str, attribute: &str) -> Result<String> {
    let value = client
        .execute(
            "const n = document.querySelector(`[data-testid=tree-node][data-node-id='${arguments[0]}']`); \
             return n ? n.getAttribute(arguments[1]) : null;",
            vec![json!(id), json!(attribute)],
        )
        .await?;
    Ok(value.as_str().unwrap_or_default().to_owned())
}

/// The two answers to the first message: pick one as A, go to the other and compare them;
/// then accept the offer to summarise the branch just left.
async fn compare_and_summarise(
    session: &DesktopSession,
    nodes: &[(String, String, bool, bool)],
) -> Result<()> {
    let client = session.client();
    let first_user = nodes
        .iter()
        .find(|n| n.1 == "user" && n.2)
        .context("no user node on the path")?
        .0
        .clone();
    // The answers under the first message: both leaves, neither under the edit.
    let parents: serde_json::Value = client
        .execute(
            "return Object.fromEntries([...document.querySelectorAll('[data-testid=tree-node]')] \
             .map(n => [n.dataset.nodeId, n.getAttribute('aria-label')]));",
            vec![],
        )
        .await?;
    let answers: Vec<String> = nodes
        .iter()
        .filter(|n| n.1 == "assistant" && n.3)
        .filter(|n| {
            let label = parents[&n.0].as_str().unwrap_or_default();
            !label.contains("Answer to the edit")
        })
        .map(|n| n.0.clone())
        .collect();
    ensure!(
        answers.len() == 2,
        "two answers under the first message: {nodes:?}"
    );

    click_node(
        client,
        &format!("[data-testid=tree-node][data-node-id='{}']", answers[0]),
    )
    .await?;
    click(
        client,
        "[data-testid=node-menu] [data-testid=compare-select]",
    )
    .await?;
    element(client, "[data-testid=compare-pick]").await?;
    click_node(
        client,
        &format!("[data-testid=tree-node][data-node-id='{}']", answers[1]),
    )
    .await?;
    // Going from one answer to its sibling leaves a branch: the offer shows.
    element(client, "[data-testid=summarize-offer]").await?;
    wait_for_text(
        client,
        "[data-testid=node-menu] [data-testid=compare-select]",
        "Compare with A",
    )
    .await?;
    click(
        client,
        "[data-testid=node-menu] [data-testid=compare-select]",
    )
    .await?;
    element(client, "[data-testid=compare-view]").await?;
    let sides = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=compare-side]')].map(s => s.textContent);",
            vec![],
        )
        .await?;
    let sides: Vec<String> = serde_json::from_value(sides)?;
    ensure!(sides.len() == 2, "two sides: {sides:?}");
    for side in &sides {
        ensure!(
            side.contains('$') && side.contains("tokens") && side.contains("after the split"),
            "a side without its cost: {side}"
        );
    }
    let ancestor = wait_for_text(client, "[data-testid=compare-ancestor]", "hello").await?;
    ensure!(!ancestor.contains("share no turns"), "{ancestor}");
    let cells = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=compare-cell]')] \
             .filter(c => c.getBoundingClientRect().height > 0).map(c => [c.dataset.side, c.textContent]);",
            vec![],
        )
        .await?;
    // Only cells that take room on screen count (a collapsed table once hid them all).
    let cells: Vec<(String, String)> = serde_json::from_value(cells)?;
    let text_of_side = |side: &str| -> String {
        cells
            .iter()
            .filter(|c| c.0 == side)
            .map(|c| c.1.as_str())
            .collect()
    };
    let (left, right) = (text_of_side("left"), text_of_side("right"));
    ensure!(
        (left.contains("First answer.") && right.contains("Regenerated answer."))
            || (left.contains("Regenerated answer.") && right.contains("First answer.")),
        "the compared answers: {left:?} / {right:?}"
    );
    session.screenshot("tree-compare.png").await?;
    // Esc closes the view.
    element(client, "[data-testid=compare-close]")
        .await?
        .send_keys("\u{e00c}")
        .await?;
    let deadline = Instant::now() + WAIT;
    while client
        .execute(
            "const d = document.querySelector('[data-testid=compare-view]'); return !!d && d.open;",
            vec![],
        )
        .await?
        == json!(true)
    {
        ensure!(
            Instant::now() < deadline,
            "Esc did not close the compare view"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Summarise the branch left behind: a branch-summary turn under the current answer.
    session.screenshot("tree-summarize-offer.png").await?;
    click(client, "[data-testid=summarize-accept]").await?;
    element(client, "[data-testid=tree-node][data-kind=branch_summary]").await?;
    let summary = element(client, "[data-testid=tree-node][data-kind=branch_summary]")
        .await?
        .attr("data-node-id")
        .await?
        .context("the summary node has no id")?;
    let deadline = Instant::now() + WAIT;
    while node_attribute(client, &summary, "data-on-path").await? != "true" {
        ensure!(
            Instant::now() < deadline,
            "the summary is not on the current path"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(
        node_attribute(client, &first_user, "data-on-path").await? == "true",
        "the first message left the path"
    );
    session.screenshot("tree-branch-summary.png").await?;
    Ok(())
}

/// A search hit on another branch opens it and selects its node in the tree.
async fn search_hit_selects_its_node(session: &DesktopSession) -> Result<()> {
    let client = session.client();
    element(client, "[data-testid=session-search]")
        .await?
        .send_keys("edit")
        .await?;
    let hit = element(client, "[data-testid=search-hit]").await?;
    let node_id = hit
        .attr("data-node-id")
        .await?
        .context("a search hit without a node id")?;
    click_element(client, &hit).await?;
    wait_for_text(
        client,
        "[data-testid=message][data-role=assistant]",
        "Answer to the edit.",
    )
    .await?;
    // The hit is the edited message or its answer; either way its turn is selected.
    let deadline = Instant::now() + WAIT;
    loop {
        let selected = client
            .execute(
                "const n = document.querySelector('[data-testid=tree-node][aria-selected=true]'); \
                 return n ? [n.dataset.nodeId, n.getAttribute('aria-label')] : null;",
                vec![],
            )
            .await?;
        if let Some([id, label]) = serde_json::from_value::<Option<[String; 2]>>(selected)? {
            if id == node_id || label.contains("edit") {
                break;
            }
        }
        ensure!(
            Instant::now() < deadline,
            "the hit's node {node_id} is not selected"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    session.screenshot("tree-search-hit.png").await?;
    Ok(())
}
