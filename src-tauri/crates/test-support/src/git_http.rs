//! [`GitHttpServer`]: git's smart HTTP protocol on `127.0.0.1`, for clone tests without the
//! internet. A small HTTP/1.1 → CGI bridge in front of `git http-backend` (libgit2 speaks only
//! the smart protocol, so a static file server would not do), with optional basic auth (any
//! user name, the given token as password, as GitHub takes tokens), a paced mode (so a clone
//! can be cancelled, or its progress watched, mid-transfer) and a mode that breaks the
//! connection in the middle of the pack. [`make_repository`] builds a bare repository to serve
//! with the `git` command. A server with a token takes pushes (`git http-backend` needs an
//! authenticated user for `receive-pack`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How the server behaves.
#[derive(Debug, Clone, Default)]
pub struct GitServerOptions {
    /// Require HTTP basic auth with this password (the token).
    pub token: Option<String>,
    /// Send the pack in pieces of this many bytes with `pace` between them.
    pub pace: Option<(usize, Duration)>,
    /// Break the connection after this many bytes of the pack response.
    pub drop_after_bytes: Option<usize>,
}

#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    requests: AtomicUsize,
    /// Every `Authorization` header received (to check where a token went).
    authorizations: Mutex<Vec<String>>,
}

/// A smart-HTTP git server over the bare repositories in a folder.
pub struct GitHttpServer {
    port: u16,
    shared: Arc<Shared>,
}

impl GitHttpServer {
    /// Serves every repository under `root` (`http://127.0.0.1:PORT/NAME.git`).
    pub fn start(root: &Path, options: GitServerOptions) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let shared = Arc::new(Shared::default());
        let root = root.to_owned();
        let state = shared.clone();
        thread::spawn(move || {
            while !state.stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (root, options, state) = (root.clone(), options.clone(), state.clone());
                        thread::spawn(move || {
                            let _ = serve(stream, &root, &options, &state);
                        });
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Ok(Self { port, shared })
    }

    /// `http://127.0.0.1:PORT/NAME.git`.
    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}.git", self.port)
    }

    /// `127.0.0.1:PORT`: the host a token is saved for.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::Relaxed)
    }

    /// The `Authorization` headers received, in order.
    pub fn authorizations(&self) -> Vec<String> {
        self.shared
            .authorizations
            .lock()
            .map(|list| list.clone())
            .unwrap_or_default()
    }
}

impl Drop for GitHttpServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(
    stream: TcpStream,
    root: &Path,
    options: &GitServerOptions,
    shared: &Shared,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or("").to_owned(),
        parts.next().unwrap_or("/").to_owned(),
    );
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end().to_owned();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    shared.requests.fetch_add(1, Ordering::Relaxed);
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let body = read_body(&mut reader, &header)?;
    if let Some(auth) = header("authorization") {
        if let Ok(mut list) = shared.authorizations.lock() {
            list.push(auth);
        }
    }
    if let Some(token) = &options.token {
        let given = header("authorization")
            .and_then(|value| value.strip_prefix("Basic ").map(str::to_owned))
            .and_then(|encoded| decode_base64(&encoded))
            .and_then(|pair| {
                pair.split_once(':')
                    .map(|(_, password)| password.to_owned())
            });
        if given.as_deref() != Some(token.as_str()) {
            let reply = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\n\
                         Content-Length: 0\r\nConnection: close\r\n\r\n";
            return writer.write_all(reply.as_bytes());
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut backend = Command::new("git");
    // `git http-backend` takes pushes only from an authenticated user.
    if options.token.is_some() {
        backend.env("REMOTE_USER", "arbor-test");
    }
    let mut child = backend
        .arg("http-backend")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", header("content-type").unwrap_or_default())
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&body)?;
    }
    let mut output = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut output)?;
    }
    child.wait()?;
    // CGI output: headers (with `Status:`), a blank line, the body.
    let split = output
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| output.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let Some((at, gap)) = split else {
        return writer
            .write_all(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
    };
    let cgi_headers = String::from_utf8_lossy(&output[..at]).into_owned();
    let body = &output[at + gap..];
    let mut status = "200 OK".to_owned();
    let mut response = String::new();
    for line in cgi_headers.lines() {
        match line.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("status") => {
                status = value.trim().to_owned();
            }
            Some(_) => {
                response.push_str(line.trim_end());
                response.push_str("\r\n");
            }
            None => {}
        }
    }
    let head = format!(
        "HTTP/1.1 {status}\r\n{response}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    let is_pack = path.ends_with("git-upload-pack");
    let limit = match (is_pack, options.drop_after_bytes) {
        (true, Some(limit)) => limit.min(body.len()),
        _ => body.len(),
    };
    match (is_pack, options.pace) {
        (true, Some((piece, pause))) => {
            for chunk in body[..limit].chunks(piece.max(1)) {
                writer.write_all(chunk)?;
                writer.flush()?;
                thread::sleep(pause);
            }
        }
        _ => writer.write_all(&body[..limit])?,
    }
    // Dropping the stream mid-body (drop_after_bytes) is the broken connection.
    writer.flush()
}

