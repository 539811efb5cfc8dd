//! `arbor mcp serve`: Arbor's sessions as an MCP server for other agents — over stdio, or
//! Streamable HTTP on loopback behind a bearer token (`--http PORT`, the token read from
//! `$ARBOR_MCP_TOKEN` or made and printed). Its tools: `prompt` (a new session in a project, or
//! a stored one, answered), `list_sessions`, `read_session`, `session_tree`, `search_sessions`.
//! Every permission rule and the sandbox apply as in any session; nothing that needs a person's
//! approval runs (nobody here can answer), and the refusal says what rule would allow it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor_app::{ArborApp, LiveSession, SessionStart, StoredSessions};
use http_body_util::BodyExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::mcp_serve_resources as resources;

type LiveSessions = HashMap<String, Arc<tokio::sync::Mutex<LiveSession>>>;

/// The server: the data folder's app and the sessions it started or resumed, by stored id
/// (shared by every connection of the HTTP transport).
#[derive(Clone)]
pub struct ArborServer {
    data_dir: PathBuf,
    app: Arc<ArborApp>,
    live: Arc<tokio::sync::Mutex<LiveSessions>>,
}

fn schema(properties: Value, required: &[&str]) -> Arc<Map<String, Value>> {
    let value = json!({"type": "object", "properties": properties, "required": required});
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "prompt",
            "Sends a message to an Arbor session and answers with its reply. Without session_id a \
             new session starts in `project` (an absolute folder path); with it, that stored \
             session goes on. Arbor's permission rules and sandbox apply; what would need a \
             person's approval is refused.",
            schema(
                json!({
                    "project": {"type": "string", "description": "The project folder (absolute path)"},
                    "text": {"type": "string", "description": "The message"},
                    "session_id": {"type": "string", "description": "A stored session to go on with (id or unique prefix)"}
                }),
                &["project", "text"],
            ),
        ),
        Tool::new(
            "list_sessions",
            "Lists stored sessions, most recent first: of one project, or of all.",
            schema(
                json!({"project": {"type": "string", "description": "A project folder; absent: every project"}}),
                &[],
            ),
        ),
        Tool::new(
            "read_session",
            "A stored session's current branch as Markdown.",
            schema(json!({"session_id": {"type": "string"}}), &["session_id"]),
        ),
        Tool::new(
            "session_tree",
            "A stored session's whole tree (every branch), as JSON.",
            schema(json!({"session_id": {"type": "string"}}), &["session_id"]),
        ),
        Tool::new(
            "search_sessions",
            "Full-text search over every stored message.",
            schema(json!({"query": {"type": "string"}}), &["query"]),
        ),
    ]
}

fn text(arguments: &Map<String, Value>, name: &str) -> Result<String, String> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("`{name}` is required (a string)"))
}

impl ArborServer {
    pub fn new(data_dir: &Path) -> anyhow::Result<Self> {
        Ok(Self {
            data_dir: data_dir.to_owned(),
            app: Arc::new(ArborApp::open(Some(data_dir))?),
            live: Arc::default(),
        })
    }

    fn stored(&self) -> Result<StoredSessions, String> {
        StoredSessions::open_for_reading(&self.data_dir).map_err(|e| e.to_string())
    }

