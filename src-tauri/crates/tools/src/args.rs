//! Typed tool arguments.
//!
//! The loop has already validated the arguments against the schema, but a wrong type can still
//! slip through (or a tool can be called directly), so a failure names the field for the model.
//! Unknown fields are accepted on purpose: models add junk, and rejecting it helps no one.

use arbor_agent::ToolError;
use arbor_llm::JsonObject;
use serde::de::DeserializeOwned;

pub fn parse_arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, ToolError> {
    let value = serde_json::Value::Object(arguments);
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." {
            ToolError::respond(format!("Invalid arguments: {inner}."))
        } else {
            ToolError::respond(format!("Invalid argument `{path}`: {inner}."))
        }
    })
}

/// Renders a tool's spec with the given JSON Schema.
pub fn spec(name: &str, description: &str, parameters: serde_json::Value) -> arbor_llm::Tool {
    arbor_llm::Tool {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
    }
}
