//! Which model, endpoint and key a run uses: the flags turned into an
//! `arbor_app::ModelRequest`, resolved by the session API, with the CLI's wording for
//! a missing key (it names `--api-key`).

use arbor_app::catalog::{Catalog, CatalogError};
use arbor_app::{ApiKey, ModelRequest, ProviderKeys, SelectionError as AppSelectionError};

use crate::args::ModelArgs;

pub use arbor_app::Selection;

#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error(
        "{provider}: no API key. Set {env}, run `arbor auth set {provider}`, or pass --api-key"
    )]
    MissingKey { provider: String, env: String },
}

impl SelectionError {
    /// The session API's code for the same failure (RPC responses carry it).
    pub fn code(&self) -> arbor_protocol::ErrorCode {
        match self {
            SelectionError::Catalog(CatalogError::UnknownModel { .. }) => {
                arbor_protocol::ErrorCode::UnknownModel
            }
            SelectionError::Catalog(CatalogError::UnknownProvider { .. }) => {
                arbor_protocol::ErrorCode::UnknownProvider
            }
            SelectionError::Catalog(_) => arbor_protocol::ErrorCode::Catalog,
            SelectionError::MissingKey { .. } => arbor_protocol::ErrorCode::MissingKey,
        }
    }
}

/// The request the model flags make.
pub fn request(args: &ModelArgs) -> ModelRequest {
    ModelRequest {
        provider: args.provider.clone(),
        model: args.model.clone(),
        api: args.api,
        base_url: args.base_url.clone(),
        api_key: args.api_key.clone().and_then(ApiKey::new),
    }
}

/// Resolves the flags against the catalogue; keys come from the flag, else `keys` (the
/// provider's variable, then the keychain).
pub fn select(
    catalog: &Catalog,
    args: &ModelArgs,
    keys: &ProviderKeys,
) -> Result<Selection, SelectionError> {
    arbor_app::select(catalog, &request(args), keys).map_err(|error| match error {
        AppSelectionError::Catalog(error) => SelectionError::Catalog(error),
        AppSelectionError::MissingKey { provider, env } => {
            SelectionError::MissingKey { provider, env }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{Api, ThinkingLevel};

    fn args() -> ModelArgs {
        ModelArgs {
            provider: None,
            api: None,
            model: None,
            base_url: None,
            api_key: None,
            thinking: ThinkingLevel::Off,
        }
    }

    fn keys(env: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> ProviderKeys {
        ProviderKeys::new(
            std::sync::Arc::new(env),
            std::sync::Arc::new(arbor_app::secrets::MemoryStore::new()),
        )
    }

    fn no_env() -> ProviderKeys {
        keys(|_| None)
    }

    fn key(selection: &Selection) -> Option<&str> {
        selection.api_key.as_ref().map(ApiKey::expose)
    }

    #[test]
    fn key_comes_from_the_flag_or_the_providers_variable() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            provider: Some("openai".into()),
            ..args()
        };
        let selection = select(
            &catalog,
            &args,
            &keys(|name| (name == "OPENAI_API_KEY").then(|| "sk-env".into())),
        )
        .unwrap();
        assert_eq!(key(&selection), Some("sk-env"));
        let args = ModelArgs {
            api_key: Some("sk-flag".into()),
            ..args
        };
        let selection = select(&catalog, &args, &keys(|_| Some("sk-env".into()))).unwrap();
        assert_eq!(key(&selection), Some("sk-flag"));
    }

    #[test]
    fn a_missing_key_names_the_variable_and_the_flag() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            model: Some("anthropic/claude-haiku-4-5".into()),
            ..args()
        };
        let error = select(&catalog, &args, &no_env()).unwrap_err().to_string();
        assert_eq!(
            error,
            "anthropic: no API key. Set ANTHROPIC_API_KEY, run `arbor auth set anthropic`, or pass --api-key"
        );
        // An empty variable counts as missing.
        assert!(select(&catalog, &args, &keys(|_| Some("  ".into()))).is_err());
    }

    #[test]
    fn local_servers_need_no_key() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            provider: Some("ollama".into()),
            ..args()
        };
        let selection = select(&catalog, &args, &no_env()).unwrap();
        assert_eq!(key(&selection), None);
        assert_eq!(selection.model.base_url, "http://127.0.0.1:11434/v1");
    }

    #[test]
    fn base_url_overrides_a_catalogued_provider_and_makes_the_key_optional() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            provider: Some("google".into()),
            base_url: Some("http://127.0.0.1:9".into()),
            ..args()
        };
        let selection = select(&catalog, &args, &no_env()).unwrap();
        assert_eq!(selection.model.api, Api::GoogleGenerativeAi);
        assert_eq!(selection.model.id, "gemini-2.5-pro");
        assert!(selection.catalogued);
    }

    #[test]
    fn unknown_model_without_an_endpoint_is_an_error() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            model: Some("no-such-model".into()),
            ..args()
        };
        assert!(matches!(
            select(&catalog, &args, &no_env()),
            Err(SelectionError::Catalog(CatalogError::UnknownModel { .. }))
        ));
    }
}
