//! Which model, endpoint and key a session uses: a [`ModelRequest`] resolved against the
//! catalogue and the provider keys (environment, then keychain). Both front ends resolve models here, so a model change is
//! one code path.

use arbor_error_code::ErrorCode;
use arbor_llm::catalog::{Catalog, CatalogError};
use arbor_llm::{Api, Model};

use crate::keys::{ApiKey, KeySource, ProviderKeys};

/// What a front end asks for; `None` fields take the catalogue's defaults.
#[derive(Debug, Clone, Default)]
pub struct ModelRequest {
    pub provider: Option<String>,
    /// A model id, or `PROVIDER/ID`.
    pub model: Option<String>,
    /// Overrides the wire protocol (with `base_url`, reaches any endpoint).
    pub api: Option<Api>,
    pub base_url: Option<String>,
    /// A key given explicitly; wins over the environment.
    pub api_key: Option<ApiKey>,
}

/// A resolved model plus what is needed to talk to it and to explain failures.
#[derive(Debug, Clone)]
pub struct Selection {
    pub model: Model,
    /// Whether the catalogue lists the model (else limits are guesses and the cost is unknown).
    pub catalogued: bool,
    pub api_key: Option<ApiKey>,
    /// The environment variable the provider's key is read from, for messages.
    pub api_key_env: Option<String>,
    /// Where the key came from.
    pub key_source: KeySource,
}

impl Selection {
    /// `provider/id`, as sessions record it.
    pub fn model_name(&self) -> String {
        format!("{}/{}", self.model.provider, self.model.id)
    }
}

/// Why a model cannot be used. The wording is neutral; front ends add their own hint (the CLI
/// names `--api-key`).
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("{provider}: no API key. Set {env} or keep a key in the keychain")]
    MissingKey { provider: String, env: String },
}

impl SelectionError {
    pub fn code(&self) -> ErrorCode {
        match self {
            SelectionError::Catalog(CatalogError::UnknownModel { .. }) => ErrorCode::UnknownModel,
            SelectionError::Catalog(CatalogError::UnknownProvider { .. }) => {
                ErrorCode::UnknownProvider
            }
            SelectionError::Catalog(_) => ErrorCode::Catalog,
            SelectionError::MissingKey { .. } => ErrorCode::MissingKey,
        }
    }
}

/// Resolves `request` against the catalogue; the key is the request's, else the provider's
/// from `keys`.
pub fn select(
    catalog: &Catalog,
    request: &ModelRequest,
    keys: &ProviderKeys,
) -> Result<Selection, SelectionError> {
    let custom_endpoint = request.base_url.is_some();
    let resolved = catalog.resolve(request.provider.as_deref(), request.model.as_deref());
    let (mut model, catalogued, api_key_env) = match resolved {
        Ok((model, catalogued)) => {
            let env_name = catalog.provider(&model.provider)?.api_key_env.clone();
            (model, catalogued, env_name)
        }
        // `api` with `base_url` reaches any endpoint, catalogued or not.
        Err(CatalogError::UnknownModel { .. })
            if custom_endpoint && request.api.is_some() && request.provider.is_none() =>
        {
            let id = request
                .model
                .clone()
                .unwrap_or_else(|| "default".to_owned());
            (custom_model(id), false, None)
        }
        Err(error) => return Err(error.into()),
    };
    if let Some(api) = request.api {
        model.api = api;
    }
    if let Some(base_url) = &request.base_url {
        model.base_url = base_url.trim_end_matches('/').to_owned();
    }

    let found = match &request.api_key {
        Some(key) => Some((key.clone(), KeySource::Given)),
        // A custom endpoint reached with `api` + `base_url` alone is nobody's provider.
        None if model.provider == CUSTOM_PROVIDER => None,
        None => keys.lookup(&model.provider, api_key_env.as_deref()),
    };
    let (api_key, key_source) = match found {
        Some((key, source)) => (Some(key), source),
        None => (None, KeySource::NotNeeded),
    };
    // A custom endpoint (a proxy, a local server) may need no key even for a known provider.
    if api_key.is_none() && !custom_endpoint {
        if let Some(env_name) = &api_key_env {
            return Err(SelectionError::MissingKey {
                provider: model.provider.clone(),
                env: env_name.clone(),
            });
        }
    }
    Ok(Selection {
        model,
        catalogued,
        api_key,
        api_key_env,
        key_source,
    })
}

