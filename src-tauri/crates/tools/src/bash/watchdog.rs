//! The watchdog that kills a command's process group when Arbor dies, even by SIGKILL.
//!
//! Each command gets a tiny `/bin/sh` that leads a new process group (the command is started
//! inside it) and blocks reading its stdin, a pipe whose write end only Arbor holds (Rust opens
//! pipes close-on-exec, so no child inherits it). When Arbor dies, however it dies, the kernel
//! closes that end; the watchdog reads EOF and sends SIGKILL to its own group (`kill 0`), which
//! is the command's. It ignores INT, HUP, QUIT and TERM, so only SIGKILL — from Arbor, which
//! stops it first once the command is over — ends it otherwise.
//!
//! Why this and not something lighter: `prctl(PR_SET_PDEATHSIG)` needs `pre_exec`, i.e.
//! `unsafe`, which the workspace forbids, and it reaches only the direct child, not the
//! grandchildren a command starts (`setpriv --pdeathsig` has the same reach, and is Linux-only).
//! A subreaper or a cgroup would need Arbor alive to act. The pipe's EOF is delivered by the
//! kernel alone, and `kill 0` names the watchdog's own group, never an id that could have been
//! reused: the group exists as long as its leader, the watchdog, is not reaped.

use std::io;
use std::process::Stdio;

use rustix::process::Pid;
use tokio::process::{Child, ChildStdin, Command};

/// Ignores the polite signals (a command's `kill 0` sends TERM to the group, Ctrl+C sends INT),
/// waits for EOF on stdin, then kills the whole group. `read` and `kill` are shell builtins:
/// one process, nothing looked up in `PATH`.
const SCRIPT: &str = "trap '' INT HUP QUIT TERM; read -r line; kill -KILL 0";

/// A running watchdog.
pub(crate) struct Watchdog {
    child: Child,
    /// The write end of the watchdog's stdin: dropping it is what tells the watchdog to kill.
    alive: Option<ChildStdin>,
    group: Pid,
}

impl Watchdog {
    /// Starts a watchdog leading a new process group.
    pub fn start() -> io::Result<Self> {
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(SCRIPT)
            // Nothing of Arbor's environment (keys) and no hold on the project folder.
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let alive = child.stdin.take();
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        match (alive, group) {
            (Some(alive), Some(group)) => Ok(Self {
                child,
                alive: Some(alive),
                group,
            }),
            _ => {
                let _ = child.start_kill();
                Err(io::Error::other("the watchdog process has no id or stdin"))
            }
        }
    }

    /// The id of the group the watchdog leads.
    pub fn group(&self) -> Pid {
        self.group
    }

    /// Stops the watchdog without letting it act: SIGKILL by pid first (it is our unreaped
    /// child, so the pid is still its own), reaped, and only then its stdin closed.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        drop(self.alive.take());
    }
}
