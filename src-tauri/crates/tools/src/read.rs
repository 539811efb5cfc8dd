//! `read {path, offset?, limit?}`: a file as numbered lines (`cat -n` style), an image, or a
//! document (PDF, DOCX, PPTX, XLSX/ODS) as the numbered lines of its text (`arbor-documents`).

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{ImageContent, JsonObject, TextContent, Tool as ToolSpec, UserContent};
use arbor_permissions::FileAccess;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::json;

use super::args::{parse_arguments, spec};
use super::truncate::{cut_line, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES};
use super::{names, paths, special};
use crate::workspace::Workspace;

/// The largest `limit` a call may ask for.
pub const MAX_LIMIT: usize = 5000;
/// Lines longer than this many characters are cut (minified files would flood the context).
pub const MAX_LINE_CHARS: usize = 2000;
/// A NUL byte in this many leading bytes marks a file as binary (what `git diff` does).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

#[derive(Debug, Deserialize)]
struct ReadArguments {
    path: String,
    offset: Option<usize>,
    limit: Option<usize>,
}

pub struct ReadTool {
    workspace: Workspace,
    accepts_images: bool,
    spec: ToolSpec,
}

impl ReadTool {
    /// `accepts_images`: whether the model takes image input (images are an error otherwise).
    pub fn new(workspace: Workspace, accepts_images: bool) -> Self {
        let spec = spec(
            "read",
            &format!(
                "Read a file. Text comes back with line numbers (`cat -n` style); at most \
                 {MAX_OUTPUT_LINES} lines or {} KiB per call, and a notice names the `offset` to \
                 continue from. Lines over {MAX_LINE_CHARS} characters are cut. PNG, JPEG, GIF and \
                 WebP files come back as images when the model accepts them. PDF, DOCX, PPTX, \
                 XLSX, XLS and ODS files come back as their text, with a marker before each \
                 page, slide or sheet. Other binary files are refused: inspect them with `bash` \
                 (`file`, `xxd`).",
                MAX_OUTPUT_BYTES / 1024
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to read, relative to the working directory (or absolute, or starting with ~)."
                    },
                    "offset": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "1-based line number to start from (default 1)."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_LIMIT,
                        "description": format!("Maximum number of lines to return (default {MAX_OUTPUT_LINES}, at most {MAX_LIMIT}).")
                    }
                },
                "required": ["path"]
            }),
        );
        Self {
            workspace,
            accepts_images,
            spec,
        }
    }
}

#[async_trait::async_trait]
impl AgentTool for ReadTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: ReadArguments = parse_arguments(arguments)?;
        let cwd = self.workspace.cwd();
        let path = names::resolve_existing(cwd, &arguments.path)?;
        self.workspace
            .authorize(&context.call_id, FileAccess::Read, &path)?;
        let shown = paths::display(cwd, &path);
        // Looked at before opening: opening a FIFO for reading blocks until a writer comes.
        let metadata = tokio::fs::metadata(&path)
            .await
            .map_err(|error| read_error(&self.workspace, &path, &shown, &error))?;
        if let Some(kind) = special::special_kind(&metadata) {
            return Err(ToolError::respond(special::refusal(&shown, kind)));
        }
        let bytes = tokio::select! {
            read = tokio::fs::read(&path) => read,
            () = context.cancel.cancelled() => return Err(ToolError::Aborted),
        }
        .map_err(|error| read_error(&self.workspace, &path, &shown, &error))?;

        if let Some(mime_type) = arbor_documents::image_type(&bytes) {
            return self.image_output(&shown, mime_type, &bytes);
        }
        if let Some(kind) = arbor_documents::kind_of(&shown, &bytes) {
            let name = shown.clone();
            let extracted = tokio::task::spawn_blocking(move || {
                arbor_documents::extract(&name, kind, bytes, &arbor_documents::Limits::default())
            });
            let extracted = tokio::select! {
                joined = extracted => joined.map_err(|error| {
                    ToolError::respond(format!("Cannot read {shown}: {error}."))
                })?,
                () = context.cancel.cancelled() => return Err(ToolError::Aborted),
            }
            .map_err(|error| ToolError::respond(error.to_string()))?;
            return page_output(&shown, &extracted.text, &arguments, Some(kind.label()));
        }
        if bytes.iter().take(BINARY_SNIFF_BYTES).any(|&byte| byte == 0) {
            return Err(ToolError::respond(format!(
                "Cannot read binary file {shown}. To inspect it, use bash: `file {shown}` or \
                 `xxd {shown} | head -n 32`."
            )));
        }
        self.workspace.tracker().record(&path, &bytes);
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        page_output(&shown, text, &arguments, None)
    }
}

