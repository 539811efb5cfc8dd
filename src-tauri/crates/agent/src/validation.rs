//! Tool-call arguments against the tool's JSON Schema: coercion of obvious type slips, then
//! validation with the `jsonschema` crate.
//!
//! Models often quote numbers and booleans, or send a nested object as a JSON string. Where the
//! schema says which type a value must have, and the value does not have it but converts
//! losslessly, it is converted:
//!
//! | schema type | accepted instead | becomes |
//! |---|---|---|
//! | `integer` | `"5"`, `5.0`, `"5.0"` | `5` |
//! | `number` | `"2.5"`, `"5"` | `2.5`, `5` |
//! | `boolean` | `"true"`, `"False"` | `true`, `false` |
//! | `null` | `"null"` | `null` |
//! | `string` | `5`, `true` | `"5"`, `"true"` |
//! | `object` / `array` | a string holding JSON of that type | the parsed value |
//!
//! Coercion follows `properties`, `additionalProperties`, `items`, local `$ref`s and the branches
//! of `anyOf`/`oneOf`. A value that already has an allowed type is never changed. Whatever still
//! does not match after coercion is reported to the model, one line per problem.

use arbor_llm::JsonObject;
use serde_json::{Number, Value};

/// How deep coercion follows nested schemas and `$ref`s (guards against recursive schemas).
const MAX_DEPTH: usize = 64;

/// Coerces and validates `arguments` against `schema`; returns the arguments the tool gets, or
/// a message for the model naming every problem.
pub fn validate_arguments(
    tool_name: &str,
    schema: &Value,
    arguments: &JsonObject,
) -> Result<JsonObject, String> {
    let validator = jsonschema::validator_for(schema).map_err(|error| {
        format!(
            "The tool \"{tool_name}\" cannot be used: its parameter schema is invalid ({error})."
        )
    })?;
    let coerced = coerce(Value::Object(arguments.clone()), schema, schema, 0);
    let problems: Vec<String> = validator
        .iter_errors(&coerced)
        .map(|error| {
            let path = error.instance_path().to_string();
            if path.is_empty() {
                format!("- {error}")
            } else {
                format!("- at {path}: {error}")
            }
        })
        .collect();
    if !problems.is_empty() {
        let received = serde_json::to_string(arguments).unwrap_or_default();
        return Err(format!(
            "Invalid arguments for tool \"{tool_name}\":\n{}\nReceived arguments: {received}\nFix the arguments and call the tool again.",
            problems.join("\n")
        ));
    }
    match coerced {
        Value::Object(object) => Ok(object),
        // The schema's own check above rejects non-objects where it asks for one; anything else
        // cannot be handed to a tool as arguments.
        other => Err(format!(
            "Invalid arguments for tool \"{tool_name}\": expected a JSON object, got {other}."
        )),
    }
}

/// Converts `value` towards the type(s) `schema` allows (see the module docs).
pub fn coerce(value: Value, schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return value;
    }
    let Some(schema) = resolve(schema, root) else {
        return value;
    };
    // `anyOf`/`oneOf`: a branch that accepts the value as it is wins; else the first branch
    // that a conversion satisfies.
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            let branches: Vec<&Value> = branches.iter().filter_map(|b| resolve(b, root)).collect();
            if let Some(branch) = branches.iter().find(|b| accepts_type(b, &value)) {
                return coerce(value, branch, root, depth + 1);
            }
            for branch in &branches {
                let converted = coerce(value.clone(), branch, root, depth + 1);
                if accepts_type(branch, &converted) {
                    return converted;
                }
            }
            return value;
        }
    }
    let types = declared_types(schema);
    let value = if types.is_empty() || types.iter().any(|t| has_type(&value, t)) {
        value
    } else {
        types
            .iter()
            .find_map(|t| convert(&value, t))
            .unwrap_or(value)
    };
    descend(value, schema, root, depth)
}

/// Coerces the members of an object or array by their own schemas.
fn descend(value: Value, schema: &Value, root: &Value, depth: usize) -> Value {
    match value {
        Value::Object(object) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|s| s.is_object());
            Value::Object(
                object
                    .into_iter()
                    .map(|(key, member)| {
                        let member_schema = properties.and_then(|p| p.get(&key)).or(additional);
                        let member = match member_schema {
                            Some(member_schema) => coerce(member, member_schema, root, depth + 1),
                            None => member,
                        };
                        (key, member)
                    })
                    .collect(),
            )
        }
        Value::Array(items) => match schema.get("items").filter(|s| s.is_object()) {
            Some(item_schema) => Value::Array(
                items
                    .into_iter()
                    .map(|item| coerce(item, item_schema, root, depth + 1))
                    .collect(),
            ),
            None => Value::Array(items),
        },
        other => other,
    }
}

/// Follows a local `$ref` (`#/…`); other schemas are returned as they are.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
    let mut current = schema;
    for _ in 0..MAX_DEPTH {
        match current.get("$ref").and_then(Value::as_str) {
            Some(reference) => current = root.pointer(reference.strip_prefix('#')?)?,
            None => return Some(current),
        }
    }
    None
}

/// The `type`s a schema names; inferred from `properties`/`items` when it names none.
fn declared_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        _ if schema.get("items").is_some() => vec!["array"],
        _ => Vec::new(),
    }
}

