//! `arbor-js` — model-written JavaScript: code the model writes (the `js` tool, the entry scripts of the
//! tools it proposes) runs in an embedded QuickJS engine (`rquickjs`) that has no network, no
//! processes, no environment and no files — except through the helpers its [`Host`] grants.
//!
//! # Map
//! - [`run`] (this file): one run in a fresh runtime and context (nothing a script does — a
//!   changed prototype, a global — outlives it), its [`Limits`] and its [`Outcome`].
//! - `prelude.rs`: the JavaScript around the script: the bound globals (`args`, `read`, `write`,
//!   `ls`, `grep`, `find`, `console`), the `async` function body, how a result becomes text.
//! - [`Host`]: what the helpers do, implemented by the caller (the coding crate confines them
//!   to the workspace); [`Helper`] names each one for `allowed-tools`.
//!
//! # The contract
//! The code is the body of an `async` function: `await` works and `return` gives the result (a
//! string as it is, anything else as JSON). `console.log`/`console.error` output comes before
//! it. `args` holds the arguments. The helpers are async and return plain data; a helper the
//! run was not granted throws, naming itself. Exceeding a limit ends the run with a
//! [`SandboxError`] naming the limit; the host process is never at risk, and the next run
//! starts clean.

mod prelude;

use arbor_error_code::ErrorCode;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Runtime};
use serde::Serialize;
use serde_json::Value;

/// A file helper a script may be granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Helper {
    Read,
    Write,
    Ls,
    Grep,
    Find,
}

impl Helper {
    pub const ALL: [Helper; 5] = [
        Helper::Read,
        Helper::Write,
        Helper::Ls,
        Helper::Grep,
        Helper::Find,
    ];

    /// The name scripts call it by (and `allowed-tools` lists).
    pub fn name(self) -> &'static str {
        match self {
            Helper::Read => "read",
            Helper::Write => "write",
            Helper::Ls => "ls",
            Helper::Grep => "grep",
            Helper::Find => "find",
        }
    }

    pub fn parse(name: &str) -> Option<Helper> {
        Helper::ALL.into_iter().find(|helper| helper.name() == name)
    }

    /// What granting it allows, in plain words (for an approval dialog).
    pub fn describe(self) -> &'static str {
        match self {
            Helper::Read => "can read files in this project",
            Helper::Write => "can write files in this project",
            Helper::Ls => "can list folders in this project",
            Helper::Grep => "can search file contents in this project",
            Helper::Find => "can find files by name in this project",
        }
    }
}

/// A line a `grep` helper found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepHit {
    pub path: String,
    pub line: u64,
    pub text: String,
}

/// Why a helper call failed: the message the script's `catch` (or the result) sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HostError(pub String);

/// What the helpers do. Implementations decide the path rules and caps; every call comes from
/// the script's thread, one at a time.
pub trait Host: Send + Sync {
    fn read(&self, path: &str) -> Result<String, HostError>;
    fn write(&self, path: &str, content: &str) -> Result<(), HostError>;
    /// Names in a folder; folders end in `/`.
    fn ls(&self, path: &str) -> Result<Vec<String>, HostError>;
    fn grep(&self, pattern: &str, path: Option<&str>) -> Result<Vec<GrepHit>, HostError>;
    fn find(&self, pattern: &str) -> Result<Vec<String>, HostError>;
}

/// The limits of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The engine's heap.
    pub memory_bytes: usize,
    /// Wall-clock time, helpers included.
    pub time: Duration,
    /// `console` output plus the result.
    pub output_bytes: usize,
    /// The native stack the engine may use (deep recursion stops here).
    pub stack_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: 64 * 1024 * 1024,
            time: Duration::from_secs(10),
            output_bytes: 256 * 1024,
            stack_bytes: 512 * 1024,
        }
    }
}

/// A run that finished: what it printed and what it returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `console.log` / `console.error` lines, in order.
    pub console: String,
    /// The returned value: a string as it is, anything else as JSON; empty for `undefined`.
    pub result: String,
}

