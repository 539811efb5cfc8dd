//! `arbor mcp serve`'s resources: every stored session as `arbor://session/<id>` (its current
//! branch as Markdown, as `read_session` gives it), newest first, and the template other agents
//! fill with an id they found through `list_sessions` or `search_sessions`.

use arbor_app::StoredSessions;
use serde_json::{json, Value};

/// The scheme and path of a session's resource.
pub const SESSION_URI: &str = "arbor://session/";
/// Most sessions listed (the newest); older ones are read through the template.
pub const MAX_LISTED: usize = 500;

/// `resources/list`'s answer.
pub fn list(stored: &StoredSessions) -> Result<Value, String> {
    let mut sessions = stored.list(None).map_err(|e| e.to_string())?;
    sessions.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
    let resources: Vec<Value> = sessions
        .iter()
        .take(MAX_LISTED)
        .map(|s| {
            let name = if s.title.trim().is_empty() {
                s.id.clone()
            } else {
                s.title.clone()
            };
            json!({
                "uri": format!("{SESSION_URI}{}", s.id),
                "name": name,
                "description": format!("{} messages in {}", s.message_count, s.project_root),
                "mimeType": "text/markdown",
            })
        })
        .collect();
    Ok(json!({ "resources": resources }))
}

/// `resources/templates/list`'s answer.
pub fn templates() -> Value {
    json!({ "resourceTemplates": [{
        "uriTemplate": format!("{SESSION_URI}{{session_id}}"),
        "name": "session",
        "description": "A stored Arbor session's current branch, as Markdown",
        "mimeType": "text/markdown",
    }]})
}

/// `resources/read`'s answer for `uri`; `None` when it is not a session's.
pub fn read(stored: &StoredSessions, uri: &str) -> Option<Result<Value, String>> {
    let id = uri.strip_prefix(SESSION_URI)?;
    Some(
        stored
            .export(
                id,
                arbor_app::export::ExportScope::CurrentBranch,
                arbor_app::export::ExportFormat::Markdown,
            )
            .map(|export| {
                json!({ "contents": [{
                    "uri": uri,
                    "mimeType": "text/markdown",
                    "text": export.text,
                }]})
            })
            .map_err(|e| e.to_string()),
    )
}