fn accepts_type(schema: &Value, value: &Value) -> bool {
    let types = declared_types(schema);
    types.is_empty() || types.iter().any(|t| has_type(value, t))
}

fn has_type(value: &Value, type_name: &str) -> bool {
    match type_name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        // 5.0 is an integer to JSON Schema, but not to a tool deserializing into `u64`.
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// A lossless conversion of `value` to `type_name`, if there is one.
fn convert(value: &Value, type_name: &str) -> Option<Value> {
    match (type_name, value) {
        ("integer", Value::String(text)) => integer_from_str(text.trim()),
        ("integer", Value::Number(number)) => number.as_f64().and_then(integral),
        ("number", Value::String(text)) => {
            let text = text.trim();
            integer_from_str(text).or_else(|| {
                let parsed = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
                Number::from_f64(parsed).map(Value::Number)
            })
        }
        ("boolean", Value::String(text)) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("null", Value::String(text)) if text.trim() == "null" => Some(Value::Null),
        ("string", Value::Number(number)) => Some(Value::String(number.to_string())),
        ("string", Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        ("object", Value::String(text)) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object),
        ("array", Value::String(text)) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_array),
        _ => None,
    }
}

fn integer_from_str(text: &str) -> Option<Value> {
    if let Ok(int) = text.parse::<i64>() {
        return Some(Value::from(int));
    }
    if let Ok(int) = text.parse::<u64>() {
        return Some(Value::from(int));
    }
    text.parse::<f64>().ok().and_then(integral)
}

/// `5.0` → `5`; `5.5`, infinities and out-of-range values → `None`.
fn integral(float: f64) -> Option<Value> {
    let in_range = float.is_finite() && float.fract() == 0.0 && float.abs() < 9.0e15;
    // The range check makes the cast exact.
    in_range.then(|| Value::from(float as i64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn a_schema_the_meta_schema_refuses_is_reported_from_every_thread() {
        // The meta-schemas' validators are generated code (the `macros` feature): nothing is
        // built at the first call, so calls at once on several threads all see the check.
        let racing: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    validate_arguments("bad", &json!({"type": 5}), &object(json!({})))
                })
            })
            .collect();
        for call in racing {
            let error = call.join().unwrap().unwrap_err();
            assert!(error.contains("its parameter schema is invalid"), "{error}");
        }
        // Draft 7 named by `$schema` is checked against its own meta-schema too.
        let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"n": {"minimum": "one"}}});
        let error = validate_arguments("old", &draft7, &object(json!({}))).unwrap_err();
        assert!(error.contains("its parameter schema is invalid"), "{error}");
        assert!(validate_arguments("ok", &schema(), &object(json!({"count": 1}))).is_ok());
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "flag": {"type": "boolean"},
                "name": {"type": "string"},
                "options": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            },
            "required": ["count"],
            "additionalProperties": false,
            "$defs": {"edit": {"type": "object", "properties": {"all": {"type": "boolean"}}}}
        })
    }

    #[test]
    fn obvious_type_slips_are_coerced() {
        let arguments = object(json!({
            "count": "5",
            "ratio": "2.5",
            "flag": "true",
            "name": 42,
            "options": "{\"depth\": \"3\"}",
            "edits": "[{\"all\": \"false\"}]",
            "maybe": "7"
        }));
        let coerced = validate_arguments("t", &schema(), &arguments).unwrap();
        assert_eq!(
            Value::Object(coerced),
            json!({
                "count": 5, "ratio": 2.5, "flag": true, "name": "42",
                "options": {"depth": 3}, "edits": [{"all": false}], "maybe": 7
            })
        );
    }

    #[test]
    fn integral_floats_become_integers_and_others_do_not() {
        let coerced = validate_arguments("t", &schema(), &object(json!({"count": 5.0}))).unwrap();
        assert!(coerced["count"].is_i64());
        let error =
            validate_arguments("t", &schema(), &object(json!({"count": "5.5"}))).unwrap_err();
        assert!(error.contains("at /count"), "{error}");
    }

    #[test]
    fn every_problem_is_reported_with_what_was_received() {
        let error = validate_arguments(
            "add",
            &schema(),
            &object(json!({"flag": "maybe", "extra": 1})),
        )
        .unwrap_err();
        assert!(
            error.starts_with("Invalid arguments for tool \"add\":"),
            "{error}"
        );
        assert!(
            error.contains("\"count\" is a required property"),
            "{error}"
        );
        assert!(error.contains("at /flag"), "{error}");
        assert!(error.contains("extra"), "{error}");
        assert!(
            error.contains("Received arguments: {\"extra\":1,\"flag\":\"maybe\"}"),
            "{error}"
        );
    }

    #[test]
    fn values_of_an_allowed_type_are_left_alone() {
        let schema =
            json!({"type": "object", "properties": {"v": {"type": ["string", "integer"]}}});
        let coerced = validate_arguments("t", &schema, &object(json!({"v": "5"}))).unwrap();
        assert_eq!(coerced["v"], "5");
    }

    #[test]
    fn an_invalid_schema_is_an_error_not_a_panic() {
        let error = validate_arguments("t", &json!({"type": 12}), &object(json!({}))).unwrap_err();
        assert!(error.contains("schema is invalid"), "{error}");
    }

    #[test]
    fn recursive_refs_terminate() {
        let schema = json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}});
        let value = coerce(json!({"x": 1}), &schema, &schema, 0);
        assert_eq!(value, json!({"x": 1}));
    }
}
