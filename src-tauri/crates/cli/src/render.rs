//! Agent events as terminal text: streamed answers, each tool call with its arguments and a short
//! result, live `bash` output, and tokens and cost after each turn. Colour only when asked for
//! (a terminal); otherwise plain text with no ANSI codes.

use std::io::Write;

use arbor_protocol::{AgentEvent, RunStatus};
use arbor_protocol::{AssistantEvent, JsonObject, Usage, UserContent};

/// ANSI styling that collapses to nothing when colour is off.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
    pub fn red(&self, text: &str) -> String {
        self.paint("31", text)
    }
    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }
    pub fn cyan(&self, text: &str) -> String {
        self.paint("36", text)
    }
}

/// Turns events into text on `out`, keeping track of where the cursor is so blocks start on
/// their own line.
pub struct Renderer {
    style: Style,
    show_thinking: bool,
    at_line_start: bool,
    in_thinking: bool,
}

impl Renderer {
    pub fn new(style: Style) -> Self {
        Self {
            style,
            show_thinking: true,
            at_line_start: true,
            in_thinking: false,
        }
    }

    /// Whether the next text starts a new line (a status line may be drawn there).
    pub fn at_line_start(&self) -> bool {
        self.at_line_start
    }

    fn write(&mut self, out: &mut dyn Write, text: &str) -> std::io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        out.write_all(text.as_bytes())?;
        self.at_line_start = text.ends_with('\n');
        Ok(())
    }

    fn new_line(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if !self.at_line_start {
            self.write(out, "\n")?;
        }
        Ok(())
    }

    pub fn render(&mut self, event: &AgentEvent, out: &mut dyn Write) -> std::io::Result<()> {
        let style = self.style;
        match event {
            AgentEvent::MessageUpdate { delta } => match delta {
                AssistantEvent::ThinkingStart { .. } if self.show_thinking => {
                    self.new_line(out)?;
                    self.in_thinking = true;
                }
                AssistantEvent::ThinkingDelta { delta, .. } if self.show_thinking => {
                    let text = style.dim(delta);
                    self.write(out, &text)?;
                }
                AssistantEvent::ThinkingEnd { .. } if self.in_thinking => {
                    self.in_thinking = false;
                    self.new_line(out)?;
                }
                AssistantEvent::TextDelta { delta, .. } => self.write(out, delta)?,
                _ => {}
            },
            AgentEvent::ToolExecutionStart {
                tool_name, args, ..
            } => {
                self.new_line(out)?;
                let line = format!(
                    "{} {}\n",
                    style.cyan(&format!("● {tool_name}")),
                    summarize_args(tool_name, args)
                );
                self.write(out, &line)?;
            }
            AgentEvent::ToolExecutionUpdate { output, .. } => {
                let text = style.dim(output);
                self.write(out, &text)?;
            }
            AgentEvent::ToolExecutionEnd {
                result, is_error, ..
            } => {
                self.new_line(out)?;
                let summary = summarize_result(&result.content);
                let line = if *is_error {
                    format!("  {} {}\n", style.red("✗"), style.red(&summary))
                } else {
                    format!("  {} {}\n", style.green("✓"), style.dim(&summary))
                };
                self.write(out, &line)?;
            }
            AgentEvent::TurnEnd { message, .. } => {
                self.new_line(out)?;
                if message.usage.total_tokens() > 0 {
                    let line = format!("{}\n", style.dim(&usage_line(&message.usage)));
                    self.write(out, &line)?;
                }
            }
            AgentEvent::AgentEnd { status, error, .. } => {
                self.new_line(out)?;
                match (status, error) {
                    (RunStatus::Aborted, _) => {
                        let line = format!("{}\n", style.dim("(aborted)"));
                        self.write(out, &line)?;
                    }
                    (_, Some(error)) => {
                        let line = format!(
                            "{}\n",
                            style.red(&format!("error ({}): {error}", error.class()))
                        );
                        self.write(out, &line)?;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        out.flush()
    }
}

/// One line of the arguments that matter: the path, the command, the pattern… not the content.
pub fn summarize_args(tool: &str, args: &JsonObject) -> String {
    let get = |key: &str| {
        args.get(key)
            .and_then(|value| value.as_str())
            .unwrap_or_default()
    };
    let text = match tool {
        "bash" => get("command").to_owned(),
        "read" | "write" | "edit" | "ls" => {
            let path = get("path");
            if path.is_empty() {
                ".".to_owned()
            } else {
                path.to_owned()
            }
        }
        "grep" | "find" => {
            let path = get("path");
            if path.is_empty() {
                get("pattern").to_owned()
            } else {
                format!("{} in {path}", get("pattern"))
            }
        }
        _ => serde_json::Value::Object(args.clone()).to_string(),
    };
    first_line_clipped(&text, 120)
}

/// The first line of a result, or how many lines it has when it has several.
pub fn summarize_result(content: &[UserContent]) -> String {
    let text: String = content
        .iter()
        .map(|part| match part {
            UserContent::Text(text) => text.text.clone(),
            UserContent::Image(image) => format!("[image {}]", image.mime_type),
        })
        .collect();
    let lines = text.lines().count();
    match lines {
        0 => "done".to_owned(),
        1 => first_line_clipped(&text, 120),
        n => format!("{} … ({n} lines)", first_line_clipped(&text, 80)),
    }
}

fn first_line_clipped(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_owned()
    }
}

pub fn usage_line(usage: &Usage) -> String {
    let mut line = format!("tokens: {} in, {} out", usage.input, usage.output);
    if usage.cache_read > 0 || usage.cache_write > 0 {
        line.push_str(&format!(
            ", {} cache read, {} cache write",
            usage.cache_read, usage.cache_write
        ));
    }
    if usage.cost.total > 0.0 {
        line.push_str(&format!(" · ${:.4}", usage.cost.total));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::TextContent;
    use serde_json::json;

    fn args(value: serde_json::Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn tool_lines_show_what_matters() {
        assert_eq!(
            summarize_args("bash", &args(json!({"command": "cargo test\n--all"}))),
            "cargo test"
        );
        assert_eq!(
            summarize_args("read", &args(json!({"path": "src/a.rs", "offset": 3}))),
            "src/a.rs"
        );
        assert_eq!(
            summarize_args("grep", &args(json!({"pattern": "fn main", "path": "src"}))),
            "fn main in src"
        );
        assert_eq!(summarize_args("ls", &args(json!({}))), ".");
        assert_eq!(
            summarize_args("custom", &args(json!({"x": 1}))),
            "{\"x\":1}"
        );
    }

    #[test]
    fn results_are_one_short_line() {
        let one = [UserContent::Text(TextContent::new("Wrote 12 bytes"))];
        assert_eq!(summarize_result(&one), "Wrote 12 bytes");
        let many = [UserContent::Text(TextContent::new("a\nb\nc"))];
        assert_eq!(summarize_result(&many), "a … (3 lines)");
        assert_eq!(summarize_result(&[]), "done");
    }

    #[test]
    fn plain_output_has_no_ansi_codes() {
        let mut renderer = Renderer::new(Style { color: false });
        let mut out = Vec::new();
        let event = AgentEvent::ToolExecutionStart {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            args: args(json!({"command": "ls"})),
        };
        renderer.render(&event, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "● bash ls\n");
        assert!(!text.contains('\x1b'));
        let mut colored = Renderer::new(Style { color: true });
        let mut out = Vec::new();
        colored.render(&event, &mut out).unwrap();
        assert!(String::from_utf8(out).unwrap().contains("\x1b[36m"));
    }

    #[test]
    fn usage_line_includes_cache_and_cost() {
        let mut usage = Usage {
            input: 10,
            output: 5,
            cache_read: 100,
            ..Default::default()
        };
        usage.cost.total = 0.0123;
        assert_eq!(
            usage_line(&usage),
            "tokens: 10 in, 5 out, 100 cache read, 0 cache write · $0.0123"
        );
    }
}
