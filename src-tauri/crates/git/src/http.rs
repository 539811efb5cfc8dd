//! git's smart HTTP protocol for `http://` and `https://` remotes, over `reqwest`, in place of
//! libgit2's own (which would need OpenSSL, initialised — CA certificates read and parsed —
//! the first time any git2 function runs, a local snapshot included). libgit2 speaks the
//! protocol; this module only carries its requests: `GET …/info/refs?service=…` for the
//! references, `POST …/git-upload-pack` or `…/git-receive-pack` for each exchange. TLS is
//! set up when a clone or push first needs it, never before.
//!
//! Credentials: a token goes out only when the server asks (401), only to the host it was
//! saved for, and only over HTTPS or to this machine; after a second 401 the operation fails.
//! The token for an operation is handed over with [`with_token`], on the thread that runs it
//! (libgit2 calls the transport on that thread). What happened is reported back
//! ([`AuthReport`]) so callers can say "needs a token" or "the token was refused".
//!
//! Blocking: run network operations on a thread of their own, never on an async task.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use git2::transport::{Service, SmartSubtransport, SmartSubtransportStream, Transport};
use git2::{ErrorClass, ErrorCode, Remote};

use crate::clone::HostToken;

/// What the server asked of the operation's credentials.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AuthReport {
    /// The server answered 401 at least once.
    pub asked: bool,
    /// The token was sent.
    pub offered: bool,
}

struct Credentials {
    token: Option<(String, String)>,
    report: AuthReport,
    /// The token, sent with every later request once the server accepted it.
    accepted: Option<String>,
}

thread_local! {
    static CREDENTIALS: RefCell<Option<Credentials>> = const { RefCell::new(None) };
}

/// Runs `operation` (a clone, a push) with `token` offered as the transport allows, and reports
/// whether the server asked for credentials and whether the token went out.
pub fn with_token<T>(token: Option<&HostToken>, operation: impl FnOnce() -> T) -> (T, AuthReport) {
    register();
    CREDENTIALS.with(|slot| {
        *slot.borrow_mut() = Some(Credentials {
            token: token.map(|t| (t.host.clone(), t.token.expose().to_owned())),
            report: AuthReport::default(),
            accepted: None,
        });
    });
    let result = operation();
    let report = CREDENTIALS.with(|slot| slot.borrow_mut().take().map(|c| c.report));
    (result, report.unwrap_or_default())
}

/// Registers this transport for `http://` and `https://`, once per process.
fn register() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        for prefix in ["http", "https"] {
            #[allow(unsafe_code)]
            // SAFETY: `register` must not race with libgit2 creating transports. It runs once,
            // inside `Once`, before the first network operation of the process: every clone
            // and push goes through `with_token`, which waits here first, and nothing else in
            // Arbor opens a connection with git2 (local paths use libgit2's local transport).
            let registered = unsafe { git2::transport::register(prefix, factory) };
            // A failure leaves libgit2's own transport, which fails with a clear message
            // ("unsupported URL protocol") for https.
            let _ = registered;
        }
    });
}

fn factory(remote: &Remote<'_>) -> Result<Transport, git2::Error> {
    Transport::smart(remote, true, HttpSubtransport::default())
}

/// One remote's connection state: the client (built at the first request), and where a
/// redirect of the reference listing moved the repository.
#[derive(Default)]
struct HttpSubtransport {
    shared: Arc<Mutex<Shared>>,
}

#[derive(Default)]
struct Shared {
    client: Option<reqwest::blocking::Client>,
    /// The repository's URL after a redirect of `info/refs`; later requests go there.
    moved_to: Option<String>,
}

impl SmartSubtransport for HttpSubtransport {
    fn action(
        &self,
        url: &str,
        action: Service,
    ) -> Result<Box<dyn SmartSubtransportStream>, git2::Error> {
        Ok(Box::new(HttpStream {
            shared: Arc::clone(&self.shared),
            url: url.trim_end_matches('/').to_owned(),
            action,
            request: Vec::new(),
            response: None,
            credentials: CREDENTIALS.with(|slot| slot.borrow().as_ref().map(stream_credentials)),
        }))
    }

