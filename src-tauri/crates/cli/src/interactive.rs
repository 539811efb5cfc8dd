//! Interactive mode: a line editor (history, Alt+Enter or a trailing `\` for multi-line input),
//! streamed answers with colour, tool calls with live output, tokens and cost after each turn.
//! Enter while the agent works queues a steer; Ctrl+C aborts the turn, twice exits.
//!
//! The editor runs on its own thread (it blocks on the terminal) and only while the agent is idle;
//! during a run the terminal is in its ordinary line mode, the agent's output and a spinner go
//! straight to stdout, and a typed line (Enter) becomes a steer. The two take turns through a
//! handshake, so nothing is printed while the editor owns the screen.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbor_protocol::ThinkingLevel;
use rustyline::error::ReadlineError;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, Completer, Editor, EventHandler, Helper, Highlighter, Hinter, KeyCode, KeyEvent, Modifiers,
};
use tokio::sync::mpsc;

use crate::render::{Renderer, Style};
use crate::rpc_mode::ModelResolver;
use crate::session;
use crate::{args::ModelArgs, selection};
use arbor_app::LiveSession;
use arbor_protocol::{AgentEvent, SessionEvent};

const HELP: &str = "Commands:
  /help                 this help
  /model [PROVIDER/ID]  show or change the model
  /thinking [LEVEL]     show or set thinking: off, minimal, low, medium, high
  /new                  start a new conversation (a new stored session)
  /tree                 show this session's tree (node ids, the leaf marked *)
  /goto NODE [--summary] go to a node: a user message is put back for editing, else continue
                        from it; --summary carries a summary of the branch left behind
  /goto NODE --files [--overwrite] go there and bring the node's files back (files changed
                        outside Arbor are listed and kept unless --overwrite)
  /undo-restore [--overwrite] bring back the files as they were before the last restore
  /tools                the model's tools: built-in, approved, pending, invalid
  /approve [NAME]       approve the tool the model proposed (it can use it at once)
  /reject [NAME] REASON reject it; the model reads the reason
  /label NODE [TEXT]    label a node (no text removes the label)
  /compact [FOCUS]      summarise the older conversation now, optionally focused on FOCUS
  /plan                 plan mode on or off: read-only, the model answers with a plan
  /SKILL [TEXT]         use an approved instruction skill (listed below when there are any)
  /SERVER:PROMPT [K=V…] send an MCP server's prompt, filled with its arguments
  /export [FORMAT] [FILE] export this session: markdown (default), jsonl or html
  /regenerate           ask again from the last user message (a sibling branch)
  /fork [NODE]          copy the path to NODE (default: here) into a new session
  /name TITLE           rename this session
  /sessions             list this folder's sessions
  /resume ID            switch to a stored session
  /yes  /session  /always  answer the waiting permission request: allow once, for this
                        session, or always (saves the rule it shows for this project)
  /no [REASON]          deny it; the model reads the reason
  /accept [NAME=VALUE …]  answer an MCP server's question (other fields keep their
                        defaults); /decline or /cancel it
  /mode [MODE]          the permission mode (read-only, workspace, full): show or switch
  /quit                 leave (also Ctrl+D, or Ctrl+C twice)
Enter sends; Alt+Enter or a trailing \\ adds a line. Enter while the agent works steers it.";

enum Input {
    Line(String),
    /// Ctrl+C: from the editor (a key) or, during a run, from SIGINT.
    Interrupted {
        from_editor: bool,
    },
    End,
}

/// A trailing backslash continues the input on the next line.
#[derive(Completer, Helper, Highlighter, Hinter)]
struct ContinuationValidator;

