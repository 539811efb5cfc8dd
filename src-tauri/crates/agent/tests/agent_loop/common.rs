//! Shared test helpers: a model pointed at the mock provider, an agent, small fake tools, and
//! event collection.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbor_agent::{
    Agent, AgentEvent, AgentMessage, AgentOptions, AgentTool, ToolContext, ToolError,
    ToolExecution, ToolOutput,
};
use arbor_llm::{
    Api, JsonObject, LlmClient, Model, RequestOptions, RetryPolicy, Tool as ToolSpec,
    ToolResultMessage, UserContent,
};
use arbor_test_support::{MockProvider, Script, WireApi};
use serde_json::{json, Value};
use tokio::sync::mpsc;

pub fn api(wire: WireApi) -> Api {
    match wire {
        WireApi::OpenAiCompletions => Api::OpenAiCompletions,
        WireApi::OpenAiResponses => Api::OpenAiResponses,
        WireApi::AnthropicMessages => Api::AnthropicMessages,
        WireApi::GoogleGenerativeAi => Api::GoogleGenerativeAi,
    }
}

pub fn model(mock: &MockProvider, wire: WireApi) -> Model {
    Model {
        id: "mock-model".into(),
        provider: "mock".into(),
        api: api(wire),
        base_url: mock.url_for(wire),
        reasoning: false,
        images: true,
        context_window: 128_000,
        max_output_tokens: 4_096,
        pricing: Default::default(),
        compat: Default::default(),
    }
}

/// A running mock, an agent pointed at it, and the agent's event stream.
pub struct Harness {
    pub mock: MockProvider,
    pub agent: Agent,
    pub events: mpsc::UnboundedReceiver<AgentEvent>,
    pub log: CallLog,
}

impl Harness {
    pub async fn start(wire: WireApi, script: impl Into<Script>) -> Self {
        Self::with_mode(wire, script, ToolExecution::Parallel).await
    }

    pub async fn with_mode(wire: WireApi, script: impl Into<Script>, mode: ToolExecution) -> Self {
        let mock = MockProvider::start(script).await.unwrap();
        let log = CallLog::default();
        let client = LlmClient::new().unwrap().with_retry_policy(RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        });
        let options = AgentOptions::new(model(&mock, wire))
            .system_prompt("You are a test agent.")
            .tools(test_tools(&log))
            .tool_execution(mode)
            .abort_grace(Duration::from_millis(500))
            .request_options(RequestOptions {
                api_key: Some("test-key".into()),
                ..RequestOptions::default()
            });
        let agent = Agent::new(client, options);
        let events = agent.events();
        Self {
            mock,
            agent,
            events,
            log,
        }
    }

    /// Every event received so far.
    pub fn drain_events(&mut self) -> Vec<AgentEvent> {
        let mut events = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            events.push(event);
        }
        events
    }

    /// The JSON body of the `index`-th model request.
    pub fn request_body(&self, index: usize) -> String {
        self.mock.requests()[index].body_text.clone()
    }
}

/// The `type` of every event, with `message_update`s folded into one entry per run of them.
pub fn event_kinds(events: &[AgentEvent]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for event in events {
        let kind = match event {
            AgentEvent::MessageStart { message } | AgentEvent::MessageEnd { message } => {
                format!("{} {}", event.kind(), message.role())
            }
            AgentEvent::ToolExecutionStart { tool_name, .. }
            | AgentEvent::ToolExecutionUpdate { tool_name, .. }
            | AgentEvent::ToolExecutionEnd { tool_name, .. } => {
                format!("{} {tool_name}", event.kind())
            }
            other => other.kind().to_string(),
        };
        if kind == "message_update" && kinds.last().is_some_and(|k| k == "message_update*") {
            continue;
        }
        kinds.push(if kind == "message_update" {
            "message_update*".into()
        } else {
            kind
        });
    }
    kinds
}

/// The tool results in a message list, in order.
pub fn tool_results(messages: &[AgentMessage]) -> Vec<ToolResultMessage> {
    messages
        .iter()
        .filter_map(|m| m.as_tool_result().cloned())
        .collect()
}

pub fn text_of(result: &ToolResultMessage) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            UserContent::Text(text) => Some(text.text.as_str()),
            UserContent::Image(_) => None,
        })
        .collect()
}

pub fn roles(messages: &[AgentMessage]) -> Vec<&'static str> {
    messages.iter().map(AgentMessage::role).collect()
}

