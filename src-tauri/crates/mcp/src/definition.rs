//! What an MCP server is: its name and how to reach it — a command over stdio or a URL over
//! Streamable HTTP — as the user's settings and a project's `.mcp.json` write it, and the hash
//! an approval of a project's server is pinned to.
//!
//! `.mcp.json` is the file other agents read (`{"mcpServers": {"name": {"command": …,
//! "args": […], "env": {…}}, "web": {"type": "http", "url": …, "headers": {…}}}}`), so a
//! repository's file works as it is. One bad entry never hides the others: each problem is
//! reported with the server's name.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::McpError;

/// The project file naming a project's servers.
pub const PROJECT_FILE: &str = ".mcp.json";

/// Longest server name: `mcp__<server>__<tool>` must stay within the 64 characters providers
/// accept for a tool name, with room for the tool.
pub const MAX_SERVER_NAME: usize = 24;

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Transport {
    /// A command started by Arbor, speaking JSON-RPC over its stdin and stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        /// Variables the server gets besides the scrubbed environment; a value may name a
        /// secret (`${keychain:NAME}`) or a variable of Arbor's environment (`${NAME}`).
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    /// A server at a URL, over Streamable HTTP.
    Http {
        url: String,
        /// Headers sent with every request; values expand like `env`'s.
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// An OAuth client registered with the server's authorization server beforehand (for
        /// servers that do not register clients dynamically).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth: Option<OAuthClient>,
    },
    /// A server at a URL over the legacy HTTP+SSE transport (protocol 2024-11-05), for servers
    /// that do not speak Streamable HTTP yet: an event stream, and the endpoint it names.
    Sse {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
}

/// A client registered beforehand: its id, and its secret (`${keychain:NAME}`, never the
/// secret itself) when it has one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthClient {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_credentials`: a machine client (the OAuth client-credentials extension,
    /// SEP-1046), signed in without a browser by its secret or its private key. Absent: a
    /// person signs in (authorization code with PKCE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
    /// A machine client's private key (PEM) for `private_key_jwt`, as `${keychain:NAME}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// The key's algorithm: ES256 (the default), ES384, RS256, RS384 or RS512.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_algorithm: Option<String>,
}

/// The grant of a machine client.
pub const CLIENT_CREDENTIALS: &str = "client_credentials";

impl OAuthClient {
    /// Whether this client signs in by itself (client credentials), without a person.
    pub fn is_machine(&self) -> bool {
        self.grant.as_deref() == Some(CLIENT_CREDENTIALS)
    }
}

/// One MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerDefinition {
    pub name: String,
    #[serde(flatten)]
    pub transport: Transport,
}

impl ServerDefinition {
    /// Checks the name and the transport: a clear error says what is wrong.
    pub fn validate(&self) -> Result<(), McpError> {
        check_name(&self.name)?;
        match &self.transport {
            Transport::Stdio { command, env, .. } => {
                if command.trim().is_empty() {
                    return Err(self.invalid("it names no command"));
                }
                for name in env.keys() {
                    if name.is_empty() || name.contains('=') || name.contains('\0') {
                        return Err(self.invalid(format!("{name:?} is not a variable name")));
                    }
                }
            }
            Transport::Http {
                url,
                headers,
                oauth,
            } => {
                if let Some(client) = oauth {
                    if client.client_id.trim().is_empty() {
                        return Err(self.invalid("its OAuth client has no id"));
                    }
                    let plain = |value: &Option<String>| {
                        value
                            .as_deref()
                            .is_some_and(|secret| !secret.starts_with("${keychain:"))
                    };
                    if plain(&client.client_secret) || plain(&client.private_key) {
                        return Err(self.invalid(
                            "its OAuth client secret or private key must be a ${keychain:NAME} \
                             reference, never the secret itself",
                        ));
                    }
                    match client.grant.as_deref() {
                        None | Some("authorization_code") => {}
                        Some(CLIENT_CREDENTIALS) => {
                            if client.client_secret.is_none() && client.private_key.is_none() {
                                return Err(self.invalid(
                                    "a client_credentials client needs its clientSecret or its \
                                     privateKey (a ${keychain:NAME} reference)",
                                ));
                            }
                        }
                        Some(other) => {
                            return Err(self.invalid(format!(
                                "its OAuth grant {other:?} is not known: use \
                                 \"client_credentials\" for a machine client, or leave it out"
                            )))
                        }
                    }
                    if let Some(algorithm) = &client.signing_algorithm {
                        if crate::oauth::signing_algorithm(algorithm).is_none() {
                            return Err(self.invalid(format!(
                                "its signing algorithm {algorithm:?} is not one of ES256, ES384, \
                                 RS256, RS384, RS512"
                            )));
                        }
                    }
                }
                self.check_url_and_headers(url, headers)?;
            }
            Transport::Sse { url, headers } => self.check_url_and_headers(url, headers)?,
        }
        Ok(())
    }

