//! Helpers shared by the end-to-end suites: a display, the WebDriver proxy, screenshots.

pub mod desktop;
pub mod generated;
pub mod image;
pub mod process;
pub mod ui;

/// The end-to-end suites share one test binary, whose tests the harness runs side by side; each
/// brings up a display, a WebDriver and a webview, and on a 2-core machine two of those at once
/// time each other out. Every test holds this for its whole run, so apps start one at a time.
#[allow(dead_code)] // the benchmarks include this module and start one app each
pub async fn one_app_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static ONE_APP: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    ONE_APP.lock().await
}

/// Writes `<data>/models.json` with one provider, `mock`, at `base_url` (the OpenAI completions
/// API) and its model `m1` (a 32,000-token window); `adjust` changes the provider's entry first
/// (a display name, a key variable, pricing).
#[allow(dead_code)] // the benchmarks include this module and write their own catalogue
pub fn write_mock_catalog(
    data: &std::path::Path,
    base_url: &str,
    adjust: impl FnOnce(&mut serde_json::Value),
) -> anyhow::Result<()> {
    let mut provider = serde_json::json!({
        "api": "openai-completions",
        "baseUrl": base_url,
        "models": [{"id": "m1", "contextWindow": 32000}]
    });
    adjust(&mut provider);
    let models = serde_json::json!({"providers": {"mock": provider}});
    std::fs::write(data.join("models.json"), models.to_string())?;
    Ok(())
}
