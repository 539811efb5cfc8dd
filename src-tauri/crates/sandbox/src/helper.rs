//! The helper: a fresh process that sets a command's restrictions on itself and then becomes
//! the command (`exec`), so nothing of the app (its threads, its memory, its open files) is
//! ever restricted or shared. Arguments:
//!
//! `__arbor_sandbox_exec [--seccomp] [--network] [--landlock POLICY_JSON] -- PROGRAM ARGS…`,
//! or `__arbor_sandbox_exec --probe-landlock` (exit 0 when Landlock works here).

use std::ffi::{OsStr, OsString};

use crate::{SandboxPolicy, HELPER_ARG};

/// What the helper is asked to do before starting the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperRequest {
    pub seccomp: bool,
    pub network: bool,
    /// Restrict with Landlock to this policy (the reduced backend).
    pub landlock: Option<SandboxPolicy>,
}

/// The helper's arguments for `request`, ending with `--` (the command follows).
pub fn arguments(request: &HelperRequest) -> Vec<OsString> {
    let mut args = vec![OsString::from(HELPER_ARG)];
    if request.seccomp {
        args.push("--seccomp".into());
    }
    if request.network {
        args.push("--network".into());
    }
    if let Some(policy) = &request.landlock {
        args.push("--landlock".into());
        args.push(serde_json::to_string(policy).unwrap_or_default().into());
    }
    args.push("--".into());
    args
}

/// Why the helper could not start the command (it exits 126 after saying so).
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    #[error("bad helper arguments: {0}")]
    Arguments(String),
    #[error("could not restrict the command: {0}")]
    Restrict(String),
    #[error("could not start `{program}`: {error}")]
    Exec {
        program: String,
        error: std::io::Error,
    },
    #[error("this operating system has no helper sandbox")]
    Unsupported,
}

/// When this process was started as the helper (its first argument is [`HELPER_ARG`]), runs
/// it and never returns: Arbor's binaries call this first thing in `main`. Prints a failure
/// to stderr itself (the only output the command's caller then sees).
pub fn run_if_requested() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().map(OsString::as_os_str) == Some(OsStr::new(HELPER_ARG)) {
        std::process::exit(main(&args));
    }
}

/// The helper's `main` over its arguments (the first is [`HELPER_ARG`]); the exit code.
#[allow(clippy::print_stderr)]
pub fn main(args: &[OsString]) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("arbor-sandbox: {error}");
            126
        }
    }
}

fn run(args: &[OsString]) -> Result<(), HelperError> {
    let mut rest = args.iter();
    if rest.next().map(OsString::as_os_str) != Some(OsStr::new(HELPER_ARG)) {
        return Err(HelperError::Arguments(format!(
            "the first argument must be {HELPER_ARG}"
        )));
    }
    let mut request = HelperRequest {
        seccomp: false,
        network: false,
        landlock: None,
    };
    let mut command: Vec<OsString> = Vec::new();
    while let Some(arg) = rest.next() {
        match arg.to_str() {
            Some("--seccomp") => request.seccomp = true,
            Some("--network") => request.network = true,
            Some("--landlock") => {
                let json = rest
                    .next()
                    .and_then(|j| j.to_str())
                    .ok_or_else(|| HelperError::Arguments("--landlock needs a policy".into()))?;
                let policy = serde_json::from_str(json)
                    .map_err(|e| HelperError::Arguments(format!("the Landlock policy: {e}")))?;
                request.landlock = Some(policy);
            }
            Some("--probe-landlock") => return probe_landlock(),
            Some("--") => {
                command = rest.cloned().collect();
                break;
            }
            _ => {
                return Err(HelperError::Arguments(format!(
                    "unknown argument {}",
                    arg.to_string_lossy()
                )))
            }
        }
    }
    let Some((program, program_args)) = command.split_first() else {
        return Err(HelperError::Arguments("no command after --".into()));
    };
    restrict(&request)?;
    exec(program, program_args)
}

#[cfg(target_os = "linux")]
fn restrict(request: &HelperRequest) -> Result<(), HelperError> {
    // Root keeps no capability: with no-new-privileges (set by Landlock and seccomp below) an
    // `exec` cannot give them back, so reading other processes' memory or environment, or
    // overriding file permissions, stays out of reach for a command run by root too.
    let none = rustix::thread::CapabilitySet::empty();
    rustix::thread::set_capabilities(
        None,
        rustix::thread::CapabilitySets {
            effective: none,
            permitted: none,
            inheritable: none,
        },
    )
    .map_err(|e| HelperError::Restrict(format!("dropping capabilities: {e}")))?;
    if let Some(policy) = &request.landlock {
        crate::landlock_rules::restrict(policy).map_err(HelperError::Restrict)?;
    }
    if request.seccomp {
        // Unix sockets lead out of any namespace (a socket file is reachable wherever its
        // path is visible): without network, no `connect` at all.
        crate::seccomp::apply(request.network, !request.network).map_err(HelperError::Restrict)?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn restrict(_request: &HelperRequest) -> Result<(), HelperError> {
    Err(HelperError::Unsupported)
}

#[cfg(target_os = "linux")]
fn probe_landlock() -> Result<(), HelperError> {
    crate::landlock_rules::probe().map_err(HelperError::Restrict)
}

#[cfg(not(target_os = "linux"))]
fn probe_landlock() -> Result<(), HelperError> {
    Err(HelperError::Unsupported)
}

#[cfg(unix)]
fn exec(program: &OsString, args: &[OsString]) -> Result<(), HelperError> {
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new(program).args(args).exec();
    Err(HelperError::Exec {
        program: program.to_string_lossy().into_owned(),
        error,
    })
}

#[cfg(not(unix))]
fn exec(_program: &OsString, _args: &[OsString]) -> Result<(), HelperError> {
    Err(HelperError::Unsupported)
}
