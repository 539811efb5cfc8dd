//! One desktop app under WebDriver: a display (Xvfb unless `DISPLAY` is set), `tauri-driver`
//! on a free loopback port, and a fantoccini client whose session launches the app binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fantoccini::{Client, ClientBuilder};

use super::process::{find_executable, free_port, Managed};

const NATIVE_DRIVER: &str = "WebKitWebDriver";

pub struct DesktopSession {
    client: Option<Client>,
    // Dropped in reverse order of start: the driver (and with it the app) before the display.
    driver: Managed,
    _display: Option<Managed>,
    artifacts: PathBuf,
}

impl DesktopSession {
    /// Starts the app with `env` added to its environment (through tauri-driver, which starts
    /// it): every test gives it its own `ARBOR_DATA_DIR`, so no test touches the user's data.
    pub async fn start(app: &str, env: &[(&str, &std::ffi::OsStr)]) -> Result<Self> {
        let tauri_driver = find_executable("tauri-driver").context(
            "tauri-driver is not installed: run `npm test` once (scripts/setup.sh installs it), \
             or `cargo install tauri-driver --locked`",
        )?;
        let native_driver = find_executable(NATIVE_DRIVER).context(
            "WebKitWebDriver is not installed: install the Debian package webkit2gtk-driver \
             (scripts/setup.sh does)",
        )?;
        let (display, display_name) = match std::env::var("DISPLAY") {
            Ok(name) if !name.is_empty() => (None, name),
            _ => {
                let (xvfb, name) = start_xvfb()?;
                (Some(xvfb), name)
            }
        };

        let port = free_port()?;
        let native_port = free_port()?;
        let child = Command::new(tauri_driver)
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .arg("--native-driver")
            .arg(native_driver)
            .env("DISPLAY", &display_name)
            .envs(webdriver_renderer())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting tauri-driver")?;
        let mut driver = Managed::new("tauri-driver", child);
        wait_for_port(port, &mut driver).await?;
        // tauri-driver answers before the WebKitWebDriver it starts is listening; a session
        // request in that window fails with an empty reply (seen under load).
        wait_for_port(native_port, &mut driver).await?;

        let capabilities = serde_json::json!({
            "browserName": "wry",
            "tauri:options": { "application": app },
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            bail!("capabilities must be a JSON object");
        };
        let url = format!("http://127.0.0.1:{port}");
        let mut attempt = 1;
        let client = loop {
            let connected =
                ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                    .capabilities(capabilities.clone())
                    .connect(&url)
                    .await;
            match connected {
                Ok(client) => break client,
                // tauri-driver accepts connections before WebKitWebDriver behind it is ready;
                // a first session request can then fail with no message at all.
                Err(error) if attempt < 5 => {
                    eprintln!("WebDriver session attempt {attempt} failed: {error:?}; retrying");
                    attempt += 1;
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(error) => {
                    return Err(anyhow::anyhow!("{error:?}"))
                        .context("creating a WebDriver session (did the app start?)")
                }
            }
        };

        let artifacts = std::env::var_os("ARBOR_TEST_ARTIFACTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("test-artifacts"));
        std::fs::create_dir_all(&artifacts)?;
        Ok(Self {
            client: Some(client),
            driver,
            _display: display,
            artifacts,
        })
    }

    pub fn client(&self) -> &Client {
        // Only `stop` takes the client, and it consumes the session.
        self.client
            .as_ref()
            .unwrap_or_else(|| unreachable!("client used after stop"))
    }

    /// Saves a screenshot of the window as a test artifact and returns the PNG bytes.
    pub async fn screenshot(&self, name: &str) -> Result<Vec<u8>> {
        // Two animation frames first: the picture shows what the DOM holds now, not the last
        // frame WebKit happened to paint.
        let _ = self
            .client()
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                vec![],
            )
            .await;
        let png = self
            .client()
            .screenshot()
            .await
            .context("taking a screenshot")?;
        let path = self.artifacts.join(name);
        std::fs::write(&path, &png).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("screenshot saved: {}", path.display());
        Ok(png)
    }

    /// Keeps what the window showed when a scenario failed: a screenshot and the DOM.
    pub async fn save_failure_artifacts(&self, scenario: &str) {
        let _ = self.screenshot(&format!("{scenario}-failure.png")).await;
        if let Ok(source) = self.client().source().await {
            let path = self.artifacts.join(format!("{scenario}-failure.html"));
            if std::fs::write(&path, source).is_ok() {
                eprintln!("page source saved: {}", path.display());
            }
        }
    }

    /// Runs a scenario on this app, keeps what the window showed if it failed
    /// ([`DesktopSession::save_failure_artifacts`]), then stops the app. The scenario's error
    /// comes first.
    pub async fn run_then_stop(
        self,
        scenario: &str,
        body: impl AsyncFnOnce(&DesktopSession) -> Result<()>,
    ) -> Result<()> {
        let outcome = body(&self).await;
        if outcome.is_err() {
            self.save_failure_artifacts(scenario).await;
        }
        outcome?;
        self.stop().await
    }

    pub async fn stop(mut self) -> Result<()> {
        if let Some(client) = self.client.take() {
            client
                .close()
                .await
                .context("closing the WebDriver session")?;
        }
        self.driver.stop();
        Ok(())
    }
}

pub fn start_xvfb() -> Result<(Managed, String)> {
    let xvfb = find_executable("Xvfb").context(
        "Xvfb is not installed: install the Debian package xvfb (scripts/setup.sh does)",
    )?;
    for number in 90..140 {
        if Path::new(&format!("/tmp/.X{number}-lock")).exists() {
            continue;
        }
        let name = format!(":{number}");
        let child = Command::new(&xvfb)
            .args([
                name.as_str(),
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting Xvfb")?;
        let mut managed = Managed::new("Xvfb", child);
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline && managed.ensure_running().is_ok() {
            if socket.exists() {
                return Ok((managed, name));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Lost a race for this display number, or it never came up: try the next one.
    }
    bail!("could not start Xvfb on any display from :90 to :139")
}

async fn wait_for_port(port: u16, driver: &mut Managed) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        driver.ensure_running()?;
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("nothing listened on port {port} within 30 s (tauri-driver or WebKitWebDriver)");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The WebKit renderer the app under WebDriver gets: WebKit's DMA-BUF default, unless the
/// environment already names one (`WEBKIT_DISABLE_DMABUF_RENDERER=1 cargo bench --bench webview`
/// measures the other). Without a GPU the app itself would turn DMA-BUF off
/// (`src-tauri/src/renderer.rs`), and in that mode, under Xvfb, WebKit's automation stalls on
/// an idle page: a click or a screenshot waits until real X input arrives (an `xdotool
/// mousemove` releases it). The app's own choice is tested without WebDriver
/// (`tests/e2e/renderer.rs`).
fn webdriver_renderer() -> Vec<(&'static str, &'static str)> {
    use arbor_desktop::renderer::{DISABLE_COMPOSITING, DISABLE_DMABUF};
    let named = [DISABLE_DMABUF, DISABLE_COMPOSITING]
        .iter()
        .any(|name| std::env::var_os(name).is_some());
    if named {
        Vec::new()
    } else {
        vec![(DISABLE_DMABUF, "0")]
    }
}
