//! `edit {path, edits: [{old_text, new_text, replace_all?}]}`: targeted replacements, all or
//! nothing, that change nothing but the matched regions.
//!
//! - [`matching`]: where each `old_text` is (exact, then tolerant), and the closest candidate.
//! - [`apply`]: overlap checks, line-ending adaptation, the new content and changed lines.
//! - [`diff`]: the unified diff for `details`, capped at [`MAX_DIFF_BYTES`].
//! - [`load`]: the file, refused unread above [`MAX_EDIT_FILE_BYTES`] or when not a regular
//!   file.
//!
//! Memory stays a small multiple of the file: the content, the new content, and (only when the
//! exact search fails) a normalised copy at five bytes a byte; at most [`MAX_REPLACEMENTS`]
//! replacements and a new content of at most twice the file limit.

mod apply;
mod diff;
mod load;
mod matching;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use arbor_permissions::FileAccess;
use serde::Deserialize;
use serde_json::json;

use self::apply::{ApplyError, ChangedLines, Replacement};
use self::matching::{closest_candidate, find_occurrences, line_of, MatchKind};
use super::args::{parse_arguments, spec};
use super::{names, paths};
use crate::workspace::Workspace;
use arbor_fs as atomic;

pub use self::diff::{MAX_DIFF_BYTES, MAX_DIFF_LINE_CHARS};
pub use self::load::MAX_EDIT_FILE_BYTES;

const UTF8_BOM: &str = "\u{feff}";
/// Most replacements one call makes (all edits together): `replace_all` of a one-character
/// `old_text` in a 32 MiB file would otherwise hold tens of millions of them.
pub const MAX_REPLACEMENTS: usize = 100_000;
/// The largest new content an edit may produce.
const MAX_NEW_CONTENT_BYTES: usize = 2 * MAX_EDIT_FILE_BYTES as usize;

#[derive(Debug, Deserialize)]
struct EditArguments {
    path: String,
    edits: Vec<EditSpec>,
}

#[derive(Debug, Deserialize)]
struct EditSpec {
    old_text: String,
    new_text: String,
    #[serde(default)]
    replace_all: Option<bool>,
}

pub struct EditTool {
    workspace: Workspace,
    spec: ToolSpec,
}

impl EditTool {
    pub fn new(workspace: Workspace) -> Self {
        let spec = spec(
            "edit",
            "Replace text in a file. Each edit's `old_text` must match the current file exactly \
             (whitespace at line ends, line endings and Unicode quotes/dashes are forgiven) and \
             only once, unless `replace_all` is true; include enough surrounding lines to make it \
             unique. Edits must not overlap; they are applied together or not at all. Everything \
             outside the matched text is kept byte for byte.",
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to edit, relative to the working directory (or absolute, or starting with ~)."
                    },
                    "edits": {
                        "type": "array",
                        "minItems": 1,
                        "description": "Replacements, each located in the original content.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "old_text": {
                                    "type": "string",
                                    "description": "Text to replace, copied from the file."
                                },
                                "new_text": {
                                    "type": "string",
                                    "description": "Replacement text."
                                },
                                "replace_all": {
                                    "type": "boolean",
                                    "description": "Replace every occurrence instead of requiring exactly one (default false)."
                                }
                            },
                            "required": ["old_text", "new_text"]
                        }
                    }
                },
                "required": ["path", "edits"]
            }),
        );
        Self { workspace, spec }
    }
}

