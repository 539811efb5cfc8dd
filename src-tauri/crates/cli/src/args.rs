//! Command-line arguments (clap). Usage errors exit with status 2.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "arbor",
    version,
    about = "Arbor, a coding agent: ask a model from any major provider, or a local one",
    after_help = "Examples:\n  arbor -p \"explain this error\"\n  arbor -p --provider openai --model gpt-5 \"hello\"\n  arbor -p --api openai-completions --base-url http://127.0.0.1:8080/v1 --model local \"hi\"\n  arbor models --provider anthropic"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Print mode: send the prompt(s) in order and print the final answer.
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    #[command(flatten)]
    pub model: ModelArgs,

    /// Work in this directory instead of the current one.
    #[arg(short = 'C', long = "cwd", value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,

    /// The data folder (models.json, later sessions). Default: $ARBOR_DATA_DIR, else the OS data folder.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,

    /// The prompt(s); each is one user message, sent after the previous answer.
    #[arg(value_name = "PROMPT")]
    pub prompts: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The provider, from the catalogue (see `arbor models`).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,

    /// The wire protocol: openai-completions, openai-responses, anthropic-messages or
    /// google-generative-ai. Overrides the provider's; with --base-url, reaches any endpoint.
    #[arg(long, value_name = "KIND")]
    pub api: Option<arbor_llm::Api>,

    /// The model id; PROVIDER/ID names the provider too.
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,

    /// The endpoint's base URL (OpenAI-style includes /v1; Anthropic and Google do not).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The API key; else the provider's usual environment variable.
    #[arg(long, value_name = "KEY", hide_env_values = true)]
    pub api_key: Option<String>,

    /// How hard the model thinks: off, minimal, low, medium or high.
    #[arg(long, value_name = "LEVEL", default_value = "off")]
    pub thinking: arbor_llm::ThinkingLevel,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the model catalogue (built in, plus models.json in the data folder).
    Models {
        /// Only this provider's models.
        #[arg(long, value_name = "NAME")]
        provider: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_print_mode_with_every_option() {
        let cli = Cli::try_parse_from([
            "arbor",
            "-p",
            "--provider",
            "openai",
            "--api",
            "openai-completions",
            "--model",
            "gpt-5",
            "--base-url",
            "http://x/v1",
            "--api-key",
            "k",
            "--thinking",
            "high",
            "-C",
            "/tmp",
            "--data-dir",
            "/d",
            "one",
            "two",
        ])
        .unwrap();
        assert!(cli.print);
        assert_eq!(cli.prompts, ["one", "two"]);
        assert_eq!(cli.model.api, Some(arbor_llm::Api::OpenAiCompletions));
        assert_eq!(cli.model.thinking, arbor_llm::ThinkingLevel::High);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        for args in [
            &["arbor", "-p", "--thinking", "max", "x"][..],
            &["arbor", "-p", "--api", "smoke", "x"][..],
            &["arbor", "--no-such-flag"][..],
        ] {
            let error = Cli::try_parse_from(args).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{args:?}");
        }
    }
}
