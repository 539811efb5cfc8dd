//! Elicitation: a server asking the person for input in the middle of a call (MCP form mode).
//!
//! The server's `requestedSchema` (an object of primitive fields) becomes a form
//! ([`form`]: [`ElicitationField`]s, pre-filled with the server's defaults, SEP-1034); the
//! person's answer is checked against the same fields ([`check`]) before it goes back, so a
//! server never receives content its own schema refuses. Who asks is an [`Elicitor`]: the
//! session whose call is running (the desktop's dialog, the interactive CLI); a call nobody can
//! answer (`-p`, `arbor mcp serve`) is declined.

use std::sync::Arc;

use arbor_error_code::ErrorCode;
use arbor_protocol::views::elicitation::{
    ElicitationAction, ElicitationField, ElicitationFieldKind, ElicitationOption,
};
use serde_json::{Map, Number, Value};
use tokio_util::sync::CancellationToken;

/// Most fields one form may have (a server cannot make the dialog endless).
pub const MAX_FIELDS: usize = 50;
/// Most options one choice may offer.
pub const MAX_OPTIONS: usize = 500;
/// Longest message, title or description shown (longer ones are cut).
pub const MAX_TEXT: usize = 4_000;

/// What a server asks, as a form.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationForm {
    pub server: String,
    pub message: String,
    pub fields: Vec<ElicitationField>,
    /// Every field's default: the answer the form starts from.
    pub initial: Map<String, Value>,
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationReply {
    /// Content checked against the form ([`check`]).
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

impl ElicitationReply {
    pub fn action(&self) -> ElicitationAction {
        match self {
            Self::Accept(_) => ElicitationAction::Accept,
            Self::Decline => ElicitationAction::Decline,
            Self::Cancel => ElicitationAction::Cancel,
        }
    }
}

/// Whoever can answer a server's question: the session whose call is running.
#[async_trait::async_trait]
pub trait Elicitor: Send + Sync {
    /// Asks the person and waits for the answer, or until `ended` (the call ended: aborted,
    /// timed out or answered) — then the question is withdrawn and `Cancel` returned.
    async fn elicit(&self, form: ElicitationForm, ended: CancellationToken) -> ElicitationReply;
}

/// An answer that does not fit the form: what is wrong, field by field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the answer does not fit the form: {0}")]
pub struct InvalidAnswer(pub String);

impl InvalidAnswer {
    pub fn code(&self) -> ErrorCode {
        ErrorCode::InvalidRequest
    }
}

fn text(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(|s| crate::log::cut(s, MAX_TEXT))
}

/// The options of a choice: `enum` (labelled by the legacy `enumNames`), or `oneOf`/`anyOf`
/// of `{const, title}`.
fn options_of(schema: &Value) -> Option<Vec<ElicitationOption>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let value = v.as_str()?.to_owned();
                let label = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .map_or_else(|| value.clone(), str::to_owned);
                Some(ElicitationOption { value, label })
            })
            .collect();
    }
    let titled = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))?
        .as_array()?;
    titled
        .iter()
        .map(|option| {
            let value = option.get("const")?.as_str()?.to_owned();
            let label = text(option.get("title")).unwrap_or_else(|| value.clone());
            Some(ElicitationOption { value, label })
        })
        .collect()
}

fn field_of(name: &str, schema: &Value, required: bool) -> Result<ElicitationField, String> {
    let kind_name = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    let (kind, options, minimum, maximum) = match kind_name {
        "string" => match options_of(schema) {
            Some(options) => (ElicitationFieldKind::Choice, options, None, None),
            None => (
                ElicitationFieldKind::Text,
                Vec::new(),
                number("minLength"),
                number("maxLength"),
            ),
        },
        "number" => (
            ElicitationFieldKind::Number,
            Vec::new(),
            number("minimum"),
            number("maximum"),
        ),
        "integer" => (
            ElicitationFieldKind::Integer,
            Vec::new(),
            number("minimum"),
            number("maximum"),
        ),
        "boolean" => (ElicitationFieldKind::Boolean, Vec::new(), None, None),
        "array" => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let options = options_of(items)
                .ok_or_else(|| format!("{name:?} is a list of something other than choices"))?;
            (
                ElicitationFieldKind::Choices,
                options,
                number("minItems"),
                number("maxItems"),
            )
        }
        other => {
            return Err(format!(
                "{name:?} is of type {other:?}, which a form cannot ask"
            ))
        }
    };
    if options.len() > MAX_OPTIONS {
        return Err(format!("{name:?} offers more than {MAX_OPTIONS} options"));
    }
    let mut field = ElicitationField {
        name: name.to_owned(),
        title: text(schema.get("title")),
        description: text(schema.get("description")),
        kind,
        required,
        default: None,
        options,
        format: text(schema.get("format")),
        minimum,
        maximum,
    };
    // A default that does not fit its own field is left out (the person fills it in).
    if let Some(default) = schema.get("default") {
        if check_value(&field, default).is_ok() {
            field.default = Some(default.clone());
        }
    }
    Ok(field)
}

