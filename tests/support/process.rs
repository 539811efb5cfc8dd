//! Child processes that are stopped politely (SIGTERM, then SIGKILL) when dropped, so a failing
//! test never leaves Xvfb, tauri-driver or WebKitWebDriver behind holding the output pipe.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub struct Managed {
    name: &'static str,
    child: Option<Child>,
}

impl Managed {
    pub fn new(name: &'static str, child: Child) -> Self {
        Self {
            name,
            child: Some(child),
        }
    }

    /// Fails when the process has already exited, naming it and its status.
    pub fn ensure_running(&mut self) -> anyhow::Result<()> {
        if let Some(child) = self.child.as_mut() {
            if let Some(status) = child.try_wait()? {
                anyhow::bail!("{} exited early with {status}", self.name);
            }
        }
        Ok(())
    }

    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        // SIGTERM lets tauri-driver stop WebKitWebDriver and the app; SIGKILL would orphan them.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Finds an executable on PATH or in cargo's bin folder (where `cargo install` puts it).
pub fn find_executable(name: &str) -> Option<PathBuf> {
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .map(|home| home.join("bin"));
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(cargo_bin)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}