    fn check_url_and_headers(
        &self,
        url: &str,
        headers: &BTreeMap<String, String>,
    ) -> Result<(), McpError> {
        let lower = url.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("http://")) {
            return Err(self.invalid(format!(
                "its URL {url:?} is not http(s); give the server's endpoint"
            )));
        }
        for name in headers.keys() {
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(self.invalid(format!("{name:?} is not a header name")));
            }
        }
        Ok(())
    }

    fn invalid(&self, why: impl Into<String>) -> McpError {
        McpError::InvalidServer {
            name: self.name.clone(),
            why: why.into(),
        }
    }

    /// The hash an approval is pinned to: the name and everything the transport says
    /// (command, arguments, variable names and values as written — a `${keychain:…}`
    /// reference, never the secret —, URL, headers). Any change asks again.
    pub fn hash(&self) -> String {
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        hex(&Sha256::digest(&canonical))
    }

    /// The definition as a person reviews it: pretty JSON, keys in a fixed order.
    pub fn reviewed_text(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// `command arg…` or the URL, for a list row.
    pub fn summary(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Http { url, .. } => url.clone(),
            Transport::Sse { url, .. } => format!("{url} (legacy SSE)"),
        }
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A server name: letters, digits, `-` and `_`, at most [`MAX_SERVER_NAME`], and no `__`
/// (the separator of `mcp__<server>__<tool>`).
pub fn check_name(name: &str) -> Result<(), McpError> {
    let why = if name.is_empty() {
        Some("a server needs a name".to_owned())
    } else if name.len() > MAX_SERVER_NAME {
        Some(format!("a name has at most {MAX_SERVER_NAME} characters"))
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Some("a name has only letters, digits, '-' and '_'".to_owned())
    } else if name.contains("__") {
        Some("a name cannot contain \"__\" (it separates server and tool)".to_owned())
    } else {
        None
    };
    match why {
        Some(why) => Err(McpError::InvalidServer {
            name: name.to_owned(),
            why,
        }),
        None => Ok(()),
    }
}

/// The servers of a `.mcp.json`, and what was wrong with the entries left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectServers {
    pub servers: Vec<ServerDefinition>,
    /// `(server name, what is wrong)`; a name of `""` means the file itself.
    pub problems: Vec<(String, String)>,
}

/// One entry of `.mcp.json` as other agents write it (`type` is optional for a command).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    oauth: Option<OAuthClient>,
}

fn entry_definition(name: &str, entry: FileEntry) -> Result<ServerDefinition, String> {
    let kind = entry
        .kind
        .as_deref()
        .unwrap_or(if entry.url.is_some() { "http" } else { "stdio" });
    let transport = match kind {
        "stdio" => Transport::Stdio {
            command: entry
                .command
                .ok_or("a stdio server needs \"command\"")?
                .to_owned(),
            args: entry.args,
            env: entry.env,
        },
        "http" | "streamable-http" | "streamableHttp" => Transport::Http {
            url: entry.url.ok_or("an http server needs \"url\"")?,
            headers: entry.headers,
            oauth: entry.oauth,
        },
        "sse" => Transport::Sse {
            url: entry.url.ok_or("an sse server needs \"url\"")?,
            headers: entry.headers,
        },
        other => {
            return Err(format!(
                "unknown \"type\" {other:?}: use \"stdio\", \"http\" or (legacy) \"sse\""
            ))
        }
    };
    let definition = ServerDefinition {
        name: name.to_owned(),
        transport,
    };
    definition.validate().map_err(|e| match e {
        McpError::InvalidServer { why, .. } => why,
        other => other.to_string(),
    })?;
    Ok(definition)
}

/// Parses a `.mcp.json` text.
pub fn parse_project_file(text: &str) -> ProjectServers {
    #[derive(Deserialize)]
    struct File {
        #[serde(rename = "mcpServers", default)]
        servers: BTreeMap<String, serde_json::Value>,
    }
    let mut out = ProjectServers::default();
    let file: File = match serde_json::from_str(text) {
        Ok(file) => file,
        Err(error) => {
            out.problems.push((
                String::new(),
                format!("{PROJECT_FILE} is not valid: {error}"),
            ));
            return out;
        }
    };
    for (name, value) in file.servers {
        let parsed = serde_json::from_value::<FileEntry>(value)
            .map_err(|e| e.to_string())
            .and_then(|entry| entry_definition(&name, entry));
        match parsed {
            Ok(definition) => out.servers.push(definition),
            Err(why) => out.problems.push((name, why)),
        }
    }
    out
}