/// The form for `server`'s question `message` with `schema` (its `requestedSchema`). A schema
/// a form cannot ask (nested objects, too many fields) is refused with the reason.
pub fn form(server: &str, message: &str, schema: &Value) -> Result<ElicitationForm, String> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or("the form has no fields")?;
    if properties.len() > MAX_FIELDS {
        return Err(format!("the form has more than {MAX_FIELDS} fields"));
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields = properties
        .iter()
        .map(|(name, field)| field_of(name, field, required.contains(&name.as_str())))
        .collect::<Result<Vec<_>, _>>()?;
    let initial = fields
        .iter()
        .filter_map(|f| Some((f.name.clone(), f.default.clone()?)))
        .collect();
    Ok(ElicitationForm {
        server: server.to_owned(),
        message: crate::log::cut(message, MAX_TEXT),
        fields,
        initial,
    })
}

fn looks_like(format: &str, text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let date = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() == 3
            && parts[0].len() == 4
            && parts[1].len() == 2
            && parts[2].len() == 2
            && parts.iter().all(|p| digits(p))
    };
    match format {
        "email" => text
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.')),
        "uri" => text.split_once(':').is_some_and(|(scheme, rest)| {
            !rest.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        }),
        "date" => date(text),
        "date-time" => text
            .split_once(['T', 't'])
            .is_some_and(|(day, time)| date(day) && time.len() >= 5),
        _ => true,
    }
}

fn check_value(field: &ElicitationField, value: &Value) -> Result<(), String> {
    let name = &field.name;
    let within = |n: f64, what: &str| match (field.minimum, field.maximum) {
        (Some(min), _) if n < min => Err(format!("{name}: {what} must be at least {min}")),
        (_, Some(max)) if n > max => Err(format!("{name}: {what} must be at most {max}")),
        _ => Ok(()),
    };
    let known = |v: &str| field.options.iter().any(|o| o.value == v);
    match field.kind {
        ElicitationFieldKind::Text => {
            let text = value.as_str().ok_or(format!("{name}: expected text"))?;
            within(text.chars().count() as f64, "its length")?;
            match &field.format {
                Some(format) if !looks_like(format, text) => {
                    Err(format!("{name}: {text:?} is not a valid {format}"))
                }
                _ => Ok(()),
            }
        }
        ElicitationFieldKind::Number => within(
            value.as_f64().ok_or(format!("{name}: expected a number"))?,
            "it",
        ),
        ElicitationFieldKind::Integer => {
            let whole = value.as_i64().or_else(|| value.as_u64().map(|n| n as i64));
            within(
                whole.ok_or(format!("{name}: expected a whole number"))? as f64,
                "it",
            )
        }
        ElicitationFieldKind::Boolean => value
            .as_bool()
            .map(|_| ())
            .ok_or(format!("{name}: expected true or false")),
        ElicitationFieldKind::Choice => match value.as_str() {
            Some(v) if known(v) => Ok(()),
            _ => Err(format!("{name}: {value} is not one of its options")),
        },
        ElicitationFieldKind::Choices => {
            let chosen = value
                .as_array()
                .ok_or(format!("{name}: expected a list of options"))?;
            if let Some(bad) = chosen.iter().find(|v| !v.as_str().is_some_and(known)) {
                return Err(format!("{name}: {bad} is not one of its options"));
            }
            within(chosen.len() as f64, "the number chosen")
        }
    }
}

