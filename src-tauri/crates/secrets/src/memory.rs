//! Secrets kept in this process's memory: [`MemoryStore`], and [`SessionOverlay`], which puts
//! run-only secrets in front of a lasting store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Secret, SecretError, SecretStore};

/// Secrets for this process only; gone when it exits.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, Secret>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn entries(&self) -> MutexGuard<'_, HashMap<String, Secret>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl SecretStore for MemoryStore {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        Ok(self.entries().get(account).cloned())
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        secret.validate()?;
        self.entries().insert(account.to_owned(), secret.clone());
        Ok(())
    }

    fn remove(&self, account: &str) -> Result<bool, SecretError> {
        Ok(self.entries().remove(account).is_some())
    }
}

/// A lasting store (the keychain) with run-only secrets in front: reads look at the run-only
/// ones first, [`SecretStore::set`] writes to the lasting store, [`SessionOverlay::set_for_run`]
/// to memory, and removing removes from both.
pub struct SessionOverlay {
    run_only: MemoryStore,
    lasting: Arc<dyn SecretStore>,
}

impl SessionOverlay {
    pub fn new(lasting: Arc<dyn SecretStore>) -> Self {
        Self {
            run_only: MemoryStore::new(),
            lasting,
        }
    }

    /// Keeps `secret` until the process exits, in front of whatever the lasting store has.
    pub fn set_for_run(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        self.run_only.set(account, secret)
    }

    /// Whether the account's secret is a run-only one.
    pub fn is_run_only(&self, account: &str) -> bool {
        self.run_only.entries().contains_key(account)
    }
}

impl SecretStore for SessionOverlay {
    fn get(&self, account: &str) -> Result<Option<Secret>, SecretError> {
        match self.run_only.get(account)? {
            Some(secret) => Ok(Some(secret)),
            None => self.lasting.get(account),
        }
    }

    fn set(&self, account: &str, secret: &Secret) -> Result<(), SecretError> {
        self.lasting.set(account, secret)?;
        // A lasting key replaces a run-only one.
        self.run_only.remove(account)?;
        Ok(())
    }

    fn remove(&self, account: &str) -> Result<bool, SecretError> {
        let run_only = self.run_only.remove(account)?;
        match self.lasting.remove(account) {
            Ok(lasting) => Ok(run_only || lasting),
            // A run-only key is all an unreachable keychain can have had.
            Err(SecretError::Unavailable { .. }) if run_only => Ok(true),
            Err(error) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(value: &str) -> Secret {
        Secret::new(value).unwrap()
    }

    #[test]
    fn memory_store_sets_replaces_and_removes() {
        let store = MemoryStore::new();
        assert_eq!(store.get("openai").unwrap(), None);
        store.set("openai", &secret("sk-1")).unwrap();
        store.set("openai", &secret("sk-2")).unwrap();
        assert_eq!(store.get("openai").unwrap(), Some(secret("sk-2")));
        assert!(store.remove("openai").unwrap());
        assert!(!store.remove("openai").unwrap());
        let too_long = secret(&"k".repeat(super::super::MAX_SECRET_BYTES + 1));
        assert_eq!(
            store.set("openai", &too_long).unwrap_err().code(),
            "key_too_long"
        );
    }

    /// A lasting store that is never reachable, as on a Linux without Secret Service.
    struct Unreachable;
    impl SecretStore for Unreachable {
        fn get(&self, _: &str) -> Result<Option<Secret>, SecretError> {
            Err(SecretError::Unavailable {
                detail: "no bus".into(),
            })
        }
        fn set(&self, account: &str, _: &Secret) -> Result<(), SecretError> {
            self.get(account).map(|_| ())
        }
        fn remove(&self, account: &str) -> Result<bool, SecretError> {
            self.get(account).map(|_| false)
        }
    }

    #[test]
    fn run_only_keys_work_when_the_keychain_is_unreachable() {
        let overlay = SessionOverlay::new(Arc::new(Unreachable));
        let error = overlay.set("openai", &secret("sk-1")).unwrap_err();
        assert_eq!(error.code(), "keychain_unavailable");
        overlay.set_for_run("openai", &secret("sk-1")).unwrap();
        assert!(overlay.is_run_only("openai"));
        assert_eq!(overlay.get("openai").unwrap(), Some(secret("sk-1")));
        assert!(overlay.remove("openai").unwrap());
        assert!(
            overlay.get("openai").is_err(),
            "back to the keychain's error"
        );
    }

    #[test]
    fn a_lasting_key_replaces_a_run_only_one() {
        let lasting = Arc::new(MemoryStore::new());
        let overlay = SessionOverlay::new(lasting.clone());
        overlay.set_for_run("openai", &secret("sk-run")).unwrap();
        overlay.set("openai", &secret("sk-kept")).unwrap();
        assert!(!overlay.is_run_only("openai"));
        assert_eq!(overlay.get("openai").unwrap(), Some(secret("sk-kept")));
        assert_eq!(lasting.get("openai").unwrap(), Some(secret("sk-kept")));
    }
}