impl Validator for ContinuationValidator {
    fn validate(&self, context: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if context.input().ends_with('\\') {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Everything the interactive mode prints: the renderer, and the spinner line it shares the
/// screen with (drawn only while the model is being waited for, on an empty line).
#[derive(Clone)]
pub(crate) struct Console {
    renderer: Arc<Mutex<Renderer>>,
    /// Waiting for the model's first output of a turn: the spinner runs.
    waiting: Arc<AtomicBool>,
    /// A spinner frame is on screen and must be erased before other output.
    spinner_shown: Arc<AtomicBool>,
    /// A run is active: input is read as plain lines (steers), not with the editor.
    busy: Arc<AtomicBool>,
    /// Cancels the background task that is not an agent run (a compaction, a summary).
    pub(crate) task_cancel: Arc<Mutex<Option<tokio_util::sync::CancellationToken>>>,
}

impl Console {
    fn new(style: Style) -> Self {
        Self {
            renderer: Arc::new(Mutex::new(Renderer::new(style))),
            waiting: Arc::new(AtomicBool::new(false)),
            spinner_shown: Arc::new(AtomicBool::new(false)),
            busy: Arc::new(AtomicBool::new(false)),
            task_cancel: Arc::new(Mutex::new(None)),
        }
    }

    /// Runs an agent call (or a compaction) in the background, marked busy until it ends;
    /// Ctrl+C meanwhile cancels `cancel` (runs are aborted through the agent instead).
    pub(crate) fn run_in_background<F, T, E>(&self, run: F)
    where
        F: std::future::Future<Output = Result<T, E>> + Send + 'static,
        E: std::fmt::Display,
    {
        self.busy.store(true, Ordering::Relaxed);
        let out = self.clone();
        tokio::spawn(async move {
            if let Err(error) = run.await {
                say(&out, &format!("arbor: {error}"));
            }
            out.task_cancel.lock().map(|mut t| *t = None).ok();
            out.busy.store(false, Ordering::Relaxed);
            // The input thread may be waiting in a plain line read: show where to type.
            let mut stdout = std::io::stdout().lock();
            let _ = std::io::Write::write_all(&mut stdout, "› ".as_bytes());
            let _ = std::io::Write::flush(&mut stdout);
        });
    }

    /// A token that Ctrl+C cancels while the next background task runs.
    pub(crate) fn start_task(&self) -> tokio_util::sync::CancellationToken {
        let token = tokio_util::sync::CancellationToken::new();
        if let Ok(mut slot) = self.task_cancel.lock() {
            *slot = Some(token.clone());
        }
        token
    }

    fn clear_spinner(&self, out: &mut impl std::io::Write) {
        if self.spinner_shown.swap(false, Ordering::Relaxed) {
            let _ = out.write_all(b"\r\x1b[K");
        }
    }

    fn render(&self, event: &AgentEvent) {
        use arbor_protocol::AgentEvent as E;
        let Ok(mut renderer) = self.renderer.lock() else {
            return;
        };
        let mut stdout = std::io::stdout().lock();
        match event {
            E::TurnStart => self.waiting.store(true, Ordering::Relaxed),
            E::MessageUpdate { .. } | E::ToolExecutionStart { .. } | E::AgentEnd { .. } => {
                self.waiting.store(false, Ordering::Relaxed);
                self.clear_spinner(&mut stdout);
            }
            _ => {}
        }
        let _ = renderer.render(event, &mut stdout);
    }

    /// Draws the next spinner frame when the model is being waited for.
    fn tick(&self, frame: usize, label: &str) {
        let Ok(renderer) = self.renderer.lock() else {
            return;
        };
        if !self.waiting.load(Ordering::Relaxed) || !renderer.at_line_start() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let text = format!(
            "\r\x1b[K\x1b[2m{} {label}\x1b[0m",
            SPINNER[frame % SPINNER.len()]
        );
        let _ = std::io::Write::write_all(&mut stdout, text.as_bytes());
        let _ = std::io::Write::flush(&mut stdout);
        self.spinner_shown.store(true, Ordering::Relaxed);
    }
}

pub async fn run(
    mut session: LiveSession,
    resolver: ModelResolver,
    history: PathBuf,
) -> anyhow::Result<ExitCode> {
    let mut editor: Editor<ContinuationValidator, rustyline::history::DefaultHistory> =
        Editor::new()?;
    editor.set_helper(Some(ContinuationValidator));
    editor.bind_sequence(
        KeyEvent(KeyCode::Enter, Modifiers::ALT),
        EventHandler::Simple(Cmd::Newline),
    );
    let _ = editor.load_history(&history);
    let out = Console::new(Style { color: true });
    // The person at the terminal answers approvals: `create_tool` waits for `/approve`.
    if let Ok(toolbox) = session.toolbox() {
        toolbox.set_answerable(true);
    }
    {
        let out = out.clone();
        session.attach_without_node_views(move |event| match event {
            SessionEvent::Agent(event) => out.render(event),
            SessionEvent::Coding(event) => {
                if let Some(text) = session::describe_event(event) {
                    say(&out, &text);
                }
            }
        });
    }
    {
        // The spinner: a frame every 80 ms while the model is being waited for.
        let (out, label) = (
            out.clone(),
            format!("waiting for {}", session.selection().model.id),
        );
        tokio::spawn(async move {
            let mut frame = 0usize;
            let mut ticks = tokio::time::interval(Duration::from_millis(80));
            loop {
                ticks.tick().await;
                out.tick(frame, &label);
                frame = frame.wrapping_add(1);
            }
        });
    }

    println!(
        "Arbor {} · {}/{} · {} · /help for commands",
        env!("CARGO_PKG_VERSION"),
        session.selection().model.provider,
        session.selection().model.id,
        session.workspace_root().display()
    );
    if let Ok(Some(resumed)) = session.stored_session() {
        println!(
            "Resumed session {} · {} · {} messages in context",
            resumed.id,
            resumed.title,
            session.messages().len()
        );
    }
    let busy = out.busy.clone();
    let (inputs, mut input) = mpsc::unbounded_channel();
    let (ready, ready_for_input) = std::sync::mpsc::channel::<()>();
    spawn_editor(
        editor,
        history,
        busy.clone(),
        inputs.clone(),
        ready_for_input,
    );
    // During a run the terminal is in line mode, so Ctrl+C arrives as SIGINT.
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if inputs
                .send(Input::Interrupted { from_editor: false })
                .is_err()
            {
                return;
            }
        }
    });

