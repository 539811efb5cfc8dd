//! The Markdown export.

use std::fmt::Write as _;

use super::render::{cap, children, short_line, view, Block};
use super::{ExportScope, Loaded};

/// A tool result keeps at most this many lines in Markdown...
pub const MARKDOWN_RESULT_MAX_LINES: usize = 60;
/// ...and at most this many characters.
pub const MARKDOWN_RESULT_MAX_CHARS: usize = 4_000;

/// A fence longer than any run of backticks in `body`.
fn fence(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn fenced(out: &mut String, lang: &str, body: &str) {
    let f = fence(body);
    let _ = writeln!(out, "{f}{lang}\n{body}\n{f}\n");
}

fn quote(out: &mut String, text: &str) {
    for line in text.lines() {
        if line.is_empty() {
            out.push_str(">\n");
        } else {
            let _ = writeln!(out, "> {line}");
        }
    }
    out.push('\n');
}

fn node(out: &mut String, loaded: &Loaded, i: usize, level: usize) {
    let (n, label) = &loaded.nodes[i];
    let v = view(n, label.as_deref());
    let hashes = "#".repeat(level.min(6));
    let _ = writeln!(out, "{hashes} {}\n", v.title);
    for b in &v.blocks {
        match b {
            Block::Text(t) if t.trim().is_empty() => {}
            Block::Text(t) => {
                out.push_str(t.trim_end());
                out.push_str("\n\n");
            }
            Block::Thinking(t) => {
                out.push_str("> **Thinking**\n>\n");
                quote(out, t);
            }
            Block::ToolCall { name, arguments } => {
                let _ = writeln!(out, "**Tool call: `{name}`**\n");
                fenced(out, "json", arguments);
            }
            Block::ToolOutput { text, is_error } => {
                let (kept, note) = cap(text, MARKDOWN_RESULT_MAX_LINES, MARKDOWN_RESULT_MAX_CHARS);
                if *is_error {
                    out.push_str("**Error:**\n\n");
                }
                fenced(out, "text", &kept);
                if let Some(note) = note {
                    let _ = writeln!(out, "*({note})*\n");
                }
            }
            Block::Image { mime_type } => {
                let _ = writeln!(out, "*[image: {mime_type}]*\n");
            }
            Block::Summary(s) => {
                out.push_str("**Summary of earlier messages:**\n\n");
                quote(out, s);
            }
            Block::Note(t) => {
                let _ = writeln!(out, "*({t})*\n");
            }
            Block::Raw(j) => fenced(out, "json", j),
        }
    }
}

pub(super) fn write(loaded: &Loaded, scope: ExportScope) -> String {
    let s = &loaded.session;
    let mut out = String::new();
    let title = if s.title.trim().is_empty() {
        "Untitled session"
    } else {
        s.title.trim()
    };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(out, "- Project: `{}`", loaded.project_root);
    if let Some(m) = &s.model {
        let _ = writeln!(out, "- Model: {m}");
    }
    if let Some(t) = &s.thinking_level {
        let _ = writeln!(out, "- Thinking level: {t}");
    }
    let _ = writeln!(
        out,
        "- Exported: {}\n",
        match scope {
            ExportScope::CurrentBranch => "current branch",
            ExportScope::WholeTree => "whole tree",
        }
    );
    match scope {
        ExportScope::CurrentBranch => {
            for i in 0..loaded.nodes.len() {
                node(&mut out, loaded, i, 2);
            }
        }
        ExportScope::WholeTree => tree(&mut out, loaded),
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// The whole tree: chains are written in order; at a fork every child opens a nested
/// "Branch" section (numbered by its path, `1.2`), the one holding the leaf marked.
fn tree(out: &mut String, loaded: &Loaded) {
    let (roots, kids) = children(&loaded.nodes);
    let leaf = loaded.session.leaf_id.as_deref();
    // Which nodes are on the current branch.
    let on_branch: std::collections::HashSet<usize> = {
        let index: std::collections::HashMap<&str, usize> = loaded
            .nodes
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.id.as_str(), i))
            .collect();
        let mut set = std::collections::HashSet::new();
        let mut at = leaf.and_then(|l| index.get(l).copied());
        while let Some(i) = at {
            set.insert(i);
            at = loaded.nodes[i]
                .0
                .parent_id
                .as_deref()
                .and_then(|p| index.get(p).copied());
        }
        set
    };
    // (first node of a chain, branch number, depth); depth 0 = no branch heading.
    let mut stack: Vec<(usize, String, usize)> = Vec::new();
    let push_fork =
        |stack: &mut Vec<(usize, String, usize)>, items: &[usize], prefix: &str, depth| {
            for (k, &c) in items.iter().enumerate().rev() {
                let number = if prefix.is_empty() {
                    format!("{}", k + 1)
                } else {
                    format!("{prefix}.{}", k + 1)
                };
                stack.push((c, number, depth));
            }
        };
    if roots.len() == 1 {
        stack.push((roots[0], String::new(), 0));
    } else {
        push_fork(&mut stack, &roots, "", 1);
    }
    while let Some((start, number, depth)) = stack.pop() {
        if depth > 0 {
            let hashes = "#".repeat((depth + 1).min(5));
            let (n, _) = &loaded.nodes[start];
            let current = if on_branch.contains(&start) {
                " (current branch)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{hashes} Branch {number}{current}: {}\n",
                short_line(n, 60)
            );
        }
        let level = depth + 2;
        let mut at = start;
        loop {
            node(out, loaded, at, level);
            if Some(loaded.nodes[at].0.id.as_str()) == leaf {
                out.push_str("*(current leaf)*\n\n");
            }
            match kids[at].as_slice() {
                [] => break,
                [only] => at = *only,
                many => {
                    push_fork(&mut stack, many, &number, depth + 1);
                    break;
                }
            }
        }
    }
}
