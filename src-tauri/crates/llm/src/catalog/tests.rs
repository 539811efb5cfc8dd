use super::*;

#[test]
fn builtin_catalogue_covers_every_major_provider() {
    let catalog = Catalog::builtin().unwrap();
    for (name, env) in [
        ("openai", Some("OPENAI_API_KEY")),
        ("anthropic", Some("ANTHROPIC_API_KEY")),
        ("google", Some("GEMINI_API_KEY")),
        ("openrouter", Some("OPENROUTER_API_KEY")),
        ("groq", Some("GROQ_API_KEY")),
        ("xai", Some("XAI_API_KEY")),
        ("mistral", Some("MISTRAL_API_KEY")),
        ("deepseek", Some("DEEPSEEK_API_KEY")),
        ("cerebras", Some("CEREBRAS_API_KEY")),
        ("ollama", None),
        ("lmstudio", None),
        ("llamacpp", None),
    ] {
        let provider = catalog.provider(name).unwrap();
        assert_eq!(provider.api_key_env.as_deref(), env, "{name}");
        assert!(!provider.models.is_empty(), "{name} has no models");
        for model in &provider.models {
            assert_eq!(model.provider, name);
            assert!(
                model.context_window > 0 && model.max_output_tokens > 0,
                "{}",
                model.id
            );
            assert!(
                model.max_output_tokens <= model.context_window,
                "{}",
                model.id
            );
        }
    }
}

#[test]
fn base_urls_follow_the_sdk_conventions() {
    let catalog = Catalog::builtin().unwrap();
    for provider in catalog.providers() {
        let url = &provider.base_url;
        assert!(!url.ends_with('/'), "{url}");
        match provider.api {
            Api::OpenAiCompletions | Api::OpenAiResponses => {
                assert!(url.ends_with("/v1"), "{}: {url}", provider.name)
            }
            Api::AnthropicMessages | Api::GoogleGenerativeAi => {
                assert!(!url.contains("/v1"), "{}: {url}", provider.name)
            }
        }
    }
}

#[test]
fn resolves_provider_model_and_both() {
    let catalog = Catalog::builtin().unwrap();
    let (model, known) = catalog.resolve(Some("anthropic"), None).unwrap();
    assert_eq!((model.id.as_str(), known), ("claude-sonnet-4-5", true));

    let (model, _) = catalog
        .resolve(None, Some("anthropic/claude-haiku-4-5"))
        .unwrap();
    assert_eq!(
        (model.provider.as_str(), model.id.as_str()),
        ("anthropic", "claude-haiku-4-5")
    );
    assert_eq!(model.pricing.input, 1.0);

    // OpenRouter ids contain a slash themselves.
    let (model, known) = catalog
        .resolve(None, Some("openrouter/anthropic/claude-sonnet-4.5"))
        .unwrap();
    assert_eq!(
        (model.provider.as_str(), model.id.as_str(), known),
        ("openrouter", "anthropic/claude-sonnet-4.5", true)
    );
    let (model, _) = catalog
        .resolve(Some("openrouter"), Some("anthropic/claude-sonnet-4.5"))
        .unwrap();
    assert_eq!(model.provider, "openrouter");

    let (model, _) = catalog.resolve(None, Some("gemini-2.5-flash")).unwrap();
    assert_eq!(model.provider, "google");
}

#[test]
fn uncatalogued_models_are_allowed_with_a_named_provider() {
    let catalog = Catalog::builtin().unwrap();
    let (model, known) = catalog
        .resolve(Some("ollama"), Some("my-finetune:latest"))
        .unwrap();
    assert!(!known);
    assert_eq!(model.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(model.pricing.input, 0.0);
}

#[test]
fn bad_requests_say_what_to_do() {
    let catalog = Catalog::builtin().unwrap();
    let error = catalog.resolve(Some("nope"), None).unwrap_err().to_string();
    assert!(
        error.contains("unknown provider `nope`") && error.contains("anthropic"),
        "{error}"
    );
    let error = catalog
        .resolve(None, Some("no-such-model"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("--provider"), "{error}");
    // gpt-oss-120b is served by Cerebras; openai/gpt-oss-120b by Groq: both unambiguous alone.
    let mut catalog = catalog;
    catalog
        .merge_json(
            r#"{"providers":{"my":{"api":"openai-completions","baseUrl":"http://x/v1","models":[{"id":"gpt-oss-120b"}]}}}"#,
            Path::new("models.json"),
        )
        .unwrap();
    let error = catalog
        .resolve(None, Some("gpt-oss-120b"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("several providers") && error.contains("cerebras, my"),
        "{error}"
    );
}

#[test]
fn models_json_adds_providers_and_models() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(CUSTOM_FILE_NAME),
        r#"{
          "providers": {
            "my-vllm": {
              "api": "openai-completions",
              "baseUrl": "http://gpu-box:8000/v1/",
              "apiKeyEnv": "MY_VLLM_KEY",
              "compat": "mistral",
              "models": [{ "id": "qwen3-coder", "contextWindow": 131072, "maxOutputTokens": 8192,
                           "pricing": { "input": 0.1, "output": 0.2 } }]
            },
            "openai": { "models": [{ "id": "gpt-6", "reasoning": true }, { "id": "gpt-5", "pricing": { "input": 9, "output": 9 } }] }
          }
        }"#,
    )
    .unwrap();
    let catalog = Catalog::load(dir.path()).unwrap();
    let vllm = catalog.provider("my-vllm").unwrap();
    assert_eq!(vllm.base_url, "http://gpu-box:8000/v1");
    assert_eq!(vllm.api_key_env.as_deref(), Some("MY_VLLM_KEY"));
    assert!(vllm.models[0].compat.nine_char_tool_ids);
    assert_eq!(vllm.models[0].pricing.output, 0.2);

    let openai = catalog.provider("openai").unwrap();
    assert!(openai.model("gpt-6").unwrap().reasoning);
    assert_eq!(openai.model("gpt-5").unwrap().pricing.input, 9.0);
    assert_eq!(openai.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    assert_eq!(openai.default_model().unwrap().id, "gpt-5");
}

#[test]
fn missing_models_json_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Catalog::load(dir.path()).unwrap(),
        Catalog::builtin().unwrap()
    );
}

