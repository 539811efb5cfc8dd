//! [`McpHub`]: the running servers of one app. A server starts when something first needs it
//! (its tools listed, a call), is started again after a crash — after a pause that doubles
//! with each failure in a row, up to [`MAX_BACKOFF`] —, and stops with the hub. Every call
//! has a time limit and ends with the run that made it; a server that does not answer in time
//! is stopped, so a hang never outlives the call.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use arbor_secrets::{Redactor, SecretStore, ToolEnvironment};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::connection::{Connection, RemoteTool};
use crate::definition::ServerDefinition;
use crate::environment::Expansion;
use crate::log::ServerLog;
use crate::McpError;

/// The longest pause before a crashed server is started again.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Time limits of a hub.
#[derive(Debug, Clone, Copy)]
pub struct HubLimits {
    /// Start and handshake (`npx` may download the server first).
    pub start: Duration,
    /// Listing tools.
    pub list: Duration,
    /// One tool call.
    pub call: Duration,
}

impl Default for HubLimits {
    fn default() -> Self {
        Self {
            start: Duration::from_secs(60),
            list: Duration::from_secs(30),
            call: Duration::from_secs(120),
        }
    }
}

/// Where a server is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerState {
    Stopped,
    Starting,
    Running,
    /// It failed to start, crashed or timed out; `ServerStatus::error` says how.
    Error,
    /// An HTTP server that answered that it needs an authorization (401).
    NeedsAuth,
}

/// What a person sees of a server.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub state: ServerState,
    pub error: Option<String>,
    /// How long its last start took.
    pub start_ms: Option<u64>,
    /// How many tools it offered when last asked.
    pub tools: Option<usize>,
    pub calls: u64,
    /// How long its last call took.
    pub last_call_ms: Option<u64>,
    /// Failures in a row (starts and crashes).
    pub failures: u32,
    /// The `WWW-Authenticate` challenge of the 401 that asked for a sign-in.
    pub challenge: Option<String>,
}

impl Default for ServerStatus {
    fn default() -> Self {
        Self {
            state: ServerState::Stopped,
            error: None,
            start_ms: None,
            tools: None,
            calls: 0,
            last_call_ms: None,
            failures: 0,
            challenge: None,
        }
    }
}

#[derive(Default)]
struct Running {
    connection: Option<Arc<Connection>>,
    tools: Option<Vec<RemoteTool>>,
    retry_at: Option<Instant>,
}

/// One server of the hub.
pub struct ServerSlot {
    definition: ServerDefinition,
    cwd: PathBuf,
    running: tokio::sync::Mutex<Running>,
    status: Mutex<ServerStatus>,
    log: ServerLog,
    shared: Arc<Shared>,
}

struct Shared {
    keychain: Arc<dyn SecretStore>,
    tool_environment: Mutex<ToolEnvironment>,
    redactor: Redactor,
    limits: HubLimits,
}

/// The servers of one app, by key (the caller's: scope, project and name).
pub struct McpHub {
    servers: Mutex<HashMap<String, Arc<ServerSlot>>>,
    shared: Arc<Shared>,
}

