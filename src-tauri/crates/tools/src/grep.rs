//! `grep {pattern, path?, glob?, ignore_case?, literal?, context?, limit?}`: a regex search with
//! the ripgrep libraries, in process.

use arbor_permissions::FileAccess;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::WalkState;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::args::{parse_arguments, spec};
use super::truncate::{cut_line, MAX_OUTPUT_BYTES};
use super::{names, paths, special, walk};
use crate::workspace::Workspace;

pub const DEFAULT_LIMIT: usize = 100;
/// Matched and context lines longer than this are cut.
pub const MAX_LINE_CHARS: usize = 500;

#[derive(Debug, Deserialize)]
struct GrepArguments {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    ignore_case: Option<bool>,
    literal: Option<bool>,
    context: Option<usize>,
    limit: Option<usize>,
}

pub struct GrepTool {
    workspace: Workspace,
    spec: ToolSpec,
}

impl GrepTool {
    pub fn new(workspace: Workspace) -> Self {
        let spec = spec(
            "grep",
            &format!(
                "Search file contents with a regular expression (Rust regex syntax), honouring \
                 .gitignore and skipping binary files. Prints `path:line: text` for matches and \
                 `path-line- text` for context lines. At most `limit` matches (default \
                 {DEFAULT_LIMIT}); lines over {MAX_LINE_CHARS} characters are cut."
            ),
            json!({
                "type": "object",
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Regular expression to search for (or plain text with literal=true)."
                    },
                    "path": {
                        "type": "string",
                        "description": "File or folder to search (default: the working directory)."
                    },
                    "glob": {
                        "type": "string",
                        "description": "Only search files matching this glob, for example `*.rs` or `src/**/*.ts`."
                    },
                    "ignore_case": {
                        "type": "boolean",
                        "description": "Case-insensitive search (default false)."
                    },
                    "literal": {
                        "type": "boolean",
                        "description": "Treat the pattern as plain text, not a regex (default false)."
                    },
                    "context": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Lines of context before and after each match (default 0)."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": format!("Maximum number of matches (default {DEFAULT_LIMIT}).")
                    }
                },
                "required": ["pattern"]
            }),
        );
        Self { workspace, spec }
    }
}

#[async_trait::async_trait]
impl AgentTool for GrepTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: GrepArguments = parse_arguments(arguments)?;
        let cwd = self.workspace.cwd().to_path_buf();
        let root = names::resolve_existing(&cwd, arguments.path.as_deref().unwrap_or("."))?;
        self.workspace
            .authorize(&context.call_id, FileAccess::Read, &root)?;
        let shown_root = paths::display(&cwd, &root);
        match std::fs::metadata(&root) {
            Err(_) if !root.exists() => {
                self.workspace.ensure_root()?;
                return Err(ToolError::respond(format!("Path not found: {shown_root}.")));
            }
            // The walk would skip it silently; say why nothing was searched.
            Ok(metadata) => {
                if let Some(kind) = special::special_kind(&metadata) {
                    return Err(ToolError::respond(special::refusal(&shown_root, kind)));
                }
            }
            Err(_) => {}
        }
        let literal = arguments.literal.unwrap_or(false);
        let invalid = |error: &dyn std::fmt::Display| {
            ToolError::respond(format!(
                "Invalid regex {:?}: {error}\nEscape special characters (for example `\\(`), \
                 or set literal=true to search for the text as it is.",
                arguments.pattern
            ))
        };
        if !literal {
            // Parsed first on its own: grep-regex's errors quote its internal rewrite of the
            // pattern, which would confuse the model.
            regex_syntax::Parser::new()
                .parse(&arguments.pattern)
                .map_err(|error| invalid(&error))?;
        }
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(arguments.ignore_case.unwrap_or(false))
            .fixed_strings(literal)
            .line_terminator(Some(b'\n'))
            .build(&arguments.pattern)
            .map_err(|error| invalid(&error))?;
        let query = Query {
            cwd,
            root,
            hidden: self.workspace.guard().hidden_paths(),
            glob: arguments.glob,
            context: arguments.context.unwrap_or(0),
            limit: arguments.limit.unwrap_or(DEFAULT_LIMIT).max(1),
            cancel: context.cancel.clone(),
        };
        let text = tokio::task::spawn_blocking(move || search(&query, &matcher))
            .await
            .map_err(|error| ToolError::respond(format!("The search failed: {error}.")))??;
        Ok(ToolOutput::text(text))
    }
}

