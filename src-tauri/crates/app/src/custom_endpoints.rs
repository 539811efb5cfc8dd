//! Adding a custom endpoint (Ollama, LM Studio, vLLM, a proxy: any server speaking one of the
//! four wire protocols) to `models.json`, checked by the same loader that reads the file, so a
//! bad endpoint gets the error a hand-edited file would and nothing is written.

use arbor_error_code::ErrorCode;
use std::path::Path;

use arbor_llm::catalog::{Catalog, CatalogError, CUSTOM_FILE_NAME};
use arbor_llm::Api;
pub use arbor_protocol::views::settings::{CustomEndpoint, CustomModel};
use serde_json::{json, Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("cannot save {}: {source}", path.display())]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl EndpointError {
    pub fn code(&self) -> ErrorCode {
        match self {
            EndpointError::Invalid(_) => ErrorCode::InvalidEndpoint,
            EndpointError::Catalog(_) => ErrorCode::Catalog,
            EndpointError::Write { .. } => ErrorCode::Io,
        }
    }
}

/// The form's own checks, before the catalogue's.
fn check(endpoint: &CustomEndpoint, builtin: &Catalog) -> Result<(), EndpointError> {
    let invalid = |message: String| Err(EndpointError::Invalid(message));
    let name = endpoint.name.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return invalid(format!(
            "`{name}` is not a usable name: use letters, digits, - and _ (e.g. my-vllm)"
        ));
    }
    if builtin.provider(name).is_ok() {
        return invalid(format!(
            "`{name}` is a built-in provider; choose another name for your endpoint"
        ));
    }
    if endpoint.api.parse::<Api>().is_err() {
        return invalid(format!(
            "unknown API `{}`; choose one of {}",
            endpoint.api,
            Api::ALL.map(Api::as_str).join(", ")
        ));
    }
    let url = endpoint.base_url.trim();
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    if !rest.is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/')) {
        return invalid(format!(
            "base URL `{url}` must start with http:// or https:// and name a host, e.g. \
             http://localhost:11434/v1"
        ));
    }
    if endpoint.models.is_empty() {
        return invalid("add at least one model id".to_owned());
    }
    for (index, model) in endpoint.models.iter().enumerate() {
        let id = model.id.trim();
        if id.is_empty() {
            return invalid(format!("model {} has no id", index + 1));
        }
        if endpoint.models[..index].iter().any(|m| m.id.trim() == id) {
            return invalid(format!("model `{id}` is listed twice"));
        }
    }
    Ok(())
}

/// The endpoint as `models.json` spells it.
fn endpoint_json(endpoint: &CustomEndpoint) -> Value {
    let models: Vec<Value> = endpoint
        .models
        .iter()
        .map(|model| {
            let mut spec = Map::new();
            spec.insert("id".into(), json!(model.id.trim()));
            if let Some(window) = model.context_window {
                spec.insert("contextWindow".into(), json!(window));
            }
            if let Some(max) = model.max_output_tokens {
                spec.insert("maxOutputTokens".into(), json!(max));
            }
            if model.reasoning {
                spec.insert("reasoning".into(), json!(true));
            }
            if model.images {
                spec.insert("images".into(), json!(true));
            }
            if model.input_price.is_some() || model.output_price.is_some() {
                spec.insert(
                    "pricing".into(),
                    json!({
                        "input": model.input_price.unwrap_or(0.0),
                        "output": model.output_price.unwrap_or(0.0),
                    }),
                );
            }
            Value::Object(spec)
        })
        .collect();
    json!({
        "api": endpoint.api,
        "baseUrl": endpoint.base_url.trim().trim_end_matches('/'),
        "models": models,
    })
}

