//! `todo {todos}`: the model's checklist for the task at hand — the whole list on every call,
//! the shape Claude Code's TodoWrite and Codex's `update_plan` use.
//!
//! The tool keeps no state: the list lives in the call's arguments, which are stored with the
//! turn like every tool call, so the chat pins the last list of the shown branch and each tree
//! node knows the list it set. It touches no file and needs no permission (it is allowed in the
//! read-only mode plan mode runs in).

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::args::{parse_arguments, spec};

/// More items than a checklist anyone reads; the model is told to split the work instead.
pub const MAX_TODOS: usize = 100;
/// One item is one line of a checklist.
pub const MAX_TODO_CHARS: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Done,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

#[derive(Debug, Deserialize)]
struct TodoArguments {
    todos: Vec<TodoItem>,
}

pub struct TodoTool {
    spec: ToolSpec,
}

impl Default for TodoTool {
    fn default() -> Self {
        Self::new()
    }
}

impl TodoTool {
    pub fn new() -> Self {
        let spec = spec(
            "todo",
            "Keep a checklist of the task's steps, shown to the user above the chat. Send the \
             whole list every time (it replaces the previous one). Use it for work of three or \
             more steps: write the steps first, mark one `in_progress` when you start it and \
             `done` as soon as it is finished.",
            json!({
                "type": "object",
                "properties": {
                    "todos": {
                        "type": "array",
                        "maxItems": MAX_TODOS,
                        "description": "The whole checklist, in order.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {
                                    "type": "string",
                                    "description": "One step, in a short imperative sentence."
                                },
                                "status": {
                                    "type": "string",
                                    "enum": ["pending", "in_progress", "done"]
                                }
                            },
                            "required": ["content", "status"]
                        }
                    }
                },
                "required": ["todos"]
            }),
        );
        Self { spec }
    }
}

/// The checked list, or what is wrong with it in words the model can act on.
pub fn check_todos(todos: &[TodoItem]) -> Result<(), String> {
    if todos.len() > MAX_TODOS {
        return Err(format!(
            "The list has {} items; at most {MAX_TODOS} fit. Group the steps into fewer items.",
            todos.len()
        ));
    }
    for (index, item) in todos.iter().enumerate() {
        let content = item.content.trim();
        if content.is_empty() {
            return Err(format!(
                "Item {} has no text: say what the step is.",
                index + 1
            ));
        }
        if content.chars().count() > MAX_TODO_CHARS {
            return Err(format!(
                "Item {} is longer than {MAX_TODO_CHARS} characters: keep each step to one line.",
                index + 1
            ));
        }
    }
    Ok(())
}

/// What the model reads back: the counts and the list as it now stands.
fn summary(todos: &[TodoItem]) -> String {
    if todos.is_empty() {
        return "The checklist is empty.".to_owned();
    }
    let done = todos
        .iter()
        .filter(|item| item.status == TodoStatus::Done)
        .count();
    let mut text = format!("Checklist updated: {done} of {} done.\n", todos.len());
    for item in todos {
        let mark = match item.status {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[~]",
            TodoStatus::Done => "[x]",
        };
        text.push_str(&format!("{mark} {}\n", item.content.trim()));
    }
    text
}

#[async_trait::async_trait]
impl AgentTool for TodoTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        _context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments: TodoArguments = parse_arguments(arguments)?;
        check_todos(&arguments.todos).map_err(ToolError::respond)?;
        let done = arguments
            .todos
            .iter()
            .filter(|item| item.status == TodoStatus::Done)
            .count();
        Ok(
            ToolOutput::text(summary(&arguments.todos)).with_details(json!({
                "done": done,
                "total": arguments.todos.len(),
            })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: serde_json::Value) -> Result<ToolOutput, ToolError> {
        let serde_json::Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(TodoTool::new().execute(arguments, ToolContext::detached("call-1")))
    }

    fn text(output: &ToolOutput) -> String {
        match &output.content[0] {
            arbor_llm::UserContent::Text(text) => text.text.clone(),
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn the_list_comes_back_with_its_counts() {
        let output = call(json!({"todos": [
            {"content": "Read the parser", "status": "done"},
            {"content": "Fix the bug", "status": "in_progress"},
            {"content": "Run the tests", "status": "pending"},
        ]}))
        .unwrap();
        let text = text(&output);
        assert!(
            text.starts_with("Checklist updated: 1 of 3 done."),
            "{text}"
        );
        assert!(text.contains("[x] Read the parser"));
        assert!(text.contains("[~] Fix the bug"));
        assert!(text.contains("[ ] Run the tests"));
        assert_eq!(output.details, Some(json!({"done": 1, "total": 3})));
    }

    #[test]
    fn bad_lists_are_refused_with_what_to_do() {
        let empty_item = call(json!({"todos": [{"content": "  ", "status": "pending"}]}));
        let message = empty_item.err().unwrap().to_string();
        assert!(message.contains("Item 1 has no text"), "{message}");

        let unknown = call(json!({"todos": [{"content": "x", "status": "finished"}]}));
        let message = unknown.err().unwrap().to_string();
        assert!(message.contains("todos[0].status"), "{message}");

        let many: Vec<_> = (0..=MAX_TODOS)
            .map(|i| json!({"content": format!("step {i}"), "status": "pending"}))
            .collect();
        let message = call(json!({ "todos": many })).err().unwrap().to_string();
        assert!(message.contains("at most 100"), "{message}");

        let long = "x".repeat(MAX_TODO_CHARS + 1);
        let message = call(json!({"todos": [{"content": long, "status": "done"}]}))
            .err()
            .unwrap()
            .to_string();
        assert!(message.contains("one line"), "{message}");
    }

    #[test]
    fn an_empty_list_clears_the_checklist() {
        let output = call(json!({"todos": []})).unwrap();
        assert_eq!(text(&output), "The checklist is empty.");
    }
}