impl Outcome {
    /// The console output, then the result.
    pub fn text(&self) -> String {
        match (self.console.is_empty(), self.result.is_empty()) {
            (true, _) => self.result.clone(),
            (false, true) => self.console.clone(),
            (false, false) => format!("{}\n{}", self.console.trim_end(), self.result),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("the script threw: {0}")]
    Script(String),
    #[error("the script ran past its time limit of {0:?} and was stopped")]
    Time(Duration),
    #[error("the script used more than its memory limit of {} MB and was stopped", .0 / (1024 * 1024))]
    Memory(usize),
    #[error("the script recursed too deeply (stack limit of {} KB) and was stopped", .0 / 1024)]
    Stack(usize),
    #[error("the script's output passed its limit of {0} bytes and was stopped")]
    Output(usize),
    #[error("the script was aborted")]
    Aborted,
    #[error("the sandbox could not start: {0}")]
    Engine(String),
}

impl SandboxError {
    /// A stable, machine-readable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            SandboxError::Script(_) => ErrorCode::ScriptError,
            SandboxError::Time(_) => ErrorCode::TimeLimit,
            SandboxError::Memory(_) => ErrorCode::MemoryLimit,
            SandboxError::Stack(_) => ErrorCode::StackLimit,
            SandboxError::Output(_) => ErrorCode::OutputLimit,
            SandboxError::Aborted => ErrorCode::Aborted,
            SandboxError::Engine(_) => ErrorCode::Sandbox,
        }
    }
}

/// One run's inputs.
pub struct Script<'a> {
    pub code: &'a str,
    /// The `args` global (`{}` for the `js` tool).
    pub args: &'a Value,
    pub host: Arc<dyn Host>,
    /// The helpers the code may call; the others throw.
    pub allowed: &'a BTreeSet<Helper>,
    pub limits: &'a Limits,
    /// Set from another thread to stop the run (the user's Stop).
    pub abort: Arc<AtomicBool>,
}

/// What stopped a run from the outside (the interrupt handler's reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Time,
    Aborted,
    Output,
}

/// Runs `script` to the end in a fresh engine. Blocking: call it from a thread that may block.
pub fn run(script: Script<'_>) -> Result<Outcome, SandboxError> {
    let engine = |e: rquickjs::Error| SandboxError::Engine(e.to_string());
    let runtime = Runtime::new().map_err(engine)?;
    runtime.set_memory_limit(script.limits.memory_bytes);
    runtime.set_max_stack_size(script.limits.stack_bytes);
    let deadline = Instant::now() + script.limits.time;
    let stop: Arc<Mutex<Option<Stop>>> = Arc::default();
    let output = Arc::new(Mutex::new(Output::new(script.limits.output_bytes)));
    {
        let (stop, abort, output) = (stop.clone(), script.abort.clone(), output.clone());
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let reason = if abort.load(Ordering::Relaxed) {
                Some(Stop::Aborted)
            } else if Instant::now() >= deadline {
                Some(Stop::Time)
            } else if output.lock().map(|o| o.overflowed).unwrap_or(true) {
                Some(Stop::Output)
            } else {
                None
            };
            match reason {
                Some(reason) => {
                    if let Ok(mut stop) = stop.lock() {
                        stop.get_or_insert(reason);
                    }
                    true
                }
                None => false,
            }
        })));
    }
    let context = Context::full(&runtime).map_err(engine)?;
    let args =
        serde_json::to_string(script.args).map_err(|e| SandboxError::Engine(e.to_string()))?;
    let source = prelude::wrap(script.code);

    let started = context.with(|ctx| -> Result<(), SandboxError> {
        prelude::bind(&ctx, script.host.clone(), script.allowed, output.clone()).map_err(engine)?;
        ctx.globals()
            .set("__arbor_args_json", args)
            .map_err(engine)?;
        let setup: Result<(), _> = ctx.eval(prelude::PRELUDE).catch(&ctx);
        setup.map_err(|e| SandboxError::Engine(e.to_string()))?;
        let started: Result<(), _> = ctx.eval(source.as_str()).catch(&ctx);
        started.map_err(|e| classify(e, script.limits))
    });
    let ended = started.and_then(|()| drive(&runtime, &stop, deadline, &script));
    let reason = stop.lock().ok().and_then(|s| *s);
    if let Some(reason) = reason {
        return Err(match reason {
            Stop::Time => SandboxError::Time(script.limits.time),
            Stop::Aborted => SandboxError::Aborted,
            Stop::Output => SandboxError::Output(script.limits.output_bytes),
        });
    }
    ended?;
    let console = output.lock().map(|o| o.text.clone()).unwrap_or_default();
    let settled = context.with(|ctx| -> Result<Settled, SandboxError> {
        let json: Option<String> = ctx.globals().get("__arbor_settled").map_err(engine)?;
        match json {
            Some(json) => {
                serde_json::from_str(&json).map_err(|e| SandboxError::Engine(e.to_string()))
            }
            None => Ok(Settled::Pending),
        }
    })?;
    match settled {
        Settled::Ok { text } => {
            if console.len() + text.len() > script.limits.output_bytes {
                return Err(SandboxError::Output(script.limits.output_bytes));
            }
            Ok(Outcome {
                console,
                result: text,
            })
        }
        Settled::Err { message } => Err(classify_message(message, script.limits)),
        Settled::Pending => Err(SandboxError::Script(
            "the script's promise never settled (it awaited something that never happens)".into(),
        )),
    }
}