/// One page of `text` as numbered lines, from the call's `offset` and `limit`; `document` names
/// the format when the text was read out of a document.
fn page_output(
    shown: &str,
    text: &str,
    arguments: &ReadArguments,
    document: Option<&str>,
) -> Result<ToolOutput, ToolError> {
    let limit = arguments
        .limit
        .unwrap_or(MAX_OUTPUT_LINES)
        .clamp(1, MAX_LIMIT);
    let offset = arguments.offset.unwrap_or(1).max(1);
    let page = number_lines(text, offset, limit).map_err(|total_lines| {
        ToolError::respond(format!(
            "Offset {offset} is past the end of {shown}: the file has {total_lines} line{}.",
            if total_lines == 1 { "" } else { "s" }
        ))
    })?;
    let mut details = json!({
        "path": shown,
        "total_lines": page.total_lines,
        "start_line": page.start_line,
        "end_line": page.end_line,
        "truncated": page.end_line < page.total_lines,
    });
    if let Some(document) = document {
        details["document"] = json!(document);
    }
    Ok(ToolOutput::text(page.text).with_details(details))
}

impl ReadTool {
    fn image_output(
        &self,
        shown: &str,
        mime_type: &str,
        bytes: &[u8],
    ) -> Result<ToolOutput, ToolError> {
        if !self.accepts_images {
            return Err(ToolError::respond(format!(
                "{shown} is an image ({mime_type}), and the current model does not accept images. \
                 Use bash (for example `file {shown}`) to learn about it."
            )));
        }
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        Ok(ToolOutput {
            content: vec![
                UserContent::Text(TextContent::new(format!(
                    "Read image file {shown} [{mime_type}, {} bytes]",
                    bytes.len()
                ))),
                UserContent::Image(ImageContent {
                    data,
                    mime_type: mime_type.to_string(),
                }),
            ],
            details: Some(json!({ "path": shown, "mime_type": mime_type, "bytes": bytes.len() })),
        })
    }
}

fn read_error(
    workspace: &Workspace,
    path: &std::path::Path,
    shown: &str,
    error: &std::io::Error,
) -> ToolError {
    let cwd = workspace.cwd();
    if path.is_dir() {
        return ToolError::respond(format!(
            "{shown} is a directory, not a file. Use ls to list it."
        ));
    }
    if error.kind() == std::io::ErrorKind::NotFound {
        // "File not found" would send the model looking for a file when the whole project is gone.
        if let Err(gone) = workspace.ensure_root() {
            return gone.into();
        }
        let suggestion = paths::close_match(path)
            .map(|found| format!(" Did you mean {}?", paths::display(cwd, &found)))
            .unwrap_or_default();
        return ToolError::respond(format!("File not found: {shown}.{suggestion}"));
    }
    ToolError::respond(format!("Cannot read {shown}: {error}."))
}

/// One page of numbered lines.
#[derive(Debug)]
struct Page {
    text: String,
    total_lines: usize,
    start_line: usize,
    end_line: usize,
}

