//! OAuth 2.1 for HTTP servers, through `rmcp`'s client (discovery from the server's 401
//! challenge, dynamic client registration, authorization code with PKCE, refresh): a person
//! signs in once in the system browser, the redirect comes back to a loopback listener, and
//! the tokens live in the keychain ([`KeychainCredentials`]) — never in a file, a log or the
//! webview. Every request asks the stored tokens for an access token, which `rmcp` refreshes
//! shortly before it expires, so running sessions pick up a refreshed (or a new) sign-in.

use std::sync::Arc;
use std::time::Duration;

use arbor_secrets::{Secret, SecretStore};
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, ClientCredentialsConfig,
    CredentialStore, JwtSigningAlgorithm, OAuthState, StoredCredentials,
};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::definition::hex;
use crate::McpError;

/// How long a sign-in waits for the browser to come back.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The keychain account of the tokens for the server at `url`.
pub fn credentials_account(url: &str) -> String {
    format!("mcp-oauth:{}", &hex(&Sha256::digest(url.as_bytes()))[..24])
}

/// A server's OAuth credentials as JSON in the keychain.
#[derive(Clone)]
pub struct KeychainCredentials {
    keychain: Arc<dyn SecretStore>,
    account: String,
}

impl KeychainCredentials {
    pub fn new(keychain: Arc<dyn SecretStore>, url: &str) -> Self {
        Self {
            keychain,
            account: credentials_account(url),
        }
    }

    /// Whether tokens are kept for this server.
    pub fn present(&self) -> bool {
        matches!(self.keychain.get(&self.account), Ok(Some(_)))
    }
}

fn keychain_error(error: impl std::fmt::Display) -> AuthError {
    AuthError::InternalError(format!("the keychain: {error}"))
}

#[async_trait::async_trait]
impl CredentialStore for KeychainCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match self.keychain.get(&self.account).map_err(keychain_error)? {
            None => Ok(None),
            Some(secret) => Ok(serde_json::from_str(secret.expose()).ok()),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let json = serde_json::to_string(&credentials).map_err(keychain_error)?;
        let secret = Secret::new(json).ok_or_else(|| keychain_error("empty credentials"))?;
        self.keychain
            .set(&self.account, &secret)
            .map_err(keychain_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.keychain
            .remove(&self.account)
            .map(|_| ())
            .map_err(keychain_error)
    }
}

/// The manager of a server whose tokens are kept, ready to authorize requests; `None` when
/// nobody signed in yet.
pub async fn stored_manager(
    url: &str,
    credentials: &KeychainCredentials,
) -> Result<Option<AuthorizationManager>, AuthError> {
    if !credentials.present() {
        return Ok(None);
    }
    let mut manager = AuthorizationManager::new(url).await?;
    manager.set_credential_store(credentials.clone());
    Ok(manager.initialize_from_store().await?.then_some(manager))
}

fn failed(name: &str, why: impl std::fmt::Display) -> McpError {
    McpError::Server {
        name: name.to_owned(),
        why: format!("signing in failed: {why}"),
    }
}

/// Reads one HTTP request from `stream` and answers it; its target (path and query).
async fn one_request(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buffer = vec![0u8; 16 * 1024];
    let mut read = 0;
    while read < buffer.len() {
        let n = stream.read(&mut buffer[read..]).await.ok()?;
        if n == 0 {
            break;
        }
        read += n;
        if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    let head = String::from_utf8_lossy(&buffer[..read]);
    let target = head.lines().next()?.split_whitespace().nth(1)?.to_owned();
    let body = "<!doctype html><title>Arbor</title><p>Signed in. You can close this tab and go back to Arbor.</p>";
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
    Some(target)
}

/// Signs in to the server `name` at `url`: discovery (seeded by its 401 `challenge` when
/// known), registration (or the `client` registered beforehand: its id and secret), then the authorization page opened by `open` (the system browser; a
/// test follows it itself), the redirect caught on a loopback port, the code exchanged and the
/// tokens kept in the keychain. Waits at most `timeout` for the browser.
pub async fn sign_in(
    name: &str,
    url: &str,
    challenge: Option<String>,
    client: Option<(String, Option<Secret>)>,
    credentials: KeychainCredentials,
    open: &(dyn Fn(String) + Send + Sync),
    timeout: Duration,
) -> Result<(), McpError> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| failed(name, e))?;
    let port = listener.local_addr().map_err(|e| failed(name, e))?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| failed(name, e))?;
    if let OAuthState::Unauthorized(manager) = &mut state {
        manager.set_credential_store(credentials);
    }
    let mut request = AuthorizationRequest::new(redirect.as_str()).with_client_name("Arbor");
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    // A client registered beforehand, for servers that do not register clients themselves.
    if let Some((client_id, secret)) = client {
        request = request.with_preregistered_client(client_id);
        if let Some(secret) = secret {
            request = request.with_client_secret(secret.expose());
        }
    }
    state
        .start_authorization(request)
        .await
        .map_err(|e| failed(name, e))?;
    let page = state
        .get_authorization_url()
        .await
        .map_err(|e| failed(name, e))?;
    open(page);
    let callback = tokio::time::timeout(timeout, async {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                continue;
            };
            if let Some(target) = one_request(&mut stream).await {
                if target.starts_with("/callback") {
                    return target;
                }
            }
        }
    })
    .await
    .map_err(|_| failed(name, "the browser did not come back in time; try again"))?;
    state
        .handle_callback_url(&format!("http://127.0.0.1:{port}{callback}"))
        .await
        .map_err(|e| failed(name, e))?;
    Ok(())
}

