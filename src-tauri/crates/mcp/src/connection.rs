//! [`Connection`]: one running server, reached through `rmcp` — a child process over stdio
//! (in its own process group, so `npx` and what it starts stop together, killed when the
//! connection is dropped) or a URL over Streamable HTTP — and what it answers, read into
//! Arbor's own shapes ([`RemoteTool`], [`crate::result`]) so the rest of Arbor does not follow
//! the SDK's types.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ElicitRequestParams, ElicitResult,
    ElicitationAction as SdkAction, Implementation, InitializeRequestParams, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;

use crate::definition::{ServerDefinition, Transport};
use crate::elicitation::{Callers, ElicitationReply};
use crate::environment::Expansion;
use crate::log::ServerLog;
use crate::McpError;

/// Largest JSON answer read from an HTTP server (a 10 MB tool result fits; more is refused).
const MAX_HTTP_RESPONSE: usize = 32 * 1024 * 1024;

/// A tool as the server describes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RemoteTool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default)]
    pub description: String,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
}

/// What Arbor says it is; notices a changed tool list; passes a server's question to the
/// person whose call is running.
#[derive(Clone)]
struct ArborClient {
    server: String,
    tools_changed: Arc<AtomicBool>,
    callers: Callers,
    log: ServerLog,
}

impl ArborClient {
    async fn answer(&self, request: ElicitRequestParams) -> ElicitResult {
        let declined = ElicitResult::new(SdkAction::Decline);
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            self.log
                .push("[arbor] the server asked to open a page (URL elicitation): declined");
            return declined;
        };
        let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
        let form = match crate::elicitation::form(&self.server, &message, &schema) {
            Ok(form) => form,
            Err(why) => {
                self.log.push(&format!(
                    "[arbor] the server's question was declined: {why}"
                ));
                return declined;
            }
        };
        match self.callers.ask(form).await {
            None => {
                self.log.push(
                    "[arbor] the server asked a question while nobody could answer it: declined",
                );
                declined
            }
            Some(ElicitationReply::Accept(content)) => {
                ElicitResult::new(SdkAction::Accept).with_content(Value::Object(content))
            }
            Some(ElicitationReply::Decline) => declined,
            Some(ElicitationReply::Cancel) => ElicitResult::new(SdkAction::Cancel),
        }
    }
}