/// Numbers lines `offset..offset+limit` (1-based), within [`MAX_OUTPUT_BYTES`], with the
/// continuation notice when lines remain. `Err(total_lines)` when `offset` is past the end.
fn number_lines(text: &str, offset: usize, limit: usize) -> Result<Page, usize> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let total_lines = if body.is_empty() && !text.contains('\n') {
        0
    } else {
        body.split('\n').count()
    };
    if total_lines == 0 && offset == 1 {
        return Ok(Page {
            text: "[The file is empty.]".to_string(),
            total_lines: 0,
            start_line: 0,
            end_line: 0,
        });
    }
    if offset > total_lines {
        return Err(total_lines);
    }
    let width = 6;
    let mut out = String::new();
    let mut end_line = offset - 1;
    let mut long_lines = Vec::new();
    for (index, line) in body.split('\n').enumerate().skip(offset - 1).take(limit) {
        let number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = match cut_line(line, MAX_LINE_CHARS) {
            Some(cut) => {
                long_lines.push(number);
                format!("{cut}… [line cut at {MAX_LINE_CHARS} characters]")
            }
            None => line.to_string(),
        };
        let numbered = format!("{number:>width$}\t{line}\n");
        // Always show at least one line, so a page can never be empty.
        if number > offset && out.len() + numbered.len() > MAX_OUTPUT_BYTES {
            break;
        }
        out.push_str(&numbered);
        end_line = number;
    }
    let mut notices = Vec::new();
    if !long_lines.is_empty() {
        let listed: Vec<String> = long_lines.iter().take(10).map(|n| n.to_string()).collect();
        notices.push(format!(
            "[Line{} {} {} longer than {MAX_LINE_CHARS} characters and cut. To see one in full, \
             use bash, for example `sed -n '{}p' FILE | cut -c{}-{}`.]",
            if long_lines.len() == 1 { "" } else { "s" },
            listed.join(", "),
            if long_lines.len() == 1 { "was" } else { "were" },
            long_lines[0],
            MAX_LINE_CHARS + 1,
            MAX_LINE_CHARS * 2
        ));
    }
    if end_line < total_lines {
        notices.push(format!(
            "[Showing lines {offset}-{end_line} of {total_lines}. Use offset={} to continue.]",
            end_line + 1
        ));
    }
    let mut text = out.strip_suffix('\n').unwrap_or(&out).to_string();
    if !notices.is_empty() {
        text.push_str("\n\n");
        text.push_str(&notices.join("\n"));
    }
    Ok(Page {
        text,
        total_lines,
        start_line: offset,
        end_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_like_cat_n() {
        let page = number_lines("a\nb\n", 1, 10).unwrap();
        assert_eq!(page.text, "     1\ta\n     2\tb");
        assert_eq!(page.total_lines, 2);
        let page = number_lines("a\r\nb", 2, 10).unwrap();
        assert_eq!(page.text, "     2\tb");
    }

    #[test]
    fn empty_and_past_the_end() {
        assert_eq!(
            number_lines("", 1, 10).unwrap().text,
            "[The file is empty.]"
        );
        assert_eq!(number_lines("a\n", 3, 10).unwrap_err(), 1);
        assert_eq!(number_lines("", 2, 10).unwrap_err(), 0);
        // A file that is one empty line has one line.
        assert_eq!(number_lines("\n", 1, 10).unwrap().text, "     1\t");
    }

    #[test]
    fn recognises_image_magic() {
        assert_eq!(
            arbor_documents::image_type(b"\x89PNG\r\n\x1a\n...."),
            Some("image/png")
        );
        assert_eq!(
            arbor_documents::image_type(b"RIFF\0\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(arbor_documents::image_type(b"GIF89a"), Some("image/gif"));
        assert_eq!(
            arbor_documents::image_type(&[0xff, 0xd8, 0xff, 0xe0]),
            Some("image/jpeg")
        );
        assert_eq!(arbor_documents::image_type(b"hello"), None);
    }
}