fn process_variable(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl McpHub {
    /// A hub whose servers' `${keychain:…}` references come from `keychain`, whose processes
    /// get `tool_environment`'s scrubbed environment, and whose logs and results are cleaned
    /// of the secrets `redactor` knows (the ones a definition expands are added to it).
    pub fn new(
        keychain: Arc<dyn SecretStore>,
        tool_environment: ToolEnvironment,
        redactor: Redactor,
        limits: HubLimits,
    ) -> Self {
        Self {
            servers: Mutex::default(),
            shared: Arc::new(Shared {
                keychain,
                tool_environment: Mutex::new(tool_environment),
                redactor,
                limits,
            }),
        }
    }

    /// The redactor results and logs go through.
    pub fn redactor(&self) -> &Redactor {
        &self.shared.redactor
    }

    /// Replaces what servers started from now on do not inherit.
    pub fn set_tool_environment(&self, tool_environment: ToolEnvironment) {
        *lock(&self.shared.tool_environment) = tool_environment;
    }

    /// The server under `key`, with `definition` — a slot with another definition is replaced
    /// (and its server stopped), so a changed definition never reuses the old process.
    pub fn server(
        &self,
        key: &str,
        definition: &ServerDefinition,
        cwd: PathBuf,
    ) -> Arc<ServerSlot> {
        let mut servers = lock(&self.servers);
        if let Some(slot) = servers.get(key) {
            if slot.definition == *definition && slot.cwd == cwd {
                return slot.clone();
            }
        }
        let slot = Arc::new(ServerSlot {
            definition: definition.clone(),
            cwd,
            running: tokio::sync::Mutex::default(),
            status: Mutex::default(),
            log: ServerLog::new(Some(self.shared.redactor.clone())),
            shared: self.shared.clone(),
        });
        servers.insert(key.to_owned(), slot.clone());
        slot
    }

    /// The server under `key`, if one was made.
    pub fn existing(&self, key: &str) -> Option<Arc<ServerSlot>> {
        lock(&self.servers).get(key).cloned()
    }

    /// Stops and forgets the server under `key`.
    pub async fn remove(&self, key: &str) {
        let slot = lock(&self.servers).remove(key);
        if let Some(slot) = slot {
            slot.stop().await;
        }
    }

    /// Stops every server (the app is closing).
    pub async fn stop_all(&self) {
        let slots: Vec<_> = lock(&self.servers).drain().map(|(_, s)| s).collect();
        for slot in slots {
            slot.stop().await;
        }
    }
}

impl ServerSlot {
    pub fn definition(&self) -> &ServerDefinition {
        &self.definition
    }

    /// How long a listing (tools, resources, prompts) may take.
    pub(crate) fn list_limit(&self) -> Duration {
        self.shared.limits.list
    }

    /// Cleans text of the secrets the servers' definitions expanded (and any added).
    pub fn redactor(&self) -> &Redactor {
        &self.shared.redactor
    }

    pub fn status(&self) -> ServerStatus {
        lock(&self.status).clone()
    }

    /// The tools it offered when last asked, without asking (`None` when never asked, or
    /// while a start or call holds the server).
    pub fn known_tools(&self) -> Option<Vec<RemoteTool>> {
        self.running.try_lock().ok().and_then(|r| r.tools.clone())
    }

    /// Its stderr and Arbor's lines about it.
    pub fn log(&self) -> Vec<String> {
        self.log.lines()
    }

    fn set_status(&self, change: impl FnOnce(&mut ServerStatus)) {
        change(&mut lock(&self.status));
    }

    fn fail(&self, running: &mut Running, error: &McpError) {
        let failures = {
            let mut status = lock(&self.status);
            let message = error.to_string();
            // rmcp reports a 401 without a usable challenge in these words.
            status.state = if matches!(error, McpError::NeedsAuth { .. })
                || message.contains("Auth required")
            {
                ServerState::NeedsAuth
            } else {
                ServerState::Error
            };
            status.error = Some(message);
            if let McpError::NeedsAuth { challenge, .. } = error {
                status.challenge = challenge.clone();
            }
            status.failures += 1;
            status.failures
        };
        let pause = Duration::from_secs(1u64 << failures.min(6).saturating_sub(1)).min(MAX_BACKOFF);
        running.retry_at = Some(Instant::now() + pause);
        running.connection = None;
        running.tools = None;
        self.log.push(&format!("[arbor] {error}"));
    }

    /// The running connection, started when there is none (or it has gone).
    pub(crate) async fn connection(&self) -> Result<Arc<Connection>, McpError> {
        let mut running = self.running.lock().await;
        if let Some(connection) = &running.connection {
            if !connection.is_closed() {
                return Ok(connection.clone());
            }
            let error = McpError::Server {
                name: self.definition.name.clone(),
                why: "it exited; it starts again on the next call".into(),
            };
            self.fail(&mut running, &error);
        }
        if let Some(at) = running.retry_at {
            let now = Instant::now();
            if at > now {
                return Err(McpError::BackingOff {
                    name: self.definition.name.clone(),
                    seconds: (at - now).as_secs().max(1),
                });
            }
        }
        self.set_status(|s| s.state = ServerState::Starting);
        self.log
            .push(&format!("[arbor] starting {}", self.definition.summary()));
        let started = Instant::now();
        let tool_environment = lock(&self.shared.tool_environment).clone();
        // The secrets the definition expands to join the redactor as they are read (once).
        let expansion = self.expansion(&tool_environment);
        let open = || {
            Connection::open(
                &self.definition,
                &self.cwd,
                &expansion,
                self.shared.keychain.clone(),
                &self.log,
                &self.shared.redactor,
                self.shared.limits.start,
            )
        };
        let mut opened = open().await;
        // A machine client signs in by itself when refused (first use, or an expired token:
        // client credentials come with no refresh token), then starts once more.
        if matches!(opened, Err(McpError::NeedsAuth { .. })) && self.is_machine() {
            opened = match self.sign_in_machine().await {
                Ok(()) => open().await,
                Err(error) => Err(error),
            };
        }
        match opened {
            Ok(connection) => {
                let connection = Arc::new(connection);
                let took = started.elapsed().as_millis() as u64;
                self.log
                    .push(&format!("[arbor] running (started in {took} ms)"));
                self.set_status(|s| {
                    s.state = ServerState::Running;
                    s.error = None;
                    s.start_ms = Some(took);
                    s.failures = 0;
                    s.challenge = None;
                });
                running.retry_at = None;
                running.connection = Some(connection.clone());
                Ok(connection)
            }
            Err(error) => {
                self.fail(&mut running, &error);
                Err(error)
            }
        }
    }

    /// Where the definition's `${…}` references are looked up: the keychain, and Arbor's own
    /// environment less what `tool_environment` withholds.
    fn expansion<'a>(&'a self, tool_environment: &'a ToolEnvironment) -> Expansion<'a> {
        Expansion {
            keychain: self.shared.keychain.as_ref(),
            tool_environment,
            variables: &process_variable,
        }
    }

    /// Starts the server when needed and lists its tools (from the last answer unless the
    /// server said they changed).
    pub async fn tools(&self) -> Result<Vec<RemoteTool>, McpError> {
        let connection = self.connection().await?;
        {
            let running = self.running.lock().await;
            if let Some(tools) = &running.tools {
                if !connection.tools_changed() {
                    return Ok(tools.clone());
                }
            }
        }
        let listed = connection.tools(self.shared.limits.list).await;
        let mut running = self.running.lock().await;
        match listed {
            Ok(tools) => {
                self.set_status(|s| s.tools = Some(tools.len()));
                running.tools = Some(tools.clone());
                Ok(tools)
            }
            Err(error) => {
                self.fail(&mut running, &error);
                if matches!(error, McpError::NeedsAuth { .. }) {
                    running.retry_at = None;
                }
                Err(error)
            }
        }
    }

    /// Calls `tool`, within the hub's call limit, stopped by `cancel`. A server that does
    /// not answer in time is stopped (it starts again on the next call).
    pub async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        self.call_asking(tool, arguments, cancel, None).await
    }

    /// [`ServerSlot::call`], where a question the server asks in the middle of the call
    /// (elicitation) goes to `elicitor` — declined when there is none. The time a person takes
    /// to answer does not count against the call's limit.
    pub async fn call_asking(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
        elicitor: Option<Arc<dyn crate::elicitation::Elicitor>>,
    ) -> Result<Value, McpError> {
        let connection = tokio::select! {
            connection = self.connection() => connection?,
            () = cancel.cancelled() => return Err(McpError::Aborted),
        };
        let _caller = elicitor.map(|e| connection.callers().enter(e, cancel));
        let started = Instant::now();
        let limit = self.shared.limits.call;
        let call = connection.call(tool, arguments);
        tokio::pin!(call);
        let mut deadline = tokio::time::Instant::now() + limit;
        let outcome = loop {
            tokio::select! {
                result = &mut call => break Ok(result),
                () = tokio::time::sleep_until(deadline) => {
                    if connection.callers().asking() {
                        deadline = tokio::time::Instant::now() + limit;
                        continue;
                    }
                    break Err(());
                }
                () = cancel.cancelled() => return Err(McpError::Aborted),
            }
        };
        let took = started.elapsed().as_millis() as u64;
        self.set_status(|s| {
            s.calls += 1;
            s.last_call_ms = Some(took);
        });
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                // Closed, or refused for want of a sign-in or of scope: the next need starts
                // it again (signed in anew, with the scope the challenge names).
                if connection.is_closed() || matches!(error, McpError::NeedsAuth { .. }) {
                    let mut running = self.running.lock().await;
                    self.fail(&mut running, &error);
                    if matches!(error, McpError::NeedsAuth { .. }) {
                        running.retry_at = None;
                    }
                }
                Err(error)
            }
            Err(_) => {
                let error = McpError::Timeout {
                    name: self.definition.name.clone(),
                    seconds: limit.as_secs(),
                };
                let mut running = self.running.lock().await;
                let stale = running.connection.take();
                self.fail(&mut running, &error);
                // A timeout is not a crash: the next call may start it at once.
                running.retry_at = None;
                drop(running);
                if let Some(stale) = stale.and_then(|c| Arc::try_unwrap(c).ok()) {
                    stale.close().await;
                }
                Err(error)
            }
        }
    }

    /// Signs in to this HTTP server (see [`crate::oauth::sign_in`]); the next need starts it
    /// with its tokens. `open` shows the authorization page.
    pub async fn sign_in(
        &self,
        open: &(dyn Fn(String) + Send + Sync),
        timeout: Duration,
    ) -> Result<(), McpError> {
        let crate::Transport::Http { url, oauth, .. } = &self.definition.transport else {
            return Err(McpError::InvalidServer {
                name: self.definition.name.clone(),
                why: "only an HTTP server signs in".into(),
            });
        };
        let credentials = crate::oauth::KeychainCredentials::new(self.shared.keychain.clone(), url);
        if oauth.as_ref().is_some_and(|c| c.is_machine()) {
            self.sign_in_machine().await?;
            self.stop().await;
            self.set_status(|s| s.failures = 0);
            return Ok(());
        }
        let challenge = self.status().challenge;
        let client = match oauth {
            None => None,
            Some(client) => {
                let secret = match &client.client_secret {
                    None => None,
                    Some(reference) => {
                        let tool_environment = lock(&self.shared.tool_environment).clone();
                        let expanded = self
                            .expansion(&tool_environment)
                            .expand(&self.definition.name, reference)?;
                        arbor_secrets::Secret::new(expanded.value)
                    }
                };
                Some((client.client_id.clone(), secret))
            }
        };
        crate::oauth::sign_in(
            &self.definition.name,
            url,
            challenge,
            client,
            credentials,
            open,
            timeout,
        )
        .await?;
        self.log.push("[arbor] signed in");
        self.stop().await;
        self.set_status(|s| s.failures = 0);
        Ok(())
    }

    /// Signs a machine client in (client credentials): no browser, no person.
    async fn sign_in_machine(&self) -> Result<(), McpError> {
        let crate::Transport::Http {
            url,
            oauth: Some(client),
            ..
        } = &self.definition.transport
        else {
            return Err(McpError::InvalidServer {
                name: self.definition.name.clone(),
                why: "it has no machine client to sign in with".into(),
            });
        };
        let tool_environment = lock(&self.shared.tool_environment).clone();
        let expansion = self.expansion(&tool_environment);
        let secret = |reference: &str| -> Result<arbor_secrets::Secret, McpError> {
            let expanded = expansion.expand(&self.definition.name, reference)?;
            // Like a header's or a variable's secret, it never reaches the model or the log.
            expanded
                .secrets
                .iter()
                .for_each(|secret| self.shared.redactor.add(secret));
            arbor_secrets::Secret::new(expanded.value).ok_or_else(|| McpError::InvalidServer {
                name: self.definition.name.clone(),
                why: format!("{reference} is empty in the keychain"),
            })
        };
        let proof = match (&client.private_key, &client.client_secret) {
            (Some(key), _) => crate::oauth::MachineProof::PrivateKey {
                pem: secret(key)?,
                algorithm: crate::oauth::signing_algorithm(
                    client.signing_algorithm.as_deref().unwrap_or("ES256"),
                )
                .ok_or_else(|| McpError::InvalidServer {
                    name: self.definition.name.clone(),
                    why: "its signing algorithm is not known".into(),
                })?,
            },
            (None, Some(reference)) => crate::oauth::MachineProof::Secret(secret(reference)?),
            (None, None) => {
                return Err(McpError::InvalidServer {
                    name: self.definition.name.clone(),
                    why: "its machine client has neither a secret nor a private key".into(),
                })
            }
        };
        let credentials = crate::oauth::KeychainCredentials::new(self.shared.keychain.clone(), url);
        crate::oauth::sign_in_machine(
            &self.definition.name,
            url,
            &client.client_id,
            proof,
            credentials,
        )
        .await?;
        self.log.push("[arbor] signed in (client credentials)");
        Ok(())
    }

    /// Whether this server's client signs in by itself (client credentials).
    fn is_machine(&self) -> bool {
        matches!(&self.definition.transport, crate::Transport::Http { oauth: Some(c), .. } if c.is_machine())
    }

    /// Stops the server; the next need starts it again.
    pub async fn stop(&self) {
        let connection = {
            let mut running = self.running.lock().await;
            running.tools = None;
            running.retry_at = None;
            running.connection.take()
        };
        if let Some(connection) = connection {
            self.log.push("[arbor] stopped");
            if let Ok(connection) = Arc::try_unwrap(connection) {
                connection.close().await;
            }
        }
        self.set_status(|s| {
            s.state = ServerState::Stopped;
            s.error = None;
        });
    }
}
