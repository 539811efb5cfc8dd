//! Renders a streamed turn as the SSE events of each wire format.
//!
//! A [`Plan`] is the turn resolved against the request (model name, usage, stop reason, ids);
//! each format module turns it into a list of complete SSE events (one `Bytes` per event, the
//! unit `error_after_chunks` / `drop_after_chunks` count in).

pub(crate) mod anthropic;
pub(crate) mod google;
pub(crate) mod json;
pub(crate) mod openai_completions;
pub(crate) mod openai_responses;

use hyper::body::Bytes;
use serde_json::Value;

use crate::recording::WireApi;
use crate::script::{Step, StopReason, StreamError, StreamTurn, Usage, DEFAULT_CHUNK_SIZE};
use json::Json;

/// A content block of the answer, in order.
#[derive(Debug, Clone)]
pub(crate) enum Block {
    Thinking {
        text: String,
        signature: Option<String>,
    },
    Text(String),
    ToolCall {
        id: Option<String>,
        name: String,
        /// The argument text as streamed.
        arguments_text: String,
        /// The arguments as an object (Google sends objects, not text).
        arguments: Value,
    },
}

/// A turn resolved for one request.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub blocks: Vec<Block>,
    pub stop: StopReason,
    pub usage: Usage,
    pub chunk_size: usize,
    /// The model the request named (echoed back like real servers do).
    pub model: String,
    /// OpenAI chat: `stream_options.include_usage` was set.
    pub include_usage: bool,
    /// OpenAI Responses: `include` asked for `reasoning.encrypted_content` (the real API sends
    /// a reasoning item's encrypted content only then).
    pub encrypted_reasoning: bool,
    /// Seeds the generated ids so they differ between turns but are reproducible.
    pub seed: u64,
    pub created: u64,
}

impl Plan {
    pub(crate) fn new(
        turn: &StreamTurn,
        model: String,
        request_body_len: usize,
        seed: u64,
    ) -> Self {
        let blocks: Vec<Block> = turn
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Thinking { text, signature } => Some(Block::Thinking {
                    text: text.clone(),
                    signature: signature.clone(),
                }),
                Step::Text(text) => Some(Block::Text(text.clone())),
                Step::ToolCall {
                    id,
                    name,
                    arguments,
                    raw_arguments,
                } => {
                    let arguments_text = raw_arguments
                        .clone()
                        .unwrap_or_else(|| arguments.to_string());
                    // Raw text that parses is still an object for Google; otherwise `arguments`.
                    let arguments = raw_arguments
                        .as_deref()
                        .and_then(|raw| serde_json::from_str::<Value>(raw).ok())
                        .filter(Value::is_object)
                        .unwrap_or_else(|| arguments.clone());
                    Some(Block::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments_text,
                        arguments,
                    })
                }
                Step::Usage(_) | Step::Stop(_) => None,
            })
            .collect();
        let usage = turn
            .explicit_usage()
            .unwrap_or_else(|| estimate_usage(&blocks, request_body_len));
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        Plan {
            blocks,
            stop: turn.stop_reason(),
            usage,
            chunk_size: turn.chunk_size.unwrap_or(DEFAULT_CHUNK_SIZE).max(1),
            model,
            include_usage: false,
            encrypted_reasoning: false,
            seed,
            created,
        }
    }

    /// Splits `text` into deltas of `chunk_size` characters (never inside a UTF-8 sequence).
    pub(crate) fn pieces<'a>(&self, text: &'a str) -> Vec<&'a str> {
        split_chars(text, self.chunk_size)
    }

    /// A reproducible id generator for this turn.
    pub(crate) fn ids(&self) -> Ids {
        Ids(self.seed)
    }

    /// `input` as the providers that count cached tokens inside the prompt total report it.
    pub(crate) fn prompt_total(&self) -> u64 {
        self.usage.input + self.usage.cache_read + self.usage.cache_write
    }
}

/// Rough token counts (4 characters a token) when the script gives none.
fn estimate_usage(blocks: &[Block], request_body_len: usize) -> Usage {
    let tokens = |chars: usize| (chars as u64).div_ceil(4).max(1);
    let mut output_chars = 0;
    let mut reasoning_chars = 0;
    for block in blocks {
        match block {
            Block::Thinking { text, .. } => reasoning_chars += text.chars().count(),
            Block::Text(text) => output_chars += text.chars().count(),
            Block::ToolCall {
                name,
                arguments_text,
                ..
            } => output_chars += name.len() + arguments_text.chars().count(),
        }
    }
    let reasoning = if reasoning_chars == 0 {
        0
    } else {
        tokens(reasoning_chars)
    };
    Usage {
        input: tokens(request_body_len),
        output: tokens(output_chars) + reasoning,
        cache_read: 0,
        cache_write: 0,
        reasoning,
    }
}

pub(crate) fn split_chars(text: &str, size: usize) -> Vec<&str> {
    let size = size.max(1);
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (offset, _) in text.char_indices() {
        if count == size {
            pieces.push(&text[start..offset]);
            start = offset;
            count = 0;
        }
        count += 1;
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// Deterministic ids in each provider's alphabet (splitmix64 over the turn seed).
pub(crate) struct Ids(u64);

impl Ids {
    pub(crate) fn next(&mut self, prefix: &str, len: usize) -> String {
        const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut out = String::with_capacity(prefix.len() + len);
        out.push_str(prefix);
        for _ in 0..len {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let index = usize::try_from(z % ALPHABET.len() as u64).unwrap_or_default();
            out.push(char::from(ALPHABET[index]));
        }
        out
    }
}

/// `event: NAME\ndata: JSON\n\n` (Anthropic, OpenAI Responses).
pub(crate) fn named_event(name: &str, data: &Json) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// `data: JSON\n\n` (OpenAI chat completions).
pub(crate) fn data_event(data: &str) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

/// All SSE events of a normal (successful) stream.
pub(crate) fn render(api: WireApi, plan: &Plan) -> Vec<Bytes> {
    match api {
        WireApi::OpenAiCompletions => openai_completions::render(plan),
        WireApi::OpenAiResponses => openai_responses::render(plan),
        WireApi::AnthropicMessages => anthropic::render(plan),
        WireApi::GoogleGenerativeAi => google::render(plan),
    }
}

/// The events a server sends when it fails mid-stream.
pub(crate) fn render_error(
    api: WireApi,
    plan: &Plan,
    error: &StreamError,
    events_sent: usize,
) -> Vec<Bytes> {
    match api {
        WireApi::OpenAiCompletions => openai_completions::render_error(error),
        WireApi::OpenAiResponses => openai_responses::render_error(plan, error, events_sent),
        WireApi::AnthropicMessages => anthropic::render_error(error),
        WireApi::GoogleGenerativeAi => google::render_error(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_chars_respects_utf8_and_size() {
        assert_eq!(split_chars("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(
            split_chars("日本語テキスト", 2),
            vec!["日本", "語テ", "キス", "ト"]
        );
        assert!(split_chars("", 3).is_empty());
    }

    #[test]
    fn ids_are_reproducible_and_prefixed() {
        let a = Ids(7).next("toolu_01", 22);
        let b = Ids(7).next("toolu_01", 22);
        assert_eq!(a, b);
        assert!(a.starts_with("toolu_01"));
        assert_eq!(a.len(), 30);
        assert_ne!(Ids(8).next("x", 10), Ids(7).next("x", 10));
    }
}
