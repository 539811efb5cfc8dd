//! The model catalogue: built-in providers and their current models, plus the user's own from
//! `models.json` in the data folder.
//!
//! `models.json` has the same shape as the built-in list (`builtin.json` beside this file):
//!
//! ```json
//! {
//!   "providers": {
//!     "my-vllm": {
//!       "api": "openai-completions",
//!       "baseUrl": "http://gpu-box:8000/v1",
//!       "apiKeyEnv": "MY_VLLM_KEY",
//!       "models": [{ "id": "qwen3-coder", "contextWindow": 131072, "maxOutputTokens": 8192 }]
//!     },
//!     "openai": { "models": [{ "id": "gpt-6", "reasoning": true, "pricing": { "input": 1, "output": 8 } }] }
//!   }
//! }
//! ```
//!
//! A provider that is already known (built in) keeps what the file leaves out, and a model with
//! an id it already has is replaced. A new provider needs `api` and `baseUrl`. Keys are never
//! stored here: `apiKeyEnv` names the environment variable that holds the key.

mod spec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::model::{CompletionsCompat, Model};
use crate::types::Api;

use spec::{CatalogFile, ProviderSpec};

/// The name of the user's catalogue file inside the data folder.
pub const CUSTOM_FILE_NAME: &str = "models.json";

const BUILTIN_JSON: &str = include_str!("builtin.json");

/// A provider: where it lives, how it is reached, and its models.
#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    pub name: String,
    pub display_name: String,
    pub api: Api,
    pub base_url: String,
    /// The environment variable that holds the key; `None` for local servers that need none.
    pub api_key_env: Option<String>,
    pub compat: CompletionsCompat,
    pub models: Vec<Model>,
}

