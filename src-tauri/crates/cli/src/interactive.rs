//! Interactive mode: a line editor (history, Alt+Enter or a trailing `\` for multi-line input),
//! streamed answers with colour, tool calls with live output, tokens and cost after each turn.
//! Enter while the agent works queues a steer; Ctrl+C aborts the turn, twice exits.
//!
//! The editor runs on its own thread (it blocks on the terminal); everything the agent prints
//! goes through the editor's external printer so it appears above the input line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbor_agent::Agent;
use arbor_llm::ThinkingLevel;
use rustyline::error::ReadlineError;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, Completer, Editor, EventHandler, ExternalPrinter, Helper, Highlighter, Hinter, KeyCode,
    KeyEvent, Modifiers,
};
use tokio::sync::mpsc;

use crate::render::{Renderer, Style};
use crate::rpc_mode::ModelResolver;
use crate::session::{self, AgentSession};
use crate::{args::ModelArgs, selection};

const HELP: &str = "Commands:
  /help                 this help
  /model [PROVIDER/ID]  show or change the model
  /thinking [LEVEL]     show or set thinking: off, minimal, low, medium, high
  /new                  start a new conversation (a new stored session)
  /tree                 show this session's tree (node ids, the leaf marked *)
  /goto NODE            go to a node: a user message is put back for editing, else continue from it
  /regenerate           ask again from the last user message (a sibling branch)
  /fork [NODE]          copy the path to NODE (default: here) into a new session
  /name TITLE           rename this session
  /sessions             list this folder's sessions
  /resume ID            switch to a stored session
  /quit                 leave (also Ctrl+D, or Ctrl+C twice)
Enter sends; Alt+Enter or a trailing \\ adds a line. Enter while the agent works steers it.";