struct Query {
    cwd: PathBuf,
    root: PathBuf,
    /// The secret paths: never searched.
    hidden: Vec<PathBuf>,
    glob: Option<String>,
    context: usize,
    limit: usize,
    cancel: CancellationToken,
}

/// One printed line of a file's results.
enum Line {
    Match(u64, String),
    Context(u64, String),
    Break,
}

/// A file's results: its display path, lines, number of matches, and whether its name (as
/// shown) is not valid UTF-8.
type FileResults = (String, Vec<Line>, usize, bool);

/// Searches in parallel (one searcher per walker thread), stops once `limit` matches are in, and
/// sorts by path so the output does not depend on thread timing.
fn search(query: &Query, matcher: &RegexMatcher) -> Result<String, ToolError> {
    let mut walker = walk::walker(&query.root, query.hidden.clone());
    if let Some(glob) = &query.glob {
        let mut overrides = OverrideBuilder::new(&query.root);
        overrides
            .add(glob)
            .map_err(|error| ToolError::respond(format!("Invalid glob {glob:?}: {error}.")))?;
        let overrides = overrides
            .build()
            .map_err(|error| ToolError::respond(format!("Invalid glob {glob:?}: {error}.")))?;
        walker.overrides(overrides);
    }
    let mut searcher_builder = SearcherBuilder::new();
    searcher_builder
        .line_number(true)
        .before_context(query.context)
        .after_context(query.context)
        .binary_detection(BinaryDetection::quit(b'\x00'));
    let matches_found = AtomicUsize::new(0);
    let results: Mutex<Vec<FileResults>> = Mutex::new(Vec::new());
    let long_lines = AtomicUsize::new(0);
    walker.build_parallel().run(|| {
        let mut searcher = searcher_builder.build();
        let (matches_found, results, long_lines) = (&matches_found, &results, &long_lines);
        let matcher = matcher.clone();
        Box::new(move |entry| {
            if query.cancel.is_cancelled() || matches_found.load(Ordering::Relaxed) >= query.limit {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let mut collector = Collector {
                lines: Vec::new(),
                matches: 0,
                long_lines: 0,
                limit: query.limit,
                matches_found,
            };
            if searcher
                .search_path(&matcher, entry.path(), &mut collector)
                .is_err()
            {
                return WalkState::Continue;
            }
            if collector.long_lines > 0 {
                long_lines.fetch_add(collector.long_lines, Ordering::Relaxed);
            }
            if collector.matches > 0 {
                let shown = paths::display(&query.cwd, entry.path());
                let relative = entry
                    .path()
                    .strip_prefix(&query.cwd)
                    .unwrap_or(entry.path());
                let lossy = !names::is_utf8(relative.as_os_str());
                if let Ok(mut results) = results.lock() {
                    results.push((shown, collector.lines, collector.matches, lossy));
                }
            }
            WalkState::Continue
        })
    });
    if query.cancel.is_cancelled() {
        return Err(ToolError::Aborted);
    }
    let mut results = results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    results.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(render(
        &results,
        query,
        matches_found.into_inner(),
        long_lines.into_inner(),
    ))
}

fn render(results: &[FileResults], query: &Query, found: usize, long_lines: usize) -> String {
    if results.is_empty() {
        return "No matches found.".to_string();
    }
    let mut out = String::new();
    let mut shown_matches = 0;
    let mut cut_by_bytes = false;
    let mut lossy_names = Vec::new();
    'files: for (index, (path, lines, _, lossy)) in results.iter().enumerate() {
        if query.context > 0 && index > 0 {
            out.push_str("--\n");
        }
        if *lossy {
            lossy_names.push(path.as_str());
        }
        for line in lines {
            let rendered = match line {
                Line::Match(number, text) => {
                    if shown_matches == query.limit {
                        break 'files;
                    }
                    shown_matches += 1;
                    format!("{path}:{number}: {text}\n")
                }
                Line::Context(number, text) => format!("{path}-{number}- {text}\n"),
                Line::Break => "--\n".to_string(),
            };
            if out.len() + rendered.len() > MAX_OUTPUT_BYTES {
                if matches!(line, Line::Match(..)) {
                    shown_matches -= 1;
                }
                cut_by_bytes = true;
                break 'files;
            }
            out.push_str(&rendered);
        }
    }
    let out = out.strip_suffix("--\n").unwrap_or(&out);
    let mut text = out.trim_end_matches('\n').to_string();
    let mut notices = Vec::new();
    if cut_by_bytes {
        notices.push(format!(
            "[Output cut at {} KiB after {shown_matches} matches. Narrow the pattern, path or \
             glob, or use less context.]",
            MAX_OUTPUT_BYTES / 1024
        ));
    } else if found >= query.limit && shown_matches == query.limit {
        notices.push(format!(
            "[Showing the first {} matches (limit={}); there may be more. Use a larger limit, or \
             narrow the pattern, path or glob.]",
            query.limit, query.limit
        ));
    }
    if long_lines > 0 {
        notices.push(format!(
            "[Lines longer than {MAX_LINE_CHARS} characters were cut (ending in …). Use read \
             with offset to see them in full.]"
        ));
    }
    if !lossy_names.is_empty() {
        // Marked here rather than on every `path:line:` line, which stay easy to read apart.
        let listed: Vec<String> = lossy_names
            .iter()
            .take(10)
            .map(|name| format!("{name}{}", names::NOT_UTF8_MARKER))
            .collect();
        notices.push(format!(
            "[File names not valid UTF-8, shown with \u{FFFD} for the bytes that are not: {}{}. \
             read, edit and write accept them as shown.]",
            listed.join(", "),
            if lossy_names.len() > 10 { ", …" } else { "" }
        ));
    }
    if !notices.is_empty() {
        text.push_str("\n\n");
        text.push_str(&notices.join("\n"));
    }
    text
}

