//! The JSON shape of a catalogue file (`builtin.json`, the user's `models.json`).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use crate::model::{CompletionsCompat, Model, ReasoningFormat};
use crate::types::{Api, Pricing};

use super::Provider;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CatalogFile {
    #[serde(default, rename = "_comment")]
    _comment: Option<String>,
    // Ordered by name so the catalogue lists providers the same way every time.
    pub providers: BTreeMap<String, ProviderSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct ProviderSpec {
    pub display_name: Option<String>,
    pub api: Option<Api>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub compat: Option<CompatSpec>,
    #[serde(default)]
    pub models: Vec<ModelSpec>,
}

/// Either a named preset or every field spelled out.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum CompatSpec {
    Preset(String),
    Fields(CompletionsCompat),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct ModelSpec {
    pub id: String,
    pub context_window: Option<u32>,
    pub max_output_tokens: Option<u32>,
    #[serde(default)]
    pub reasoning: bool,
    #[serde(default)]
    pub images: bool,
    pub pricing: Option<PricingSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct PricingSpec {
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

impl CompatSpec {
    fn resolve(self) -> Result<CompletionsCompat, String> {
        match self {
            CompatSpec::Fields(fields) => Ok(fields),
            CompatSpec::Preset(name) => match name.as_str() {
                "default" => Ok(CompletionsCompat::default()),
                "openai" => Ok(CompletionsCompat::openai()),
                "openrouter" => Ok(CompletionsCompat {
                    reasoning_format: ReasoningFormat::OpenRouter,
                    ..CompletionsCompat::default()
                }),
                "mistral" => Ok(CompletionsCompat {
                    nine_char_tool_ids: true,
                    reasoning_format: ReasoningFormat::None,
                    ..CompletionsCompat::default()
                }),
                other => Err(format!(
                    "unknown compat preset `{other}`; use default, openai, openrouter or mistral, or an object"
                )),
            },
        }
    }
}

impl ProviderSpec {
    /// Overlays this spec on `provider`: given fields win, models with a known id are replaced.
    pub(super) fn apply_to(self, provider: &mut Provider) -> Result<(), String> {
        if let Some(display_name) = self.display_name {
            provider.display_name = display_name;
        }
        if let Some(api) = self.api {
            provider.api = api;
        }
        if let Some(base_url) = self.base_url {
            if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
                return Err(format!(
                    "baseUrl `{base_url}` must start with http:// or https://"
                ));
            }
            provider.base_url = base_url.trim_end_matches('/').to_owned();
        }
        if let Some(env) = self.api_key_env {
            provider.api_key_env = Some(env);
        }
        if let Some(compat) = self.compat {
            provider.compat = compat.resolve()?;
        }
        // Known models are found by id through this index: a scan of the list for each model of
        // the file made loading quadratic in the number of models.
        let mut by_id: HashMap<String, usize> = provider
            .models
            .iter()
            .enumerate()
            .map(|(index, model)| (model.id.clone(), index))
            .collect();
        for spec in self.models {
            if spec.id.trim().is_empty() {
                return Err("a model has an empty id".to_owned());
            }
            let model = spec.into_model(provider);
            match by_id
                .get(&model.id)
                .and_then(|&index| provider.models.get_mut(index))
            {
                Some(known) => *known = model,
                None => {
                    by_id.insert(model.id.clone(), provider.models.len());
                    provider.models.push(model);
                }
            }
        }
        // Models keep the provider's endpoint, also when the file changed it after listing them.
        for model in &mut provider.models {
            model.api = provider.api;
            model.base_url.clone_from(&provider.base_url);
            model.compat.clone_from(&provider.compat);
        }
        Ok(())
    }
}

impl ModelSpec {
    fn into_model(self, provider: &Provider) -> Model {
        let defaults = provider.uncatalogued_model(&self.id);
        Model {
            context_window: self.context_window.unwrap_or(defaults.context_window),
            max_output_tokens: self.max_output_tokens.unwrap_or(defaults.max_output_tokens),
            reasoning: self.reasoning,
            images: self.images,
            pricing: self
                .pricing
                .map(|p| Pricing {
                    input: p.input,
                    output: p.output,
                    cache_read: p.cache_read,
                    cache_write: p.cache_write,
                })
                .unwrap_or_default(),
            ..defaults
        }
    }
}