/// How the script's promise ended, as the prelude records it.
#[derive(serde::Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Settled {
    Ok { text: String },
    Err { message: String },
    Pending,
}

/// Runs the promise jobs until none is left (the script's promise settled, or waits forever).
fn drive(
    runtime: &Runtime,
    stop: &Arc<Mutex<Option<Stop>>>,
    deadline: Instant,
    script: &Script<'_>,
) -> Result<(), SandboxError> {
    loop {
        if script.abort.load(Ordering::Relaxed) {
            set_stop(stop, Stop::Aborted);
            return Ok(());
        }
        if Instant::now() >= deadline {
            set_stop(stop, Stop::Time);
            return Ok(());
        }
        match runtime.execute_pending_job() {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(job) => {
                let message = job.0.with(|ctx| {
                    CaughtError::from_error(&ctx, rquickjs::Error::Exception).to_string()
                });
                return Err(classify_message(message, script.limits));
            }
        }
    }
}

fn set_stop(stop: &Arc<Mutex<Option<Stop>>>, reason: Stop) {
    if let Ok(mut stop) = stop.lock() {
        stop.get_or_insert(reason);
    }
}

fn classify(error: CaughtError<'_>, limits: &Limits) -> SandboxError {
    classify_message(error.to_string(), limits)
}

/// An engine error that is really a limit is reported as that limit.
fn classify_message(message: String, limits: &Limits) -> SandboxError {
    let lower = message.to_lowercase();
    // A string or array longer than the engine allows is far past any memory limit too.
    if lower.contains("out of memory")
        || lower.contains("invalid string length")
        || lower.contains("invalid array length")
    {
        SandboxError::Memory(limits.memory_bytes)
    } else if lower.contains("stack overflow")
        || lower.contains("too much recursion")
        || lower.contains("maximum call stack")
    {
        SandboxError::Stack(limits.stack_bytes)
    } else {
        SandboxError::Script(message)
    }
}

/// `console` output with its cap: past it, the run is stopped.
pub(crate) struct Output {
    text: String,
    limit: usize,
    overflowed: bool,
}

impl Output {
    fn new(limit: usize) -> Self {
        Self {
            text: String::new(),
            limit,
            overflowed: false,
        }
    }

    pub(crate) fn push_line(&mut self, line: &str) {
        if self.text.len() + line.len() + 1 > self.limit {
            self.overflowed = true;
            return;
        }
        self.text.push_str(line);
        self.text.push('\n');
    }
}

/// A host function's answer as the prelude reads it: `{"ok": …}` or `{"err": "…"}`.
pub(crate) fn answer<T: Serialize>(result: Result<T, HostError>) -> String {
    let value = match result {
        Ok(value) => serde_json::json!({ "ok": value }),
        Err(HostError(message)) => serde_json::json!({ "err": message }),
    };
    value.to_string()
}