    /// The live session `id` (started or resumed here), else a new one in `project`.
    async fn session(
        &self,
        project: &Path,
        id: Option<&str>,
    ) -> Result<Arc<tokio::sync::Mutex<LiveSession>>, String> {
        if let Some(id) = id {
            if let Some(live) = self.live.lock().await.get(id) {
                return Ok(live.clone());
            }
        }
        let folder =
            arbor_app::check_folder(&project.display().to_string()).map_err(|e| e.to_string())?;
        let root = PathBuf::from(folder.path);
        let app = self.app.clone();
        let start = id.map_or(SessionStart::New, |id| SessionStart::Resume(id.to_owned()));
        let session = arbor_app::blocking(move || {
            let config = app.project_session_config(&root, &root)?;
            let session = app.start_session(config, Some(start))?;
            // Nobody here answers a permission request: it is refused with its reason.
            session.set_permissions_answerable(false);
            Ok::<_, arbor_app::AppError>(session)
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
        Ok(Arc::new(tokio::sync::Mutex::new(session)))
    }

    async fn prompt(&self, arguments: &Map<String, Value>) -> Result<String, String> {
        let project = PathBuf::from(text(arguments, "project")?);
        let message = text(arguments, "text")?;
        let id = arguments.get("session_id").and_then(Value::as_str);
        let live = self.session(&project, id).await?;
        let mut session = live.lock().await;
        if session.session_id().is_none() {
            session.attach_without_node_views(|_| {});
        }
        let outcome = session
            .start_prompt(message, Vec::new())
            .map_err(|e| e.to_string())?
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let answer = outcome
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                arbor_protocol::AgentMessage::Assistant(a) => Some(a.text()),
                _ => None,
            })
            .unwrap_or_default();
        let session_id = session.session_id().unwrap_or_default();
        drop(session);
        if !session_id.is_empty() {
            self.live.lock().await.insert(session_id.clone(), live);
        }
        let status = serde_json::to_value(outcome.status).unwrap_or_default();
        Ok(serde_json::to_string_pretty(&json!({
            "session_id": session_id,
            "status": status,
            "answer": answer,
        }))
        .unwrap_or_default())
    }

    async fn call(&self, name: &str, arguments: &Map<String, Value>) -> Result<String, String> {
        match name {
            "prompt" => self.prompt(arguments).await,
            "list_sessions" => {
                let project = arguments
                    .get("project")
                    .and_then(Value::as_str)
                    .map(PathBuf::from);
                let list = self
                    .stored()?
                    .list(project.as_deref())
                    .map_err(|e| e.to_string())?;
                Ok(serde_json::to_string_pretty(&list).unwrap_or_default())
            }
            "read_session" => {
                let id = text(arguments, "session_id")?;
                let export = self
                    .stored()?
                    .export(
                        &id,
                        arbor_app::export::ExportScope::CurrentBranch,
                        arbor_app::export::ExportFormat::Markdown,
                    )
                    .map_err(|e| e.to_string())?;
                Ok(export.text)
            }
            "session_tree" => {
                let id = text(arguments, "session_id")?;
                let (title, tree) = self.stored()?.tree(&id).map_err(|e| e.to_string())?;
                Ok(
                    serde_json::to_string_pretty(&json!({"title": title, "tree": tree}))
                        .unwrap_or_default(),
                )
            }
            "search_sessions" => {
                let query = text(arguments, "query")?;
                let hits = self.stored()?.search(&query).map_err(|e| e.to_string())?;
                Ok(serde_json::to_string_pretty(&hits).unwrap_or_default())
            }
            other => Err(format!("no tool {other:?}")),
        }
    }

    /// Closes the live sessions (a run in progress stops, its partial answer stored).
    pub async fn close(&self) {
        for (_, live) in self.live.lock().await.drain() {
            live.lock().await.close().await;
        }
        self.app.stop_mcp_servers().await;
    }
}