impl ClientHandler for ArborClient {
    fn get_info(&self) -> InitializeRequestParams {
        // Form elicitation: a server may ask the person for input mid-call (answered by the
        // session whose call runs, declined where nobody can answer). No URL elicitation.
        let capabilities: ClientCapabilities =
            serde_json::from_value(serde_json::json!({"elicitation": {"form": {}}}))
                .unwrap_or_default();
        // The newest version with an `initialize` handshake: what servers in use today answer
        // (and what the official conformance suite expects).
        InitializeRequestParams::new(
            capabilities,
            Implementation::new("arbor", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(self.answer(request).await)
    }
}

/// One running server.
pub struct Connection {
    name: String,
    service: RunningService<RoleClient, ArborClient>,
    tools_changed: Arc<AtomicBool>,
    callers: Callers,
}

impl Connection {
    /// Starts (stdio) or reaches (HTTP) `definition`'s server and completes the handshake
    /// within `timeout`. A stdio server works in `cwd`, with the scrubbed environment and its
    /// definition's variables; its stderr goes to `log`; the secrets its references expand to
    /// are added to `redactor`.
    pub async fn open(
        definition: &ServerDefinition,
        cwd: &Path,
        expansion: &Expansion<'_>,
        keychain: Arc<dyn arbor_secrets::SecretStore>,
        log: &ServerLog,
        redactor: &arbor_secrets::Redactor,
        timeout: Duration,
    ) -> Result<Self, McpError> {
        let name = definition.name.clone();
        let start_error = |why: String| McpError::Start {
            name: name.clone(),
            why,
        };
        let tools_changed = Arc::new(AtomicBool::new(false));
        let callers = Callers::default();
        let client = ArborClient {
            server: name.clone(),
            tools_changed: tools_changed.clone(),
            callers: callers.clone(),
            log: log.clone(),
        };
        let handshake = match &definition.transport {
            Transport::Stdio { command, args, env } => {
                let (env, secrets) = expansion.expand_map(&name, env)?;
                secrets.iter().for_each(|secret| redactor.add(secret));
                let mut process = tokio::process::Command::new(command);
                process.args(args).current_dir(cwd).stdin(Stdio::piped());
                for withheld in expansion.tool_environment.withheld() {
                    process.env_remove(withheld);
                }
                process.envs(env);
                let mut wrapped = process_wrap::tokio::CommandWrap::from(process);
                #[cfg(unix)]
                wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
                wrapped.wrap(process_wrap::tokio::KillOnDrop);
                let (transport, stderr) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|error| {
                        start_error(format!(
                            "{command:?} could not be started ({error}); check the command is \
                             installed and on PATH"
                        ))
                    })?;
                if let Some(stderr) = stderr {
                    let log = log.clone();
                    tokio::spawn(async move { log.read_from(stderr).await });
                }
                tokio::time::timeout(timeout, client.serve(transport)).await
            }
            Transport::Sse { url, headers } => {
                let (headers, secrets) = expansion.expand_map(&name, headers)?;
                secrets.iter().for_each(|secret| redactor.add(secret));
                let mut map = reqwest::header::HeaderMap::new();
                for (header, value) in headers {
                    let header = http::HeaderName::try_from(header.as_str())
                        .map_err(|e| start_error(format!("header {header:?}: {e}")))?;
                    let value = http::HeaderValue::try_from(value.as_str())
                        .map_err(|e| start_error(format!("header {header}: {e}")))?;
                    map.insert(header, value);
                }
                let transport = match tokio::time::timeout(
                    timeout,
                    crate::legacy_sse::LegacySse::connect(url, map),
                )
                .await
                {
                    Err(_) => {
                        return Err(start_error(format!(
                            "its event stream named no endpoint within {} s",
                            timeout.as_secs()
                        )))
                    }
                    Ok(Err(error)) => return Err(start_error(error.to_string())),
                    Ok(Ok(transport)) => transport,
                };
                tokio::time::timeout(timeout, client.serve(transport)).await
            }
            Transport::Http { url, headers, .. } => {
                let (headers, secrets) = expansion.expand_map(&name, headers)?;
                secrets.iter().for_each(|secret| redactor.add(secret));
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    );
                config.max_json_response_size = MAX_HTTP_RESPONSE;
                let mut custom = HashMap::new();
                for (header, value) in headers {
                    if header.eq_ignore_ascii_case("authorization") {
                        config.auth_header =
                            Some(value.strip_prefix("Bearer ").unwrap_or(&value).to_owned());
                        continue;
                    }
                    let header = http::HeaderName::try_from(header.as_str())
                        .map_err(|e| start_error(format!("header {header:?}: {e}")))?;
                    let value = http::HeaderValue::try_from(value.as_str())
                        .map_err(|e| start_error(format!("header {header}: {e}")))?;
                    custom.insert(header, value);
                }
                config.custom_headers = custom;
                // Signed in: every request carries a token, refreshed before it expires.
                let credentials = crate::oauth::KeychainCredentials::new(keychain, url);
                let manager = crate::oauth::stored_manager(url, &credentials)
                    .await
                    .map_err(|e| {
                        start_error(format!("its sign-in cannot be used ({e}); sign in again"))
                    })?;
                match manager {
                    Some(manager) => {
                        let client_with_auth = rmcp::transport::auth::AuthClient::new(
                            reqwest::Client::default(),
                            manager,
                        );
                        let transport =
                            StreamableHttpClientTransport::with_client(client_with_auth, config);
                        tokio::time::timeout(timeout, client.serve(transport)).await
                    }
                    None => {
                        let transport = StreamableHttpClientTransport::from_config(config);
                        tokio::time::timeout(timeout, client.serve(transport)).await
                    }
                }
            }
        };
        let service = match handshake {
            Err(_) => {
                return Err(start_error(format!(
                    "no answer to the handshake within {} s",
                    timeout.as_secs()
                )))
            }
            Ok(Err(error)) => {
                if let Some(challenge) = error.auth_challenge() {
                    return Err(McpError::NeedsAuth {
                        name: name.clone(),
                        challenge: Some(challenge.to_owned()),
                    });
                }
                return Err(start_error(error.to_string()));
            }
            Ok(Ok(service)) => service,
        };
        Ok(Self {
            name: definition.name.clone(),
            service,
            tools_changed,
            callers,
        })
    }

    /// The calls running on this connection that can ask the person.
    pub(crate) fn callers(&self) -> &Callers {
        &self.callers
    }

