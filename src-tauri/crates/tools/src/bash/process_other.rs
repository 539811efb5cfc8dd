//! Commands where there are no process groups to run them in and kill them as a whole (Windows):
//! not run in this version — [`start`] refuses with an error saying so, and the model is told.
//! The rest of the bash tool is the same on every system.

use std::io;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::Child;

use super::launch::Launch;
use arbor_secrets::ToolEnvironment;

/// What `process.rs` answers on Unix; never made here.
#[allow(dead_code)]
pub(crate) struct Started {
    pub child: Child,
    pub output: tokio::io::Empty,
    pub group: ProcessGroup,
}

/// Refuses: a command whose child processes could outlive it (or an abort) is not started.
pub(crate) async fn start(
    _launch: &Launch,
    _cwd: &Path,
    _environment: &ToolEnvironment,
) -> io::Result<Started> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "commands run on Linux and macOS only in this version of Arbor",
    ))
}

/// Stands for the Unix process group; never made here.
pub(crate) struct ProcessGroup;

impl ProcessGroup {
    pub async fn terminate(&mut self, child: &mut Child, _grace: Duration) -> Option<ExitStatus> {
        let _ = child.kill().await;
        child.wait().await.ok()
    }

    pub fn kill_remaining(&self) {}

    pub async fn release(self) {}
}
