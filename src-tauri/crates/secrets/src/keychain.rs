//! [`KeychainStore`]: the OS keychain through the `keyring` crate.

use super::{Secret, SecretError, SecretStore, KEYCHAIN_SERVICE, KEYCHAIN_SERVICE_ENV};

/// The OS keychain: entries under one service, one per account.
#[derive(Debug, Clone)]
pub struct KeychainStore {
    service: String,
}

impl KeychainStore {
    /// Entries under `service`.
    pub fn new(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    /// The app's store: service `arbor`, or `$ARBOR_KEYCHAIN_SERVICE` when set.
    pub fn for_app() -> Self {
        let service = std::env::var(KEYCHAIN_SERVICE_ENV)
            .ok()
            .filter(|service| !service.trim().is_empty())
            .unwrap_or_else(|| KEYCHAIN_SERVICE.to_owned());
        Self::new(service)
    }

    pub fn service(&self) -> &str {
        &self.service
    }

    fn entry(&self, account: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&self.service, account).map_err(classify)
    }
}

impl SecretStore for KeychainStore {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        match self.entry(account)?.get_password() {
            Ok(value) => Ok(Secret::new(value)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(classify(error)),
        }
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        secret.validate()?;
        self.entry(account)?
            .set_password(secret.expose())
            .map_err(classify)
    }

    fn remove(&self, account: &str) -> Result<bool, SecretError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(error) => Err(classify(error)),
        }
    }
}

/// The keychain's errors in Arbor's terms. The details name the platform's failure (e.g. that
/// no D-Bus session or no Secret Service is running); they never contain the secret.
fn classify(error: keyring::Error) -> SecretError {
    match error {
        keyring::Error::PlatformFailure(detail) => SecretError::Unavailable {
            detail: detail.to_string(),
        },
        keyring::Error::NoStorageAccess(detail) => SecretError::Locked {
            detail: detail.to_string(),
        },
        keyring::Error::TooLong(_, _) => SecretError::TooLong {
            bytes: super::MAX_SECRET_BYTES + 1,
        },
        keyring::Error::BadEncoding(_) => SecretError::Platform {
            detail: "the stored value is not text; remove it and set the key again".to_owned(),
        },
        other => SecretError::Platform {
            detail: other.to_string(),
        },
    }
}
