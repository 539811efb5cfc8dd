//! Parsing of JSON that may be cut off anywhere, for tool-call arguments while they stream.
//!
//! `{"path": "src/ma` becomes `{"path": "src/ma"}`: open strings are closed, open containers are
//! closed, and a key whose value has not started yet is dropped. Text that is not a prefix of
//! valid JSON gives `None`.

use serde_json::{Map, Number, Value};

use crate::types::JsonObject;

/// Parses a complete or truncated JSON document. `None` if it is empty or not a JSON prefix.
pub fn parse_partial_json(input: &str) -> Option<Value> {
    let mut parser = Parser {
        bytes: input.as_bytes(),
        text: input,
        pos: 0,
    };
    parser.skip_whitespace();
    match parser.value()? {
        Parsed::Complete(value) => {
            parser.skip_whitespace();
            // Trailing garbage after a complete value is not a prefix of valid JSON.
            (parser.pos == parser.bytes.len()).then_some(value)
        }
        Parsed::Partial(value) => Some(value),
        Parsed::Nothing => None,
    }
}

/// Tool-call arguments from the raw text received so far: strict JSON when it parses, else the
/// best partial reading; always an object (`{}` for empty or unusable text).
pub fn parse_arguments(raw: &str) -> JsonObject {
    if raw.trim().is_empty() {
        return JsonObject::new();
    }
    let value = serde_json::from_str::<Value>(raw)
        .ok()
        .or_else(|| parse_partial_json(raw));
    match value {
        Some(Value::Object(object)) => object,
        // Some models encode the arguments twice: a JSON string holding the JSON object.
        Some(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(object)) => object,
            _ => JsonObject::new(),
        },
        _ => JsonObject::new(),
    }
}

/// Whether `raw` is complete, valid JSON (an empty string counts: it means "no arguments").
pub fn is_complete_json(raw: &str) -> bool {
    raw.trim().is_empty() || serde_json::from_str::<Value>(raw).is_ok()
}

/// Whether the argument text of a finished tool call arrived whole: strict JSON, and for
/// arguments encoded twice the inner text too. [`parse_arguments`] also reads a cut-off text
/// (for display while streaming); only arguments for which this holds may be executed.
pub fn arguments_are_complete(raw: &str) -> bool {
    if raw.trim().is_empty() {
        return true;
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::String(inner)) => serde_json::from_str::<Value>(&inner).is_ok(),
        Ok(_) => true,
        Err(_) => false,
    }
}