#[async_trait::async_trait]
impl AgentTool for EditTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: EditArguments = parse_arguments(arguments)?;
        self.workspace.ensure_root()?;
        let cwd = self.workspace.cwd();
        let path = names::resolve_existing(cwd, &arguments.path)?;
        self.workspace
            .authorize(&context.call_id, FileAccess::Edit, &path)?;
        let shown = paths::display(cwd, &path);
        let bytes = load::load(&path, &shown, cwd).await?;
        let stale = self.workspace.tracker().changed_since_seen(&path, &bytes) == Some(true);
        let original = String::from_utf8(bytes).map_err(|_| {
            ToolError::respond(format!(
                "{shown} is not valid UTF-8 text, so edit cannot change it safely. Use write to \
                 replace it, or bash."
            ))
        })?;
        // Heavy lifting off the async threads: a 10 MB file takes a while to search.
        let planned = {
            let shown = shown.clone();
            tokio::task::spawn_blocking(move || plan_edits(&shown, original, &arguments.edits))
                .await
                .map_err(|error| ToolError::respond(format!("The edit failed: {error}.")))??
        };
        if context.cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        // Checked again right before writing: the plan may have taken a while.
        self.workspace.ensure_root()?;
        crate::workspace::check_writable(&path)?;
        let new_bytes = planned.new_content.into_bytes();
        let new_bytes = {
            let path = path.clone();
            // Moved in and handed back, not cloned: one copy of a large file is enough.
            tokio::task::spawn_blocking(move || {
                atomic::write_atomic(&path, &new_bytes).map(|()| new_bytes)
            })
            .await
            .map_err(|error| ToolError::respond(format!("Cannot write {shown}: {error}.")))?
            .map_err(|error| ToolError::respond(format!("Cannot write {shown}: {error}.")))?
        };
        self.workspace.tracker().record(&path, &new_bytes);
        drop(new_bytes);

        let mut message = format!(
            "Edited {shown}: {}. Changed lines: {}.",
            count_summary(planned.edit_count, planned.changed.len()),
            line_list(&planned.changed)
        );
        if !planned.tolerant_edits.is_empty() {
            let listed: Vec<String> = planned
                .tolerant_edits
                .iter()
                .map(|i| (i + 1).to_string())
                .collect();
            message.push_str(&format!(
                " Edit {} matched only after ignoring differences in trailing whitespace, line \
                 endings or Unicode punctuation.",
                listed.join(", ")
            ));
        }
        if stale {
            message.push_str(&format!(
                " Note: {shown} had changed on disk since you last read it; the edits were applied \
                 to its current content."
            ));
        }
        if planned.diff.truncated {
            message.push_str(&format!(
                " The diff shown to the user was cut (at {} KiB, lines at {MAX_DIFF_LINE_CHARS} \
                 characters).",
                MAX_DIFF_BYTES / 1024
            ));
        }
        let first_changed_line = planned.changed.first().map(|lines| lines.first);
        Ok(ToolOutput::text(message).with_details(json!({
            "path": shown,
            "diff": planned.diff.text,
            "diff_truncated": planned.diff.truncated,
            "first_changed_line": first_changed_line,
            "replacements": planned.changed.len(),
            "changed_on_disk": stale,
        })))
    }
}

/// The outcome of a successful plan: what to write and how to describe it.
struct PlannedEdit {
    new_content: String,
    diff: diff::Diff,
    changed: Vec<ChangedLines>,
    edit_count: usize,
    tolerant_edits: Vec<usize>,
}

/// The diff `edits` (as the model sent them) would make to `original`, if they apply.
pub(crate) fn preview_edit(
    shown: &str,
    original: String,
    edits: serde_json::Value,
) -> Option<String> {
    let edits: Vec<EditSpec> = serde_json::from_value(edits).ok()?;
    plan_edits(shown, original, &edits)
        .ok()
        .map(|planned| planned.diff.text)
}

/// A unified diff of `before` → `after` labelled `shown`.
pub(crate) fn diff_text(shown: &str, before: &str, after: &str) -> String {
    diff::unified_diff(shown, before, after).text
}

