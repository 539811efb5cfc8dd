//! Running `bash -c` in a process group of its own, with one pipe for stdout and stderr, and
//! killing the whole group — also when Arbor itself is killed (see [`watchdog`]).

use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{kill_process_group, Pid, Signal};
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use super::launch::Launch;
use super::watchdog::Watchdog;
use arbor_secrets::ToolEnvironment;

/// A started command: the child, the read end of the pipe its stdout and stderr share, and its
/// process group.
pub(crate) struct Started {
    pub child: Child,
    pub output: pipe::Receiver,
    pub group: ProcessGroup,
}

/// Starts `bash -c command` in `cwd`, in the process group of a freshly started watchdog (so the
/// group can be killed as a whole, grandchildren included, by Arbor or — when Arbor dies — by
/// the watchdog), with stdout and stderr on one pipe: interleaved in the order they were
/// written, as a terminal shows them. Variables `environment` withholds (keys) are not
/// inherited.
pub(crate) async fn start(
    launch: &Launch,
    cwd: &Path,
    environment: &ToolEnvironment,
) -> io::Result<Started> {
    // First the watchdog, then the command inside its group: there is no moment when the
    // command runs without one.
    let watchdog = Watchdog::start()?;
    let group = ProcessGroup {
        id: watchdog.group(),
        watchdog: Some(watchdog),
        armed: true,
    };
    let spawned = spawn(launch, cwd, environment, group.id);
    match spawned {
        Ok((child, output)) => Ok(Started {
            child,
            output,
            group,
        }),
        Err(error) => {
            group.release().await;
            Err(error)
        }
    }
}

fn spawn(
    launch: &Launch,
    cwd: &Path,
    environment: &ToolEnvironment,
    group: Pid,
) -> io::Result<(Child, pipe::Receiver)> {
    let (writer, reader) = pipe::pipe()?;
    let writer = writer.into_blocking_fd()?;
    let mut bash = Command::new(&launch.program);
    bash.args(&launch.args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer.try_clone()?))
        .stderr(Stdio::from(writer))
        .process_group(group.as_raw_nonzero().get());
    for name in environment.withheld() {
        bash.env_remove(name);
    }
    for name in &launch.remove_env {
        bash.env_remove(name);
    }
    for (name, value) in &launch.set_env {
        bash.env(name, value);
    }
    let child = bash.spawn()?;
    // `bash` holds our copies of the write end: drop it so the pipe reaches EOF when the
    // command's processes close theirs.
    drop(bash);
    Ok((child, reader))
}

/// The process group of a started command, led by its watchdog. Dropped while still armed (the
/// tool's future cancelled mid-run), it kills the whole group, so nothing is orphaned.
pub(crate) struct ProcessGroup {
    /// The group's id: the watchdog's pid. Not reusable while the watchdog is unreaped, and
    /// the watchdog is reaped only after the last signal Arbor sends to the group.
    id: Pid,
    watchdog: Option<Watchdog>,
    armed: bool,
}

impl ProcessGroup {
    /// Sends SIGTERM to the group; waits up to `grace` for the command to exit; then SIGKILL to
    /// whatever is left of the group (a grandchild that ignores TERM must not survive, and the
    /// watchdog, which ignores TERM, goes with it).
    pub async fn terminate(&mut self, child: &mut Child, grace: Duration) -> Option<ExitStatus> {
        self.signal(Signal::TERM);
        let status = tokio::time::timeout(grace, child.wait())
            .await
            .ok()
            .and_then(Result::ok);
        self.signal(Signal::KILL);
        match status {
            Some(status) => Some(status),
            None => child.wait().await.ok(),
        }
    }

    /// Kills whatever is left of the group: a sandboxed command's background processes must
    /// not outlive its call (bubblewrap's PID namespace does this by itself; Landlock has none).
    pub fn kill_remaining(&self) {
        self.signal(Signal::KILL);
    }

    /// The command is over (finished on its own, or killed by [`Self::terminate`]): stops and
    /// reaps the watchdog. Background children a finished command left are the user's
    /// business, so the group itself is left alone.
    pub async fn release(mut self) {
        self.armed = false;
        if let Some(watchdog) = self.watchdog.take() {
            watchdog.stop().await;
        }
    }

    fn signal(&self, signal: Signal) {
        // ESRCH (the group is already gone) is the expected race, not a failure.
        let _ = kill_process_group(self.id, signal);
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.armed {
            // Before the watchdog is dropped (and can be reaped): the id is still this group's.
            self.signal(Signal::KILL);
        }
    }
}
