//! Cloning a git repository into a workspace, with `git2`: progress as [`CloneProgress`]
//! reports, cancellable at any moment, a token only for the host it is for, and nothing
//! half-made — the clone goes into a temporary folder beside the destination and is renamed into
//! place only when it is complete; a failure or a cancel removes it, and a crash leaves at most a
//! temporary folder that [`clean_stale_clones`] removes later.
//!
//! Map: [`source`] (what the user typed → URL, host, workspace path), [`progress`] (reports and
//! their throttle), [`errors`] (git's errors in the user's terms), this module (the clone).

mod errors;
pub mod progress;
pub mod source;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use errors::CloneError;
pub use progress::{ClonePhase, CloneProgress};
pub use source::CloneSource;

use arbor_secrets::Secret;
use progress::ProgressThrottle;

/// The prefix of the temporary folders clones are made in.
const TEMP_PREFIX: &str = ".arbor-clone-";
/// The file in a temporary clone folder that names the process making it.
const PID_FILE: &str = "pid";

/// What to clone, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CloneRequest {
    /// `owner/repo`, a GitHub or other HTTPS URL, `file://…` or a local path.
    pub source: String,
    /// The folder to create; `None`: `<workspaces>/<owner>/<repo>`.
    pub destination: Option<PathBuf>,
    /// Only the last `depth` commits.
    pub depth: Option<u32>,
    /// The branch to check out (default: the remote's default branch).
    pub branch: Option<String>,
}

/// A token and the one host it may be sent to.
#[derive(Debug, Clone)]
pub struct HostToken {
    pub host: String,
    pub token: Secret,
}

/// A finished clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClonedRepository {
    pub path: PathBuf,
    /// The origin URL as stored in the clone's config (no credentials).
    pub origin_url: String,
}

/// Where `request` would be cloned to (`workspaces` holds the default destinations).
pub fn destination_of(
    request: &CloneRequest,
    workspaces: &Path,
) -> Result<(CloneSource, PathBuf), CloneError> {
    let source = CloneSource::parse(&request.source)?;
    let destination = match &request.destination {
        Some(path) => path.clone(),
        None => workspaces.join(&source.workspace_path),
    };
    Ok((source, destination))
}

/// Clones `request` (blocking: run it off an async runtime's workers). `cancel` stops it at the
/// next progress callback; `report` gets throttled progress. The token is offered only when
/// the server asks for credentials and the URL's host is the token's.
pub fn clone_repository(
    request: &CloneRequest,
    workspaces: &Path,
    token: Option<&HostToken>,
    cancel: &AtomicBool,
    report: &mut dyn FnMut(&CloneProgress),
) -> Result<ClonedRepository, CloneError> {
    let (source, destination) = destination_of(request, workspaces)?;
    check_destination(&destination, &source)?;
    let parent = destination
        .parent()
        .ok_or_else(|| CloneError::InvalidDestination {
            path: destination.clone(),
        })?;
    std::fs::create_dir_all(parent).map_err(|error| CloneError::io(parent, error))?;
    let temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempdir_in(parent)
        .map_err(|error| CloneError::io(parent, error))?;
    std::fs::write(temp.path().join(PID_FILE), std::process::id().to_string())
        .map_err(|error| CloneError::io(temp.path(), error))?;
    let work = temp.path().join("repo");

    let throttle = std::cell::RefCell::new(ProgressThrottle::new(Duration::from_millis(100)));
    let report = std::cell::RefCell::new(report);
    let emit = |next: CloneProgress| {
        if let Some(progress) = throttle.borrow_mut().update(next) {
            (report.borrow_mut())(&progress);
        }
    };
    let first = throttle.borrow().current.clone();
    emit(first);

    let mut callbacks = git2::RemoteCallbacks::new();
    callbacks.transfer_progress(|stats| {
        let mut next = throttle.borrow().current.clone();
        next.phase = ProgressThrottle::transfer_phase(&stats);
        next.received_objects = stats.received_objects() as u64;
        next.total_objects = stats.total_objects() as u64;
        next.indexed_deltas = stats.indexed_deltas() as u64;
        next.total_deltas = stats.total_deltas() as u64;
        next.received_bytes = stats.received_bytes() as u64;
        emit(next);
        !cancel.load(Ordering::Relaxed)
    });
    callbacks.sideband_progress(|_| !cancel.load(Ordering::Relaxed));
    let mut fetch = git2::FetchOptions::new();
    fetch.remote_callbacks(callbacks);
    if let Some(depth) = request.depth {
        fetch.depth(i32::try_from(depth).unwrap_or(i32::MAX));
    }
    let mut checkout = git2::build::CheckoutBuilder::new();
    checkout.progress(|_, done, total| {
        let mut next = throttle.borrow().current.clone();
        next.phase = ClonePhase::CheckingOut;
        next.checked_out_files = done as u64;
        next.total_files = total as u64;
        emit(next);
    });
    let mut builder = git2::build::RepoBuilder::new();
    builder.fetch_options(fetch).with_checkout(checkout);
    if let Some(branch) = &request.branch {
        builder.branch(branch);
    }
    // The token goes out only when the server asks, to its own host (see `crate::http`).
    let (cloned, auth) = crate::http::with_token(token, || builder.clone(&source.url, &work));
    let repository = match cloned {
        Ok(repository) => repository,
        Err(error) => {
            return Err(errors::classify(
                &error,
                &source,
                cancel.load(Ordering::Relaxed),
                auth.asked,
                auth.offered,
            ))
        }
    };
    if cancel.load(Ordering::Relaxed) {
        return Err(CloneError::Cancelled);
    }
    let origin_url = repository
        .find_remote("origin")
        .ok()
        .and_then(|remote| remote.url().map(str::to_owned))
        .unwrap_or_else(|| source.url.clone());
    drop(repository);
    // An empty folder in the way (made by a folder picker) is replaced.
    if destination.is_dir() {
        let _ = std::fs::remove_dir(&destination);
    }
    std::fs::rename(&work, &destination).map_err(|error| {
        if destination.exists() {
            CloneError::DestinationExists {
                path: destination.clone(),
            }
        } else {
            CloneError::io(&destination, error)
        }
    })?;
    drop(temp);
    let mut done = throttle.borrow().current.clone();
    done.phase = ClonePhase::Done;
    emit(done);
    Ok(ClonedRepository {
        path: destination,
        origin_url,
    })
}