/// Locates every edit in `original` and builds the new content, or explains why not.
fn plan_edits(shown: &str, original: String, edits: &[EditSpec]) -> Result<PlannedEdit, ToolError> {
    if edits.is_empty() {
        return Err(ToolError::respond(
            "No edits given: `edits` needs at least one {old_text, new_text}.",
        ));
    }
    let (bom, content) = match original.strip_prefix(UTF8_BOM) {
        Some(rest) => (UTF8_BOM, rest),
        None => ("", original.as_str()),
    };
    let several = edits.len() > 1;
    let label = |index: usize| {
        if several {
            format!("Edit {} of {}", index + 1, edits.len())
        } else {
            "Edit".to_string()
        }
    };
    let nothing_applied = if several {
        " No edits were applied."
    } else {
        " The file was not changed."
    };
    let mut replacements = Vec::new();
    let mut tolerant_edits = Vec::new();
    for (index, edit) in edits.iter().enumerate() {
        if edit.old_text.is_empty() {
            return Err(ToolError::respond(format!(
                "{}: old_text is empty. Quote the text to replace; to replace a whole file use \
                 write.{nothing_applied}",
                label(index)
            )));
        }
        let room = MAX_REPLACEMENTS - replacements.len();
        let (ranges, kind) = find_occurrences(content, &edit.old_text, room);
        if ranges.is_empty() {
            return Err(not_found(
                shown,
                content,
                &edit.old_text,
                &label(index),
                nothing_applied,
            ));
        }
        if ranges.len() > 1 && edit.replace_all != Some(true) {
            let lines: Vec<String> = ranges
                .iter()
                .take(20)
                .map(|range| line_of(content, range.start).to_string())
                .collect();
            return Err(ToolError::respond(format!(
                "{}: old_text matches {} times in {shown} (at lines {}{}). Include more \
                 surrounding lines to make it unique, or set replace_all to true to replace every \
                 occurrence.{nothing_applied}",
                label(index),
                if ranges.len() > room {
                    format!("more than {room}")
                } else {
                    ranges.len().to_string()
                },
                lines.join(", "),
                if ranges.len() > 20 { ", …" } else { "" }
            )));
        }
        if ranges.len() > room {
            return Err(ToolError::respond(format!(
                "{}: old_text matches more than {room} times in {shown}, and one edit call \
                 makes at most {MAX_REPLACEMENTS} replacements. Use bash for a change this \
                 broad (for example `sed -i 's/old/new/g' {shown}`).{nothing_applied}",
                label(index)
            )));
        }
        if kind == MatchKind::Tolerant {
            tolerant_edits.push(index);
        }
        replacements.extend(ranges.into_iter().map(|range| Replacement {
            edit: index,
            range,
            new_text: &edit.new_text,
        }));
    }
    let (new_content, changed) = apply::apply(bom, content, replacements, MAX_NEW_CONTENT_BYTES)
        .map_err(|error| match error {
            ApplyError::Overlap(overlap) => ToolError::respond(format!(
                "Edits {} and {} overlap (both change line {} of {shown}). Merge them into \
                     one edit.{nothing_applied}",
                overlap.first_edit + 1,
                overlap.second_edit + 1,
                overlap.line
            )),
            ApplyError::TooLarge => ToolError::respond(format!(
                "The edits would make {shown} larger than {} MiB, more than edit produces. \
                     Use bash or write for a change this large.{nothing_applied}",
                MAX_NEW_CONTENT_BYTES / (1024 * 1024)
            )),
        })?;
    let new_body = &new_content[bom.len()..];
    if new_body == content {
        return Err(ToolError::respond(format!(
            "No change: the edits leave {shown} exactly as it was (new_text equals old_text)."
        )));
    }
    let diff = diff::unified_diff(shown, content, new_body);
    Ok(PlannedEdit {
        new_content,
        diff,
        changed,
        edit_count: edits.len(),
        tolerant_edits,
    })
}

fn not_found(
    shown: &str,
    content: &str,
    old_text: &str,
    label: &str,
    nothing_applied: &str,
) -> ToolError {
    let mut message = format!("{label}: old_text was not found in {shown}.");
    match closest_candidate(content, old_text) {
        Some((first_line, lines)) => {
            let last_line = first_line + lines.len().saturating_sub(1);
            let range = if last_line > first_line {
                format!("lines {first_line}-{last_line}")
            } else {
                format!("line {first_line}")
            };
            message.push_str(&format!(" The closest text is at {range}:\n"));
            for (offset, line) in lines.iter().enumerate() {
                message.push_str(&format!("{:>6}\t{line}\n", first_line + offset));
            }
            message.push_str("Copy old_text exactly from the file (read it again if unsure).");
        }
        None => message.push_str(" Nothing similar is in the file: read it again."),
    }
    message.push_str(nothing_applied);
    ToolError::respond(message)
}

fn count_summary(edits: usize, replacements: usize) -> String {
    let replaced = if replacements == 1 {
        "1 replacement".to_string()
    } else {
        format!("{replacements} replacements")
    };
    if edits == 1 {
        replaced
    } else {
        format!("{replaced} from {edits} edits")
    }
}

/// `3, 10-12, 40` (at most 20 entries), in the new file's numbering.
fn line_list(changed: &[ChangedLines]) -> String {
    let mut listed: Vec<String> = changed
        .iter()
        .take(20)
        .map(|lines| {
            if lines.last > lines.first {
                format!("{}-{}", lines.first, lines.last)
            } else {
                lines.first.to_string()
            }
        })
        .collect();
    if changed.len() > 20 {
        listed.push(format!("… ({} more)", changed.len() - 20));
    }
    listed.join(", ")
}
