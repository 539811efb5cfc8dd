//! Webview figures for the desktop app (issue 9, §7), measured in the real WebKitGTK webview of
//! a release build over WebDriver, printed, asserting nothing:
//!
//! 1. **Streaming**: one answer of about 20,000 tokens from the mock provider at about 2,000
//!    tokens/s. Measured in the page: the gaps between animation frames while it streams (a
//!    main-thread task over 50 ms shows as a gap over 50 ms; WebKitGTK has no `longtask`
//!    entries), and the time from the mock handing over the stream's last byte to the frame
//!    after the last token entered the DOM.
//! 2. **Opening a long session**: a click on a 2,000-message session in the sidebar → the frame
//!    after its last message entered the DOM, median of several clicks.
//!
//! Run: `cargo bench --bench webview` (needs what `scripts/setup.sh test` installs). Screenshots
//! go to `test-artifacts/bench-*.png`.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use arbor_test_support::{MockProvider, Script, Turn, WireApi};
use fantoccini::Client;
use serde_json::{json, Value};

use support::desktop::DesktopSession;
use support::generated::{import_generated, numbers, spread};
use support::ui::{click, click_element, element, type_path_and_open};

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");
/// The last words of the streamed answer: when they are in the DOM, every token is.
const SENTINEL: &str = "END-OF-STREAM-7f3a9c";
const TARGET_TOKENS: usize = 20_000;
/// Characters per streamed delta and the pause between deltas: 16 characters (about 4 tokens)
/// every 2 ms is 2,000 tokens/s; the achieved rate is printed.
const CHUNK_CHARS: usize = 16;
const DELAY_MS: u64 = 2;
const LONG_SESSION_MESSAGES: usize = 2_000;
const CLICKS: usize = 7;

/// Installed before the stream: frame gaps, `longtask` entries where supported, and when the
/// sentinel entered the DOM (`seenAt`) and the frame after it (`paintedAt`), in Unix ms.
const STREAM_MONITOR: &str = r#"
const sentinel = arguments[0];
const bench = { gaps: [], ticks: [], callbacks: [], seenAt: null, paintedAt: null, longTasks: null, running: true };
let last = performance.now();
const frame = (now) => {
  bench.gaps.push(now - last);
  last = now;
  if (bench.running) requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
// A heartbeat every 5 ms: a late beat is a task (script, style, layout) that held the thread.
let beat = performance.now();
const heartbeat = setInterval(() => {
  const now = performance.now();
  bench.ticks.push([now - beat, Date.now()]);
  beat = now;
  if (!bench.running) clearInterval(heartbeat);
}, 5);
// Frame callbacks (the chat's per-frame flush among them), timed with the microtasks they queue.
const raf = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => raf((now) => {
  const started = performance.now();
  callback(now);
  queueMicrotask(() => bench.callbacks.push(performance.now() - started));
});
if ((PerformanceObserver.supportedEntryTypes || []).includes('longtask')) {
  bench.longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push(entry.duration);
  }).observe({ type: 'longtask' });
}
const observer = new MutationObserver((records) => {
  for (const record of records) {
    if ((record.target.textContent || '').includes(sentinel)) {
      bench.seenAt = Date.now();
      requestAnimationFrame(() => { bench.paintedAt = Date.now(); });
      observer.disconnect();
      return;
    }
  }
});
observer.observe(document.body, { subtree: true, childList: true, characterData: true });
window.__arborStream = bench;
"#;

/// Installed before each click on the long session: the click's time (capture phase), and the
/// frame after the session's last message is the last message in the DOM.
const CLICK_MONITOR: &str = r#"
const wanted = arguments[0];
const bench = { clickedAt: null, shownAt: null };
const isShown = () => {
  const messages = document.querySelectorAll('[data-testid=message]');
  const lastMessage = messages[messages.length - 1];
  return !!lastMessage && (lastMessage.textContent || '').includes(wanted);
};
document.addEventListener('click', () => { bench.clickedAt = performance.now(); },
  { capture: true, once: true });
const observer = new MutationObserver(() => {
  if (bench.clickedAt === null || !isShown()) return;
  observer.disconnect();
  requestAnimationFrame(() => { bench.shownAt = performance.now(); });
});
observer.observe(document.body, { subtree: true, childList: true, characterData: true });
window.__arborClick = bench;
"#;

fn main() -> Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(run())
}

