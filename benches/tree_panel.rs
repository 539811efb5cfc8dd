//! Tree-panel figures for issue 14, measured in the real WebKitGTK webview of a release build
//! over WebDriver on a generated 10,000-node session (tool calls, 1–4 KB tool results, a side
//! branch about every 20 nodes; `scripts/bench/tree-session.mjs`), printed, asserting nothing:
//!
//! 1. **First paint**: a click on the tree toggle → the frame after the first tree node entered
//!    the DOM (the panel mounts anew each time, so every figure includes reading the whole tree
//!    over IPC, folding, collapsing and laying it out). Median of several openings; target
//!    < 500 ms.
//! 2. **Pan and zoom**: a second of wheel pans, a second of Ctrl+wheel zooms out to the
//!    smallest zoom and back (one event per frame), then Fit; for each, the longest the main
//!    thread was held (a 5 ms heartbeat; WebKitGTK has no `longtask` entries) and how many
//!    tasks were over 50 ms; target: none.
//! 3. **Click to navigate**: a click on a leaf of another branch → the frame after the chat shows
//!    that node's message. Median of several clicks; target < 150 ms.
//!
//! It also prints how many tree nodes and chat messages are in the DOM (only the visible part of
//! either should be). Run: `cargo bench --bench tree_panel`. Screenshots go to
//! `test-artifacts/bench-tree-*.png`.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use fantoccini::Client;
use serde_json::json;

use support::desktop::DesktopSession;
use support::generated::{import_generated, numbers, spread};
use support::ui::{click, element, type_path_and_open, WAIT};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");
const NODES: usize = 10_000;
const OPENINGS: usize = 7;
const CLICKS: usize = 7;

/// Heartbeat and frame monitor: `window.__arborTree.beats` holds how long each 5 ms beat was
/// late (the main thread held), `frames` the gaps between animation frames.
const MONITOR: &str = r#"
const bench = { beats: [], frames: [], running: true };
let beat = performance.now();
const heartbeat = setInterval(() => {
  const now = performance.now();
  bench.beats.push(Math.max(0, now - beat - 5));
  beat = now;
  if (!bench.running) clearInterval(heartbeat);
}, 5);
let last = performance.now();
const frame = (now) => {
  bench.frames.push(now - last);
  last = now;
  if (bench.running) requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
window.__arborTree = bench;
"#;

/// Before a click on the toggle: when it was clicked (capture phase) and the frame after the
/// first tree node appeared.
const PAINT_MONITOR: &str = r#"
const bench = { clickedAt: null, paintedAt: null };
document.addEventListener('click', () => { bench.clickedAt = performance.now(); },
  { capture: true, once: true });
const observer = new MutationObserver(() => {
  if (bench.clickedAt === null || !document.querySelector('[data-testid=tree-node]')) return;
  observer.disconnect();
  requestAnimationFrame(() => { bench.paintedAt = performance.now(); });
});
observer.observe(document.body, { subtree: true, childList: true });
window.__arborPaint = bench;
"#;

/// Before a click on a tree node: the frame after the chat shows a message of that node.
const NAVIGATE_MONITOR: &str = r#"
const wanted = arguments[0];
const bench = { clickedAt: null, paintedAt: null };
const shown = () => !!document.querySelector(`[data-testid=message][data-node-id='${wanted}']`);
document.addEventListener('click', () => { bench.clickedAt = performance.now(); },
  { capture: true, once: true });
const observer = new MutationObserver(() => {
  if (bench.clickedAt === null || !shown()) return;
  observer.disconnect();
  requestAnimationFrame(() => { bench.paintedAt = performance.now(); });
});
observer.observe(document.body, { subtree: true, childList: true, attributes: true,
  attributeFilter: ['data-node-id'] });
window.__arborNavigate = bench;
"#;

/// One event per frame on the canvas for a second: wheel pans (`pan`) or Ctrl+wheel zooms out
/// and in around the middle (`zoom`, down to the smallest zoom and back).
const PAN_ZOOM: &str = r#"
const mode = arguments[0], done = arguments[1];
const canvas = document.querySelector('[data-testid=tree-view] [role=tree]');
const box = canvas.getBoundingClientRect();
const x = box.left + box.width / 2, y = box.top + box.height / 2;
let n = 0;
const step = () => {
  const zooming = mode === 'zoom';
  const deltaY = zooming ? (n < 30 ? 100 : -100) : (n % 30 < 15 ? 60 : -60);
  canvas.dispatchEvent(new WheelEvent('wheel', { bubbles: true, cancelable: true,
    clientX: x, clientY: y, deltaX: zooming ? 0 : 25, deltaY, ctrlKey: zooming }));
  n += 1;
  if (n < 60) requestAnimationFrame(step); else done();
};
requestAnimationFrame(step);
"#;

fn main() -> Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(run())
}

