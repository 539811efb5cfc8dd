//! `arbor-sandbox`: the operating system's confinement for the commands the model runs.
//!
//! One interface ([`wrap`]) over the backends:
//! - **Linux, bubblewrap** ([`bwrap`]): the distribution's `bwrap` with the root read-only, the
//!   project (and any granted folder) and a private temporary folder writable, the secret paths
//!   hidden, the protected paths read-only, new user/PID/network/IPC/UTS namespaces, a fresh
//!   `/proc`, no D-Bus, X11 or Wayland sockets, `--die-with-parent`; inside it this crate's
//!   helper ([`helper`]) loads a seccomp filter ([`seccomp`]) and starts the command.
//! - **Linux, Landlock** (reduced protection, where user namespaces are not available): the
//!   helper restricts itself with Landlock ([`landlock_rules`]) and seccomp, then starts the
//!   command.
//! - **macOS, Seatbelt** ([`seatbelt`]): a profile generated from the same policy for
//!   `/usr/bin/sandbox-exec` (pure code, tested on Linux).
//! - **None** (Windows, or nothing works here): [`wrap`] refuses; the permission layer makes
//!   every command ask instead. Never a silent fallback.
//!
//! The restrictions are set in a fresh process — the small `arbor-sandbox` helper, or Arbor's
//! own binary re-executed with [`HELPER_ARG`] — never in a thread of the app.

pub mod bwrap;
pub mod detect;
pub mod helper;
#[cfg(target_os = "linux")]
pub mod landlock_rules;
pub mod seatbelt;
#[cfg(target_os = "linux")]
pub mod seccomp;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use detect::{detect, detect_in_background, helper_path, register_helper, Backend, Detected};

/// The first argument that turns Arbor's binaries (and `arbor-sandbox`) into the helper.
pub const HELPER_ARG: &str = "__arbor_sandbox_exec";

/// What a sandboxed command may touch.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SandboxPolicy {
    /// Folders the command may write (the project unless read-only, granted folders).
    pub writable: Vec<PathBuf>,
    /// Paths inside writable folders that stay read-only (`.git/hooks`, `.git/config`, …).
    pub read_only: Vec<PathBuf>,
    /// Paths the command must not see at all (the secret-path list, Arbor's data folder).
    pub hidden: Vec<PathBuf>,
    pub network: bool,
    /// The private temporary folder, mounted as `/tmp` (bubblewrap) or made writable.
    pub temp_dir: PathBuf,
}

/// A command made ready to run confined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapped {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Variables the command must not see (session bus, display, agent sockets).
    pub remove_env: Vec<&'static str>,
    /// Variables it gets (`TMPDIR`).
    pub set_env: Vec<(&'static str, OsString)>,
}

/// Why a command cannot be confined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("there is no sandbox on this machine ({0})")]
    Unavailable(String),
}

impl SandboxError {
    pub fn code(&self) -> arbor_error_code::ErrorCode {
        arbor_error_code::ErrorCode::Unsupported
    }
}

/// Variables that lead out of the sandbox: the session bus (the keychain answers on it), the
/// display servers, agents' sockets.
pub const LEAKY_VARIABLES: &[&str] = &[
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "XDG_RUNTIME_DIR",
    "DOCKER_HOST",
];

/// `program args…` confined by `policy` with `backend`.
pub fn wrap(
    backend: &Backend,
    policy: &SandboxPolicy,
    program: &str,
    args: &[OsString],
) -> Result<Wrapped, SandboxError> {
    let mut set_env = vec![("TMPDIR", OsString::from("/tmp"))];
    let (wrapper, mut wrapper_args) = match backend {
        Backend::Bubblewrap { bwrap, helper } => {
            let mut argv = bwrap::arguments(policy);
            argv.push(helper.clone().into_os_string());
            argv.extend(helper::arguments(&helper::HelperRequest {
                seccomp: true,
                network: policy.network,
                landlock: None,
            }));
            (bwrap.clone(), argv)
        }
        Backend::Landlock { helper } => {
            set_env = vec![("TMPDIR", policy.temp_dir.clone().into_os_string())];
            let argv = helper::arguments(&helper::HelperRequest {
                seccomp: true,
                network: policy.network,
                landlock: Some(policy.clone()),
            });
            (helper.clone(), argv)
        }
        Backend::Seatbelt => {
            let mut argv = vec![
                OsString::from("-p"),
                OsString::from(seatbelt::profile(policy)),
            ];
            set_env = vec![("TMPDIR", policy.temp_dir.clone().into_os_string())];
            argv.push(OsString::from("--"));
            (PathBuf::from("/usr/bin/sandbox-exec"), argv)
        }
        Backend::None { why } => return Err(SandboxError::Unavailable(why.clone())),
    };
    wrapper_args.push(OsString::from(program));
    wrapper_args.extend(args.iter().cloned());
    Ok(Wrapped {
        program: wrapper,
        args: wrapper_args,
        remove_env: LEAKY_VARIABLES.to_vec(),
        set_env,
    })
}

/// Makes this process not dumpable: its `/proc/<pid>/environ`, `mem` and `maps` become
/// root's, and processes of the same user cannot `ptrace` it. Best effort (Linux only).
pub fn protect_this_process() {
    #[cfg(target_os = "linux")]
    {
        let _ =
            rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    }
}

/// `path` if it exists (a bind mount of a missing path fails the whole sandbox).
fn existing(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}