/// About `TARGET_TOKENS` tokens (4 characters each) of Markdown: headings, prose, lists and
/// code blocks, ending with the sentinel.
fn long_answer() -> String {
    let section = "## Step {n}\n\nThe parser reads **tokens** from the lexer and builds the tree; \
                   when the stream ends early it reports `UnexpectedEof` with the position.\n\n\
                   - check the lexer's state\n- add a regression test\n- run `cargo test`\n\n\
                   ```rust\nfn parse(input: &str) -> Result<Ast, Error> {\n    let tokens = \
                   lex(input)?;\n    Parser::new(tokens).parse_all()\n}\n```\n\n";
    let mut text = String::new();
    let mut n = 1;
    while text.len() < TARGET_TOKENS * 4 {
        text.push_str(&section.replace("{n}", &n.to_string()));
        n += 1;
    }
    text.push_str(SENTINEL);
    text
}

async fn run() -> Result<()> {
    let answer = long_answer();
    let mock = MockProvider::start(
        Script::new().turn(
            Turn::stream()
                .text(&answer)
                .chunk_size(CHUNK_CHARS)
                .delay_ms(DELAY_MS),
        ),
    )
    .await?;
    let data = tempfile::tempdir()?;
    let models = json!({"providers": {"mock": {
        "api": "openai-completions",
        "baseUrl": mock.url_for(WireApi::OpenAiCompletions),
        "displayName": "Mock provider",
        "models": [{"id": "m1", "contextWindow": 200000}]
    }}});
    std::fs::write(data.path().join("models.json"), models.to_string())?;
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    let root_text = root.to_str().context("temp path is not UTF-8")?.to_owned();
    let long_session = import_generated(
        "long-session.mjs",
        LONG_SESSION_MESSAGES,
        data.path(),
        &root,
    )?;

    let session =
        DesktopSession::start(APP, &[("ARBOR_DATA_DIR", data.path().as_os_str())]).await?;
    let outcome = measure(&session, &mock, &root_text, &long_session, answer.len()).await;
    if outcome.is_err() {
        session.save_failure_artifacts("bench-webview").await;
    }
    outcome?;
    session.stop().await
}

async fn measure(
    session: &DesktopSession,
    mock: &MockProvider,
    root: &str,
    long_session: &str,
    answer_chars: usize,
) -> Result<()> {
    let client = session.client();
    type_path_and_open(client, root).await?;
    // The project opens on its most recent session: the long one.
    let long_item = format!("[data-testid=session-item][data-session-id='{long_session}']");
    element(client, &long_item).await?;
    let last_answer = format!("Answer {}", LONG_SESSION_MESSAGES - 1);
    wait_for_last_message(client, &last_answer).await?;
    session.screenshot("bench-long-session.png").await?;

    click(client, "[data-testid=new-session]").await?;
    element(client, "[data-testid=chat-empty]").await?;
    click(client, "[data-testid=model-picker]").await?;
    click(client, "[data-testid=model-option][data-value='mock/m1']").await?;
    client
        .execute(STREAM_MONITOR, vec![Value::from(SENTINEL)])
        .await?;
    // Two idle seconds first: the same figures without a stream, for comparison.
    tokio::time::sleep(Duration::from_secs(2)).await;
    client
        .execute(
            "const b = window.__arborStream; b.idle = [b.gaps.length, b.ticks.length];",
            vec![],
        )
        .await?;
    element(client, "[data-testid=composer]")
        .await?
        .send_keys("Explain the parser, at length.")
        .await?;
    click(client, "[data-testid=send]").await?;
    element(
        client,
        "[data-testid=message][data-role=assistant][data-status=done]",
    )
    .await
    .context("the streamed answer never finished")?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stream: Value = client
        .execute(
            "const b = window.__arborStream; b.running = false; \
             return { gaps: b.gaps, ticks: b.ticks, callbacks: b.callbacks, seenAt: b.seenAt, \
             paintedAt: b.paintedAt, longTasks: b.longTasks, idle: b.idle };",
            vec![],
        )
        .await?;
    session.screenshot("bench-streamed.png").await?;
    let request = mock
        .requests()
        .into_iter()
        .last()
        .context("the mock got no request")?;
    let finished = request
        .finished_at_ms
        .context("the mock did not finish the stream")?;
    report_stream(&stream, request.received_at_ms, finished, answer_chars)?;

    // Opening the long session: from the streamed one, several times.
    let streamed_item =
        "[data-testid=session-item]:not([data-session-id='LONG'])".replace("LONG", long_session);
    let mut opened = Vec::new();
    for _ in 0..CLICKS {
        click(client, &streamed_item).await?;
        wait_for_last_message(client, SENTINEL).await?;
        client
            .execute(CLICK_MONITOR, vec![Value::from(last_answer.as_str())])
            .await?;
        let item = element(client, &long_item).await?;
        click_element(client, &item).await?;
        opened.push(wait_for_click_figure(client).await?);
    }
    session
        .screenshot("bench-long-session-reopened.png")
        .await?;
    opened.sort_by(f64::total_cmp);
    println!(
        "open a {LONG_SESSION_MESSAGES}-message session: click → its last message painted: \
         median {:.0} ms over {CLICKS} clicks (min {:.0}, max {:.0})",
        opened[opened.len() / 2],
        opened[0],
        opened[opened.len() - 1]
    );
    Ok(())
}