    fn close(&self) -> Result<(), git2::Error> {
        Ok(())
    }
}

/// What a stream starting now takes of the operation's credentials: the token, and the one the
/// server already accepted (sent up front).
fn stream_credentials(credentials: &Credentials) -> (Option<(String, String)>, Option<String>) {
    (credentials.token.clone(), credentials.accepted.clone())
}

type StreamCredentials = Option<(Option<(String, String)>, Option<String>)>;

struct HttpStream {
    shared: Arc<Mutex<Shared>>,
    url: String,
    action: Service,
    /// What libgit2 wrote (a POST's body), sent at the first read.
    request: Vec<u8>,
    response: Option<reqwest::blocking::Response>,
    credentials: StreamCredentials,
}

impl Read for HttpStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.response.is_none() {
            let response = self.send().map_err(io::Error::other)?;
            self.response = Some(response);
        }
        match &mut self.response {
            Some(response) => response.read(buf),
            None => Ok(0),
        }
    }
}

impl Write for HttpStream {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.request.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl HttpStream {
    fn base(&self) -> String {
        let shared = lock(&self.shared);
        shared.moved_to.clone().unwrap_or_else(|| self.url.clone())
    }

    fn client(&self) -> Result<reqwest::blocking::Client, git2::Error> {
        let mut shared = lock(&self.shared);
        if let Some(client) = &shared.client {
            return Ok(client.clone());
        }
        let client = reqwest::blocking::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            // No limit on the whole exchange: a large clone takes as long as it takes.
            .timeout(None)
            .user_agent(concat!("git/2.0 (arbor ", env!("CARGO_PKG_VERSION"), ")"))
            .build()
            .map_err(|error| net_error(format!("could not set up HTTP: {error}")))?;
        shared.client = Some(client.clone());
        Ok(client)
    }

    /// Sends the action's request, offering the token once when the server asks for it.
    fn send(&mut self) -> Result<reqwest::blocking::Response, git2::Error> {
        let client = self.client()?;
        let base = self.base();
        let (method, url, content_type, accept) = match self.action {
            Service::UploadPackLs => (
                reqwest::Method::GET,
                format!("{base}/info/refs?service=git-upload-pack"),
                None,
                "application/x-git-upload-pack-advertisement",
            ),
            Service::ReceivePackLs => (
                reqwest::Method::GET,
                format!("{base}/info/refs?service=git-receive-pack"),
                None,
                "application/x-git-receive-pack-advertisement",
            ),
            Service::UploadPack => (
                reqwest::Method::POST,
                format!("{base}/git-upload-pack"),
                Some("application/x-git-upload-pack-request"),
                "application/x-git-upload-pack-result",
            ),
            Service::ReceivePack => (
                reqwest::Method::POST,
                format!("{base}/git-receive-pack"),
                Some("application/x-git-receive-pack-request"),
                "application/x-git-receive-pack-result",
            ),
        };
        let (token, accepted) = self.credentials.clone().unwrap_or((None, None));
        // The token to send (as basic credentials `x-access-token:<token>`, as GitHub takes it).
        let mut authorization = accepted;
        let mut offered = false;
        loop {
            let mut request = client
                .request(method.clone(), &url)
                .header(reqwest::header::ACCEPT, accept);
            if let Some(content_type) = content_type {
                request = request
                    .header(reqwest::header::CONTENT_TYPE, content_type)
                    .body(self.request.clone());
            }
            if let Some(secret) = &authorization {
                request = request.basic_auth("x-access-token", Some(secret));
            }
            let response = request
                .send()
                .map_err(|error| net_error(describe(&url, &error)))?;
            let status = response.status();
            if status == reqwest::StatusCode::UNAUTHORIZED {
                report(|r| r.asked = true);
                let usable = token
                    .as_ref()
                    .filter(|(host, _)| token_allowed(response.url(), host));
                match usable {
                    Some((_, secret)) if !offered => {
                        offered = true;
                        report(|r| r.offered = true);
                        authorization = Some(secret.clone());
                        continue;
                    }
                    _ => {
                        return Err(git2::Error::new(
                            ErrorCode::Auth,
                            ErrorClass::Http,
                            format!("{url} asks for credentials (401)"),
                        ))
                    }
                }
            }
            if !status.is_success() {
                let code = if status == reqwest::StatusCode::NOT_FOUND {
                    ErrorCode::NotFound
                } else {
                    ErrorCode::GenericError
                };
                return Err(git2::Error::new(
                    code,
                    ErrorClass::Http,
                    format!("{url} answered {status}"),
                ));
            }
            if offered {
                CREDENTIALS.with(|slot| {
                    if let Some(credentials) = slot.borrow_mut().as_mut() {
                        credentials.accepted = authorization.clone();
                    }
                });
            }
            self.check_smart(&response, accept, &url)?;
            self.follow_move(&response, &base);
            return Ok(response);
        }
    }