/// Collects one file's matched and context lines.
struct Collector<'a> {
    lines: Vec<Line>,
    matches: usize,
    long_lines: usize,
    limit: usize,
    matches_found: &'a AtomicUsize,
}

impl Collector<'_> {
    fn text(&mut self, bytes: &[u8]) -> String {
        let line = String::from_utf8_lossy(bytes);
        let line = line.trim_end_matches(['\n', '\r']);
        match cut_line(line, MAX_LINE_CHARS) {
            Some(cut) => {
                self.long_lines += 1;
                format!("{cut}…")
            }
            None => line.to_string(),
        }
    }
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _searcher: &Searcher,
        found: &SinkMatch<'_>,
    ) -> Result<bool, Self::Error> {
        let text = self.text(found.bytes());
        self.lines
            .push(Line::Match(found.line_number().unwrap_or(0), text));
        self.matches += 1;
        // Past the limit the rest of this file is not needed (other threads stop at their next file).
        Ok(self.matches_found.fetch_add(1, Ordering::Relaxed) + 1 < self.limit)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        context: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        let text = self.text(context.bytes());
        self.lines
            .push(Line::Context(context.line_number().unwrap_or(0), text));
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, Self::Error> {
        self.lines.push(Line::Break);
        Ok(true)
    }
}
