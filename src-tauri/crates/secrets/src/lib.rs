//! `arbor-secrets` — API keys and the GitHub token, kept by the operating system and shown
//! nowhere. Knows nothing of sessions, tools or files beyond the keychain.
//!
//! Map:
//! - [`Secret`] (this module): a value that refuses to `Debug`, `Display` or serialize its
//!   content; read only where a request is built ([`Secret::expose`]).
//! - [`SecretStore`]: where secrets are kept, one entry per account (a provider id, or
//!   [`GITHUB_ACCOUNT`]). [`KeychainStore`] is the OS keychain through the `keyring` crate
//!   (macOS Keychain, Windows Credential Manager, Secret Service over D-Bus on Linux);
//!   [`MemoryStore`] keeps secrets for this process only (tests, and the desktop's "for this
//!   run only" when no keychain is reachable); [`SessionOverlay`] puts such run-only secrets in
//!   front of the keychain. There is no plaintext-file store, on purpose.
//! - [`redact`]: [`Redactor`], which replaces every known secret by `[redacted]` in text and
//!   JSON before tool output is shown, sent to the model or stored.
//! - [`tool_env`]: [`ToolEnvironment`], the variables tool processes must not inherit.

mod keychain;
mod memory;
pub mod redact;
pub mod tool_env;

use arbor_error_code::ErrorCode;
pub use keychain::KeychainStore;
pub use memory::{MemoryStore, SessionOverlay};
pub use redact::{Redactor, REDACTED};
pub use tool_env::ToolEnvironment;

/// The keychain service every Arbor entry lives under.
pub const KEYCHAIN_SERVICE: &str = "arbor";
/// Overrides [`KEYCHAIN_SERVICE`] (tests keep their entries apart with it).
pub const KEYCHAIN_SERVICE_ENV: &str = "ARBOR_KEYCHAIN_SERVICE";
/// The account of the token used to clone private GitHub repositories.
pub const GITHUB_ACCOUNT: &str = "github";
/// The largest secret accepted, in bytes: Windows Credential Manager's limit (2,560 bytes),
/// applied everywhere so a key saved on one system can be saved on any.
pub const MAX_SECRET_BYTES: usize = 2560;

/// A secret value (an API key, a token). `Debug` prints `Secret(…)`; there is no `Display` and no
/// `Serialize`, so a secret cannot end up in a log line, an event or a JSON answer by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value, trimmed of surrounding whitespace (a pasted key often carries a newline);
    /// blank text is no secret.
    pub fn new(value: impl Into<String>) -> Option<Self> {
        let value = value.into();
        let trimmed = value.trim();
        if trimmed.is_empty() {
            None
        } else if trimmed.len() == value.len() {
            Some(Self(value))
        } else {
            Some(Self(trimmed.to_owned()))
        }
    }

    /// The value itself, for the request (or the store) that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Checks what a store may keep: not over [`MAX_SECRET_BYTES`], no control characters
    /// (a key with a newline inside is a paste gone wrong, and breaks HTTP headers).
    pub fn validate(&self) -> Result<(), SecretError> {
        if self.0.len() > MAX_SECRET_BYTES {
            return Err(SecretError::TooLong {
                bytes: self.0.len(),
            });
        }
        if self.0.chars().any(char::is_control) {
            return Err(SecretError::Malformed);
        }
        Ok(())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Why a secret could not be read, kept or removed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error(
        "no keychain is reachable ({detail}). On Linux, Arbor keeps keys in the Secret Service: \
         install and start one (gnome-keyring or KeePassXC) in your desktop session, or set the \
         provider's environment variable instead"
    )]
    Unavailable { detail: String },
    #[error("the keychain refused access ({detail}); unlock it and try again")]
    Locked { detail: String },
    #[error(
        "the key is {bytes} bytes; keychains keep at most {MAX_SECRET_BYTES}. Check that you \
         pasted only the key"
    )]
    TooLong { bytes: usize },
    #[error("the key contains control characters (a line break?); paste only the key")]
    Malformed,
    #[error("the keychain failed: {detail}")]
    Platform { detail: String },
}

impl SecretError {
    /// A stable, machine-readable code (snake_case).
    pub fn code(&self) -> ErrorCode {
        match self {
            SecretError::Unavailable { .. } => ErrorCode::KeychainUnavailable,
            SecretError::Locked { .. } => ErrorCode::KeychainLocked,
            SecretError::TooLong { .. } => ErrorCode::KeyTooLong,
            SecretError::Malformed => ErrorCode::KeyMalformed,
            SecretError::Platform { .. } => ErrorCode::Keychain,
        }
    }
}

/// Where secrets are kept: one entry per account. Calls may block (D-Bus, a keychain prompt):
/// async callers run them off the runtime's worker threads.
pub trait SecretStore: Send + Sync {
    /// The account's secret, `None` when there is none.
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError>;
    /// Keeps `secret` for `account`, replacing what was there.
    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError>;
    /// Removes the account's secret; `false` when there was none.
    fn remove(&self, account: &str) -> Result<bool, SecretError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_shows_in_debug_output() {
        let key = Secret::new("sk-very-secret").unwrap();
        let shown = format!("{key:?} {:?}", Some(key.clone()));
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert_eq!(key.expose(), "sk-very-secret");
        assert!(Secret::new("  ").is_none());
        assert_eq!(Secret::new(" sk-x\n").unwrap().expose(), "sk-x");
    }

    #[test]
    fn oversized_and_multi_line_keys_are_refused() {
        let long = Secret::new("k".repeat(MAX_SECRET_BYTES + 1)).unwrap();
        let error = long.validate().unwrap_err();
        assert_eq!(error.code(), "key_too_long");
        assert!(error.to_string().contains("2561 bytes"), "{error}");
        assert!(Secret::new("k".repeat(MAX_SECRET_BYTES))
            .unwrap()
            .validate()
            .is_ok());
        assert_eq!(
            Secret::new("sk-a\nsk-b").unwrap().validate().unwrap_err(),
            SecretError::Malformed
        );
    }
}
