//! API keys in a type that never shows them: no `Debug` content, no `Display`, no `Serialize`.
//! The value is read only where a request is built ([`ApiKey::expose`]).

/// A secret API key. `Debug` prints `ApiKey(…)` without the value; there is no `Display` and no
/// `Serialize`, so a key cannot end up in a log line, an event or a JSON answer by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; blank text is no key.
    pub fn new(value: impl Into<String>) -> Option<Self> {
        let value = value.into();
        (!value.trim().is_empty()).then_some(Self(value))
    }

    /// The key itself, for the request that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

/// Where a provider's key comes from; front ends show this, never the key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "source")]
pub enum KeySource {
    /// Given explicitly by the front end (the CLI's `--api-key`).
    Given,
    /// The provider's environment variable.
    Env { variable: String },
    /// The provider needs no key (local servers, custom endpoints).
    NotNeeded,
    /// The provider needs a key and none was found.
    Missing { variable: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_never_shows_in_debug_output() {
        let key = ApiKey::new("sk-very-secret").unwrap();
        let shown = format!("{key:?} {:?}", Some(key.clone()));
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert_eq!(key.expose(), "sk-very-secret");
        assert!(ApiKey::new("  ").is_none());
    }
}