/// Checks `content` against `fields`: every value fits its field, a field left out takes its
/// default, a required field without one is missing, and nothing else is sent.
pub fn check(
    fields: &[ElicitationField],
    mut content: Map<String, Value>,
) -> Result<Map<String, Value>, InvalidAnswer> {
    let mut problems = Vec::new();
    if let Some(unknown) = content
        .keys()
        .find(|k| !fields.iter().any(|f| &f.name == *k))
    {
        problems.push(format!("{unknown}: the form has no such field"));
    }
    let mut checked = Map::new();
    for field in fields {
        match content
            .remove(&field.name)
            .or_else(|| field.default.clone())
        {
            Some(value) => match check_value(field, &value) {
                Ok(()) => {
                    checked.insert(field.name.clone(), value);
                }
                Err(problem) => problems.push(problem),
            },
            None if field.required => problems.push(format!("{}: required", field.name)),
            None => {}
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(InvalidAnswer(problems.join("; ")))
    }
}

/// `name=value` pairs typed at a terminal, read as `fields` expect (numbers, `true`/`false`,
/// comma-separated choices); then [`check`]ed.
pub fn from_text<'a>(
    fields: &[ElicitationField],
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Map<String, Value>, InvalidAnswer> {
    let mut content = Map::new();
    for (name, raw) in pairs {
        let Some(field) = fields.iter().find(|f| f.name == name) else {
            return Err(InvalidAnswer(format!("{name}: the form has no such field")));
        };
        let expected = match field.kind {
            ElicitationFieldKind::Number => "a number",
            ElicitationFieldKind::Integer => "a whole number",
            _ => "true or false",
        };
        let bad = || InvalidAnswer(format!("{name}: {raw:?} is not {expected}"));
        let value = match field.kind {
            ElicitationFieldKind::Number => raw
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Value::Number)
                .ok_or_else(bad)?,
            ElicitationFieldKind::Integer => Value::from(raw.parse::<i64>().map_err(|_| bad())?),
            ElicitationFieldKind::Boolean => match raw.to_ascii_lowercase().as_str() {
                "true" | "yes" | "y" => Value::Bool(true),
                "false" | "no" | "n" => Value::Bool(false),
                _ => return Err(bad()),
            },
            ElicitationFieldKind::Choices => Value::Array(
                raw.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| Value::String(s.to_owned()))
                    .collect(),
            ),
            ElicitationFieldKind::Text | ElicitationFieldKind::Choice => {
                Value::String(raw.to_owned())
            }
        };
        content.insert(name.to_owned(), value);
    }
    check(fields, content)
}

/// Accepts every form as it starts (its defaults): the conformance suite's stand-in for a
/// person who reads the form and presses Accept without changing it.
pub struct AcceptDefaults;

#[async_trait::async_trait]
impl Elicitor for AcceptDefaults {
    async fn elicit(&self, form: ElicitationForm, _ended: CancellationToken) -> ElicitationReply {
        match check(&form.fields, form.initial) {
            Ok(content) => ElicitationReply::Accept(content),
            Err(_) => ElicitationReply::Decline,
        }
    }
}

/// A running call: its number, who answers for it, and the token that ends when it does.
type Caller = (u64, Arc<dyn Elicitor>, CancellationToken);

/// The elicitors of the calls running on one connection, the newest last: a server's question
/// goes to the session whose call is the newest (a server asks in the middle of a call).
#[derive(Clone, Default)]
pub(crate) struct Callers {
    inner: Arc<std::sync::Mutex<Vec<Caller>>>,
    next: Arc<std::sync::atomic::AtomicU64>,
    /// Questions waiting for a person now: the call's time limit waits for them.
    asking: Arc<std::sync::atomic::AtomicUsize>,
}

/// Removes its caller when the call ends, and withdraws a question still asked for it.
pub(crate) struct CallerGuard {
    callers: Callers,
    id: u64,
    ended: CancellationToken,
}

impl Drop for CallerGuard {
    fn drop(&mut self) {
        self.ended.cancel();
        let mut inner = self.callers.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.retain(|(id, _, _)| *id != self.id);
    }
}

