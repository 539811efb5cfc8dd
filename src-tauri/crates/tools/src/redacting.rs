//! [`RedactingTool`]: any tool, with every secret the session knows replaced by `[redacted]` in
//! what it reports — live updates, its result (text and details) and its error — before the
//! agent shows, sends or stores any of it.

use std::sync::Arc;

use arbor_agent::{AgentTool, ToolContext, ToolError, ToolOutput, ToolUpdate};
use arbor_llm::{JsonObject, Tool as ToolSpec, UserContent};
use tokio::sync::mpsc;

use arbor_secrets::Redactor;

pub struct RedactingTool {
    inner: Arc<dyn AgentTool>,
    redactor: Redactor,
}

impl RedactingTool {
    pub fn wrap(inner: Arc<dyn AgentTool>, redactor: Redactor) -> Arc<dyn AgentTool> {
        Arc::new(Self { inner, redactor })
    }
}

#[async_trait::async_trait]
impl AgentTool for RedactingTool {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }

    async fn execute(
        &self,
        arguments: JsonObject,
        context: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        // Updates pass through a stream redactor: a key split across two chunks is still
        // caught, and the held-back end is sent before the result.
        let (sender, mut receiver) = mpsc::unbounded_channel::<ToolUpdate>();
        let inner_context = ToolContext::new(
            context.call_id.clone(),
            context.cancel.clone(),
            Some(sender),
        );
        let mut stream = self.redactor.stream();
        let outer = context.clone();
        let forward = async {
            while let Some(update) = receiver.recv().await {
                let shown = stream.push(&update.output);
                if !shown.is_empty() {
                    outer.update(shown);
                }
            }
        };
        // The inner context (and with it the sender) is dropped when `execute` returns, which
        // ends `forward` once every update is through.
        let (result, ()) = tokio::join!(self.inner.execute(arguments, inner_context), forward);
        let rest = stream.finish();
        if !rest.is_empty() {
            context.update(rest);
        }
        match result {
            Ok(mut output) => {
                self.output(&mut output);
                Ok(output)
            }
            Err(ToolError::RespondToModel {
                message,
                mut details,
            }) => {
                if let Some(details) = &mut details {
                    self.redactor.json(details);
                }
                Err(ToolError::RespondToModel {
                    message: self.redactor.text(&message).into_owned(),
                    details,
                })
            }
            Err(error) => Err(error),
        }
    }
}

impl RedactingTool {
    fn output(&self, output: &mut ToolOutput) {
        for block in &mut output.content {
            if let UserContent::Text(text) = block {
                if let std::borrow::Cow::Owned(redacted) = self.redactor.text(&text.text) {
                    text.text = redacted;
                }
            }
        }
        if let Some(details) = &mut output.details {
            self.redactor.json(details);
        }
    }
}
