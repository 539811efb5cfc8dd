//! [`LegacySse`]: the HTTP+SSE transport of protocol 2024-11-05, for servers that still speak
//! only it (Streamable HTTP replaced it). The client opens an event stream (`GET`); the server's
//! first event, `endpoint`, names the URL messages are posted to; its answers come back on the
//! stream as `message` events.
//!
//! A hostile server is held to its own origin: an `endpoint` on another scheme, host or port is
//! refused (the definition's headers — a token, say — would otherwise go to it). An event larger
//! than [`MAX_EVENT`] ends the stream, so a server cannot grow Arbor's memory without bound.

use std::sync::Arc;

use futures_util::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::RoleClient;
use sse_stream::SseStream;
use tokio::sync::mpsc;

/// Largest event read from the stream (a 10 MB tool result fits).
pub const MAX_EVENT: usize = 32 * 1024 * 1024;
/// Messages read ahead of the client.
const QUEUE: usize = 64;

/// What went wrong with a legacy SSE server.
#[derive(Debug, thiserror::Error)]
pub enum LegacySseError {
    #[error("its event stream could not be opened: {0}")]
    Open(String),
    #[error("its event stream ended before it named the endpoint to post to")]
    NoEndpoint,
    #[error("it named the endpoint {0:?}, which is not on its own origin; refused")]
    ForeignEndpoint(String),
    #[error("posting a message failed: {0}")]
    Post(String),
}

/// A connected legacy SSE server.
pub struct LegacySse {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: Arc<reqwest::header::HeaderMap>,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Counts the bytes since the last blank line (an event's end): an endless event is cut off.
struct EventBound {
    since: usize,
    after_newline: bool,
}

impl EventBound {
    fn within(&mut self, chunk: &[u8]) -> bool {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_newline => self.since = 0,
                b'\n' => self.after_newline = true,
                b'\r' => {}
                _ => {
                    self.after_newline = false;
                    self.since += 1;
                }
            }
        }
        self.since <= MAX_EVENT
    }
}

impl LegacySse {
    /// Opens `url`'s event stream with `headers` and waits for its `endpoint` event.
    pub async fn connect(
        url: &str,
        headers: reqwest::header::HeaderMap,
    ) -> Result<Self, LegacySseError> {
        let base = reqwest::Url::parse(url).map_err(|e| LegacySseError::Open(e.to_string()))?;
        let http = reqwest::Client::builder()
            // A redirect could take the headers elsewhere: none is followed.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| LegacySseError::Open(e.to_string()))?;
        let response = http
            .get(base.clone())
            .headers(headers.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| LegacySseError::Open(e.to_string()))?;
        let mut bound = EventBound {
            since: 0,
            after_newline: false,
        };
        let bytes = response.bytes_stream().map(move |chunk| match chunk {
            Ok(chunk) if bound.within(&chunk) => Ok(chunk),
            Ok(_) => Err(std::io::Error::other(format!(
                "an event longer than {MAX_EVENT} bytes"
            ))),
            Err(error) => Err(std::io::Error::other(error)),
        });
        let mut events = SseStream::from_bytes_stream(bytes);
        let endpoint = loop {
            match events.next().await {
                None | Some(Err(_)) => return Err(LegacySseError::NoEndpoint),
                Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                    let named = event.data.unwrap_or_default();
                    let endpoint = base
                        .join(named.trim())
                        .map_err(|_| LegacySseError::ForeignEndpoint(named.clone()))?;
                    if endpoint.origin() != base.origin() {
                        return Err(LegacySseError::ForeignEndpoint(named));
                    }
                    break endpoint;
                }
                Some(Ok(_)) => continue,
            }
        };
        let (sender, incoming) = mpsc::channel(QUEUE);
        let reader = tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                let is_message = matches!(event.event.as_deref(), None | Some("message"));
                let Some(data) = event.data.filter(|_| is_message) else {
                    continue;
                };
                // A line that is not a message is skipped; the stream goes on.
                if let Ok(message) = serde_json::from_str::<ServerJsonRpcMessage>(&data) {
                    if sender.send(message).await.is_err() {
                        break;
                    }
                }
            }
        });
        Ok(Self {
            http,
            endpoint,
            headers: Arc::new(headers),
            incoming,
            reader,
        })
    }
}

impl rmcp::transport::Transport<RoleClient> for LegacySse {
    type Error = LegacySseError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let (http, endpoint, headers) = (
            self.http.clone(),
            self.endpoint.clone(),
            self.headers.clone(),
        );
        async move {
            http.post(endpoint)
                .headers((*headers).clone())
                .json(&item)
                .send()
                .await
                .and_then(reqwest::Response::error_for_status)
                .map_err(|e| LegacySseError::Post(e.to_string()))?;
            Ok(())
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_bounded_and_a_blank_line_starts_the_count_again() {
        let mut bound = EventBound {
            since: 0,
            after_newline: false,
        };
        assert!(bound.within(b"data: x\r\n\r\n"));
        assert_eq!(bound.since, 0);
        assert!(bound.within(b"data: abc\n"));
        assert_eq!(bound.since, 9);
        assert!(!bound.within(&vec![b'x'; MAX_EVENT]));
    }
}