/// Reads `<root>/.mcp.json`; no file means no servers. A file over 1 MiB is refused.
pub fn read_project_file(root: &Path) -> ProjectServers {
    let path = root.join(PROJECT_FILE);
    match std::fs::metadata(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return ProjectServers::default()
        }
        Ok(meta) if !meta.is_file() || meta.len() > 1024 * 1024 => {
            return ProjectServers {
                servers: Vec::new(),
                problems: vec![(
                    String::new(),
                    format!("{PROJECT_FILE} is not a regular file under 1 MiB"),
                )],
            }
        }
        _ => {}
    }
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_project_file(&text),
        Err(error) => ProjectServers {
            servers: Vec::new(),
            problems: vec![(
                String::new(),
                format!("{PROJECT_FILE} cannot be read: {error}"),
            )],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_as_other_agents_write_it_parses_and_bad_entries_are_named() {
        let parsed = parse_project_file(
            r#"{"mcpServers": {
                "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"TOKEN": "${keychain:git}"}},
                "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"X-Key": "${KEY}"}},
                "old": {"type": "sse", "url": "https://example.com/sse"},
                "oldnourl": {"type": "sse"},
                "bad name": {"command": "x"},
                "a__b": {"command": "x"},
                "none": {"args": []},
                "ftp": {"type": "http", "url": "ftp://x"}
            }}"#,
        );
        let names: Vec<_> = parsed.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["git", "old", "web"]);
        let problems: BTreeMap<_, _> = parsed.problems.into_iter().collect();
        assert!(problems["oldnourl"].contains("needs \"url\""));
        assert!(problems["bad name"].contains("letters"));
        assert!(problems["a__b"].contains("__"));
        assert!(problems["none"].contains("command"));
        assert!(problems["ftp"].contains("http(s)"));
        assert!(parse_project_file("{").problems[0].1.contains("not valid"));
        let oauth = parse_project_file(
            r#"{"mcpServers": {
                "gh": {"type": "http", "url": "https://x/mcp", "oauth": {"clientId": "abc", "clientSecret": "${keychain:gh}", "callbackPort": 8080}},
                "leak": {"type": "http", "url": "https://x/mcp", "oauth": {"clientId": "abc", "clientSecret": "plain-secret"}}
            }}"#,
        );
        assert_eq!(oauth.servers.len(), 1);
        assert!(
            matches!(&oauth.servers[0].transport, Transport::Http { oauth: Some(c), .. } if c.client_id == "abc")
        );
        assert!(
            oauth.problems[0].1.contains("never the secret itself"),
            "{:?}",
            oauth.problems
        );
        let machines = parse_project_file(
            r#"{"mcpServers": {
                "ci": {"url": "https://x/mcp", "oauth": {"clientId": "bot", "grant": "client_credentials", "privateKey": "${keychain:bot-key}", "signingAlgorithm": "RS256"}},
                "nokey": {"url": "https://x/mcp", "oauth": {"clientId": "bot", "grant": "client_credentials"}},
                "plainkey": {"url": "https://x/mcp", "oauth": {"clientId": "bot", "grant": "client_credentials", "privateKey": "-----BEGIN PRIVATE KEY----- …"}},
                "odd": {"url": "https://x/mcp", "oauth": {"clientId": "bot", "grant": "password", "clientSecret": "${keychain:b}"}},
                "alg": {"url": "https://x/mcp", "oauth": {"clientId": "bot", "grant": "client_credentials", "privateKey": "${keychain:k}", "signingAlgorithm": "HS256"}}
            }}"#,
        );
        assert_eq!(machines.servers.len(), 1);
        assert!(
            matches!(&machines.servers[0].transport, Transport::Http { oauth: Some(c), .. } if c.is_machine())
        );
        let problems: BTreeMap<_, _> = machines.problems.into_iter().collect();
        assert!(problems["nokey"].contains("needs its clientSecret or its privateKey"));
        assert!(problems["plainkey"].contains("never the secret itself"));
        assert!(problems["odd"].contains("\"password\" is not known"));
        assert!(problems["alg"].contains("\"HS256\" is not one of"));
        assert_eq!(parse_project_file("{}"), ProjectServers::default());
    }

    #[test]
    fn the_hash_changes_with_any_part_of_the_definition() {
        let base = parse_project_file(
            r#"{"mcpServers": {"s": {"command": "node", "args": ["a.js"], "env": {"A": "1"}}}}"#,
        )
        .servers
        .remove(0);
        let mut hashes = std::collections::HashSet::new();
        hashes.insert(base.hash());
        assert_eq!(base.hash(), base.clone().hash());
        let mut changed = base.clone();
        changed.name = "t".into();
        assert!(hashes.insert(changed.hash()));
        for edit in [
            |t: &mut Transport| {
                if let Transport::Stdio { command, .. } = t {
                    command.push('x')
                }
            },
            |t: &mut Transport| {
                if let Transport::Stdio { args, .. } = t {
                    args.push("--evil".into())
                }
            },
            |t: &mut Transport| {
                if let Transport::Stdio { env, .. } = t {
                    env.insert("B".into(), "2".into());
                }
            },
            |t: &mut Transport| {
                if let Transport::Stdio { env, .. } = t {
                    env.insert("A".into(), "2".into());
                }
            },
        ] {
            let mut changed = base.clone();
            edit(&mut changed.transport);
            assert!(hashes.insert(changed.hash()), "{changed:?}");
        }
        assert_eq!(base.summary(), "node a.js");
    }
}