fn report_stream(stream: &Value, received: u64, finished: u64, chars: usize) -> Result<()> {
    let seconds = (finished.saturating_sub(received)) as f64 / 1000.0;
    let tokens = chars / 4;
    println!(
        "stream: {chars} characters (~{tokens} tokens) in {seconds:.1} s = ~{:.0} tokens/s, \
         {CHUNK_CHARS} characters per delta",
        tokens as f64 / seconds.max(0.001)
    );

    let idle_frames = stream["idle"][0].as_u64().context("no idle mark")? as usize;
    let idle_beats = stream["idle"][1].as_u64().context("no idle mark")? as usize;
    let gaps = numbers(&stream["gaps"]);
    ensure!(
        gaps.len() > idle_frames,
        "no animation frames ran while streaming"
    );
    let (idle, streaming) = gaps.split_at(idle_frames);
    for (phase, gaps) in [("idle", idle), ("streaming", streaming)] {
        let mut gaps = gaps.to_vec();
        let over = gaps.iter().filter(|gap| **gap > 50.0).count();
        let (median, p99, max) = spread(&mut gaps);
        println!(
            "animation frames, {phase}: {} frames, gap median {median:.1} ms, p99 {p99:.1} ms, \
             max {max:.1} ms, {over} over 50 ms",
            gaps.len()
        );
    }

    // Heartbeats: [gap ms, Unix ms]; a gap is how long the thread was held (plus the 5 ms).
    let beats: Vec<(f64, i64)> = stream["ticks"]
        .as_array()
        .context("no heartbeats recorded")?
        .iter()
        .filter_map(|beat| Some((beat[0].as_f64()?, beat[1].as_i64()?)))
        .collect();
    ensure!(beats.len() > idle_beats, "no heartbeats while streaming");
    let (idle, streaming) = beats.split_at(idle_beats);
    for (phase, beats) in [("idle", idle), ("streaming", streaming)] {
        let mut held: Vec<f64> = beats.iter().map(|(gap, _)| (gap - 5.0).max(0.0)).collect();
        let over = held.iter().filter(|ms| **ms > 50.0).count();
        let (median, p99, max) = spread(&mut held);
        println!(
            "main thread held (5 ms heartbeat), {phase}: median {median:.1} ms, p99 {p99:.1} ms, \
             max {max:.1} ms, {over} tasks over 50 ms"
        );
    }
    let mut worst: Vec<&(f64, i64)> = streaming.iter().filter(|(gap, _)| *gap > 55.0).collect();
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (gap, at) in worst.into_iter().take(5) {
        println!(
            "  held {:.0} ms, ending {} ms after the stream's end",
            gap - 5.0,
            at - finished as i64
        );
    }

    let mut callbacks = numbers(&stream["callbacks"]);
    let (median, p99, max) = spread(&mut callbacks);
    println!(
        "frame callbacks (the chat's flush) with their microtasks: {} calls, median {median:.1} ms, \
         p99 {p99:.1} ms, max {max:.1} ms",
        callbacks.len()
    );
    match stream["longTasks"].as_array() {
        Some(tasks) => println!("longtask entries: {}", tasks.len()),
        None => println!("longtask entries: not supported by this webview (heartbeats stand in)"),
    }
    let seen = stream["seenAt"]
        .as_i64()
        .context("the sentinel never appeared")?;
    let painted = stream["paintedAt"]
        .as_i64()
        .context("no frame after the sentinel")?;
    println!(
        "stream end → last token in the DOM: {} ms, → the frame after it: {} ms",
        seen - finished as i64,
        painted - finished as i64
    );
    Ok(())
}

/// Waits until the last message in the DOM contains `wanted`.
async fn wait_for_last_message(client: &Client, wanted: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + support::ui::WAIT;
    loop {
        let shown = client
            .execute(
                "const m = document.querySelectorAll('[data-testid=message]'); \
                 const last = m[m.length - 1]; \
                 return !!last && (last.textContent || '').includes(arguments[0]);",
                vec![Value::from(wanted)],
            )
            .await?;
        if shown == Value::Bool(true) {
            return Ok(());
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "the last message never showed {wanted:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn wait_for_click_figure(client: &Client) -> Result<f64> {
    let deadline = std::time::Instant::now() + support::ui::WAIT;
    loop {
        let figure = client
            .execute(
                "const b = window.__arborClick; \
                 return b.shownAt === null || b.clickedAt === null ? null : b.shownAt - b.clickedAt;",
                vec![],
            )
            .await?;
        if let Some(ms) = figure.as_f64() {
            return Ok(ms);
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "the long session never showed after the click"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
