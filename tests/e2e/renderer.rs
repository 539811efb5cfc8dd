//! End to end, without WebDriver: the app chooses its WebKit renderer before WebKit starts
//! (`src-tauri/src/renderer.rs`). Its web process is started by WebKit with the app's
//! environment, so that environment shows the choice: DMA-BUF off on a machine without a GPU
//! render node (this one under Xvfb), and a value the user set left as it was; the same for the
//! JavaScript engine's tiers (`src-tauri/src/js_engine.rs`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use arbor_desktop::js_engine::{OPTIMIZING_OFF, TIER_VARIABLES};
use arbor_desktop::renderer::{decide, this_machine, DISABLE_COMPOSITING, DISABLE_DMABUF};

use crate::support::desktop::start_xvfb;
use crate::support::process::Managed;

const APP: &str = env!("CARGO_BIN_EXE_arbor-desktop");

/// The values of `names` in the environment WebKit gave the app's web process (`None`: unset).
fn web_process_env(app_pid: u32, names: &[&str]) -> Result<Vec<Option<String>>> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // Any of the app's threads may have started it: each lists its own children.
        let mut children = String::new();
        let tasks = std::fs::read_dir(format!("/proc/{app_pid}/task"))
            .context("the app exited before it started a web process")?;
        for task in tasks.flatten() {
            let listed = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            children.push_str(&listed);
            children.push(' ');
        }
        for child in children.split_whitespace() {
            let comm = std::fs::read_to_string(format!("/proc/{child}/comm")).unwrap_or_default();
            if !comm.starts_with("WebKitWebProces") {
                continue;
            }
            let environ = std::fs::read(format!("/proc/{child}/environ"))
                .with_context(|| format!("reading the web process's environment ({child})"))?;
            let entries: Vec<&str> = environ
                .split(|byte| *byte == 0)
                .filter_map(|entry| std::str::from_utf8(entry).ok())
                .collect();
            return Ok(names
                .iter()
                .map(|name| {
                    let prefix = format!("{name}=");
                    entries
                        .iter()
                        .find_map(|entry| entry.strip_prefix(&prefix).map(str::to_owned))
                })
                .collect());
        }
        if Instant::now() > deadline {
            bail!("the app started no web process within a minute");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Starts the app (no project) with `set` in its environment and the renderer and tier
/// variables otherwise removed; answers what its web process got for `names`.
fn launch(display: &str, set: &[(&str, &str)], names: &[&str]) -> Result<Vec<Option<String>>> {
    let data = tempfile::tempdir()?;
    let mut command = Command::new(APP);
    command
        .env("DISPLAY", display)
        .env("ARBOR_DATA_DIR", data.path())
        .env_remove(DISABLE_DMABUF)
        .env_remove(DISABLE_COMPOSITING);
    for tier in TIER_VARIABLES {
        command.env_remove(tier);
    }
    command
        .envs(set.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = command.spawn().context("starting the app")?;
    let pid = child.id();
    let mut app = Managed::new("arbor-desktop", child);
    let got = web_process_env(pid, names);
    app.stop();
    got
}

/// [`launch`] for the one variable `name`.
fn launch_for(display: &str, set: &[(&str, &str)], name: &str) -> Result<Option<String>> {
    Ok(launch(display, set, &[name])?.pop().flatten())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_chooses_its_renderer_before_webkit_starts_and_a_users_setting_stands() -> Result<()>
{
    let _one_app = crate::support::one_app_at_a_time().await;
    let (_xvfb, display) = start_xvfb()?;
    let software = std::env::var_os("LIBGL_ALWAYS_SOFTWARE");
    let expected = decide(
        |name| {
            (name == "LIBGL_ALWAYS_SOFTWARE")
                .then(|| software.clone())
                .flatten()
        },
        this_machine(),
    );
    let chosen = launch_for(&display, &[], DISABLE_DMABUF)?;
    if expected.disables_dmabuf() {
        ensure!(
            chosen.as_deref() == Some("1"),
            "{expected:?} on this machine, yet the web process got {DISABLE_DMABUF}={chosen:?}"
        );
    } else {
        ensure!(
            chosen.is_none(),
            "{expected:?} on this machine, yet the web process got {DISABLE_DMABUF}={chosen:?}"
        );
    }
    // The user's own value, whatever the machine: `0` asks for WebKit's DMA-BUF renderer.
    let kept = launch_for(&display, &[(DISABLE_DMABUF, "0")], DISABLE_DMABUF)?;
    ensure!(
        kept.as_deref() == Some("0"),
        "the user's {DISABLE_DMABUF}=0 became {kept:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_process_runs_without_the_optimizing_tiers_unless_the_user_chose() -> Result<()> {
    let _one_app = crate::support::one_app_at_a_time().await;
    let (_xvfb, display) = start_xvfb()?;
    let chosen = launch(&display, &[], TIER_VARIABLES)?;
    for (name, got) in TIER_VARIABLES.iter().zip(&chosen) {
        let expected = OPTIMIZING_OFF
            .iter()
            .find(|(set, _)| set == name)
            .map(|(_, value)| (*value).to_owned());
        ensure!(
            *got == expected,
            "the web process got {name}={got:?}, expected {expected:?}"
        );
    }
    // A user who asked for the DFG JIT gets exactly what they set, and nothing added.
    let theirs = launch(&display, &[("JSC_useDFGJIT", "true")], TIER_VARIABLES)?;
    for (name, got) in TIER_VARIABLES.iter().zip(&theirs) {
        let expected = (*name == "JSC_useDFGJIT").then(|| "true".to_owned());
        ensure!(
            *got == expected,
            "with the user's JSC_useDFGJIT=true the web process got {name}={got:?}"
        );
    }
    Ok(())
}
