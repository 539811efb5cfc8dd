//! [`Redactor`]: every secret the session knows, replaced by [`REDACTED`] wherever tool output
//! could carry it (shown, sent to the model, stored). Tool processes do not get the keys in the
//! first place ([`super::ToolEnvironment`]); this catches what got there anyway (a key in a
//! `.env` file the model reads, one a script prints).

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

use serde_json::Value;

use super::Secret;

/// What a secret is replaced by.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not redacted: replacing every `abc` in the output would hide
/// more than it protects, and no provider issues keys that short.
const MIN_REDACTED_LEN: usize = 8;

/// The secrets to hide, shared by every tool of a session (a model change adds its key).
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Arc<RwLock<Vec<Secret>>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor(…)")
    }
}

impl Redactor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Hides `secret` from now on (a second add of the same value is a no-op).
    pub fn add(&self, secret: &Secret) {
        if secret.expose().len() < MIN_REDACTED_LEN {
            return;
        }
        let mut secrets = self
            .secrets
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !secrets.contains(secret) {
            secrets.push(secret.clone());
            // Longest first, so a key that contains another is hidden whole.
            secrets.sort_by_key(|s| std::cmp::Reverse(s.expose().len()));
        }
    }

    /// `text` with every known secret replaced.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let secrets = self
            .secrets
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut out = Cow::Borrowed(text);
        for secret in secrets.iter() {
            if out.contains(secret.expose()) {
                out = Cow::Owned(out.replace(secret.expose(), REDACTED));
            }
        }
        out
    }

    /// Redacts every string (and object key) inside `value`.
    pub fn json(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let Cow::Owned(redacted) = self.text(text) {
                    *text = redacted;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.json(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.json(&mut item);
                    map.insert(self.text(&key).into_owned(), item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

impl Redactor {
    /// Whether any secret is known (nothing to do otherwise).
    pub fn is_empty(&self) -> bool {
        self.secrets
            .read()
            .map(|secrets| secrets.is_empty())
            .unwrap_or(false)
    }

    /// The longest known secret, in bytes.
    fn longest(&self) -> usize {
        self.secrets
            .read()
            .ok()
            .and_then(|secrets| secrets.first().map(|s| s.expose().len()))
            .unwrap_or(0)
    }

    /// `bytes` (a file's content, read as UTF-8 with replacement) with every known secret
    /// replaced; `None` when there is nothing to replace (the caller keeps the file as it is).
    pub fn bytes(&self, bytes: &[u8]) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        match self.text(&String::from_utf8_lossy(bytes)) {
            Cow::Owned(redacted) => Some(redacted),
            Cow::Borrowed(_) => None,
        }
    }

    /// A redactor for one stream of chunks, which holds back the end of a chunk that could be
    /// the start of a secret until the next chunk shows whether it is.
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor {
            redactor: self.clone(),
            pending: String::new(),
        }
    }
}

/// Redacts a text stream chunk by chunk (see [`Redactor::stream`]).
#[derive(Debug)]
pub struct StreamRedactor {
    redactor: Redactor,
    pending: String,
}

impl StreamRedactor {
    /// What can be shown of the stream so far, given its next chunk.
    pub fn push(&mut self, chunk: &str) -> String {
        self.pending.push_str(chunk);
        let redacted = self.redactor.text(&self.pending).into_owned();
        let keep_from = self.held_back_start(&redacted);
        self.pending = redacted[keep_from..].to_owned();
        let mut shown = redacted;
        shown.truncate(keep_from);
        shown
    }

    /// The rest of the stream, at its end.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        self.redactor.text(&rest).into_owned()
    }

    /// Where the longest suffix of `text` that starts some secret begins (`text.len()` if none).
    fn held_back_start(&self, text: &str) -> usize {
        let longest = self.redactor.longest();
        if longest == 0 {
            return text.len();
        }
        let secrets = self
            .redactor
            .secrets
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let earliest = text.len().saturating_sub(longest - 1);
        (earliest..text.len())
            .filter(|&start| text.is_char_boundary(start))
            .find(|&start| {
                secrets
                    .iter()
                    .any(|secret| secret.expose().starts_with(&text[start..]))
            })
            .unwrap_or(text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_secret_is_replaced_in_text_and_json() {
        let redactor = Redactor::new();
        redactor.add(&Secret::new("sk-test-0123456789").unwrap());
        redactor.add(&Secret::new("short").unwrap());
        assert_eq!(
            redactor.text("OPENAI_API_KEY=sk-test-0123456789 and sk-test-0123456789"),
            "OPENAI_API_KEY=[redacted] and [redacted]"
        );
        assert!(matches!(redactor.text("nothing here"), Cow::Borrowed(_)));
        assert_eq!(redactor.text("short stays"), "short stays");
        let mut value = serde_json::json!({
            "output": "key sk-test-0123456789",
            "sk-test-0123456789": [1, "x sk-test-0123456789"]
        });
        redactor.json(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"output": "key [redacted]", "[redacted]": [1, "x [redacted]"]})
        );
    }

    #[test]
    fn a_secret_split_across_chunks_is_still_hidden() {
        let redactor = Redactor::new();
        redactor.add(&Secret::new("sk-test-0123456789").unwrap());
        let mut stream = redactor.stream();
        let mut shown = String::new();
        for chunk in [
            "KEY=sk-te",
            "st-0123",
            "456789\nsk-",
            "no\n",
            "tail sk-test",
        ] {
            shown.push_str(&stream.push(chunk));
        }
        shown.push_str(&stream.finish());
        assert_eq!(shown, "KEY=[redacted]\nsk-no\ntail sk-test");
        let mut plain = Redactor::new().stream();
        assert_eq!(plain.push("sk-test"), "sk-test");
    }

    #[test]
    fn bytes_are_redacted_only_when_they_hold_a_secret() {
        let redactor = Redactor::new();
        assert_eq!(redactor.bytes(b"a\nb"), None);
        redactor.add(&Secret::new("sk-test-0123456789").unwrap());
        assert_eq!(
            redactor.bytes(b"a\nsk-test-0123456789\nb").as_deref(),
            Some("a\n[redacted]\nb")
        );
        assert_eq!(redactor.bytes(b"nothing here"), None);
    }

    #[test]
    fn a_key_containing_another_is_hidden_whole() {
        let redactor = Redactor::new();
        redactor.add(&Secret::new("abcdefgh").unwrap());
        redactor.add(&Secret::new("abcdefgh-longer-key").unwrap());
        assert_eq!(redactor.text("abcdefgh-longer-key"), "[redacted]");
    }
}
