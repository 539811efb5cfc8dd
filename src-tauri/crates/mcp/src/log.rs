//! [`ServerLog`]: a server's stderr and Arbor's own lines about it (started, exited, timed
//! out), the last [`MAX_LINES`] kept. A server that floods stderr, or writes one endless line,
//! costs a bounded amount of memory: lines are cut at [`MAX_LINE`] bytes and old ones dropped
//! (and counted).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use arbor_secrets::Redactor;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Lines kept per server.
pub const MAX_LINES: usize = 500;
/// Bytes kept of one line.
pub const MAX_LINE: usize = 2_000;

#[derive(Default)]
struct Inner {
    lines: VecDeque<String>,
    dropped: u64,
}

/// A server's log, shared by its reader task and whoever shows it.
#[derive(Clone, Default)]
pub struct ServerLog {
    inner: Arc<Mutex<Inner>>,
    redactor: Option<Redactor>,
}

impl ServerLog {
    /// A log whose lines are cleaned of the secrets `redactor` knows.
    pub fn new(redactor: Option<Redactor>) -> Self {
        Self {
            inner: Arc::default(),
            redactor,
        }
    }

    /// Adds a line (cut to [`MAX_LINE`], cleaned of secrets).
    pub fn push(&self, line: &str) {
        let mut line = cut(line, MAX_LINE);
        if let Some(redactor) = &self.redactor {
            line = redactor.text(&line).into_owned();
        }
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if inner.lines.len() == MAX_LINES {
            inner.lines.pop_front();
            inner.dropped += 1;
        }
        inner.lines.push_back(line);
    }

    /// The kept lines, oldest first, after a line saying how many were dropped (if any).
    pub fn lines(&self) -> Vec<String> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::with_capacity(inner.lines.len() + 1);
        if inner.dropped > 0 {
            out.push(format!("[{} earlier lines dropped]", inner.dropped));
        }
        out.extend(inner.lines.iter().cloned());
        out
    }

    /// Reads `stream` to its end, a line at a time, into the log; a line longer than
    /// [`MAX_LINE`] is cut and the rest of it skipped, so nothing grows without bound.
    pub async fn read_from<R: AsyncRead + Unpin>(&self, mut stream: R) {
        let mut buffer = vec![0u8; 8 * 1024];
        let mut line: Vec<u8> = Vec::new();
        let mut skipping = false;
        loop {
            let read = match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => read,
            };
            for &byte in &buffer[..read] {
                if byte == b'\n' {
                    self.push(String::from_utf8_lossy(&line).trim_end_matches('\r'));
                    line.clear();
                    skipping = false;
                } else if line.len() < MAX_LINE {
                    line.push(byte);
                } else if !skipping {
                    skipping = true;
                }
            }
        }
        if !line.is_empty() {
            self.push(&String::from_utf8_lossy(&line));
        }
    }
}

/// `text` cut to at most `max` bytes at a character boundary, with `…` when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_flood_and_an_endless_line_stay_bounded() {
        let log = ServerLog::default();
        let mut input = Vec::new();
        for i in 0..(MAX_LINES + 10) {
            input.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        input.extend(std::iter::repeat_n(b'x', 1_000_000));
        input.extend_from_slice(b"\nlast");
        log.read_from(&input[..]).await;
        let lines = log.lines();
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert_eq!(lines[0], "[12 earlier lines dropped]");
        assert_eq!(lines[lines.len() - 2].len(), MAX_LINE);
        assert_eq!(lines.last().unwrap(), "last");
    }

    #[test]
    fn secrets_are_cleaned_and_long_lines_cut_on_a_boundary() {
        let redactor = Redactor::new();
        redactor.add(&arbor_secrets::Secret::new("tok-123456789").unwrap());
        let log = ServerLog::new(Some(redactor));
        log.push("auth tok-123456789 ok");
        assert!(!log.lines()[0].contains("tok-123456789"));
        assert_eq!(cut("ééé", 3), "é…");
    }
}
