//! Checking a provider's key with one cheap request: the provider's default model, a one-word
//! prompt, a few output tokens, no retries. Says whether the key works, and the provider's error
//! class when it does not.

use std::time::Duration;

use arbor_llm::client::{LlmClient, RetryPolicy};
use arbor_llm::{Context, Message, UserMessage};
use tokio_util::sync::CancellationToken;

use crate::live::request_options;
use crate::selection::Selection;
pub use arbor_protocol::views::KeyCheck;

/// Sends the check request for `selection` (its model and key).
pub async fn check_key(selection: &Selection) -> KeyCheck {
    let model_name = selection.model_name();
    let failed = |class: &str, message: String| KeyCheck {
        provider: selection.model.provider.clone(),
        model: model_name.clone(),
        ok: false,
        error_class: Some(class.to_owned()),
        message: Some(redact(selection, &message)),
    };
    let client = match LlmClient::new() {
        Ok(client) => client.with_retry_policy(RetryPolicy {
            max_retries: 0,
            initial_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            max_server_delay: Duration::ZERO,
        }),
        Err(error) => return failed(error.class(), error.to_string()),
    };
    let context = Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage::text("Say OK."))],
        tools: Vec::new(),
    };
    let mut options = request_options(selection);
    options.max_tokens = Some(16);
    let stream = client.stream(
        &selection.model,
        &context,
        &options,
        CancellationToken::new(),
    );
    match stream.result().await {
        (_, Some(error)) => failed(error.class(), error.to_string()),
        (_, None) => KeyCheck {
            provider: selection.model.provider.clone(),
            model: model_name,
            ok: true,
            error_class: None,
            message: None,
        },
    }
}

/// Some providers echo part of a wrong key; never pass it on.
fn redact(selection: &Selection, message: &str) -> String {
    match &selection.api_key {
        Some(key) => message.replace(key.expose(), arbor_coding::secrets::REDACTED),
        None => message.to_owned(),
    }
}
