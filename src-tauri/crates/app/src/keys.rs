//! Where a provider's key comes from: [`ProviderKeys`] looks in the provider's environment
//! variable, then in the keychain ([`arbor_coding::secrets`]); a key the front end gives (the CLI's
//! `--api-key`) wins over both. Front ends show the [`KeySource`], never the key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use arbor_llm::catalog::Catalog;

use crate::EnvReader;
use arbor_coding::secrets::tool_env::ALWAYS_SCRUBBED;
use arbor_coding::secrets::{
    KeychainStore, Secret, SecretError, SecretStore, SessionOverlay, ToolEnvironment,
};
pub use arbor_protocol::views::ProviderKeyStatus;

/// A provider's API key: a [`Secret`].
pub type ApiKey = Secret;

/// Where a provider's key comes from; front ends show this, never the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// Given explicitly by the front end (the CLI's `--api-key`).
    Given,
    /// The provider's environment variable.
    Env { variable: String },
    /// The OS keychain (or, with `run_only`, this process's memory: no keychain was reachable).
    Keychain { run_only: bool },
    /// The provider needs no key (local servers, custom endpoints).
    NotNeeded,
    /// The provider needs a key and none was found.
    Missing { variable: Option<String> },
}

impl KeySource {
    /// The short name front ends and tests use: `env`, `keychain`, `none` or `not-needed`
    /// (a given key counts as `env`: it comes from outside the app).
    pub fn kind(&self) -> &'static str {
        match self {
            KeySource::Given | KeySource::Env { .. } => "env",
            KeySource::Keychain { .. } => "keychain",
            KeySource::NotNeeded => "not-needed",
            KeySource::Missing { .. } => "none",
        }
    }

    /// Like [`KeySource::kind`], but a key the front end gave is `given`.
    pub fn name(&self) -> &'static str {
        match self {
            KeySource::Given => "given",
            other => other.kind(),
        }
    }

    pub fn is_usable(&self) -> bool {
        !matches!(self, KeySource::Missing { .. })
    }
}

/// Reads keys from the environment and a secret store, caching what the store answered (a
/// keychain read is a D-Bus round trip, and pickers ask for every provider).
pub struct ProviderKeys {
    env: EnvReader,
    store: Arc<SessionOverlay>,
    cache: Mutex<HashMap<String, Option<Secret>>>,
    /// The last error the store gave on a read, for front ends to explain a missing key.
    last_error: Mutex<Option<SecretError>>,
}

impl std::fmt::Debug for ProviderKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProviderKeys(…)")
    }
}

impl ProviderKeys {
    /// Keys from `env`, then from `store` (with run-only keys in front of it).
    pub fn new(env: EnvReader, store: Arc<dyn SecretStore>) -> Self {
        Self {
            env,
            store: Arc::new(SessionOverlay::new(store)),
            cache: Mutex::default(),
            last_error: Mutex::default(),
        }
    }

    /// The process environment, then the OS keychain (`$ARBOR_KEYCHAIN_SERVICE` or `arbor`).
    pub fn for_app() -> Self {
        Self::new(
            Arc::new(|name| std::env::var(name).ok()),
            Arc::new(KeychainStore::for_app()),
        )
    }

    /// The keychain (with run-only keys in front), for secrets other than provider keys
    /// (an MCP server's `${keychain:NAME}`).
    pub(crate) fn secret_store(&self) -> Arc<dyn SecretStore> {
        self.store.clone()
    }