impl Provider {
    /// The first model listed is the provider's default.
    pub fn default_model(&self) -> Option<&Model> {
        self.models.first()
    }

    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|model| model.id == id)
    }

    /// A model the catalogue does not list yet, reached with the provider's settings. Limits are
    /// conservative and the price unknown (zero), which the CLI says when it uses one.
    pub fn uncatalogued_model(&self, id: &str) -> Model {
        Model {
            id: id.to_owned(),
            provider: self.name.clone(),
            api: self.api,
            base_url: self.base_url.clone(),
            reasoning: false,
            images: false,
            context_window: 128_000,
            max_output_tokens: 8_192,
            pricing: Default::default(),
            compat: self.compat.clone(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("unknown provider `{name}`; known providers: {known}. Add your own in models.json in the data folder.")]
    UnknownProvider { name: String, known: String },
    #[error("model `{id}` is offered by several providers ({providers}); choose one with --provider or write PROVIDER/{id}")]
    AmbiguousModel { id: String, providers: String },
    #[error("model `{id}` is not in the catalogue; name its provider with --provider (see `arbor models`), or add it to models.json")]
    UnknownModel { id: String },
    #[error("provider `{name}` has no models; name one with --model")]
    NoModels { name: String },
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a valid catalogue: {message} (line {line}, column {column}). Fix the file or move it away.", path.display())]
    Syntax {
        path: PathBuf,
        message: String,
        line: usize,
        column: usize,
    },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// Every known provider, in a stable order: built-in ones first, then the user's.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    providers: Vec<Provider>,
}

impl Catalog {
    /// The built-in catalogue alone.
    pub fn builtin() -> Result<Self, CatalogError> {
        let mut catalog = Catalog {
            providers: Vec::new(),
        };
        catalog.merge_json(BUILTIN_JSON, Path::new("builtin.json"))?;
        Ok(catalog)
    }

    /// The built-in catalogue extended by `<data_dir>/models.json` when that file exists.
    pub fn load(data_dir: &Path) -> Result<Self, CatalogError> {
        let mut catalog = Self::builtin()?;
        let path = data_dir.join(CUSTOM_FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => catalog.merge_json(&text, &path)?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(CatalogError::Io { path, source }),
        }
        Ok(catalog)
    }

    /// Adds the providers and models of a catalogue file (`path` is only used in messages).
    pub fn merge_json(&mut self, text: &str, path: &Path) -> Result<(), CatalogError> {
        let file: CatalogFile =
            serde_json::from_str(text).map_err(|error| CatalogError::Syntax {
                path: path.to_owned(),
                message: error.to_string(),
                line: error.line(),
                column: error.column(),
            })?;
        // Providers are found by name through this index: a scan of the list for each provider
        // of the file made loading quadratic in the number of providers.
        let mut by_name: HashMap<String, usize> = self
            .providers
            .iter()
            .enumerate()
            .map(|(index, provider)| (provider.name.clone(), index))
            .collect();
        for (name, spec) in file.providers {
            self.merge_provider(name, spec, path, &mut by_name)?;
        }
        Ok(())
    }

    fn merge_provider(
        &mut self,
        name: String,
        spec: ProviderSpec,
        path: &Path,
        by_name: &mut HashMap<String, usize>,
    ) -> Result<(), CatalogError> {
        let invalid = |message: String| CatalogError::Invalid {
            path: path.to_owned(),
            message,
        };
        let index = match by_name.get(&name).copied() {
            Some(index) => index,
            None => {
                let api = spec.api.ok_or_else(|| {
                    invalid(format!(
                        "new provider `{name}` needs \"api\" (one of {})",
                        Api::ALL.map(Api::as_str).join(", ")
                    ))
                })?;
                let base_url = spec
                    .base_url
                    .clone()
                    .ok_or_else(|| invalid(format!("new provider `{name}` needs \"baseUrl\"")))?;
                self.providers.push(Provider {
                    display_name: name.clone(),
                    name: name.clone(),
                    api,
                    base_url,
                    api_key_env: None,
                    compat: CompletionsCompat::default(),
                    models: Vec::new(),
                });
                let index = self.providers.len() - 1;
                by_name.insert(name.clone(), index);
                index
            }
        };
        let Some(provider) = self.providers.get_mut(index) else {
            return Err(invalid(format!(
                "provider `{name}` went missing while loading"
            )));
        };
        spec.apply_to(provider)
            .map_err(|message| invalid(format!("provider `{name}`: {message}")))?;
        Ok(())
    }

    pub fn providers(&self) -> &[Provider] {
        &self.providers
    }

    pub fn provider(&self, name: &str) -> Result<&Provider, CatalogError> {
        self.providers
            .iter()
            .find(|provider| provider.name == name)
            .ok_or_else(|| CatalogError::UnknownProvider {
                name: name.to_owned(),
                known: self.provider_names(),
            })
    }

    fn provider_names(&self) -> String {
        let names: Vec<&str> = self.providers.iter().map(|p| p.name.as_str()).collect();
        names.join(", ")
    }

    /// Resolves what the user asked for: a provider, a model id, or both. `PROVIDER/ID` names
    /// both at once; an id alone is looked up across providers and must be unambiguous. A model
    /// the named provider does not list is still allowed (new models appear before catalogues
    /// catch up); the boolean says whether it was found in the catalogue.
    pub fn resolve(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> Result<(Model, bool), CatalogError> {
        match (provider, model) {
            (Some(provider), None) => {
                let provider = self.provider(provider)?;
                let model = provider
                    .default_model()
                    .ok_or_else(|| CatalogError::NoModels {
                        name: provider.name.clone(),
                    })?;
                Ok((model.clone(), true))
            }
            (Some(provider_name), Some(id)) => {
                let provider = self.provider(provider_name)?;
                // `--provider openrouter --model openrouter/x/y` is accepted too.
                let id = id.strip_prefix(&format!("{provider_name}/")).unwrap_or(id);
                Ok(match provider.model(id) {
                    Some(model) => (model.clone(), true),
                    None => (provider.uncatalogued_model(id), false),
                })
            }
            (None, Some(id)) => self.resolve_id(id),
            (None, None) => {
                let provider = self.provider("anthropic")?;
                let model = provider
                    .default_model()
                    .ok_or_else(|| CatalogError::NoModels {
                        name: provider.name.clone(),
                    })?;
                Ok((model.clone(), true))
            }
        }
    }

    fn resolve_id(&self, id: &str) -> Result<(Model, bool), CatalogError> {
        if let Some((prefix, rest)) = id.split_once('/') {
            if let Ok(provider) = self.provider(prefix) {
                return Ok(match provider.model(rest) {
                    Some(model) => (model.clone(), true),
                    None => (provider.uncatalogued_model(rest), false),
                });
            }
        }
        let matches: Vec<&Model> = self
            .providers
            .iter()
            .filter_map(|provider| provider.model(id))
            .collect();
        match matches.as_slice() {
            [model] => Ok(((*model).clone(), true)),
            [] => Err(CatalogError::UnknownModel { id: id.to_owned() }),
            many => Err(CatalogError::AmbiguousModel {
                id: id.to_owned(),
                providers: many
                    .iter()
                    .map(|m| m.provider.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

#[cfg(test)]
mod tests;
