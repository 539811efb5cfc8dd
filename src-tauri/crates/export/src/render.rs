//! What a node shows, independent of the output format: a title and a list of blocks read from
//! the node's content (a serialized `AgentMessage` for messages, `{summary, ...}` for
//! summaries). Unknown shapes fall back to the node's text, then to its raw JSON.

use arbor_store::{Node, NodeKind};
use serde_json::Value;

/// One piece of a rendered node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Text(String),
    Thinking(String),
    ToolCall {
        name: String,
        arguments: String,
    },
    ToolOutput {
        text: String,
        is_error: bool,
    },
    Image {
        mime_type: String,
    },
    /// A compaction or branch summary.
    Summary(String),
    /// A short remark (stop reason, error message, tokens before compaction...).
    Note(String),
    /// Content of an unknown shape, pretty-printed.
    Raw(String),
}

/// A node ready to be written out.
#[derive(Debug, Clone)]
pub(crate) struct View {
    pub title: String,
    /// A CSS-friendly class: `user`, `assistant`, `tool_result`, `compaction`, ...
    pub class: &'static str,
    pub blocks: Vec<Block>,
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Text and image blocks of a user or tool-result `content` array.
fn user_blocks(content: &Value, as_output: Option<bool>) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut text = String::new();
    for item in content.as_array().into_iter().flatten() {
        match str_of(item, "type") {
            Some("text") => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(str_of(item, "text").unwrap_or(""));
            }
            Some("image") => blocks.push(Block::Image {
                mime_type: str_of(item, "mime_type").unwrap_or("image").to_string(),
            }),
            _ => blocks.push(Block::Raw(pretty(item))),
        }
    }
    let text_block = match as_output {
        Some(is_error) => Block::ToolOutput { text, is_error },
        None => Block::Text(text),
    };
    blocks.insert(0, text_block);
    blocks
}

fn message_view(node: &Node, c: &Value) -> Option<(String, &'static str, Vec<Block>)> {
    let role = str_of(c, "role")?;
    match role {
        "user" => Some(("User".into(), "user", user_blocks(c.get("content")?, None))),
        "assistant" => {
            let mut blocks = Vec::new();
            for item in c.get("content")?.as_array()? {
                match str_of(item, "type") {
                    Some("text") => {
                        blocks.push(Block::Text(str_of(item, "text").unwrap_or("").into()))
                    }
                    Some("thinking") => {
                        let t = str_of(item, "thinking").unwrap_or("");
                        let redacted = item.get("redacted").and_then(Value::as_bool);
                        blocks.push(Block::Thinking(if t.is_empty() && redacted == Some(true) {
                            "(redacted)".into()
                        } else {
                            t.into()
                        }))
                    }
                    Some("tool_call") => blocks.push(Block::ToolCall {
                        name: str_of(item, "name").unwrap_or("?").into(),
                        arguments: pretty(item.get("arguments").unwrap_or(&Value::Null)),
                    }),
                    _ => blocks.push(Block::Raw(pretty(item))),
                }
            }
            match str_of(c, "stop_reason") {
                Some("error") | Some("aborted") | Some("length") => {
                    let reason = str_of(c, "stop_reason").unwrap_or("");
                    let mut note = format!("stopped: {reason}");
                    if let Some(msg) = str_of(c, "error_message") {
                        note.push_str(&format!(" ({msg})"));
                    }
                    blocks.push(Block::Note(note));
                }
                _ => {}
            }
            let title = match str_of(c, "model") {
                Some(m) if !m.is_empty() => format!("Assistant ({m})"),
                _ => "Assistant".into(),
            };
            Some((title, "assistant", blocks))
        }
        "tool_result" => {
            let is_error = c.get("is_error").and_then(Value::as_bool).unwrap_or(false);
            let name = str_of(c, "tool_name").unwrap_or("?");
            let title = if is_error {
                format!("Tool result: {name} (error)")
            } else {
                format!("Tool result: {name}")
            };
            Some((
                title,
                "tool_result",
                user_blocks(c.get("content")?, Some(is_error)),
            ))
        }
        "custom" => {
            let kind = str_of(c, "kind").unwrap_or("custom");
            let text = if node.text.is_empty() {
                pretty(c.get("data").unwrap_or(&Value::Null))
            } else {
                node.text.clone()
            };
            Some((format!("Note ({kind})"), "custom", vec![Block::Text(text)]))
        }
        _ => None,
    }
}