    /// A reference listing must come from a smart server (a plain file server would send
    /// something libgit2 cannot read).
    fn check_smart(
        &self,
        response: &reqwest::blocking::Response,
        expected: &str,
        url: &str,
    ) -> Result<(), git2::Error> {
        if !matches!(self.action, Service::UploadPackLs | Service::ReceivePackLs) {
            return Ok(());
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        if content_type.starts_with(expected) {
            Ok(())
        } else {
            Err(net_error(format!(
                "{url} is not a git smart HTTP server (it answered {content_type:?})"
            )))
        }
    }

    /// After a redirect of the reference listing, later requests go to where it led.
    fn follow_move(&self, response: &reqwest::blocking::Response, base: &str) {
        if !matches!(self.action, Service::UploadPackLs | Service::ReceivePackLs) {
            return;
        }
        let landed = response.url().as_str();
        if let Some(moved) = landed.split("/info/refs?").next() {
            if moved != base {
                lock(&self.shared).moved_to = Some(moved.to_owned());
            }
        }
    }
}

/// A token may go to `url` only when it names the token's host, over HTTPS or to this machine.
fn token_allowed(url: &reqwest::Url, host: &str) -> bool {
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    let Some(contacted) = url.host_str() else {
        return false;
    };
    // A token saved for `host:port` goes to that port only.
    let with_port = url.port().map(|port| format!("{contacted}:{port}"));
    (url.scheme() == "https" || (url.scheme() == "http" && loopback))
        && (contacted.eq_ignore_ascii_case(host)
            || with_port.is_some_and(|named| named.eq_ignore_ascii_case(host)))
}

fn report(change: impl FnOnce(&mut AuthReport)) {
    CREDENTIALS.with(|slot| {
        if let Some(credentials) = slot.borrow_mut().as_mut() {
            change(&mut credentials.report);
        }
    });
}

fn describe(url: &str, error: &reqwest::Error) -> String {
    let mut message = format!("failed to connect to {url}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}

fn net_error(message: String) -> git2::Error {
    git2::Error::new(ErrorCode::GenericError, ErrorClass::Net, message)
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_goes_only_to_its_host_over_https_or_loopback() {
        let url = |u: &str| reqwest::Url::parse(u).unwrap();
        assert!(token_allowed(&url("https://github.com/a/b"), "github.com"));
        assert!(token_allowed(&url("https://GitHub.com/a/b"), "github.com"));
        assert!(!token_allowed(&url("https://evil.example/a"), "github.com"));
        assert!(!token_allowed(&url("http://github.com/a/b"), "github.com"));
        assert!(token_allowed(&url("http://127.0.0.1:8080/a"), "127.0.0.1"));
        assert!(token_allowed(
            &url("http://127.0.0.1:8080/a"),
            "127.0.0.1:8080"
        ));
        assert!(!token_allowed(
            &url("http://127.0.0.1:9090/a"),
            "127.0.0.1:8080"
        ));
        assert!(!token_allowed(
            &url("http://127.0.0.1:8080/a"),
            "github.com"
        ));
    }
}