async fn run() -> Result<()> {
    let data = tempfile::tempdir()?;
    let models = json!({"providers": {"mock": {
        "api": "openai-completions",
        "baseUrl": "http://127.0.0.1:9/v1",
        "models": [{"id": "m1", "contextWindow": 200000}]
    }}});
    std::fs::write(data.path().join("models.json"), models.to_string())?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    let root_text = root.to_str().context("temp path is not UTF-8")?.to_owned();
    let started = Instant::now();
    let session_id = import_generated("tree-session.mjs", NODES, data.path(), &root)?;
    println!(
        "generated and imported a {NODES}-node session in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let session =
        DesktopSession::start(APP, &[("ARBOR_DATA_DIR", data.path().as_os_str())]).await?;
    let outcome = measure(&session, &root_text, &session_id).await;
    if outcome.is_err() {
        session.save_failure_artifacts("bench-tree").await;
    }
    outcome?;
    session.stop().await
}

async fn measure(session: &DesktopSession, root: &str, session_id: &str) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    element(
        client,
        &format!("[data-testid=session-item][data-session-id='{session_id}']"),
    )
    .await?;
    element(client, "[data-testid=message][data-node-id]").await?;

    // 1. First paint, several openings.
    let mut paints = Vec::new();
    for _ in 0..OPENINGS {
        client.execute(PAINT_MONITOR, vec![]).await?;
        click(client, "[data-testid=tree-toggle]").await?;
        paints.push(wait_for_figure(client, "__arborPaint").await?);
        tokio::time::sleep(Duration::from_millis(300)).await;
        if paints.len() < OPENINGS {
            click(client, "[data-testid=tree-toggle]").await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
    report(
        "tree panel first paint (toggle click → frame after the first node)",
        &mut paints,
        500.0,
    );
    session.screenshot("bench-tree-opened.png").await?;
    report_dom(client, "after opening").await?;

    // 2. Pan, zoom, then Fit, each under the heartbeat monitor.
    let mut any_over = 0;
    for phase in ["pan", "zoom", "fit"] {
        client.execute(MONITOR, vec![]).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        if phase == "fit" {
            click(client, "[data-testid=tree-fit]").await?;
        } else {
            client.execute_async(PAN_ZOOM, vec![json!(phase)]).await?;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let figures = client
            .execute(
                "const b = window.__arborTree; b.running = false; \
                 return { beats: b.beats, frames: b.frames };",
                vec![],
            )
            .await?;
        let mut held = numbers(&figures["beats"]);
        let mut frames = numbers(&figures["frames"]);
        let over = held.iter().filter(|ms| **ms > 50.0).count();
        any_over += over;
        let (median, p99, max) = spread(&mut held);
        let (frame_median, _, frame_max) = spread(&mut frames);
        println!(
            "{phase:>4}: main thread held median {median:.1} ms, p99 {p99:.1} ms, max {max:.1} ms, \
             {over} tasks over 50 ms; frame gaps median {frame_median:.1} ms, max {frame_max:.1} ms"
        );
    }
    println!("pan, zoom and Fit: {any_over} main-thread tasks over 50 ms (target: none)");
    session.screenshot("bench-tree-fitted.png").await?;
    report_dom(client, "after Fit").await?;

    // 3. Click to navigate: leaves of other branches, one after another.
    let mut clicks = Vec::new();
    for round in 0..CLICKS {
        let target = client
            .execute(
                "const leaves = [...document.querySelectorAll(\
                 '[data-testid=tree-node][data-leaf=true][data-on-path=false][data-kind=assistant]')]; \
                 const pick = leaves[arguments[0] % Math.max(1, leaves.length)]; \
                 return pick ? pick.dataset.nodeId : null;",
                vec![json!(round * 3)],
            )
            .await?;
        let Some(target) = target.as_str().map(str::to_owned) else {
            anyhow::bail!("no leaf of another branch is drawn");
        };
        client
            .execute(NAVIGATE_MONITOR, vec![json!(target.clone())])
            .await?;
        let css = format!("[data-testid=tree-node][data-node-id='{target}']");
        let node = element(client, &css).await?;
        if node.click().await.is_err() {
            client
                .execute(
                    "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));",
                    vec![serde_json::to_value(&node)?],
                )
                .await?;
        }
        clicks.push(wait_for_figure(client, "__arborNavigate").await?);
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    report(
        "click on another branch's leaf → frame after the chat shows it",
        &mut clicks,
        150.0,
    );
    // Where that time goes: the branch's view over IPC alone (Rust builds it, the webview parses
    // it), without showing it.
    let mut views = Vec::new();
    for _ in 0..5 {
        let figure = client
            .execute_async(
                "const done = arguments[0]; const t = performance.now(); \
                 window.__TAURI_INTERNALS__.invoke('session_view').then((view) => \
                   done([performance.now() - t, view.entries.length, JSON.stringify(view).length]));",
                vec![],
            )
            .await?;
        views.push(figure);
    }
    let mut ms: Vec<f64> = views.iter().filter_map(|v| v[0].as_f64()).collect();
    let (median, _, _) = spread(&mut ms);
    println!(
        "  of which the branch's view over IPC (session_view: {} entries, {:.1} MB of JSON): \
         median {median:.0} ms",
        views[0][1],
        views[0][2].as_f64().unwrap_or(0.0) / 1e6
    );
    session.screenshot("bench-tree-navigated.png").await?;
    report_dom(client, "after navigating").await
}

async fn report_dom(client: &Client, when: &str) -> Result<()> {
    let counts = client
        .execute(
            "return [document.querySelectorAll('[data-testid=tree-node],[data-testid=tree-collapsed-run]').length, \
             document.querySelectorAll('[data-testid=message]').length, \
             document.getElementsByTagName('*').length];",
            vec![],
        )
        .await?;
    println!(
        "  in the DOM {when}: {} tree nodes, {} chat messages, {} elements in all",
        counts[0], counts[1], counts[2]
    );
    Ok(())
}

fn report(what: &str, values: &mut [f64], target: f64) {
    let (median, _, max) = spread(values);
    let min = values.first().copied().unwrap_or(0.0);
    println!(
        "{what}: median {median:.0} ms over {} (min {min:.0}, max {max:.0}; target < {target:.0} ms)",
        values.len()
    );
}

/// Waits for `window[name]` to hold both times; returns painted − clicked in ms.
async fn wait_for_figure(client: &Client, name: &str) -> Result<f64> {
    let deadline = Instant::now() + WAIT;
    loop {
        let figure = client
            .execute(
                "const b = window[arguments[0]]; \
                 return !b || b.paintedAt === null || b.clickedAt === null ? null : b.paintedAt - b.clickedAt;",
                vec![json!(name)],
            )
            .await?;
        if let Some(ms) = figure.as_f64() {
            return Ok(ms);
        }
        ensure!(Instant::now() < deadline, "no figure for {name} in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
