//! Running `bash -c` in its own process group, with one pipe for stdout and stderr, and killing
//! the whole group.

use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{kill_process_group, Pid, Signal};
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use crate::secrets::ToolEnvironment;

/// A started command: the child, and the read end of the pipe its stdout and stderr share.
pub(crate) struct Started {
    pub child: Child,
    pub output: pipe::Receiver,
    pub group: ProcessGroup,
}

/// Starts `bash -c command` in `cwd`, in a new process group (so the group can be killed as a
/// whole, grandchildren included), with stdout and stderr on one pipe: interleaved in the order
/// they were written, as a terminal shows them.
/// Variables `environment` withholds (keys) are not inherited.
pub(crate) fn start(
    command: &str,
    cwd: &Path,
    environment: &ToolEnvironment,
) -> io::Result<Started> {
    let (writer, reader) = pipe::pipe()?;
    let writer = writer.into_blocking_fd()?;
    let mut bash = Command::new("bash");
    bash.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer.try_clone()?))
        .stderr(Stdio::from(writer))
        .process_group(0);
    environment.apply(&mut bash);
    let child = bash.spawn()?;
    // `bash` holds our copies of the write end: drop it so the pipe reaches EOF when the
    // command's processes close theirs.
    drop(bash);
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
        .map(|pid| ProcessGroup { leader: pid })
        .ok_or_else(|| io::Error::other("the started process has no id"))?;
    Ok(Started {
        child,
        output: reader,
        group,
    })
}

/// The process group of a started command (its id is the leader's pid).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProcessGroup {
    leader: Pid,
}

impl ProcessGroup {
    /// Sends SIGTERM to the group; waits up to `grace` for the leader to exit; then SIGKILL to
    /// whatever is left of the group (a grandchild that ignores TERM must not survive).
    pub async fn terminate(&self, child: &mut Child, grace: Duration) -> Option<ExitStatus> {
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

    pub fn kill_now(&self) {
        self.signal(Signal::KILL);
    }

    fn signal(&self, signal: Signal) {
        // ESRCH (the group is already gone) is the expected race, not a failure.
        let _ = kill_process_group(self.leader, signal);
    }
}

/// Kills the group if the tool is dropped mid-run (its future cancelled), so nothing is orphaned.
pub(crate) struct KillOnDrop {
    group: ProcessGroup,
    armed: bool,
}

impl KillOnDrop {
    pub fn new(group: ProcessGroup) -> Self {
        Self { group, armed: true }
    }

    /// The command finished on its own: background children it left are the user's business.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.group.kill_now();
        }
    }
}
