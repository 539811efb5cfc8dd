//! Pushing a worktree's branch to the repository's `origin` over HTTP(S). A token goes only to
//! the host it was saved for, and only when the server asks (as cloning does); an SSH remote
//! gets an error that says HTTPS works.

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
    let rejected = std::cell::RefCell::new(None::<String>);
    let mut callbacks = git2::RemoteCallbacks::new();
    callbacks.push_update_reference(|_reference, status| {
        if let Some(message) = status {
            *rejected.borrow_mut() = Some(message.to_owned());
        }
        Ok(())
    });
    let mut options = git2::PushOptions::new();
    options.remote_callbacks(callbacks);
    let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
    // The token goes only to the URL git contacts (a `pushurl` may differ from origin's), when
    // it names the token's host, over HTTPS or to this machine (see `crate::http`).
    let (pushed, auth) = crate::http::with_token(token, || {
        remote.push(&[refspec.as_str()], Some(&mut options))
    });
    if let Err(error) = pushed {
        return Err(if auth.asked && auth.offered {
            WorktreeError::AuthFailed { url, host }
        } else if auth.asked {
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