struct AskingGuard(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for AskingGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Callers {
    /// A call of `elicitor`'s session begins; `cancel` ends it (the run's abort).
    pub(crate) fn enter(
        &self,
        elicitor: Arc<dyn Elicitor>,
        cancel: &CancellationToken,
    ) -> CallerGuard {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let ended = cancel.child_token();
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.push((id, elicitor, ended.clone()));
        CallerGuard {
            callers: self.clone(),
            id,
            ended,
        }
    }

    /// Whether a question is waiting for a person.
    pub(crate) fn asking(&self) -> bool {
        self.asking.load(std::sync::atomic::Ordering::SeqCst) > 0
    }

    /// Asks the newest caller; `None` when no running call can ask anyone.
    pub(crate) async fn ask(&self, form: ElicitationForm) -> Option<ElicitationReply> {
        let (elicitor, ended) = {
            let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            inner.last().map(|(_, e, ended)| (e.clone(), ended.clone()))
        }?;
        self.asking
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let _asking = AskingGuard(self.asking.clone());
        Some(elicitor.elicit(form, ended).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sep1034() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "default": 30, "minimum": 0, "maximum": 150},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }, "required": []})
    }

    #[test]
    fn a_form_starts_from_the_servers_defaults_and_accepting_it_sends_them() {
        let form = form("s", "please", &sep1034()).unwrap();
        assert_eq!(form.fields.len(), 5);
        let status = form.fields.iter().find(|f| f.name == "status").unwrap();
        assert_eq!(status.kind, ElicitationFieldKind::Choice);
        assert_eq!(status.options.len(), 3);
        let content = check(&form.fields, Map::new()).unwrap();
        assert_eq!(
            Value::Object(content),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
    }

    #[test]
    fn answers_that_do_not_fit_are_refused_with_every_reason() {
        let schema = json!({"type": "object", "properties": {
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 18},
            "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b"}]}, "maxItems": 1},
            "when": {"type": "string", "format": "date"}
        }, "required": ["email", "when"]});
        let form = form("s", "m", &schema).unwrap();
        let answer = json!({"email": "nobody", "age": 12.5, "tags": ["a", "c"], "extra": 1});
        let error = check(&form.fields, answer.as_object().unwrap().clone()).unwrap_err();
        for part in [
            "extra: the form has no such field",
            "email: \"nobody\" is not a valid email",
            "age: expected a whole number",
            "tags: \"c\" is not one of its options",
            "when: required",
        ] {
            assert!(error.0.contains(part), "{part} missing from {}", error.0);
        }
        let good = json!({"email": "a@b.org", "age": 40, "tags": ["b"], "when": "2026-11-28"});
        assert!(check(&form.fields, good.as_object().unwrap().clone()).is_ok());
        let too_many = json!({"email": "a@b.org", "tags": ["a", "b"], "when": "2026-11-28"});
        assert!(check(&form.fields, too_many.as_object().unwrap().clone())
            .unwrap_err()
            .0
            .contains("at most 1"));
    }

    #[test]
    fn schemas_a_form_cannot_ask_are_refused() {
        let nested = json!({"type": "object", "properties": {"o": {"type": "object"}}});
        assert!(form("s", "m", &nested).unwrap_err().contains("\"o\""));
        assert!(form("s", "m", &json!({"type": "object"})).is_err());
        let wide: Map<String, Value> = (0..=MAX_FIELDS)
            .map(|i| (format!("f{i}"), json!({"type": "string"})))
            .collect();
        assert!(form("s", "m", &json!({"type": "object", "properties": wide})).is_err());
        // A default that does not fit its own field is not offered.
        let odd =
            json!({"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}});
        assert!(form("s", "m", &odd).unwrap().initial.is_empty());
    }

    #[test]
    fn text_typed_at_a_terminal_is_read_as_the_fields_expect() {
        let form = form("s", "m", &sep1034()).unwrap();
        let content = from_text(
            &form.fields,
            [("age", "41"), ("verified", "no"), ("name", "Ada")],
        )
        .unwrap();
        assert_eq!(content["age"], json!(41));
        assert_eq!(content["verified"], json!(false));
        assert_eq!(content["score"], json!(95.5));
        assert!(from_text(&form.fields, [("age", "old")]).is_err());
        assert!(from_text(&form.fields, [("nope", "1")]).is_err());
    }
}