    let mut last_interrupt: Option<Instant> = None;
    // One `ready` per input the thread delivered: it then reads again — the editor when idle, a
    // plain line during a run. A SIGINT comes from elsewhere and must not add a turn.
    let mut owe_ready = true;
    loop {
        if std::mem::take(&mut owe_ready) {
            let _ = ready.send(());
        }
        let Some(event) = input.recv().await else {
            break;
        };
        owe_ready = !matches!(event, Input::Interrupted { from_editor: false });
        match event {
            Input::End => break,
            Input::Interrupted { .. } => {
                let task = out.task_cancel.lock().ok().and_then(|mut t| t.take());
                if session.is_streaming() {
                    session.abort();
                    session.wait_for_idle().await;
                } else if let Some(task) = task {
                    task.cancel();
                } else if last_interrupt.is_some_and(|at| at.elapsed() < Duration::from_secs(2)) {
                    break;
                } else {
                    last_interrupt = Some(Instant::now());
                    say(&out, "(press Ctrl+C again to exit)");
                }
            }
            Input::Line(line) => {
                let text = line.trim();
                if text.is_empty() {
                    continue;
                }
                let mut text = text.to_owned();
                if let Some(command) = text.strip_prefix('/') {
                    match slash_command(command, &mut session, &resolver, &out) {
                        Slash::Done => continue,
                        Slash::Quit => break,
                        // A skill's command becomes the message that asks for it.
                        Slash::Prompt(prompt) => text = prompt,
                        Slash::McpPrompt {
                            server,
                            prompt,
                            arguments,
                        } => match session.mcp_prompt_text(&server, &prompt, arguments).await {
                            Ok(filled) => {
                                say(&out, &format!("(/{server}:{prompt} sends:)\n{filled}"));
                                text = filled;
                            }
                            Err(error) => {
                                say(&out, &format!("arbor: /{server}:{prompt}: {error}"));
                                continue;
                            }
                        },
                    }
                }
                let text = text.as_str();
                if out.busy.load(Ordering::Relaxed) && !session.is_streaming() {
                    say(&out, "(busy summarising: wait, or press Ctrl+C to cancel)");
                } else if session.is_streaming() {
                    session.steer(text.to_owned());
                    say(
                        &out,
                        "(steering: delivered after the running tool finishes)",
                    );
                } else {
                    match session.start_prompt(text.to_owned(), Vec::new()) {
                        Ok(run) => out.run_in_background(async move {
                            run.await??;
                            anyhow::Ok(())
                        }),
                        Err(error) => say(&out, &format!("arbor: {error}")),
                    }
                }
            }
        }
    }
    session.close().await;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn say(out: &Console, text: &str) {
    let mut stdout = std::io::stdout().lock();
    out.clear_spinner(&mut stdout);
    let _ = std::io::Write::write_all(&mut stdout, format!("{text}\n").as_bytes());
    let _ = std::io::Write::flush(&mut stdout);
}

/// Reads input when told to (`ready`): the line editor while the agent is idle, a plain line
/// (the terminal's own line mode) during a run, so the run's output can use the screen.
fn spawn_editor(
    mut editor: Editor<ContinuationValidator, rustyline::history::DefaultHistory>,
    history: PathBuf,
    busy: Arc<AtomicBool>,
    inputs: mpsc::UnboundedSender<Input>,
    ready: std::sync::mpsc::Receiver<()>,
) {
    std::thread::spawn(move || {
        while ready.recv().is_ok() {
            let event = if busy.load(Ordering::Relaxed) {
                let mut line = String::new();
                match std::io::stdin().read_line(&mut line) {
                    Ok(0) | Err(_) => Input::End,
                    Ok(_) => Input::Line(line),
                }
            } else {
                match editor.readline("› ") {
                    Ok(line) => {
                        let _ = editor.add_history_entry(line.as_str());
                        let _ = editor.append_history(&history);
                        Input::Line(line.replace("\\\n", "\n"))
                    }
                    Err(ReadlineError::Interrupted) => Input::Interrupted { from_editor: true },
                    Err(_) => Input::End,
                }
            };
            let end = matches!(event, Input::End);
            if inputs.send(event).is_err() || end {
                return;
            }
        }
    });
}

/// What a slash command leaves to the input loop.
enum Slash {
    Done,
    Quit,
    /// Send this as the message (an instruction skill's `/name`).
    Prompt(String),
    /// An MCP server's prompt, `/server:prompt key=value…`: filled, shown, then sent.
    McpPrompt {
        server: String,
        prompt: String,
        arguments: std::collections::BTreeMap<String, String>,
    },
}

/// Runs a slash command.
fn slash_command(
    command: &str,
    session: &mut LiveSession,
    resolver: &ModelResolver,
    out: &Console,
) -> Slash {
    let (name, argument) = command
        .split_once(' ')
        .map(|(n, a)| (n, a.trim()))
        .unwrap_or((command, ""));
    match name {
        "quit" | "exit" | "q" => return Slash::Quit,
        "help" => {
            let skills = session.instruction_skills();
            if skills.is_empty() {
                say(out, HELP);
            } else {
                let listed: Vec<String> = skills
                    .iter()
                    .map(|(name, description)| format!("  /{name:<20} {description}"))
                    .collect();
                say(out, &format!("{HELP}\nSkills:\n{}", listed.join("\n")));
            }
        }
        "plan" => {
            let on = session.set_plan_mode(!session.plan_mode());
            say(
                out,
                if on {
                    "(plan mode: read-only; the model investigates and answers with a plan; /plan again to build)"
                } else {
                    "(plan mode off: the project's mode again)"
                },
            );
        }
        "new" => match session.new_session() {
            Ok(()) => say(out, "(new conversation)"),
            Err(error) => say(
                out,
                &format!("{error}: press Ctrl+C to abort the run first"),
            ),
        },
        "compact" => crate::interactive_tree::compact(argument, session, out),
        "yes" | "y" | "session" | "always" | "no" | "n" | "mode" => {
            say(
                out,
                &crate::permissions::interactive_command(name, argument, session),
            );
        }
        "accept" | "decline" | "cancel" => say(
            out,
            &crate::elicitation::interactive_command(name, argument, session),
        ),
        "tools" | "approve" | "reject" => {
            match crate::tools::interactive_command(name, argument, session) {
                Ok(text) => say(out, &text),
                Err(error) => say(out, &error.to_string()),
            }
        }
        "tree" | "goto" | "regenerate" | "fork" | "name" | "sessions" | "resume" | "label"
        | "export" | "undo-restore" => {
            if session.is_stored() {
                crate::interactive_tree::session_command(name, argument, session, out)
            } else {
                say(out, "sessions are off (--no-session)")
            }
        }
        "thinking" if argument.is_empty() => {
            say(out, &format!("thinking: {}", session.thinking().as_str()))
        }
        "thinking" => match argument.parse::<ThinkingLevel>() {
            Ok(level) => {
                if let Err(error) = session.set_thinking_level(level) {
                    say(out, &format!("arbor: could not store the change: {error}"));
                }
                say(out, &format!("thinking: {}", level.as_str()));
            }
            Err(error) => say(out, &error),
        },
        "model" if argument.is_empty() => {
            let model = &session.selection().model;
            say(
                out,
                &format!(
                    "model: {}/{} (change with /model PROVIDER/ID)",
                    model.provider, model.id
                ),
            );
        }
        "model" => {
            let args = ModelArgs {
                provider: None,
                model: Some(argument.to_owned()),
                ..resolver.base.clone()
            };
            match selection::select(&resolver.catalog, &args, &resolver.keys) {
                Ok(selection) => {
                    let name = selection.model_name();
                    match session.set_model(selection) {
                        Ok(()) => say(out, &format!("model: {name}")),
                        Err(error) => say(out, &format!("arbor: could not switch: {error}")),
                    }
                }
                Err(error) => say(out, &error.to_string()),
            }
        }
        other if other.contains(':') => {
            let (server, prompt) = other.split_once(':').unwrap_or((other, ""));
            let mut arguments = std::collections::BTreeMap::new();
            for pair in argument.split_whitespace() {
                match pair.split_once('=') {
                    Some((key, value)) if !key.is_empty() => {
                        arguments.insert(key.to_owned(), value.to_owned());
                    }
                    _ => {
                        say(
                            out,
                            &format!("/{other} takes NAME=VALUE arguments, not {pair:?}"),
                        );
                        return Slash::Done;
                    }
                }
            }
            return Slash::McpPrompt {
                server: server.to_owned(),
                prompt: prompt.to_owned(),
                arguments,
            };
        }
        other => {
            if session
                .instruction_skills()
                .iter()
                .any(|(skill, _)| skill == other)
            {
                return Slash::Prompt(skill_prompt(other, argument));
            }
            say(out, &format!("unknown command /{other}; /help lists them"));
        }
    }
    Slash::Done
}

/// The message `/name rest` sends for the instruction skill `name`: the model calls the skill's
/// tool to read its instructions (the desktop's `/name` sends the same).
fn skill_prompt(name: &str, rest: &str) -> String {
    if rest.is_empty() {
        format!("Use the `{name}` skill.")
    } else {
        format!("Use the `{name}` skill: {rest}")
    }
}