    fn cache(&self) -> MutexGuard<'_, HashMap<String, Option<Secret>>> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An environment variable, blank counting as unset.
    pub fn env_var(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|value| !value.trim().is_empty())
    }

    /// The key stored for `account`; a store error counts as no key and is kept for
    /// [`ProviderKeys::last_error`].
    pub fn stored(&self, account: &str) -> Option<Secret> {
        if let Some(cached) = self.cache().get(account) {
            return cached.clone();
        }
        let found = match self.store.get(account) {
            Ok(found) => found,
            Err(error) => {
                *self
                    .last_error
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(error);
                // Not cached: the keychain may come back (unlocked, started).
                return None;
            }
        };
        self.cache().insert(account.to_owned(), found.clone());
        found
    }

    /// A provider's key and where it comes from: its variable first, then the store.
    pub fn lookup(&self, provider: &str, variable: Option<&str>) -> Option<(Secret, KeySource)> {
        if let Some(variable) = variable {
            if let Some(key) = self.env_var(variable).and_then(Secret::new) {
                let source = KeySource::Env {
                    variable: variable.to_owned(),
                };
                return Some((key, source));
            }
        }
        let key = self.stored(provider)?;
        let run_only = self.store.is_run_only(provider);
        Some((key, KeySource::Keychain { run_only }))
    }

    /// Where a provider's key comes from (`NotNeeded` when it has no variable and no stored key).
    pub fn source(&self, provider: &str, variable: Option<&str>) -> KeySource {
        match (self.lookup(provider, variable), variable) {
            (Some((_, source)), _) => source,
            (None, Some(variable)) => KeySource::Missing {
                variable: Some(variable.to_owned()),
            },
            (None, None) => KeySource::NotNeeded,
        }
    }

    /// Keeps `secret` for `account` in the keychain, or in memory for this run only.
    pub fn set(&self, account: &str, secret: &Secret, run_only: bool) -> Result<(), SecretError> {
        if run_only {
            self.store.set_for_run(account, secret)?;
        } else {
            self.store.set(account, secret)?;
        }
        self.cache()
            .insert(account.to_owned(), Some(secret.clone()));
        Ok(())
    }

    /// Removes the account's key from the keychain and memory; `false` when there was none.
    pub fn remove(&self, account: &str) -> Result<bool, SecretError> {
        let removed = self.store.remove(account);
        self.cache().remove(account);
        removed
    }

    /// Forgets what the store answered, so the next read asks it again (another process, such
    /// as `arbor auth set`, may have changed it).
    pub fn refresh(&self) {
        self.cache().clear();
        *self
            .last_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
    }

    /// The store's last read error (e.g. no keychain reachable), if any.
    pub fn last_error(&self) -> Option<SecretError> {
        self.last_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The keys read from the keychain so far.
    fn cached_secrets(&self) -> Vec<Secret> {
        self.cache().values().flatten().cloned().collect()
    }
}

/// What tool processes of a session must not see: every key variable of `catalog` and the
/// usual ones, by name, and any variable holding a key this process knows (the environment's,
/// those read from the keychain), except the variables in `pass_through`.
pub fn tool_environment(
    catalog: &Catalog,
    keys: &ProviderKeys,
    pass_through: &[String],
) -> ToolEnvironment {
    let variables: Vec<String> = catalog
        .providers()
        .iter()
        .filter_map(|provider| provider.api_key_env.clone())
        .collect();
    let mut environment = ToolEnvironment::new(variables.clone(), pass_through.iter().cloned());
    let names = variables
        .iter()
        .map(String::as_str)
        .chain(ALWAYS_SCRUBBED.iter().copied());
    for name in names {
        if let Some(secret) = keys.env_var(name).and_then(Secret::new) {
            environment.add_secret(&secret);
        }
    }
    for secret in keys.cached_secrets() {
        environment.add_secret(&secret);
    }
    environment
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_coding::secrets::MemoryStore;

    fn keys(env: &'static [(&'static str, &'static str)]) -> (ProviderKeys, Arc<MemoryStore>) {
        let store = Arc::new(MemoryStore::new());
        let env: EnvReader = Arc::new(move |name| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        });
        (ProviderKeys::new(env, store.clone()), store)
    }

    #[test]
    fn the_variable_wins_over_the_keychain() {
        let (keys, store) = keys(&[("OPENAI_API_KEY", "sk-env")]);
        store
            .set("openai", &Secret::new("sk-kept").unwrap())
            .unwrap();
        let (key, source) = keys.lookup("openai", Some("OPENAI_API_KEY")).unwrap();
        assert_eq!((key.expose(), source.kind()), ("sk-env", "env"));
        let (key, source) = keys.lookup("openai", Some("OTHER_KEY")).unwrap();
        assert_eq!((key.expose(), source.kind()), ("sk-kept", "keychain"));
        assert_eq!(
            keys.source("anthropic", Some("ANTHROPIC_API_KEY")).kind(),
            "none"
        );
        assert_eq!(keys.source("ollama", None).kind(), "not-needed");
    }

    #[test]
    fn set_remove_and_run_only_keys_update_the_source() {
        let (keys, store) = keys(&[]);
        let key = Secret::new("sk-new-key").unwrap();
        keys.set("anthropic", &key, false).unwrap();
        assert_eq!(store.get("anthropic").unwrap(), Some(key.clone()));
        assert_eq!(
            keys.source("anthropic", Some("ANTHROPIC_API_KEY")),
            KeySource::Keychain { run_only: false }
        );
        assert!(keys.remove("anthropic").unwrap());
        assert_eq!(
            keys.source("anthropic", Some("ANTHROPIC_API_KEY")).kind(),
            "none"
        );
        keys.set("anthropic", &key, true).unwrap();
        assert_eq!(store.get("anthropic").unwrap(), None, "not in the keychain");
        assert_eq!(
            keys.source("anthropic", Some("ANTHROPIC_API_KEY")),
            KeySource::Keychain { run_only: true }
        );
    }
}
