//! Which model, endpoint and key a run uses, from the flags, the catalogue and the environment.

use arbor_llm::catalog::{Catalog, CatalogError};
use arbor_llm::Model;

use crate::args::ModelArgs;

/// A resolved model plus what the CLI needs to talk to it and to explain failures.
#[derive(Debug, Clone)]
pub struct Selection {
    pub model: Model,
    /// Whether the catalogue lists the model (else limits are guesses and the cost is unknown).
    pub catalogued: bool,
    pub api_key: Option<String>,
    /// The environment variable the key is read from, for messages.
    pub api_key_env: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("{provider}: no API key. Set {env} or pass --api-key")]
    MissingKey { provider: String, env: String },
}

/// Resolves the flags against the catalogue; `env` reads environment variables (injected so
/// tests do not depend on the process environment).
pub fn select(
    catalog: &Catalog,
    args: &ModelArgs,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Selection, SelectionError> {
    let custom_endpoint = args.base_url.is_some();
    let resolved = catalog.resolve(args.provider.as_deref(), args.model.as_deref());
    let (mut model, catalogued, api_key_env) = match resolved {
        Ok((model, catalogued)) => {
            let env_name = catalog.provider(&model.provider)?.api_key_env.clone();
            (model, catalogued, env_name)
        }
        // `--api` with `--base-url` reaches any endpoint, catalogued or not.
        Err(CatalogError::UnknownModel { .. })
            if custom_endpoint && args.api.is_some() && args.provider.is_none() =>
        {
            let id = args.model.clone().unwrap_or_else(|| "default".to_owned());
            (custom_model(id), false, None)
        }
        Err(error) => return Err(error.into()),
    };
    if let Some(api) = args.api {
        model.api = api;
    }
    if let Some(base_url) = &args.base_url {
        model.base_url = base_url.trim_end_matches('/').to_owned();
    }

    let api_key = args
        .api_key
        .clone()
        .or_else(|| api_key_env.as_deref().and_then(&env))
        .filter(|key| !key.trim().is_empty());
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
    })
}

fn custom_model(id: String) -> Model {
    Model {
        id,
        provider: "custom".to_owned(),
        api: arbor_llm::Api::OpenAiCompletions,
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
    use super::*;
    use arbor_llm::{Api, ThinkingLevel};

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

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn key_comes_from_the_flag_or_the_providers_variable() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            provider: Some("openai".into()),
            ..args()
        };
        let selection = select(&catalog, &args, |name| {
            (name == "OPENAI_API_KEY").then(|| "sk-env".into())
        })
        .unwrap();
        assert_eq!(selection.api_key.as_deref(), Some("sk-env"));
        let args = ModelArgs {
            api_key: Some("sk-flag".into()),
            ..args
        };
        let selection = select(&catalog, &args, |_| Some("sk-env".into())).unwrap();
        assert_eq!(selection.api_key.as_deref(), Some("sk-flag"));
    }

    #[test]
    fn a_missing_key_names_the_variable_and_the_flag() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            model: Some("anthropic/claude-haiku-4-5".into()),
            ..args()
        };
        let error = select(&catalog, &args, no_env).unwrap_err().to_string();
        assert_eq!(
            error,
            "anthropic: no API key. Set ANTHROPIC_API_KEY or pass --api-key"
        );
        // An empty variable counts as missing.
        assert!(select(&catalog, &args, |_| Some("  ".into())).is_err());
    }

    #[test]
    fn local_servers_need_no_key() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            provider: Some("ollama".into()),
            ..args()
        };
        let selection = select(&catalog, &args, no_env).unwrap();
        assert_eq!(selection.api_key, None);
        assert_eq!(selection.model.base_url, "http://127.0.0.1:11434/v1");
    }

    #[test]
    fn api_and_base_url_reach_any_endpoint() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            api: Some(Api::AnthropicMessages),
            base_url: Some("http://127.0.0.1:9/".into()),
            model: Some("my-model".into()),
            ..args()
        };
        let selection = select(&catalog, &args, no_env).unwrap();
        assert_eq!(selection.model.api, Api::AnthropicMessages);
        assert_eq!(selection.model.base_url, "http://127.0.0.1:9");
        assert_eq!(selection.model.id, "my-model");
        assert!(!selection.catalogued);
    }

    #[test]
    fn base_url_overrides_a_catalogued_provider_and_makes_the_key_optional() {
        let catalog = Catalog::builtin().unwrap();
        let args = ModelArgs {
            provider: Some("google".into()),
            base_url: Some("http://127.0.0.1:9".into()),
            ..args()
        };
        let selection = select(&catalog, &args, no_env).unwrap();
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
            select(&catalog, &args, no_env),
            Err(SelectionError::Catalog(CatalogError::UnknownModel { .. }))
        ));
    }
}
