//! Raw provider usage objects (as in EXPECTED.json) mapped to Arbor's [`Usage`]: `input` is
//! the uncached prompt, cached reads and writes are counted apart, reasoning is output.

use arbor_llm::Usage;
use serde_json::Value;

pub fn n(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

pub fn anthropic_usage(usage: &Value) -> Usage {
    Usage {
        input: n(usage, "/input_tokens"),
        output: n(usage, "/output_tokens"),
        cache_read: n(usage, "/cache_read_input_tokens"),
        cache_write: n(usage, "/cache_creation_input_tokens"),
        ..Usage::default()
    }
}

/// Chat: cached prompt tokens are counted apart; reasoning left out of `completion_tokens`
/// (xAI) but present in `total_tokens` is output.
pub fn chat_usage(usage: &Value) -> Usage {
    let prompt = n(usage, "/prompt_tokens");
    let cached = usage
        .pointer("/prompt_tokens_details/cached_tokens")
        .or(usage.get("prompt_cache_hit_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    Usage {
        input: prompt - cached,
        output: n(usage, "/completion_tokens")
            .max(n(usage, "/total_tokens").saturating_sub(prompt)),
        cache_read: cached,
        ..Usage::default()
    }
}

pub fn responses_usage(usage: &Value) -> Usage {
    let cached = n(usage, "/input_tokens_details/cached_tokens");
    let written = n(usage, "/input_tokens_details/cache_write_tokens");
    Usage {
        input: n(usage, "/input_tokens") - cached - written,
        output: n(usage, "/output_tokens"),
        cache_read: cached,
        cache_write: written,
        ..Usage::default()
    }
}

/// Gemini: thinking tokens are billed as output; cached content is counted apart.
pub fn gemini_usage(usage: &Value) -> Usage {
    let cached = n(usage, "/cachedContentTokenCount");
    Usage {
        input: n(usage, "/promptTokenCount") - cached,
        output: n(usage, "/candidatesTokenCount") + n(usage, "/thoughtsTokenCount"),
        cache_read: cached,
        ..Usage::default()
    }
}
