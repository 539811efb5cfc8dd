//! A tiny ordered JSON writer.
//!
//! Why not `serde_json::json!`: without serde_json's `preserve_order` feature its maps sort keys,
//! and turning that feature on would change key order for every crate in the workspace build
//! (the llm crate snapshots JSON). Real providers send keys in a fixed, meaningful order
//! (`"type"` first), so the mock writes objects field by field.

use std::fmt;

use serde_json::Value;

/// A serialised JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Json(String);

impl Json {
    /// An object with fields in the given order.
    pub(crate) fn obj<I, K>(fields: I) -> Json
    where
        I: IntoIterator<Item = (K, Json)>,
        K: AsRef<str>,
    {
        let mut out = String::from("{");
        for (i, (key, value)) in fields.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&Value::String(key.as_ref().to_owned()).to_string());
            out.push(':');
            out.push_str(&value.0);
        }
        out.push('}');
        Json(out)
    }

    pub(crate) fn arr(items: impl IntoIterator<Item = Json>) -> Json {
        let parts: Vec<String> = items.into_iter().map(|item| item.0).collect();
        Json(format!("[{}]", parts.join(",")))
    }

    pub(crate) fn str(text: &str) -> Json {
        // `Value`'s Display is infallible, unlike `serde_json::to_string`.
        Json(Value::String(text.to_owned()).to_string())
    }

    pub(crate) fn num(n: u64) -> Json {
        Json(n.to_string())
    }

    pub(crate) fn null() -> Json {
        Json("null".to_owned())
    }

    pub(crate) fn bool(b: bool) -> Json {
        Json(b.to_string())
    }

    pub(crate) fn value(value: &Value) -> Json {
        Json(value.to_string())
    }

    pub(crate) fn empty_obj() -> Json {
        Json("{}".to_owned())
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Builds a [`Json`] object: `jobj! { "type" => Json::str("x"), "n" => Json::num(1) }`.
macro_rules! jobj {
    ($($key:expr => $value:expr),* $(,)?) => {
        $crate::formats::json::Json::obj([$(($key, $value)),*])
    };
}
pub(crate) use jobj;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_fields_in_order_and_escapes() {
        let j = jobj! {
            "type" => Json::str("a\"b"),
            "n" => Json::num(3),
            "list" => Json::arr([Json::null(), Json::bool(true)]),
            "empty" => Json::empty_obj(),
        };
        assert_eq!(
            j.to_string(),
            r#"{"type":"a\"b","n":3,"list":[null,true],"empty":{}}"#
        );
        let parsed: Value = serde_json::from_str(&j.to_string()).unwrap();
        assert_eq!(parsed["type"], "a\"b");
    }
}
