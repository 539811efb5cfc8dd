//! [`CloneError`]: why a clone failed, in the user's terms, each with what to do; and
//! [`classify`], which reads git's errors.

use arbor_error_code::ErrorCode;
use std::path::{Path, PathBuf};

use super::CloneSource;

#[derive(Debug, thiserror::Error)]
pub enum CloneError {
    #[error(
        "`{input}` is not a repository to clone: give owner/repo, an https:// URL, a file:// URL \
         or a local path"
    )]
    InvalidSource { input: String },
    #[error(
        "`{input}` is an SSH URL; Arbor clones over HTTPS: use https://HOST/OWNER/REPO (a token \
         for private GitHub repositories goes in Settings or `arbor auth set github`)"
    )]
    SshUnsupported { input: String },
    #[error(
        "the URL holds a user name or token; remove it: the token belongs in Settings or \
         `arbor auth set github`, never in a URL (it would be stored in the clone)"
    )]
    CredentialsInUrl,
    #[error("{} cannot hold a clone: choose a folder inside a parent folder", path.display())]
    InvalidDestination { path: PathBuf },
    #[error("{} already exists and is not empty: choose another folder or move it away", path.display())]
    DestinationExists { path: PathBuf },
    #[error("{} is already a clone of this repository: open it instead", path.display())]
    AlreadyCloned { path: PathBuf },
    #[error(
        "{url} was not found. If it is private, set a GitHub token (Settings, or \
         `arbor auth set github`) that can read it"
    )]
    NotFound { url: String },
    #[error(
        "{url} needs credentials and the token was refused: check that the token is valid and \
         can read this repository (Settings, or `arbor auth set github`)"
    )]
    AuthFailed { url: String },
    #[error(
        "{url} needs credentials: it is private (or does not exist). Set a GitHub token that can \
         read it (Settings, or `arbor auth set github`)"
    )]
    AuthRequired { url: String },
    #[error("cannot reach {url}: {detail}. Check the network (or the URL) and try again")]
    Network { url: String, detail: String },
    #[error("the disk is full while writing {}: free some space and try again", path.display())]
    DiskFull { path: PathBuf },
    #[error("the clone was cancelled; nothing was left behind")]
    Cancelled,
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("git failed: {0}")]
    Git(String),
}

impl CloneError {
    pub fn code(&self) -> ErrorCode {
        match self {
            CloneError::InvalidSource { .. } => ErrorCode::InvalidSource,
            CloneError::SshUnsupported { .. } => ErrorCode::SshUnsupported,
            CloneError::CredentialsInUrl => ErrorCode::CredentialsInUrl,
            CloneError::InvalidDestination { .. } => ErrorCode::InvalidDestination,
            CloneError::DestinationExists { .. } => ErrorCode::DestinationExists,
            CloneError::AlreadyCloned { .. } => ErrorCode::AlreadyCloned,
            CloneError::NotFound { .. } => ErrorCode::NotFound,
            CloneError::AuthFailed { .. } => ErrorCode::AuthFailed,
            CloneError::AuthRequired { .. } => ErrorCode::AuthRequired,
            CloneError::Network { .. } => ErrorCode::Network,
            CloneError::DiskFull { .. } => ErrorCode::DiskFull,
            CloneError::Cancelled => ErrorCode::Cancelled,
            CloneError::Io { .. } => ErrorCode::Io,
            CloneError::Git(_) => ErrorCode::Git,
        }
    }

    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        if source.raw_os_error() == Some(28) {
            // ENOSPC
            return CloneError::DiskFull {
                path: path.to_owned(),
            };
        }
        CloneError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// Reads a failed clone's git error: a cancel, a refused or missing credential, not found,
/// the network, a full disk; anything else is passed on as git said it.
pub(super) fn classify(
    error: &git2::Error,
    source: &CloneSource,
    cancelled: bool,
    asked_for_credentials: bool,
    offered_token: bool,
) -> CloneError {
    let url = source.url.clone();
    let message = error.message().to_owned();
    let lower = message.to_ascii_lowercase();
    if cancelled || error.code() == git2::ErrorCode::User && !asked_for_credentials {
        return CloneError::Cancelled;
    }
    if asked_for_credentials || error.code() == git2::ErrorCode::Auth || lower.contains("401") {
        return if offered_token {
            CloneError::AuthFailed { url }
        } else {
            CloneError::AuthRequired { url }
        };
    }
    if lower.contains("no space left") {
        return CloneError::DiskFull {
            path: PathBuf::from(&source.workspace_path),
        };
    }
    if lower.contains("404")
        || error.code() == git2::ErrorCode::NotFound
        || lower.contains("could not find repository")
        || lower.contains("failed to resolve path")
    {
        return CloneError::NotFound { url };
    }
    let network = matches!(
        error.class(),
        git2::ErrorClass::Net
            | git2::ErrorClass::Http
            | git2::ErrorClass::Ssl
            | git2::ErrorClass::Os
    ) || lower.contains("failed to connect")
        || lower.contains("could not resolve")
        || lower.contains("early eof")
        || lower.contains("unexpected eof")
        || lower.contains("connection");
    if network {
        return CloneError::Network {
            url,
            detail: message,
        };
    }
    CloneError::Git(message)
}