/// Adds (or replaces) `endpoint` in `<data_dir>/models.json`, keeping everything else in the
/// file, and returns the catalogue with it. Nothing is written when the result would not load.
pub fn add_custom_endpoint(
    data_dir: &Path,
    endpoint: &CustomEndpoint,
) -> Result<Catalog, EndpointError> {
    let builtin = Catalog::builtin()?;
    check(endpoint, &builtin)?;
    let path = data_dir.join(CUSTOM_FILE_NAME);
    let mut file = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(|error| CatalogError::Syntax {
            path: path.clone(),
            message: error.to_string(),
            line: error.line(),
            column: error.column(),
        })?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => json!({"providers": {}}),
        Err(source) => return Err(CatalogError::Io { path, source }.into()),
    };
    let providers = file
        .as_object_mut()
        .map(|root| root.entry("providers").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| CatalogError::Invalid {
            path: path.clone(),
            message: "\"providers\" must be an object".to_owned(),
        })?;
    providers.insert(endpoint.name.trim().to_owned(), endpoint_json(endpoint));
    let text = serde_json::to_string_pretty(&file).map_err(|error| CatalogError::Invalid {
        path: path.clone(),
        message: error.to_string(),
    })?;
    let mut catalog = builtin;
    catalog.merge_json(&text, &path)?;
    arbor_fs::write_atomic(&path, text.as_bytes()).map_err(|source| EndpointError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> CustomEndpoint {
        CustomEndpoint {
            name: "my-vllm".into(),
            api: "openai-completions".into(),
            base_url: "http://127.0.0.1:8000/v1/".into(),
            models: vec![CustomModel {
                id: "qwen3-coder".into(),
                context_window: Some(131_072),
                max_output_tokens: None,
                reasoning: false,
                images: false,
                input_price: Some(0.5),
                output_price: None,
            }],
        }
    }

    #[test]
    fn an_endpoint_is_added_next_to_what_the_file_had() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(CUSTOM_FILE_NAME),
            r#"{"providers": {"lab": {"api": "anthropic-messages", "baseUrl": "http://lab", "models": [{"id": "m"}]}}}"#,
        )
        .unwrap();
        let catalog = add_custom_endpoint(dir.path(), &endpoint()).unwrap();
        let provider = catalog.provider("my-vllm").unwrap();
        assert_eq!(provider.base_url, "http://127.0.0.1:8000/v1");
        assert_eq!(provider.models[0].context_window, 131_072);
        assert_eq!(provider.api_key_env, None);
        assert!(
            catalog.provider("lab").is_ok(),
            "the file's provider is kept"
        );
        assert_eq!(Catalog::load(dir.path()).unwrap(), catalog);
    }

    #[test]
    fn bad_endpoints_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                CustomEndpoint {
                    name: "has space".into(),
                    ..endpoint()
                },
                "not a usable name",
            ),
            (
                CustomEndpoint {
                    name: "openai".into(),
                    ..endpoint()
                },
                "built-in provider",
            ),
            (
                CustomEndpoint {
                    api: "soap".into(),
                    ..endpoint()
                },
                "unknown API",
            ),
            (
                CustomEndpoint {
                    base_url: "localhost:8000".into(),
                    ..endpoint()
                },
                "must start with http",
            ),
            (
                CustomEndpoint {
                    models: vec![],
                    ..endpoint()
                },
                "at least one model",
            ),
        ];
        for (bad, expected) in cases {
            let error = add_custom_endpoint(dir.path(), &bad).unwrap_err();
            assert_eq!(error.code(), "invalid_endpoint");
            assert!(error.to_string().contains(expected), "{error}");
        }
        assert!(!dir.path().join(CUSTOM_FILE_NAME).exists());
        std::fs::write(dir.path().join(CUSTOM_FILE_NAME), "{ not json").unwrap();
        let error = add_custom_endpoint(dir.path(), &endpoint()).unwrap_err();
        assert_eq!(error.code(), "catalog");
        assert!(error.to_string().contains("line 1"), "{error}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(CUSTOM_FILE_NAME)).unwrap(),
            "{ not json"
        );
    }
}
