//! Pushing a worktree's branch to the repository's `origin` over HTTP(S). A token goes only to
//! the host it was saved for, and only when the server asks (as cloning does); an SSH remote
//! gets an error that says HTTPS works.

use std::cell::Cell;
use std::path::Path;

use git2::BranchType;

use super::{open_main, PushResult, WorktreeError};
use crate::clone::{CloneSource, HostToken};

/// Pushes `branch` to `origin` (same name there). Rejections the server reports per reference
/// (not a fast-forward, protected branch) are errors.
pub fn push_branch(
    repo_root: &Path,
    branch: &str,
    token: Option<&HostToken>,
) -> Result<PushResult, WorktreeError> {
    let repo = open_main(repo_root)?;
    let mut remote = repo
        .find_remote("origin")
        .map_err(|_| WorktreeError::NoRemote)?;
    let url = remote.url().unwrap_or_default().to_owned();
    let source = CloneSource::parse(&url).map_err(|error| WorktreeError::Remote {
        url: url.clone(),
        message: error.to_string(),
    })?;
    let commit = repo
        .find_branch(branch, BranchType::Local)
        .map_err(|_| WorktreeError::BranchGone {
            branch: branch.to_owned(),
        })?
        .get()
        .peel_to_commit()?
        .id();
    let host = source.host.clone().unwrap_or_default();
    let asked = Cell::new(0u32);
    let offered = Cell::new(false);
    let rejected = std::cell::RefCell::new(None::<String>);
    let mut callbacks = git2::RemoteCallbacks::new();
    callbacks.credentials(|url, _username, _allowed| {
        asked.set(asked.get() + 1);
        // The URL git is contacting (a `pushurl` or `pushInsteadOf` may differ from origin's),
        // over HTTPS — plain HTTP only to this machine.
        let contacted = CloneSource::parse(url).ok();
        let secure = url.starts_with("https://")
            || url.starts_with("http://127.0.0.1")
            || url.starts_with("http://localhost");
        let usable = token.filter(|t| {
            secure && contacted.as_ref().and_then(|c| c.host.as_deref()) == Some(t.host.as_str())
        });
        match usable {
            // A second request means the token was refused: do not loop.
            Some(host_token) if asked.get() == 1 => {
                offered.set(true);
                git2::Cred::userpass_plaintext("x-access-token", host_token.token.expose())
            }
            _ => Err(git2::Error::from_str(&format!(
                "{url} asks for credentials"
            ))),
        }
    });
    callbacks.push_update_reference(|_reference, status| {
        if let Some(message) = status {
            *rejected.borrow_mut() = Some(message.to_owned());
        }
        Ok(())
    });
    let mut options = git2::PushOptions::new();
    options.remote_callbacks(callbacks);
    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    if let Err(error) = remote.push(&[refspec.as_str()], Some(&mut options)) {
        return Err(if asked.get() > 0 && offered.get() {
            WorktreeError::AuthFailed { url, host }
        } else if asked.get() > 0 {
            WorktreeError::AuthRequired { url, host }
        } else {
            WorktreeError::Remote {
                url,
                message: error.message().to_owned(),
            }
        });
    }
    drop(options);
    if let Some(message) = rejected.into_inner() {
        return Err(WorktreeError::PushRejected {
            url,
            branch: branch.to_owned(),
            message,
        });
    }
    Ok(PushResult {
        branch: branch.to_owned(),
        url,
        commit: commit.to_string(),
    })
}
