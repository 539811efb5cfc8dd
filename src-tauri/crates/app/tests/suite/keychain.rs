//! The OS keychain through a real Secret Service (gnome-keyring on a private D-Bus session:
//! `npm test` runs the suites under `scripts/with-keyring.sh`). Each test uses its own service
//! name, so tests running side by side never see each other's entries.

// Test helpers panic on setup failures like the tests that call them.

use std::sync::Arc;

use arbor_app::{select, ModelRequest, ProviderKeys};
use arbor_coding::secrets::{KeychainStore, Secret, SecretStore, MAX_SECRET_BYTES};
use arbor_llm::catalog::Catalog;

/// A keychain store of its own; fails (never skips) without a Secret Service.
fn keychain(test: &str) -> KeychainStore {
    assert!(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
        "no D-Bus session: run the keychain tests under scripts/with-keyring.sh \
         (dbus-run-session -- bash scripts/with-keyring.sh cargo test), as npm test does"
    );
    KeychainStore::new(format!("arbor-test-{test}-{}", std::process::id()))
}

fn secret(value: &str) -> Secret {
    Secret::new(value).unwrap()
}

#[test]
fn set_read_replace_and_remove_in_the_os_keychain() {
    let store = keychain("round-trip");
    assert_eq!(store.get("openai").unwrap(), None);
    store.set("openai", &secret("sk-first-0001")).unwrap();
    assert_eq!(store.get("openai").unwrap(), Some(secret("sk-first-0001")));
    store.set("openai", &secret("sk-second-0002")).unwrap();
    assert_eq!(store.get("openai").unwrap(), Some(secret("sk-second-0002")));
    // Another account of the same service is another entry.
    assert_eq!(store.get("anthropic").unwrap(), None);
    // A second store object reads what the first one kept: it is in the keychain, not memory.
    let again = KeychainStore::new(store.service());
    assert_eq!(again.get("openai").unwrap(), Some(secret("sk-second-0002")));
    assert!(store.remove("openai").unwrap());
    assert!(!store.remove("openai").unwrap());
    assert_eq!(again.get("openai").unwrap(), None);
}

#[test]
fn an_oversized_key_is_refused_before_it_reaches_the_keychain() {
    let store = keychain("oversized");
    let error = store
        .set("openai", &secret(&"k".repeat(MAX_SECRET_BYTES + 1)))
        .unwrap_err();
    assert_eq!(error.code(), "key_too_long");
    assert!(error.to_string().contains("2560"), "{error}");
    assert_eq!(store.get("openai").unwrap(), None, "nothing half-written");
    let largest = secret(&"k".repeat(MAX_SECRET_BYTES));
    store.set("openai", &largest).unwrap();
    assert_eq!(store.get("openai").unwrap(), Some(largest));
    store.remove("openai").unwrap();
}

#[test]
fn a_session_selects_the_keychains_key_when_the_variable_is_unset() {
    let store = Arc::new(keychain("select"));
    store.set("anthropic", &secret("sk-ant-kept-0003")).unwrap();
    let keys = ProviderKeys::new(Arc::new(|_| None), store.clone());
    let catalog = Catalog::builtin().unwrap();
    let request = ModelRequest {
        provider: Some("anthropic".into()),
        ..ModelRequest::default()
    };
    let selection = select(&catalog, &request, &keys).unwrap();
    assert_eq!(
        selection.api_key.as_ref().map(Secret::expose),
        Some("sk-ant-kept-0003")
    );
    assert_eq!(selection.key_source.kind(), "keychain");
    // The variable wins over the keychain.
    let keys = ProviderKeys::new(
        Arc::new(|name| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-env".to_owned())),
        store.clone(),
    );
    let selection = select(&catalog, &request, &keys).unwrap();
    assert_eq!(selection.key_source.kind(), "env");
    store.remove("anthropic").unwrap();
}