/// The view of one node.
pub(crate) fn view(node: &Node, label: Option<&str>) -> View {
    // Stored content is valid JSON; only a nesting deeper than serde_json's limit fails, and
    // then the node shows its raw text.
    let content = node
        .content_value()
        .unwrap_or_else(|_| Value::String(node.content.get().to_string()));
    let fallback = |node: &Node| {
        if !node.text.is_empty() {
            vec![Block::Text(node.text.clone())]
        } else if content.is_null() {
            Vec::new()
        } else {
            vec![Block::Raw(pretty(&content))]
        }
    };
    let (mut title, class, blocks) = match node.kind {
        NodeKind::User | NodeKind::Assistant | NodeKind::ToolResult => message_view(node, &content)
            .unwrap_or_else(|| {
                let (t, c) = match node.kind {
                    NodeKind::User => ("User", "user"),
                    NodeKind::Assistant => ("Assistant", "assistant"),
                    _ => ("Tool result", "tool_result"),
                };
                (t.to_string(), c, fallback(node))
            }),
        NodeKind::Compaction | NodeKind::BranchSummary => {
            let summary = str_of(&content, "summary")
                .map(str::to_string)
                .unwrap_or_else(|| node.text.clone());
            let mut blocks = vec![Block::Summary(summary)];
            let (title, class) = if node.kind == NodeKind::Compaction {
                if let Some(t) = node.tokens_before {
                    blocks.push(Block::Note(format!(
                        "compacted {t} tokens of context; the summary stands in for the messages before it"
                    )));
                }
                ("Compaction summary", "compaction")
            } else {
                ("Branch summary", "branch_summary")
            };
            (title.to_string(), class, blocks)
        }
        NodeKind::ModelChange => ("Model change".into(), "change", fallback(node)),
        NodeKind::ThinkingLevelChange => ("Thinking level change".into(), "change", fallback(node)),
        NodeKind::Label => ("Label".into(), "change", fallback(node)),
    };
    if node.aborted {
        title.push_str(" (aborted)");
    }
    if let Some(l) = label {
        title.push_str(&format!(" [{l}]"));
    }
    View {
        title,
        class,
        blocks,
    }
}

/// First non-empty line of the node's text (or its title), cut to `max` characters.
pub(crate) fn short_line(node: &Node, max: usize) -> String {
    let line = node
        .text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut s: String = line.chars().take(max).collect();
    if line.chars().count() > max {
        s.push('…');
    }
    s
}

/// Children of every node (and the roots), in creation order.
pub(crate) fn children(nodes: &[(Node, Option<String>)]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let index: std::collections::HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.id.as_str(), i))
        .collect();
    let mut roots = Vec::new();
    let mut kids = vec![Vec::new(); nodes.len()];
    for (i, (n, _)) in nodes.iter().enumerate() {
        match n.parent_id.as_deref().and_then(|p| index.get(p)) {
            Some(&p) => kids[p].push(i),
            None => roots.push(i),
        }
    }
    (roots, kids)
}

/// Caps `text` at `max_lines` lines and `max_chars` characters; returns the kept part and a note
/// on what was left out.
pub(crate) fn cap(text: &str, max_lines: usize, max_chars: usize) -> (String, Option<String>) {
    let total_lines = text.lines().count();
    let mut kept = String::new();
    let mut lines = 0;
    let mut chars = 0;
    for line in text.lines() {
        let len = line.chars().count();
        if lines == max_lines || chars + len > max_chars {
            break;
        }
        if lines > 0 {
            kept.push('\n');
        }
        kept.push_str(line);
        chars += len + 1;
        lines += 1;
    }
    if lines == 0 && total_lines > 0 {
        // One very long first line: cut it.
        kept = text.chars().take(max_chars).collect();
        if text.chars().count() <= max_chars {
            return (kept, None);
        }
        return (
            kept,
            Some(format!(
                "output cut at {max_chars} characters ({} characters in all)",
                text.chars().count()
            )),
        );
    }
    if lines < total_lines {
        let more = total_lines - lines;
        return (
            kept,
            Some(format!(
                "{more} more line{} not shown ({total_lines} lines in all)",
                if more == 1 { "" } else { "s" }
            )),
        );
    }
    (kept, None)
}
