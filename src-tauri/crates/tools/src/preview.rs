//! What a `write` or `edit` call would change, as a unified diff, before it runs: the
//! permission dialog shows it. Nothing is written; a file that cannot be read (too large,
//! not text, gone) previews as nothing rather than failing the request.

use std::path::Path;

use arbor_llm::JsonObject;

use crate::edit::{preview_edit, MAX_EDIT_FILE_BYTES};
use crate::names;
use crate::paths;

/// The diff `tool` (`write` or `edit`) would make with `arguments` in the project at `cwd`.
pub fn preview_diff(cwd: &Path, tool: &str, arguments: &JsonObject) -> Option<String> {
    let raw = arguments.get("path")?.as_str()?;
    let path = names::resolve_existing(cwd, raw).ok()?;
    let shown = paths::display(cwd, &path);
    let before = match std::fs::metadata(&path) {
        Ok(meta) if meta.len() > MAX_EDIT_FILE_BYTES => return None,
        Ok(meta) if meta.is_file() => String::from_utf8(std::fs::read(&path).ok()?).ok()?,
        Ok(_) => return None,
        Err(_) => String::new(),
    };
    match tool {
        "write" => {
            let after = arguments.get("content")?.as_str()?;
            Some(crate::edit::diff_text(&shown, &before, after))
        }
        "edit" => preview_edit(&shown, before, arguments.get("edits")?.clone()),
        _ => None,
    }
}