#[test]
fn broken_models_json_names_the_file_and_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CUSTOM_FILE_NAME);
    let cases = [
        (
            "{\n  \"providers\": {\n    \"x\": { \"api\": \"openai-completions\", }\n  }\n}",
            "line 3",
        ),
        (
            r#"{"providers":{"x":{"baseUrl":"http://h/v1"}}}"#,
            "needs \"api\"",
        ),
        (
            r#"{"providers":{"x":{"api":"openai-completions"}}}"#,
            "needs \"baseUrl\"",
        ),
        (
            r#"{"providers":{"x":{"api":"smoke-signals","baseUrl":"http://h"}}}"#,
            "line 1",
        ),
        (
            r#"{"providers":{"x":{"api":"openai-completions","baseUrl":"h/v1"}}}"#,
            "http://",
        ),
        (
            r#"{"providers":{"openai":{"compat":"weird"}}}"#,
            "unknown compat preset",
        ),
        (
            r#"{"providers":{"openai":{"models":[{"id":"x","contextWindo":1}]}}}"#,
            "contextWindo",
        ),
        (r#"{"provider":{}}"#, "provider"),
    ];
    for (text, wanted) in cases {
        std::fs::write(&path, text).unwrap();
        let error = Catalog::load(dir.path()).unwrap_err().to_string();
        assert!(error.contains("models.json"), "{text}: {error}");
        assert!(error.contains(wanted), "{text}: {error}");
    }
}

/// A models.json with 200,000 models: 100,000 under one provider and one each under 100,000
/// more. Loading used to scan the known providers for each provider and the known models for
/// each model (quadratic: minutes for this file); it must come back complete.
#[test]
fn a_huge_models_json_loads_completely() {
    const EACH: usize = 100_000;
    let model = |i: usize| format!(r#"{{"id":"model-{i:06}","contextWindow":{}}}"#, 1000 + i);
    let mut text = String::from(
        r#"{"providers":{"bulk":{"api":"openai-completions","baseUrl":"http://gpu-box:8000/v1","models":["#,
    );
    for i in 0..EACH {
        text.push_str(&model(i));
        text.push(',');
    }
    // A repeated id replaces the earlier model, in place.
    text.push_str(r#"{"id":"model-000007","contextWindow":7}]},"#);
    for i in 0..EACH {
        text.push_str(&format!(
            r#""p-{i:06}":{{"api":"anthropic-messages","baseUrl":"http://h{i}","models":[{}]}},"#,
            model(i)
        ));
    }
    // A built-in provider is extended, not replaced.
    text.push_str(r#""openai":{"models":[{"id":"gpt-5","contextWindow":5}]}}}"#);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CUSTOM_FILE_NAME), text).unwrap();

    let catalog = Catalog::load(dir.path()).unwrap();
    let builtin = Catalog::builtin().unwrap();
    assert_eq!(
        catalog.providers().len(),
        builtin.providers().len() + 1 + EACH
    );
    let bulk = catalog.provider("bulk").unwrap();
    assert_eq!(bulk.models.len(), EACH);
    for (i, model) in bulk.models.iter().enumerate() {
        assert_eq!(model.id, format!("model-{i:06}"));
        let window = if i == 7 { 7 } else { 1000 + i as u32 };
        assert_eq!(model.context_window, window, "{}", model.id);
    }
    for i in [0, 1, EACH / 2, EACH - 1] {
        let provider = catalog.provider(&format!("p-{i:06}")).unwrap();
        assert_eq!(provider.base_url, format!("http://h{i}"));
        assert_eq!(provider.models.len(), 1);
        assert_eq!(provider.models[0].id, format!("model-{i:06}"));
        assert_eq!(provider.models[0].api, Api::AnthropicMessages);
    }
    let models: usize = catalog.providers().iter().map(|p| p.models.len()).sum();
    let builtin_models: usize = builtin.providers().iter().map(|p| p.models.len()).sum();
    assert_eq!(models, builtin_models + 2 * EACH);
    let openai = catalog.provider("openai").unwrap();
    assert_eq!(openai.model("gpt-5").unwrap().context_window, 5);
    assert_eq!(
        openai.models.len(),
        builtin.provider("openai").unwrap().models.len()
    );
}