/// The algorithm named `name` (as a definition's `signingAlgorithm` says it).
pub fn signing_algorithm(name: &str) -> Option<JwtSigningAlgorithm> {
    Some(match name {
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        _ => return None,
    })
}

/// A PEM key as a keychain keeps it — on one line (keychain entries hold no line breaks), its
/// breaks turned into spaces — made a PEM again: the armour lines, then the base64 body in
/// lines of 64. A key already in lines is kept as it is.
pub fn pem_from_line(kept: &str) -> String {
    let kept = kept.trim();
    let Some(rest) = kept.strip_prefix("-----BEGIN ") else {
        return kept.to_owned();
    };
    let Some((label, rest)) = rest.split_once("-----") else {
        return kept.to_owned();
    };
    let end = format!("-----END {label}-----");
    let Some(body) = rest.strip_suffix(end.as_str()) else {
        return kept.to_owned();
    };
    let body: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pem = format!("-----BEGIN {label}-----\n");
    for line in body.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str(&end);
    pem.push('\n');
    pem
}

/// How a machine client proves who it is.
pub enum MachineProof {
    /// Its secret (`client_secret_post`, or `client_secret_basic` where that is all the server
    /// takes).
    Secret(Secret),
    /// A JWT signed with its private key (`private_key_jwt`, RFC 7523).
    PrivateKey {
        pem: Secret,
        algorithm: JwtSigningAlgorithm,
    },
}

/// Signs in a machine client (client credentials, SEP-1046) to the server `name` at `url`:
/// discovery, then the client's secret or signed assertion exchanged for a token, kept in the
/// keychain like a person's. No browser; done again whenever the token is refused.
pub async fn sign_in_machine(
    name: &str,
    url: &str,
    client_id: &str,
    proof: MachineProof,
    credentials: KeychainCredentials,
) -> Result<(), McpError> {
    // rmcp's client-credentials exchange holds a non-`Send` value across an await, so it runs
    // on a thread of its own, in a small runtime there.
    let (name, url, client_id) = (name.to_owned(), url.to_owned(), client_id.to_owned());
    let failed_name = name.clone();
    tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| failed(&name, e))?;
        runtime.block_on(exchange_machine(
            &name,
            &url,
            &client_id,
            proof,
            credentials,
        ))
    })
    .await
    .map_err(|e| failed(&failed_name, e))?
}

async fn exchange_machine(
    name: &str,
    url: &str,
    client_id: &str,
    proof: MachineProof,
    credentials: KeychainCredentials,
) -> Result<(), McpError> {
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| failed(name, e))?;
    if let OAuthState::Unauthorized(manager) = &mut state {
        manager.set_credential_store(credentials);
    }
    // The token is for this server: its URL is the resource (RFC 8707), as the spec requires.
    let resource = Some(url.to_owned());
    let config = match proof {
        MachineProof::Secret(secret) => ClientCredentialsConfig::ClientSecret {
            client_id: client_id.to_owned(),
            client_secret: secret.expose().to_owned(),
            scopes: Vec::new(),
            resource,
        },
        MachineProof::PrivateKey { pem, algorithm } => ClientCredentialsConfig::PrivateKeyJwt {
            client_id: client_id.to_owned(),
            signing_key: pem_from_line(pem.expose()).into_bytes(),
            signing_algorithm: algorithm,
            token_endpoint_audience: None,
            scopes: Vec::new(),
            resource,
        },
    };
    state
        .authenticate_client_credentials(config)
        .await
        .map_err(|e| failed(name, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_kept_on_one_line_is_a_pem_again() {
        let body = "A".repeat(100);
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n{}\n-----END PRIVATE KEY-----\n",
            &body[..64],
            &body[64..]
        );
        let line = pem.replace('\n', " ");
        assert_eq!(pem_from_line(&line), pem);
        assert_eq!(pem_from_line(&pem), pem);
        assert_eq!(pem_from_line("not a key"), "not a key");
    }
}