fn read_body(
    reader: &mut BufReader<TcpStream>,
    header: &dyn Fn(&str) -> Option<String>,
) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    // libgit2 may gzip the request body.
    if header("content-encoding").is_some_and(|v| v.contains("gzip")) {
        let mut child = Command::new("gzip")
            .arg("-dc")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let input = body.clone();
        let writer = thread::spawn(move || stdin.write_all(&input));
        let mut plain = Vec::new();
        if let Some(mut stdout) = child.stdout.take() {
            stdout.read_to_end(&mut plain)?;
        }
        let _ = writer.join();
        child.wait()?;
        body = plain;
    }
    Ok(body)
}

fn decode_base64(text: &str) -> Option<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for byte in text.trim().bytes().filter(|b| *b != b'=') {
        let value = ALPHABET.iter().position(|c| *c == byte)? as u32;
        bits = (bits << 6) | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Builds `<root>/<name>.git`, a bare repository with `files` files of `file_size` bytes of
/// varied text on `main` (two commits) and a branch `feature` with one more file. Uses the `git`
/// command.
pub fn make_repository(
    root: &Path,
    name: &str,
    files: usize,
    file_size: usize,
) -> std::io::Result<PathBuf> {
    let work = root.join(format!("{name}-work"));
    std::fs::create_dir_all(&work)?;
    let git = |args: &[&str], dir: &Path| -> std::io::Result<()> {
        let status = Command::new("git")
            .args([
                "-c",
                "user.name=Arbor Test",
                "-c",
                "user.email=test@arbor.invalid",
            ])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        if status.success() {
            Ok(())
        } else {
            Err(std::io::Error::other(format!("git {args:?} failed")))
        }
    };
    git(&["init", "-q"], &work)?;
    std::fs::write(work.join("README.md"), format!("# {name}\n"))?;
    git(&["add", "."], &work)?;
    git(&["commit", "-q", "-m", "first"], &work)?;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for index in 0..files {
        let mut text = String::with_capacity(file_size);
        while text.len() < file_size {
            // xorshift: text that does not compress away, so the pack has a real size.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(&format!("{seed:016x}\n"));
        }
        std::fs::write(work.join(format!("file{index:04}.txt")), text)?;
    }
    git(&["add", "."], &work)?;
    git(&["commit", "-q", "-m", "second"], &work)?;
    git(&["checkout", "-q", "-b", "feature"], &work)?;
    std::fs::write(work.join("FEATURE.md"), "on the feature branch\n")?;
    git(&["add", "."], &work)?;
    git(&["commit", "-q", "-m", "feature"], &work)?;
    git(&["checkout", "-q", "main"], &work)?;
    let bare = root.join(format!("{name}.git"));
    git(
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap_or_default(),
            bare.to_str().unwrap_or_default(),
        ],
        root,
    )?;
    std::fs::remove_dir_all(&work)?;
    Ok(bare)
}