/// An existing, non-empty destination is an error — or, when it is a clone of the same remote,
/// [`CloneError::AlreadyCloned`] (front ends offer to open it).
fn check_destination(destination: &Path, source: &CloneSource) -> Result<(), CloneError> {
    let Ok(mut entries) = std::fs::read_dir(destination) else {
        if destination.exists() {
            return Err(CloneError::DestinationExists {
                path: destination.to_owned(),
            });
        }
        return Ok(());
    };
    if entries.next().is_none() {
        return Ok(());
    }
    let same_remote = git2::Repository::open(destination)
        .ok()
        .and_then(|repo| {
            let remote = repo.find_remote("origin").ok()?;
            remote.url().map(|url| same_url(url, &source.url))
        })
        .unwrap_or(false);
    if same_remote {
        Err(CloneError::AlreadyCloned {
            path: destination.to_owned(),
        })
    } else {
        Err(CloneError::DestinationExists {
            path: destination.to_owned(),
        })
    }
}

fn same_url(a: &str, b: &str) -> bool {
    let normal = |url: &str| {
        url.trim_end_matches('/')
            .trim_end_matches(".git")
            .to_ascii_lowercase()
    };
    normal(a) == normal(b)
}

/// Removes temporary clone folders under `root` (and one level below: `<owner>/`) whose process
/// is gone — what a crash mid-clone leaves behind. Returns how many were removed.
pub fn clean_stale_clones(root: &Path) -> usize {
    let Ok(owners) = std::fs::read_dir(root) else {
        return 0;
    };
    let mut folders = vec![root.to_owned()];
    folders.extend(owners.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    folders
        .iter()
        .map(|folder| clean_stale_clones_in(folder))
        .sum()
}

/// Removes the temporary clone folders directly inside `folder` whose process is gone (a
/// clone into a folder of the user's choosing makes its temporary folder there). Returns how
/// many were removed.
pub fn clean_stale_clones_in(folder: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .map(|entry| entry.path())
        .filter(|path| !owner_alive(path) && std::fs::remove_dir_all(path).is_ok())
        .count()
}

/// Whether `folder` holds a temporary clone folder (of any process).
pub fn has_temporary_clones(folder: &Path) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
    })
}

/// Whether the process named in a temporary clone folder still runs.
#[cfg(unix)]
fn owner_alive(folder: &Path) -> bool {
    let pid = std::fs::read_to_string(folder.join(PID_FILE))
        .ok()
        .and_then(|text| text.trim().parse::<i32>().ok())
        .and_then(rustix::process::Pid::from_raw);
    match pid {
        Some(pid) if pid.as_raw_nonzero().get() == std::process::id() as i32 => true,
        Some(pid) => rustix::process::test_kill_process(pid).is_ok(),
        None => false,
    }
}

/// Without a way to ask (Windows, here): a folder whose owner cannot be told dead is kept, so a
/// running clone is never deleted; a stale one stays until removed by hand.
#[cfg(not(unix))]
fn owner_alive(_folder: &Path) -> bool {
    true
}