    /// Whether the server has gone (exited, closed the stream).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.is_transport_closed()
    }

    /// Whether the server said its tool list changed since the last [`Connection::tools`].
    pub fn tools_changed(&self) -> bool {
        self.tools_changed.load(Ordering::SeqCst)
    }

    /// Every tool the server offers now.
    pub async fn tools(&self, timeout: Duration) -> Result<Vec<RemoteTool>, McpError> {
        self.tools_changed.store(false, Ordering::SeqCst);
        let tools = tokio::time::timeout(timeout, self.service.peer().list_all_tools())
            .await
            .map_err(|_| self.timed_out(timeout))?
            .map_err(|error| self.refused(error))?;
        tools
            .into_iter()
            .map(|tool| {
                let value = serde_json::to_value(&tool).map_err(|e| self.failed(e))?;
                serde_json::from_value(value).map_err(|e| self.failed(e))
            })
            .collect()
    }

    /// Calls `tool` with `arguments`: the raw result as JSON (see [`crate::result`]).
    pub async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, McpError> {
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let result = self
            .service
            .peer()
            .call_tool(params)
            .await
            .map_err(|error| self.refused(error))?;
        serde_json::to_value(result).map_err(|e| self.failed(e))
    }

    /// A request's failure; a 401/403 asking for a sign-in (or more scope) says so.
    /// The capabilities the server announced (`resources`, `prompts`, …) as JSON.
    fn offers(&self, capability: &str) -> bool {
        self.service
            .peer_info()
            .and_then(|info| serde_json::to_value(&info.capabilities).ok())
            .is_some_and(|caps| caps.get(capability).is_some_and(|c| !c.is_null()))
    }

    /// Every resource the server lists (none when it offers no resources), as JSON.
    pub async fn resources(&self, timeout: Duration) -> Result<Vec<Value>, McpError> {
        if !self.offers("resources") {
            return Ok(Vec::new());
        }
        let listed = tokio::time::timeout(timeout, self.service.peer().list_all_resources())
            .await
            .map_err(|_| self.timed_out(timeout))?
            .map_err(|error| self.refused(error))?;
        Ok(listed
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect())
    }

    /// One resource's contents, as JSON (`{contents: [...]}`).
    pub async fn read_resource(&self, uri: &str, timeout: Duration) -> Result<Value, McpError> {
        let params = rmcp::model::ReadResourceRequestParams::new(uri.to_owned());
        let read = tokio::time::timeout(timeout, self.service.peer().read_resource(params))
            .await
            .map_err(|_| self.timed_out(timeout))?
            .map_err(|error| self.refused(error))?;
        serde_json::to_value(read).map_err(|e| self.failed(e))
    }

    /// Every prompt the server lists (none when it offers no prompts), as JSON.
    pub async fn prompts(&self, timeout: Duration) -> Result<Vec<Value>, McpError> {
        if !self.offers("prompts") {
            return Ok(Vec::new());
        }
        let listed = tokio::time::timeout(timeout, self.service.peer().list_all_prompts())
            .await
            .map_err(|_| self.timed_out(timeout))?
            .map_err(|error| self.refused(error))?;
        Ok(listed
            .iter()
            .filter_map(|p| serde_json::to_value(p).ok())
            .collect())
    }

    /// A prompt filled with `arguments`, as JSON (`{description, messages: [...]}`).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let mut params = rmcp::model::GetPromptRequestParams::new(name.to_owned());
        params.arguments = Some(arguments);
        let got = tokio::time::timeout(timeout, self.service.peer().get_prompt(params))
            .await
            .map_err(|_| self.timed_out(timeout))?
            .map_err(|error| self.refused(error))?;
        serde_json::to_value(got).map_err(|e| self.failed(e))
    }

    fn refused(&self, error: rmcp::ServiceError) -> McpError {
        match error.auth_challenge() {
            Some(challenge) => McpError::NeedsAuth {
                name: self.name.clone(),
                challenge: Some(challenge.to_owned()),
            },
            None => self.failed(error),
        }
    }

    fn failed(&self, why: impl std::fmt::Display) -> McpError {
        McpError::Server {
            name: self.name.clone(),
            why: why.to_string(),
        }
    }

    fn timed_out(&self, timeout: Duration) -> McpError {
        McpError::Timeout {
            name: self.name.clone(),
            seconds: timeout.as_secs(),
        }
    }

    /// Ends the session and stops the process (waiting at most a few seconds for it).
    pub async fn close(mut self) {
        let _ = self
            .service
            .close_with_timeout(Duration::from_secs(3))
            .await;
    }
}