enum Parsed {
    /// The value ended properly.
    Complete(Value),
    /// The input ended inside the value; this is the best reading of it.
    Partial(Value),
    /// The input ended before the value produced anything usable.
    Nothing,
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// `None` means invalid JSON.
    fn value(&mut self) -> Option<Parsed> {
        match self.peek() {
            None => Some(Parsed::Nothing),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Some(match self.string()? {
                (text, true) => Parsed::Complete(Value::String(text)),
                (text, false) => Parsed::Partial(Value::String(text)),
            }),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => None,
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Option<Parsed> {
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(word.as_bytes()) {
            self.pos += word.len();
            Some(Parsed::Complete(value))
        } else if word.as_bytes().starts_with(rest) {
            self.pos = self.bytes.len();
            Some(Parsed::Partial(value))
        } else {
            None
        }
    }

    fn number(&mut self) -> Option<Parsed> {
        let start = self.pos;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.pos += 1;
        }
        let text = &self.text[start..self.pos];
        if let Ok(value) = serde_json::from_str::<Number>(text) {
            return Some(if self.at_end() {
                Parsed::Partial(Value::Number(value))
            } else {
                Parsed::Complete(Value::Number(value))
            });
        }
        if !self.at_end() {
            return None;
        }
        // Cut inside the number (`-`, `1.`, `1e`): use the longest prefix that is a number.
        let usable = text.trim_end_matches(['-', '+', '.', 'e', 'E']);
        Some(match serde_json::from_str::<Number>(usable) {
            Ok(value) => Parsed::Partial(Value::Number(value)),
            Err(_) => Parsed::Nothing,
        })
    }

    /// Returns the string and whether its closing quote was seen.
    fn string(&mut self) -> Option<(String, bool)> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let Some(byte) = self.peek() else {
                return Some((out, false));
            };
            match byte {
                b'"' => {
                    self.pos += 1;
                    return Some((out, true));
                }
                b'\\' => match self.escape()? {
                    Some(decoded) => out.push_str(&decoded),
                    None => return Some((out, false)),
                },
                _ => {
                    // Copy the run of plain characters up to the next quote or backslash.
                    let start = self.pos;
                    while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\') {
                        self.pos += 1;
                    }
                    out.push_str(&self.text[start..self.pos]);
                }
            }
        }
    }

    /// Decodes an escape at `pos` (a backslash). `Some(None)`: the input ends inside it.
    fn escape(&mut self) -> Option<Option<String>> {
        let Some(kind) = self.bytes.get(self.pos + 1).copied() else {
            self.pos = self.bytes.len();
            return Some(None);
        };
        self.pos += 2;
        let simple = match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return None,
        };
        Some(Some(simple.to_string()))
    }

    fn unicode_escape(&mut self) -> Option<Option<String>> {
        let Some(first) = self.hex4()? else {
            return Some(None);
        };
        if !(0xD800..0xDC00).contains(&first) {
            return Some(Some(
                char::from_u32(first).unwrap_or('\u{fffd}').to_string(),
            ));
        }
        // A high surrogate needs its low half: `\uD83C\uDF32`.
        if self.at_end() || self.bytes[self.pos..].len() < 2 {
            if self.bytes[self.pos..].iter().all(|b| *b == b'\\') {
                self.pos = self.bytes.len();
                return Some(None);
            }
            return Some(Some('\u{fffd}'.to_string()));
        }
        if &self.bytes[self.pos..self.pos + 2] != b"\\u" {
            return Some(Some('\u{fffd}'.to_string()));
        }
        self.pos += 2;
        let Some(second) = self.hex4()? else {
            return Some(None);
        };
        let combined = 0x10000 + ((first - 0xD800) << 10) + (second.wrapping_sub(0xDC00) & 0x3FF);
        Some(Some(
            char::from_u32(combined).unwrap_or('\u{fffd}').to_string(),
        ))
    }

    /// Four hex digits. `Some(None)`: the input ends inside them; `None`: not hex.
    fn hex4(&mut self) -> Option<Option<u32>> {
        let rest = &self.text[self.pos..];
        let digits: String = rest.chars().take(4).collect();
        if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        if digits.len() < 4 {
            self.pos = self.bytes.len();
            return Some(None);
        }
        self.pos += 4;
        Some(u32::from_str_radix(&digits, 16).ok())
    }

    fn array(&mut self) -> Option<Parsed> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_whitespace();
            match self.peek() {
                None => return Some(Parsed::Partial(Value::Array(items))),
                Some(b']') => {
                    self.pos += 1;
                    return Some(Parsed::Complete(Value::Array(items)));
                }
                _ => {}
            }
            match self.value()? {
                Parsed::Complete(value) => items.push(value),
                Parsed::Partial(value) => {
                    items.push(value);
                    return Some(Parsed::Partial(Value::Array(items)));
                }
                Parsed::Nothing => return Some(Parsed::Partial(Value::Array(items))),
            }
            self.skip_whitespace();
            match self.peek() {
                None => return Some(Parsed::Partial(Value::Array(items))),
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                Some(_) => return None,
            }
        }
    }

    fn object(&mut self) -> Option<Parsed> {
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_whitespace();
            match self.peek() {
                None => return Some(Parsed::Partial(Value::Object(map))),
                Some(b'}') => {
                    self.pos += 1;
                    return Some(Parsed::Complete(Value::Object(map)));
                }
                Some(b'"') => {}
                Some(_) => return None,
            }
            let (key, key_closed) = self.string()?;
            self.skip_whitespace();
            if !key_closed || self.at_end() {
                return Some(Parsed::Partial(Value::Object(map)));
            }
            if self.peek() != Some(b':') {
                return None;
            }
            self.pos += 1;
            self.skip_whitespace();
            match self.value()? {
                Parsed::Complete(value) => {
                    map.insert(key, value);
                }
                Parsed::Partial(value) => {
                    map.insert(key, value);
                    return Some(Parsed::Partial(Value::Object(map)));
                }
                Parsed::Nothing => return Some(Parsed::Partial(Value::Object(map))),
            }
            self.skip_whitespace();
            match self.peek() {
                None => return Some(Parsed::Partial(Value::Object(map))),
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                Some(_) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn partial(text: &str) -> Option<Value> {
        parse_partial_json(text)
    }

    #[test]
    fn complete_documents_parse_exactly() {
        for doc in [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e\n\u00e9\ud83c\udf32"}}"#,
            "[]",
            "-12.5e3",
            r#""x""#,
        ] {
            assert_eq!(partial(doc), serde_json::from_str(doc).ok(), "{doc}");
        }
    }

    #[test]
    fn every_prefix_of_a_document_parses() {
        let doc = r#"{"path": "src/main.rs", "edits": [{"old": "a\"b", "n": -1.5e2, "all": true}], "x": null}"#;
        for cut in 0..=doc.len() {
            let prefix = &doc[..cut];
            let value = partial(prefix);
            if cut > 0 {
                assert!(value.is_some(), "prefix {prefix:?}");
            }
        }
        assert_eq!(partial(doc), serde_json::from_str(doc).ok());
    }

    #[test]
    fn truncated_values_are_closed() {
        assert_eq!(
            partial(r#"{"path": "src/ma"#),
            Some(json!({"path": "src/ma"}))
        );
        assert_eq!(partial(r#"{"path": "#), Some(json!({})));
        assert_eq!(partial(r#"{"pa"#), Some(json!({})));
        assert_eq!(partial(r#"{"a": [1, 2"#), Some(json!({"a": [1, 2]})));
        assert_eq!(partial(r#"{"a": tr"#), Some(json!({"a": true})));
        assert_eq!(partial(r#"{"a": -"#), Some(json!({})));
        assert_eq!(partial(r#"{"a": 1."#), Some(json!({"a": 1})));
        assert_eq!(partial(r#"{"a": "x\"#), Some(json!({"a": "x"})));
        assert_eq!(partial(r#"{"a": "x\u00"#), Some(json!({"a": "x"})));
        assert_eq!(partial(r#"{"a": "\ud83c"#), Some(json!({"a": ""})));
    }

    #[test]
    fn invalid_json_is_rejected() {
        assert_eq!(partial("{a: 1}"), None);
        assert_eq!(partial(r#"{"a" 1}"#), None);
        assert_eq!(partial("[1 2]"), None);
        assert_eq!(partial("{} x"), None);
        assert_eq!(partial(""), None);
    }

    #[test]
    fn arguments_are_always_an_object() {
        assert_eq!(parse_arguments(""), JsonObject::new());
        assert_eq!(parse_arguments("  "), JsonObject::new());
        assert_eq!(parse_arguments("[1]"), JsonObject::new());
        assert_eq!(
            Value::Object(parse_arguments(r#""{\"a\":1}""#)),
            json!({"a": 1})
        );
        assert_eq!(
            Value::Object(parse_arguments(r#"{"a": "b"#)),
            json!({"a": "b"})
        );
        assert!(is_complete_json(""));
        assert!(!is_complete_json("{\"a\":"));
    }

    #[test]
    fn only_whole_argument_texts_are_complete() {
        assert!(arguments_are_complete(""));
        assert!(arguments_are_complete(r#"{"path": "a.txt"}"#));
        assert!(arguments_are_complete(r#""{\"a\":1}""#));
        // Cut off mid-string: readable for display, never complete.
        let cut = r#"{"path": "a.txt", "content": "line 1\nline"#;
        assert!(!arguments_are_complete(cut));
        assert_eq!(parse_arguments(cut)["content"], "line 1\nline");
        assert!(!arguments_are_complete(r#""{\"a\":""#));
    }
}
