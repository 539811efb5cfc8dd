//! When MCP tools' schemas would take more than a share of the model's context (one report:
//! 7 servers, 67,000 tokens, a third of the window), the model is offered [`ToolSearch`]
//! instead of them: it finds tools by keywords, and the tools it found are offered from its
//! next step, schema and all. [`schema_tokens`] is the estimate that decides.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use arbor_llm::{JsonObject, Tool as ToolSpec};
use serde_json::{json, Value};

/// The search tool's name.
pub const SEARCH_TOOL: &str = "mcp_tool_search";

/// The default share of the context window MCP schemas may take before search replaces them.
pub const DEFAULT_SHARE_PERCENT: u32 = 10;

/// Tokens a tool's definition costs a request, estimated at four characters a token (the
/// usual rule of thumb for JSON and English; a provider's tokenizer differs by a little).
pub fn spec_tokens(spec: &ToolSpec) -> usize {
    let schema = serde_json::to_string(&spec.parameters).unwrap_or_default();
    (spec.name.len() + spec.description.len() + schema.len()).div_ceil(4)
}

/// Tokens all of `tools`' definitions cost.
pub fn schema_tokens(tools: &[Arc<dyn AgentTool>]) -> usize {
    tools.iter().map(|t| spec_tokens(t.spec())).sum()
}

/// The tools the model found and may now call (by offered name), kept for the session.
#[derive(Clone, Default)]
pub struct LoadedTools(Arc<Mutex<HashSet<String>>>);

impl LoadedTools {
    pub fn contains(&self, name: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(name)
    }

    fn add(&self, names: impl IntoIterator<Item = String>) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(names);
    }
}

/// Searches the MCP tools not offered whole; what it finds is offered from the next step.
pub struct ToolSearch {
    spec: ToolSpec,
    tools: Vec<ToolSpec>,
    loaded: LoadedTools,
    on_load: Arc<dyn Fn() + Send + Sync>,
}

impl ToolSearch {
    /// A search over `tools`; `on_load` offers the tools again once some were found.
    pub fn new(
        tools: Vec<ToolSpec>,
        servers: &[String],
        loaded: LoadedTools,
        on_load: Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        let description = format!(
            "Finds tools of the connected MCP servers ({} tools on {}) by keywords in their names \
             and descriptions. The tools found are offered to you from your next step, with \
             their parameters; call them then. Search before deciding no tool can do a task.",
            tools.len(),
            servers.join(", ")
        );
        Self {
            spec: ToolSpec {
                name: SEARCH_TOOL.into(),
                description,
                parameters: json!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "Keywords, e.g. \"create issue\" or a server's name"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "At most this many tools (default 5)"}
                    },
                    "required": ["query"]
                }),
            },
            tools,
            loaded,
            on_load,
        }
    }

    fn score(tool: &ToolSpec, words: &[String]) -> usize {
        let name = tool.name.to_lowercase();
        let description = tool.description.to_lowercase();
        words
            .iter()
            .map(|w| {
                usize::from(name.contains(w.as_str())) * 3
                    + usize::from(description.contains(w.as_str()))
            })
            .sum()
    }
}

#[async_trait::async_trait]
impl AgentTool for ToolSearch {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        _context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let query = arguments
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let limit = arguments
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(5, |l| l.clamp(1, 20) as usize);
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return Err(ToolError::respond("give some keywords to search for"));
        }
        let mut ranked: Vec<(usize, &ToolSpec)> = self
            .tools
            .iter()
            .map(|t| (Self::score(t, &words), t))
            .filter(|(score, _)| *score > 0)
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        ranked.truncate(limit);
        if ranked.is_empty() {
            return Ok(ToolOutput::text(format!("No MCP tool matches {query:?}.")));
        }
        self.loaded.add(ranked.iter().map(|(_, t)| t.name.clone()));
        (self.on_load)();
        let mut text = String::from("These tools are offered from your next step:\n");
        for (_, tool) in &ranked {
            let first_line = tool.description.lines().next().unwrap_or_default();
            text.push_str(&format!("- {}: {first_line}\n", tool.name));
        }
        Ok(ToolOutput::text(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object"}),
        }
    }

    #[tokio::test]
    async fn found_tools_are_loaded_and_offered_again() {
        let loaded = LoadedTools::default();
        let calls = Arc::new(Mutex::new(0));
        let counter = calls.clone();
        let search = ToolSearch::new(
            vec![
                spec("mcp__gh__create_issue", "Creates an issue"),
                spec("mcp__db__query", "Runs SQL"),
            ],
            &["gh".into(), "db".into()],
            loaded.clone(),
            Arc::new(move || *counter.lock().unwrap() += 1),
        );
        assert!(search.spec().description.contains("2 tools on gh, db"));
        let mut arguments = JsonObject::new();
        arguments.insert("query".into(), json!("create an issue"));
        let found = search
            .execute(arguments, ToolContext::detached("1"))
            .await
            .unwrap();
        assert!(format!("{:?}", found.content).contains("mcp__gh__create_issue"));
        assert!(loaded.contains("mcp__gh__create_issue") && !loaded.contains("mcp__db__query"));
        assert_eq!(*calls.lock().unwrap(), 1);
        let mut nothing = JsonObject::new();
        nothing.insert("query".into(), json!("weather"));
        let none = search
            .execute(nothing, ToolContext::detached("2"))
            .await
            .unwrap();
        assert!(format!("{:?}", none.content).contains("No MCP tool"));
        assert_eq!(
            spec_tokens(&spec("abcd", "efgh")),
            (8 + 17_usize).div_ceil(4)
        );
    }
}
