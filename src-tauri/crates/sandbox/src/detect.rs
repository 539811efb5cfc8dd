//! Which sandbox this machine can give commands, found once per process: bubblewrap when a
//! trial run of `bwrap` with every namespace works, else Landlock when the kernel has it,
//! else none (with why). `ARBOR_SANDBOX_BACKEND=bubblewrap|landlock|none` forces one (tests
//! run the attack suite against each); a forced backend that does not work here is reported
//! as none, never replaced by another.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::HELPER_ARG;

/// A backend and what it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    Bubblewrap { bwrap: PathBuf, helper: PathBuf },
    Landlock { helper: PathBuf },
    Seatbelt,
    None { why: String },
}

impl Backend {
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Bubblewrap { .. } => "bubblewrap",
            Backend::Landlock { .. } => "landlock",
            Backend::Seatbelt => "seatbelt",
            Backend::None { .. } => "none",
        }
    }
}

/// The backend with a sentence for the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub backend: Backend,
    pub summary: String,
}

pub(crate) const NO_HELPER: &str = "the `arbor-sandbox` helper is not next to Arbor's binary; \
     build it with `cargo build -p arbor-sandbox` or reinstall Arbor";

static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// Makes `path` (a binary that runs [`crate::helper::main`] when its first argument is
/// [`HELPER_ARG`]) the helper: Arbor's own binaries call this with their own path at start.
pub fn register_helper(path: PathBuf) {
    let _ = HELPER.set(path);
}

/// The helper binary: `ARBOR_SANDBOX_HELPER`, else `arbor-sandbox` beside this binary (or one
/// folder up, where cargo puts binaries beside test binaries), else a registered one.
pub fn helper_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ARBOR_SANDBOX_HELPER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    let name = format!("arbor-sandbox{}", std::env::consts::EXE_SUFFIX);
    for candidate in [
        dir.join(&name),
        dir.parent().map(|d| d.join(&name)).unwrap_or_default(),
    ] {
        if candidate.is_file() {
            return Some(candidate);
        }
    }
    HELPER.get().cloned()
}

/// Starts finding this machine's sandbox on a thread of its own, so that [`detect`] answers at
/// once later (a session's start does not wait for the trial run).
pub fn detect_in_background() {
    let _ = std::thread::Builder::new()
        .name("arbor-sandbox-detect".into())
        .spawn(|| {
            detect();
        });
}

/// This machine's sandbox (found once; forced by `ARBOR_SANDBOX_BACKEND`).
pub fn detect() -> Detected {
    static DETECTED: OnceLock<Detected> = OnceLock::new();
    DETECTED.get_or_init(find).clone()
}

fn none(why: impl Into<String>) -> Detected {
    let why = why.into();
    Detected {
        summary: format!("none: every command asks ({why})"),
        backend: Backend::None { why },
    }
}

fn find() -> Detected {
    let forced = std::env::var("ARBOR_SANDBOX_BACKEND").ok();
    if cfg!(target_os = "macos") {
        return match forced.as_deref() {
            Some("none") => none("ARBOR_SANDBOX_BACKEND=none"),
            _ if Path::new("/usr/bin/sandbox-exec").exists() => Detected {
                backend: Backend::Seatbelt,
                summary: "seatbelt: sandbox-exec with a profile made for each command".into(),
            },
            _ => none("/usr/bin/sandbox-exec is missing"),
        };
    }
    if !cfg!(target_os = "linux") {
        return none("this operating system has no sandbox Arbor can use yet");
    }
    let Some(helper) = helper_path() else {
        return none(NO_HELPER);
    };
    match forced.as_deref() {
        Some("bubblewrap") => bubblewrap(&helper).unwrap_or_else(none),
        Some("landlock") => landlock(&helper).unwrap_or_else(none),
        Some("none") => none("ARBOR_SANDBOX_BACKEND=none"),
        Some(other) => none(format!(
            "ARBOR_SANDBOX_BACKEND={other} is not bubblewrap, landlock or none"
        )),
        None => bubblewrap(&helper)
            .or_else(|bwrap_problem| {
                landlock(&helper)
                    .map_err(|landlock_problem| format!("{bwrap_problem}; {landlock_problem}"))
            })
            .unwrap_or_else(none),
    }
}

fn bubblewrap(helper: &Path) -> Result<Detected, String> {
    let bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or("bubblewrap is not installed (apt install bubblewrap)")?;
    // A trial with every namespace and the helper's filter: what a real command gets.
    let status = Command::new(&bwrap)
        .args([
            "--die-with-parent",
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-net",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ])
        .arg(helper)
        .args([HELPER_ARG, "--seccomp", "--", "/bin/true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("bubblewrap could not start ({e})"))?;
    if !status.success() {
        return Err("bubblewrap cannot create namespaces here (user namespaces are off?)".into());
    }
    let version = Command::new(&bwrap)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "bubblewrap".into());
    Ok(Detected {
        summary: format!("{version} with a seccomp filter: the project and a private temporary folder writable, secrets hidden, no network"),
        backend: Backend::Bubblewrap {
            bwrap,
            helper: helper.to_owned(),
        },
    })
}

fn landlock(helper: &Path) -> Result<Detected, String> {
    let status = Command::new(helper)
        .args([HELPER_ARG, "--probe-landlock"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("the sandbox helper could not start ({e})"))?;
    if !status.success() {
        return Err("the kernel has no usable Landlock".into());
    }
    Ok(Detected {
        backend: Backend::Landlock {
            helper: helper.to_owned(),
        },
        summary: "reduced: Landlock and a seccomp filter (no user namespaces here): writes \
                  confined, no network, but other processes are visible and .git/hooks stays \
                  writable"
            .into(),
    })
}