/// Checks the invariant every run must leave: each tool call has exactly one result, right
/// after its assistant message.
pub fn assert_every_call_answered(messages: &[AgentMessage]) {
    let mut index = 0;
    while index < messages.len() {
        if let Some(assistant) = messages[index].as_assistant() {
            let calls: Vec<&str> = assistant.tool_calls().map(|c| c.id.as_str()).collect();
            let results: Vec<&str> = messages[index + 1..]
                .iter()
                .take_while(|m| m.as_tool_result().is_some())
                .filter_map(|m| m.as_tool_result().map(|r| r.tool_call_id.as_str()))
                .collect();
            assert_eq!(calls, results, "calls and results after message {index}");
            index += 1 + results.len();
        } else {
            index += 1;
        }
    }
}

/// What the tools were called with, and the order they finished in.
#[derive(Clone, Default)]
pub struct CallLog(Arc<Mutex<Vec<String>>>);

impl CallLog {
    pub fn push(&self, entry: String) {
        self.0.lock().unwrap().push(entry);
    }

    pub fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

fn spec(name: &str, parameters: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("the {name} test tool"),
        parameters,
    }
}

pub fn test_tools(log: &CallLog) -> Vec<Arc<dyn AgentTool>> {
    vec![
        Arc::new(Echo(spec(
            "echo",
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ))),
        Arc::new(Add(
            spec(
                "add",
                json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "verbose": {"type": "boolean"}}, "required": ["a", "b"]}),
            ),
            log.clone(),
        )),
        Arc::new(Sleep(
            spec(
                "sleep",
                json!({"type": "object", "properties": {"ms": {"type": "integer"}, "label": {"type": "string"}}, "required": ["ms", "label"]}),
            ),
            log.clone(),
        )),
        Arc::new(Fail(spec("fail", json!({"type": "object"})))),
        Arc::new(Panics(spec("panic", json!({"type": "object"})))),
        Arc::new(Configure(spec(
            "configure",
            json!({"type": "object", "properties": {"options": {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"]}}, "required": ["options"]}),
        ))),
        Arc::new(Stubborn(
            spec("stubborn", json!({"type": "object"})),
            log.clone(),
        )),
    ]
}

struct Echo(ToolSpec);

#[async_trait::async_trait]
impl AgentTool for Echo {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, args: JsonObject, _: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "echo: {}",
            args["text"].as_str().unwrap()
        )))
    }
}

/// Deserializes into real integers, so it fails unless coercion happened.
struct Add(ToolSpec, CallLog);

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
    #[serde(default)]
    verbose: bool,
}

#[async_trait::async_trait]
impl AgentTool for Add {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, args: JsonObject, _: ToolContext) -> Result<ToolOutput, ToolError> {
        self.1.push(format!("add {}", Value::Object(args.clone())));
        let args: AddArgs = serde_json::from_value(Value::Object(args))
            .map_err(|e| ToolError::respond(format!("bad arguments: {e}")))?;
        let sum = args.a + args.b;
        Ok(ToolOutput::text(if args.verbose {
            format!("{} + {} = {sum}", args.a, args.b)
        } else {
            sum.to_string()
        }))
    }
}

/// Sleeps `ms` (stopping early, as `Aborted`, when cancelled) and logs when it finishes.
struct Sleep(ToolSpec, CallLog);

#[async_trait::async_trait]
impl AgentTool for Sleep {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, args: JsonObject, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let label = args["label"].as_str().unwrap().to_string();
        let ms = args["ms"].as_u64().unwrap();
        ctx.update(format!("{label} started\n"));
        self.1.push(format!("start {label}"));
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
            _ = ctx.cancel.cancelled() => {
                self.1.push(format!("cancelled {label}"));
                return Err(ToolError::Aborted);
            }
        }
        self.1.push(format!("done {label}"));
        Ok(ToolOutput::text(format!("{label} slept {ms} ms")).with_details(json!({"ms": ms})))
    }
}

struct Fail(ToolSpec);

#[async_trait::async_trait]
impl AgentTool for Fail {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, _: JsonObject, _: ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::respond_with_details(
            "disk on fire",
            json!({"code": 7}),
        ))
    }
}

struct Panics(ToolSpec);

#[async_trait::async_trait]
impl AgentTool for Panics {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, _: JsonObject, _: ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("tool bug");
    }
}

struct Configure(ToolSpec);

#[async_trait::async_trait]
impl AgentTool for Configure {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, args: JsonObject, _: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(Value::Object(args).to_string()))
    }
}

/// Ignores cancellation entirely (for the abort grace period).
struct Stubborn(ToolSpec, CallLog);

#[async_trait::async_trait]
impl AgentTool for Stubborn {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn execute(&self, _: JsonObject, _: ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_secs(60)).await;
        self.1.push("stubborn finished".into());
        Ok(ToolOutput::text("finally"))
    }
}