enum Input {
    Line(String),
    Interrupted,
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

/// Collects rendered text and hands whole lines to the editor's printer.
struct LinePrinter {
    printer: Box<dyn ExternalPrinter + Send>,
    pending: String,
}

impl std::io::Write for LinePrinter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.push_str(&String::from_utf8_lossy(bytes));
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            self.printer
                .print(line.trim_end_matches('\n').to_owned())
                .map_err(std::io::Error::other)?;
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub async fn run(
    mut session: AgentSession,
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
    let printer = editor.create_external_printer()?;
    let out = Arc::new(Mutex::new(LinePrinter {
        printer: Box::new(printer),
        pending: String::new(),
    }));
    let style = Style { color: true };

    let renderer = Arc::new(Mutex::new(Renderer::new(style)));
    {
        let (renderer, out) = (renderer.clone(), out.clone());
        session.agent.subscribe(move |event| {
            let (Ok(mut renderer), Ok(mut out)) = (renderer.lock(), out.lock()) else {
                return;
            };
            if matches!(event, arbor_protocol::AgentEvent::AgentStart) {
                // The editor keeps the input line during a run (for steering), so the waiting
                // state is a line, not an animated spinner.
                let _ = std::io::Write::write_all(
                    &mut *out,
                    format!("{}\n", style.dim("⋯ working — Enter steers, Ctrl+C aborts"))
                        .as_bytes(),
                );
            }
            let _ = renderer.render(event, &mut *out);
        });
    }

    {
        let out = out.clone();
        session.attach_recorder(move |event| {
            if let arbor_coding::CodingEvent::StoreError { message } = event {
                say(
                    &out,
                    &format!("arbor: could not store the conversation: {message}"),
                );
            }
        });
    }

    // Printed before the editor starts: the external printer shows text only while it reads.
    println!(
        "Arbor {} · {}/{} · {} · /help for commands",
        env!("CARGO_PKG_VERSION"),
        session.selection.model.provider,
        session.selection.model.id,
        session.cwd.display()
    );
    if let Some(Ok(Some(resumed))) = session.recorder.as_ref().map(|r| r.session()) {
        println!(
            "Resumed session {} · {} · {} messages in context",
            resumed.id,
            resumed.title,
            session.agent.messages().len()
        );
    }
    let busy = Arc::new(AtomicBool::new(false));
    let (inputs, mut input) = mpsc::unbounded_channel();
    spawn_editor(editor, history, busy.clone(), inputs);

    let mut last_interrupt: Option<Instant> = None;
    while let Some(event) = input.recv().await {
        busy.store(session.agent.is_streaming(), Ordering::Relaxed);
        match event {
            Input::End => break,
            Input::Interrupted => {
                if session.agent.is_streaming() {
                    session.agent.abort();
                    say(&out, "(aborted)");
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
                if let Some(command) = text.strip_prefix('/') {
                    if !slash_command(command, &mut session, &resolver, &out) {
                        break;
                    }
                } else if session.agent.is_streaming() {
                    session.agent.steer(text);
                    say(
                        &out,
                        "(steering: delivered after the running tool finishes)",
                    );
                } else {
                    start_prompt(&session.agent, text.to_owned(), busy.clone(), out.clone());
                }
            }
        }
    }
    if session.agent.is_streaming() {
        session.agent.abort();
        session.agent.wait_for_idle().await;
    }
    Ok(ExitCode::SUCCESS)
}

fn say(out: &Arc<Mutex<LinePrinter>>, text: &str) {
    if let Ok(mut out) = out.lock() {
        let _ = std::io::Write::write_all(&mut *out, format!("{text}\n").as_bytes());
    }
}

fn start_prompt(agent: &Agent, text: String, busy: Arc<AtomicBool>, out: Arc<Mutex<LinePrinter>>) {
    busy.store(true, Ordering::Relaxed);
    let agent = agent.clone();
    tokio::spawn(async move {
        if let Err(error) = agent.prompt(text, Vec::new()).await {
            say(&out, &format!("arbor: {error}"));
        }
        busy.store(false, Ordering::Relaxed);
    });
}

fn spawn_editor(
    mut editor: Editor<ContinuationValidator, rustyline::history::DefaultHistory>,
    history: PathBuf,
    busy: Arc<AtomicBool>,
    inputs: mpsc::UnboundedSender<Input>,
) {
    std::thread::spawn(move || loop {
        let prompt = if busy.load(Ordering::Relaxed) {
            "steer› "
        } else {
            "› "
        };
        let event = match editor.readline(prompt) {
            Ok(line) => {
                let _ = editor.add_history_entry(line.as_str());
                let _ = editor.append_history(&history);
                Input::Line(line.replace("\\\n", "\n"))
            }
            Err(ReadlineError::Interrupted) => Input::Interrupted,
            Err(_) => Input::End,
        };
        let end = matches!(event, Input::End);
        if inputs.send(event).is_err() || end {
            return;
        }
    });
}

/// The slash commands that work on the stored session tree.
fn session_command(
    name: &str,
    argument: &str,
    recorder: &arbor_coding::SessionRecorder,
    agent: &Agent,
    out: &Arc<Mutex<LinePrinter>>,
) {
    let result: Result<String, String> = (|| {
        let e = |error: arbor_coding::SessionsError| error.to_string();
        match name {
            "tree" => Ok(match recorder.tree().map_err(e)? {
                Some(tree) => crate::stored::render_tree(&tree).trim_end().to_owned(),
                None => "(no messages yet)".to_owned(),
            }),
            "goto" if argument.is_empty() => Err("usage: /goto NODE (ids from /tree)".into()),
            "goto" => {
                let navigation = recorder.navigate(agent, argument).map_err(e)?;
                Ok(match navigation.editor_text {
                    Some(text) => format!(
                        "(moved before that message; send it again or an edit to branch)\n{text}"
                    ),
                    None => "(continuing from that node)".to_owned(),
                })
            }
            "regenerate" => {
                recorder.regenerate(agent).map_err(e)?;
                let (agent, out) = (agent.clone(), out.clone());
                tokio::spawn(async move {
                    if let Err(error) = agent.continue_run().await {
                        say(&out, &format!("arbor: {error}"));
                    }
                });
                Ok("(regenerating)".to_owned())
            }
            "fork" => {
                let node = (!argument.is_empty()).then_some(argument);
                let session = recorder.fork(agent, node).map_err(e)?;
                Ok(format!("(forked into session {})", session.id))
            }
            "name" if argument.is_empty() => Err("usage: /name TITLE".into()),
            "name" => {
                let session = recorder.rename(argument).map_err(e)?;
                Ok(format!("(session renamed: {})", session.title))
            }
            "sessions" => {
                let mut text = Vec::new();
                let sessions = recorder.list_sessions(false).map_err(e)?;
                for s in sessions {
                    text.push(format!(
                        "{}  {}  {}",
                        s.session.id,
                        crate::stored::format_time(s.session.updated_at),
                        s.session.title
                    ));
                }
                Ok(if text.is_empty() {
                    "(no sessions)".to_owned()
                } else {
                    text.join("\n")
                })
            }
            "resume" if argument.is_empty() => Err("usage: /resume ID (ids from /sessions)".into()),
            "resume" => {
                let session = recorder.switch_session(agent, argument).map_err(e)?;
                Ok(format!("(resumed {}: {})", session.id, session.title))
            }
            _ => Err(format!("unknown command /{name}")),
        }
    })();
    match result {
        Ok(text) | Err(text) => say(out, &text),
    }
}

/// Runs a slash command; `false` means leave.
fn slash_command(
    command: &str,
    session: &mut AgentSession,
    resolver: &ModelResolver,
    out: &Arc<Mutex<LinePrinter>>,
) -> bool {
    let (name, argument) = command
        .split_once(' ')
        .map(|(n, a)| (n, a.trim()))
        .unwrap_or((command, ""));
    match name {
        "quit" | "exit" | "q" => return false,
        "help" => say(out, HELP),
        "new" => {
            let cleared = match &session.recorder {
                Some(recorder) => recorder
                    .new_session(&session.agent)
                    .map_err(|e| e.to_string()),
                None => session.agent.clear_messages().map_err(|e| e.to_string()),
            };
            match cleared {
                Ok(()) => say(out, "(new conversation)"),
                Err(error) => say(
                    out,
                    &format!("{error}: press Ctrl+C to abort the run first"),
                ),
            }
        }
        "tree" | "goto" | "regenerate" | "fork" | "name" | "sessions" | "resume" => {
            match &session.recorder {
                Some(recorder) => session_command(name, argument, recorder, &session.agent, out),
                None => say(out, "sessions are off (--no-session)"),
            }
        }
        "thinking" if argument.is_empty() => {
            say(out, &format!("thinking: {}", session.thinking.as_str()))
        }
        "thinking" => match argument.parse::<ThinkingLevel>() {
            Ok(level) => {
                session.agent.set_thinking_level(level);
                session.thinking = level;
                if let Some(recorder) = &session.recorder {
                    if let Err(error) = recorder.record_thinking_level(level.as_str()) {
                        say(out, &format!("arbor: could not store the change: {error}"));
                    }
                }
                say(out, &format!("thinking: {}", level.as_str()));
            }
            Err(error) => say(out, &error),
        },
        "model" if argument.is_empty() => {
            let model = &session.selection.model;
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
            match selection::select(&resolver.catalog, &args, |name| std::env::var(name).ok()) {
                Ok(selection) => {
                    session.agent.set_model(selection.model.clone());
                    session
                        .agent
                        .set_request_options(session::request_options(&selection));
                    say(
                        out,
                        &format!("model: {}/{}", selection.model.provider, selection.model.id),
                    );
                    session.selection = selection;
                    if let Some(recorder) = &session.recorder {
                        if let Err(error) = recorder.record_model(&session.model_name()) {
                            say(out, &format!("arbor: could not store the change: {error}"));
                        }
                    }
                }
                Err(error) => say(out, &error.to_string()),
            }
        }
        other => say(out, &format!("unknown command /{other}; /help lists them")),
    }
    true
}
