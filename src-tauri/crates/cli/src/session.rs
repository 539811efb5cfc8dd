//! Builds the coding agent a run uses: model and key, tools over the working directory, and the
//! system prompt with the project's context files.

use std::path::{Path, PathBuf};

use arbor_agent::{Agent, AgentOptions};
use arbor_coding::{
    build_system_prompt, builtin_tools, load_context_files, parse_tool_list, today_utc,
    BuiltinToolOptions, SystemPromptOptions, Workspace,
};
use arbor_llm::client::LlmClient;
use arbor_llm::{RequestOptions, ThinkingLevel};

use crate::args::AgentArgs;
use crate::selection::Selection;

/// What a front end needs besides the agent itself.
pub struct AgentSession {
    pub agent: Agent,
    pub selection: Selection,
    pub tool_names: Vec<String>,
    pub cwd: PathBuf,
    pub thinking: ThinkingLevel,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Tools(#[from] arbor_coding::BuiltinToolsError),
    #[error(transparent)]
    Client(#[from] arbor_llm::LlmError),
}

pub fn tool_names(args: &AgentArgs) -> Vec<String> {
    if args.no_tools {
        Vec::new()
    } else {
        parse_tool_list(&args.tools)
    }
}

pub fn start(
    selection: Selection,
    thinking: ThinkingLevel,
    args: &AgentArgs,
    cwd: &Path,
) -> Result<AgentSession, SessionError> {
    let workspace = Workspace::new(cwd);
    let names = tool_names(args);
    let tools = builtin_tools(
        &workspace,
        &BuiltinToolOptions {
            names: names.clone(),
            accepts_images: selection.model.images,
        },
    )?;
    let system_prompt = build_system_prompt(&SystemPromptOptions {
        tools: names.clone(),
        custom_prompt: args.system_prompt.clone(),
        append: args.append_system_prompt.clone(),
        context_files: load_context_files(cwd),
        date: today_utc(),
        cwd: cwd.to_owned(),
    });
    let client = LlmClient::new()?.on_retry(|notice| {
        eprintln!(
            "arbor: {} — retrying in {:.1}s (attempt {})",
            notice.error.class(),
            notice.delay.as_secs_f64(),
            notice.attempt
        );
    });
    let options = AgentOptions::new(selection.model.clone())
        .system_prompt(system_prompt)
        .thinking_level(thinking)
        .tools(tools)
        .request_options(request_options(&selection));
    Ok(AgentSession {
        agent: Agent::new(client, options),
        selection,
        tool_names: names,
        cwd: cwd.to_owned(),
        thinking,
    })
}

pub fn request_options(selection: &Selection) -> RequestOptions {
    RequestOptions {
        api_key: selection.api_key.clone(),
        ..RequestOptions::default()
    }
}