/// The provider of a model reached by `api` + `base_url` alone.
const CUSTOM_PROVIDER: &str = "custom";

fn custom_model(id: String) -> Model {
    Model {
        id,
        provider: CUSTOM_PROVIDER.to_owned(),
        api: Api::OpenAiCompletions,
        base_url: String::new(),
        reasoning: false,
        images: false,
        context_window: 128_000,
        max_output_tokens: 8_192,
        pricing: Default::default(),
        compat: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use arbor_coding::secrets::MemoryStore;

    fn keys(env: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> ProviderKeys {
        ProviderKeys::new(Arc::new(env), Arc::new(MemoryStore::new()))
    }

    fn no_keys() -> ProviderKeys {
        keys(|_| None)
    }

    #[test]
    fn key_comes_from_the_request_or_the_providers_variable() {
        let catalog = Catalog::builtin().unwrap();
        let request = ModelRequest {
            provider: Some("openai".into()),
            ..ModelRequest::default()
        };
        let env_keys = keys(|name| (name == "OPENAI_API_KEY").then(|| "sk-env".into()));
        let selection = select(&catalog, &request, &env_keys).unwrap();
        assert_eq!(
            selection.api_key.as_ref().map(ApiKey::expose),
            Some("sk-env")
        );
        assert_eq!(
            selection.key_source,
            KeySource::Env {
                variable: "OPENAI_API_KEY".into()
            }
        );
        let request = ModelRequest {
            api_key: ApiKey::new("sk-given"),
            ..request
        };
        let selection = select(&catalog, &request, &env_keys).unwrap();
        assert_eq!(
            selection.api_key.as_ref().map(ApiKey::expose),
            Some("sk-given")
        );
        assert_eq!(selection.key_source, KeySource::Given);
    }

    #[test]
    fn a_key_in_the_keychain_is_used_when_the_variable_is_unset() {
        let catalog = Catalog::builtin().unwrap();
        let keys = no_keys();
        keys.set("anthropic", &ApiKey::new("sk-ant-kept").unwrap(), false)
            .unwrap();
        let request = ModelRequest {
            provider: Some("anthropic".into()),
            ..ModelRequest::default()
        };
        let selection = select(&catalog, &request, &keys).unwrap();
        assert_eq!(
            selection.api_key.as_ref().map(ApiKey::expose),
            Some("sk-ant-kept")
        );
        assert_eq!(
            selection.key_source,
            KeySource::Keychain { run_only: false }
        );
    }

    #[test]
    fn a_missing_key_names_the_variable_neutrally() {
        let catalog = Catalog::builtin().unwrap();
        let request = ModelRequest {
            model: Some("anthropic/claude-haiku-4-5".into()),
            ..ModelRequest::default()
        };
        let error = select(&catalog, &request, &no_keys()).unwrap_err();
        assert_eq!(error.code(), "missing_key");
        assert_eq!(
            error.to_string(),
            "anthropic: no API key. Set ANTHROPIC_API_KEY or keep a key in the keychain"
        );
        assert!(select(&catalog, &request, &keys(|_| Some("  ".into()))).is_err());
    }

    #[test]
    fn api_and_base_url_reach_any_endpoint() {
        let catalog = Catalog::builtin().unwrap();
        let request = ModelRequest {
            api: Some(Api::AnthropicMessages),
            base_url: Some("http://127.0.0.1:9/".into()),
            model: Some("my-model".into()),
            ..ModelRequest::default()
        };
        let selection = select(&catalog, &request, &no_keys()).unwrap();
        assert_eq!(selection.model.api, Api::AnthropicMessages);
        assert_eq!(selection.model.base_url, "http://127.0.0.1:9");
        assert!(!selection.catalogued);
    }
}
