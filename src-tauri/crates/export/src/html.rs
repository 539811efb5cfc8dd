//! The self-contained HTML export: inline CSS and JS only, no external URL.

use std::fmt::Write as _;

use super::render::{cap, children, short_line, view, Block};
use super::Loaded;

/// A tool result keeps at most this many lines in HTML...
const HTML_RESULT_MAX_LINES: usize = 2_000;
/// ...and at most this many characters.
const HTML_RESULT_MAX_CHARS: usize = 100_000;

/// Escapes text for HTML element content and quoted attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root{--bg:#fdfdfc;--fg:#1d1f21;--muted:#6b7280;--line:#e5e7eb;--user:#eef4ff;--tool:#f6f6f4;--err:#fdecec;--sum:#fff8e1}
@media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e6e6e6;--muted:#9aa0a6;--line:#2c3036;--user:#1d2634;--tool:#1e2023;--err:#3a1f1f;--sum:#2f2a1a}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;display:flex;min-height:100vh}
nav{width:320px;flex:none;border-right:1px solid var(--line);padding:12px;overflow:auto;max-height:100vh;position:sticky;top:0;font-size:13px}
main{flex:1;min-width:0;padding:16px 28px;max-width:980px}
h1{font-size:20px;margin:0 0 4px}
.meta{color:var(--muted);font-size:13px;margin-bottom:16px}
.msg{display:none;border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:10px 0}
.msg.on{display:block}
.msg h2{font-size:14px;margin:0 0 6px;color:var(--muted)}
.msg.user{background:var(--user)}
.msg.tool_result{background:var(--tool)}
.msg.compaction,.msg.branch_summary{background:var(--sum)}
.msg.aborted{border-style:dashed}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--tool);border:1px solid var(--line);border-radius:6px;padding:8px;margin:6px 0;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre.error{background:var(--err)}
details{margin:6px 0}
summary{cursor:pointer;color:var(--muted)}
blockquote{margin:6px 0;padding:2px 10px;border-left:3px solid var(--line);color:var(--muted);white-space:pre-wrap}
.note{color:var(--muted);font-style:italic;font-size:13px}
nav ul{list-style:none;margin:0;padding-left:0}
nav li.fork>ul{padding-left:12px;border-left:1px dashed var(--line);margin-left:4px}
nav a{display:block;color:inherit;text-decoration:none;padding:1px 4px;border-radius:4px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
nav a:hover{background:var(--line)}
nav a.path{font-weight:600}
nav a.sel{outline:1px solid var(--muted)}
nav a.leaf::after{content:" ● leaf";color:#2e7d32;font-weight:600}
nav .kind{color:var(--muted)}
"#;

const SCRIPT: &str = r#"
(function(){
  function show(n){
    var on={};
    var a=document.getElementById('m-'+n);
    while(a){on[a.id]=true;var p=a.getAttribute('data-parent');a=p?document.getElementById(p):null;}
    var msgs=document.querySelectorAll('article.msg');
    for(var i=0;i<msgs.length;i++){msgs[i].classList.toggle('on',!!on[msgs[i].id]);}
    var items=document.querySelectorAll('nav a[data-n]');
    for(var j=0;j<items.length;j++){
      var k=items[j].getAttribute('data-n');
      items[j].classList.toggle('path',!!on['m-'+k]);
      items[j].classList.toggle('sel',k===String(n));
    }
    var t=document.getElementById('m-'+n);if(t){t.scrollIntoView({block:'nearest'});}
  }
  document.addEventListener('click',function(e){
    var a=e.target.closest?e.target.closest('nav a[data-n]'):null;
    if(a){e.preventDefault();show(a.getAttribute('data-n'));}
  });
})();
"#;

fn blocks(out: &mut String, bs: &[Block]) {
    for b in bs {
        match b {
            Block::Text(t) if t.trim().is_empty() => {}
            Block::Text(t) => {
                let _ = writeln!(out, "<div class=\"text\">{}</div>", escape(t.trim_end()));
            }
            Block::Thinking(t) => {
                let _ = writeln!(
                    out,
                    "<details class=\"thinking\"><summary>Thinking</summary><blockquote>{}</blockquote></details>",
                    escape(t)
                );
            }
            Block::ToolCall { name, arguments } => {
                let _ = writeln!(
                    out,
                    "<details class=\"tool-call\"><summary>Tool call: <code>{}</code></summary><pre>{}</pre></details>",
                    escape(name),
                    escape(arguments)
                );
            }
            Block::ToolOutput { text, is_error } => {
                let (kept, note) = cap(text, HTML_RESULT_MAX_LINES, HTML_RESULT_MAX_CHARS);
                let lines = text.lines().count();
                let _ = write!(
                    out,
                    "<details class=\"tool-result\"{}><summary>{} ({lines} line{})</summary><pre{}>{}</pre>",
                    if *is_error { " open" } else { "" },
                    if *is_error { "Error output" } else { "Output" },
                    if lines == 1 { "" } else { "s" },
                    if *is_error { " class=\"error\"" } else { "" },
                    escape(&kept)
                );
                if let Some(note) = note {
                    let _ = write!(out, "<div class=\"note\">({})</div>", escape(&note));
                }
                out.push_str("</details>\n");
            }
            Block::Image { mime_type } => {
                let _ = writeln!(
                    out,
                    "<div class=\"note\">[image: {}]</div>",
                    escape(mime_type)
                );
            }
            Block::Summary(s) => {
                let _ = writeln!(
                    out,
                    "<div class=\"note\">Summary of earlier messages:</div><blockquote>{}</blockquote>",
                    escape(s)
                );
            }
            Block::Note(t) => {
                let _ = writeln!(out, "<div class=\"note\">({})</div>", escape(t));
            }
            Block::Raw(j) => {
                let _ = writeln!(out, "<pre>{}</pre>", escape(j));
            }
        }
    }
}

enum Work {
    Text(&'static str),
    Chain(usize),
}

pub(super) fn write(loaded: &Loaded) -> String {
    let s = &loaded.session;
    let index: std::collections::HashMap<&str, usize> = loaded
        .nodes
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.id.as_str(), i))
        .collect();
    let parent_of = |i: usize| {
        loaded.nodes[i]
            .0
            .parent_id
            .as_deref()
            .and_then(|p| index.get(p).copied())
    };
    let leaf = s.leaf_id.as_deref().and_then(|l| index.get(l).copied());
    let mut on_path = vec![false; loaded.nodes.len()];
    let mut at = leaf;
    while let Some(i) = at {
        on_path[i] = true;
        at = parent_of(i);
    }
    let title = if s.title.trim().is_empty() {
        "Untitled session".to_string()
    } else {
        s.title.trim().to_string()
    };

    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&title)
    );

    // The tree.
    out.push_str("<nav aria-label=\"Session tree\">\n<div class=\"meta\">Tree — click a node to show its branch</div>\n<ul>\n");
    let (roots, kids) = children(&loaded.nodes);
    let mut stack: Vec<Work> = Vec::new();
    let push_fork = |stack: &mut Vec<Work>, items: &[usize]| {
        for &c in items.iter().rev() {
            stack.push(Work::Text("</ul></li>\n"));
            stack.push(Work::Chain(c));
            stack.push(Work::Text("<li class=\"fork\"><ul>\n"));
        }
    };
    if let [only] = roots.as_slice() {
        stack.push(Work::Chain(*only));
    } else {
        push_fork(&mut stack, &roots);
    }
    while let Some(w) = stack.pop() {
        let mut at = match w {
            Work::Text(t) => {
                out.push_str(t);
                continue;
            }
            Work::Chain(c) => c,
        };
        loop {
            let (n, label) = &loaded.nodes[at];
            let mut classes = Vec::new();
            if on_path[at] {
                classes.push("path");
            }
            if Some(at) == leaf {
                classes.push("leaf");
            }
            let line = short_line(n, 80);
            let label = label
                .as_deref()
                .map(|l| format!(" [{}]", escape(l)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<li><a href=\"#m-{at}\" data-n=\"{at}\" class=\"{}\" title=\"{}\"><span class=\"kind\">{}</span> {}{label}</a></li>",
                classes.join(" "),
                escape(&n.id),
                escape(n.kind.as_str()),
                escape(&line)
            );
            match kids[at].as_slice() {
                [] => break,
                [only] => at = *only,
                many => {
                    push_fork(&mut stack, many);
                    break;
                }
            }
        }
    }
    out.push_str("</ul>\n</nav>\n<main>\n");

    // The conversation: every node, those on the current branch shown.
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let mut meta = vec![format!("Project: {}", escape(&loaded.project_root))];
    if let Some(m) = &s.model {
        meta.push(format!("Model: {}", escape(m)));
    }
    if let Some(t) = &s.thinking_level {
        meta.push(format!("Thinking level: {}", escape(t)));
    }
    meta.push(format!("{} nodes", loaded.nodes.len()));
    let _ = writeln!(out, "<div class=\"meta\">{}</div>", meta.join(" · "));
    for (i, (n, label)) in loaded.nodes.iter().enumerate() {
        let v = view(n, label.as_deref());
        let parent = parent_of(i)
            .map(|p| format!(" data-parent=\"m-{p}\""))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<article class=\"msg {}{}{}\" id=\"m-{i}\"{parent} data-id=\"{}\">\n<h2>{}</h2>",
            v.class,
            if on_path[i] { " on" } else { "" },
            if n.aborted { " aborted" } else { "" },
            escape(&n.id),
            escape(&v.title)
        );
        blocks(&mut out, &v.blocks);
        out.push_str("</article>\n");
    }
    let _ = write!(
        out,
        "</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}
