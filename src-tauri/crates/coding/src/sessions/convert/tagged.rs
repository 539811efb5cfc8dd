//! Parsing a stored message straight into the struct its node kind says it holds.
//!
//! `AgentMessage` is tagged by `role` inside the object, so serde first buffers the whole object
//! (every string, every nested block) and then builds the message from the buffer; a context of
//! thousands of messages spends about a third of its parsing time on that. [`tagged`] parses the
//! struct directly and checks the role on the way ([`RoleChecked`]).

use std::cell::Cell;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// `T` from a JSON object that also holds `"role": role`, or `None` if the role differs (or is
/// missing or repeated) or anything else fails. When it succeeds, the result is the one the
/// general `AgentMessage` parse gives for that role.
pub(super) fn tagged<T: DeserializeOwned>(json: &str, role: &'static str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(json);
    let value = T::deserialize(RoleChecked {
        inner: &mut de,
        role,
    })
    .ok()?;
    de.end().ok()?;
    Some(value)
}

/// A deserializer for a message struct that hides the object's `role` field from the struct,
/// failing unless it is present and equal to `role`.
struct RoleChecked<D> {
    inner: D,
    role: &'static str,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for RoleChecked<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(RoleVisitor {
            inner: visitor,
            role: self.role,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct RoleVisitor<V> {
    inner: V,
    role: &'static str,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for RoleVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a message object with \"role\": {:?}", self.role)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let seen = Cell::new(false);
        let value = self.inner.visit_map(RoleMap {
            inner: map,
            role: self.role,
            seen: &seen,
        })?;
        if seen.get() {
            Ok(value)
        } else {
            Err(de::Error::missing_field("role"))
        }
    }
}

/// The object's entries, minus `role` (checked as it passes).
struct RoleMap<'a, A> {
    inner: A,
    role: &'static str,
    seen: &'a Cell<bool>,
}

/// A key, borrowed from the input when it has no escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(s))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s.to_string()))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for RoleMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
        loop {
            let Some(key) = self.inner.next_key::<Key<'de>>()? else {
                return Ok(None);
            };
            if key.as_str() == "role" {
                let role: Key<'de> = self.inner.next_value()?;
                if self.seen.replace(true) || role.as_str() != self.role {
                    return Err(de::Error::custom("unexpected message role"));
                }
                continue;
            }
            return match key {
                Key::Borrowed(k) => seed.deserialize(BorrowedStrDeserializer::new(k)),
                Key::Owned(k) => seed.deserialize(StringDeserializer::new(k)),
            }
            .map(Some);
        }
    }

    fn next_value_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use arbor_llm::UserMessage;

    #[test]
    fn the_role_is_checked_wherever_it_is() {
        // Keys in any order, escaped keys, the role anywhere.
        let user = UserMessage::text("x");
        assert_eq!(
            tagged::<UserMessage>(
                r#"{"role":"user","cont\u0065nt":[{"text":"x","type":"text"}]}"#,
                "user"
            ),
            Some(user.clone())
        );
        assert_eq!(
            tagged::<UserMessage>(
                r#"{"content":[{"type":"text","text":"x"}],"role":"user"}"#,
                "user"
            ),
            Some(user)
        );
        // No role, a second role, another role, not an object, trailing garbage: no fast path.
        for bad in [
            r#"{"content":[]}"#,
            r#"{"role":"user","role":"user","content":[]}"#,
            r#"{"role":"assistant","content":[]}"#,
            r#"["user"]"#,
            r#"{"role":"user","content":[]} x"#,
        ] {
            assert_eq!(tagged::<UserMessage>(bad, "user"), None, "{bad}");
        }
    }
}