impl ServerHandler for ArborServer {
    fn get_info(&self) -> InitializeResult {
        let capabilities: ServerCapabilities =
            serde_json::from_value(json!({"tools": {}, "resources": {}}))
                .unwrap_or_else(|_| ServerCapabilities::builder().enable_tools().build());
        InitializeResult::new(capabilities)
            .with_server_info(Implementation::new("arbor", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Arbor's coding-agent sessions: `prompt` works in a project folder under the \
                 user's permission rules and sandbox; the other tools read stored sessions, \
                 which are also resources (arbor://session/<id>, Markdown).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let result = match self.call(&request.name, &arguments).await {
            Ok(answer) => CallToolResult::success(vec![ContentBlock::text(answer)]),
            Err(why) => CallToolResult::error(vec![ContentBlock::text(why)]),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listed = resources::list(&self.stored_or_error()?)
            .map_err(|why| ErrorData::internal_error(why, None))?;
        Self::from_json(listed)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Self::from_json(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let stored = self.stored_or_error()?;
        match resources::read(&stored, &request.uri) {
            None => Err(ErrorData::resource_not_found(
                format!(
                    "no resource {:?}: sessions are arbor://session/<id>",
                    request.uri
                ),
                None,
            )),
            Some(Err(why)) => Err(ErrorData::resource_not_found(why, None)),
            Some(Ok(read)) => {
                let read: rmcp::model::ReadResourceResult = Self::from_json(read)?;
                Ok(read.into())
            }
        }
    }
}

/// The answers the SDK's types are read from (its result types are not built field by field).
impl ArborServer {
    fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
        serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    fn stored_or_error(&self) -> Result<StoredSessions, ErrorData> {
        self.stored()
            .map_err(|why| ErrorData::internal_error(why, None))
    }
}

/// The header a client of the HTTP transport must send.
fn bearer_ok(request: &hyper::Request<hyper::body::Incoming>, token: &str) -> bool {
    let expected = format!("Bearer {token}");
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| constant_time_eq(v.as_bytes(), expected.as_bytes()))
}

/// Compares without stopping at the first difference (the token is a secret).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A token of 32 random bytes, as hex.
fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no random source: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

async fn serve_http(server: ArborServer, port: u16, token: String) -> anyhow::Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let address = listener.local_addr()?;
    eprintln!("arbor mcp serve: http://{address}/mcp (send `Authorization: Bearer <token>`)");
    let factory = server.clone();
    let service = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let token = Arc::new(token);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            _ = tokio::signal::ctrl_c() => break,
        };
        let (service, token) = (service.clone(), token.clone());
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(
                move |request: hyper::Request<hyper::body::Incoming>| {
                    let (service, token) = (service.clone(), token.clone());
                    async move {
                        if !bearer_ok(&request, &token) {
                            let refused = hyper::Response::builder()
                                .status(hyper::StatusCode::UNAUTHORIZED)
                                .header(hyper::header::WWW_AUTHENTICATE, "Bearer")
                                .body(
                                    http_body_util::Full::new(hyper::body::Bytes::from_static(
                                        b"a bearer token is required",
                                    ))
                                    .map_err(|never| match never {})
                                    .boxed_unsync(),
                                )
                                .map_err(|e| std::io::Error::other(e.to_string()))?;
                            return Ok::<_, std::io::Error>(refused);
                        }
                        let response = tower_service::Service::call(&mut service.clone(), request)
                            .await
                            .map_err(|e| std::io::Error::other(e.to_string()))?;
                        Ok(response.map(|body| {
                            body.map_err(|e| std::io::Error::other(e.to_string()))
                                .boxed_unsync()
                        }))
                    }
                },
            );
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, handler)
                .await;
        });
    }
    Ok(())
}

/// `arbor mcp serve [--http PORT]`.
pub fn run(data_dir: &Path, http: Option<u16>) -> anyhow::Result<std::process::ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = ArborServer::new(data_dir)?;
        let outcome = match http {
            None => {
                use rmcp::ServiceExt;
                match server.clone().serve(rmcp::transport::stdio()).await {
                    Ok(running) => running
                        .waiting()
                        .await
                        .map(|_| ())
                        .map_err(anyhow::Error::from),
                    Err(error) => Err(anyhow::anyhow!("the MCP handshake failed: {error}")),
                }
            }
            Some(port) => {
                let token = match std::env::var("ARBOR_MCP_TOKEN") {
                    Ok(token) if token.len() >= 16 => token,
                    Ok(_) => anyhow::bail!(
                        "ARBOR_MCP_TOKEN is shorter than 16 characters: give a longer one"
                    ),
                    Err(_) => {
                        let token = new_token()?;
                        eprintln!("arbor mcp serve: token {token}");
                        token
                    }
                };
                serve_http(server.clone(), port, token).await
            }
        };
        server.close().await;
        outcome.map(|()| std::process::ExitCode::SUCCESS)
    })
}
