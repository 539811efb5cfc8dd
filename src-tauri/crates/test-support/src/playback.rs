//! Playing a streamed turn: the format's events (with scripted raw events spliced in) sent into
//! the response body at the scripted pace, then the scripted ending — complete, an error event,
//! a stall or a broken connection.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame};
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::Response;
use tokio::sync::mpsc;

use crate::formats::{self, Plan};
use crate::recording::WireApi;
use crate::script::{RawEvent, StreamTurn};
use crate::server::ResponseBody;

/// Before breaking a connection, give hyper time to flush the events already written, so the
/// client really receives `drop_after_chunks` events before the connection dies.
const DROP_FLUSH_GRACE: Duration = Duration::from_millis(50);

pub(crate) fn stream_response(
    api: WireApi,
    plan: Plan,
    turn: StreamTurn,
    finished: impl FnOnce() + Send + 'static,
) -> Response<ResponseBody> {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        // The body ends when every sender is gone: holding a clone until `finished` has run
        // means a client that read the whole body sees `finished_at_ms` set.
        let hold_open = tx.clone();
        if play(api, plan, turn, tx).await {
            finished();
        }
        drop(hold_open);
    });
    let mut response = Response::new(ChannelBody(rx).boxed());
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert(
        HeaderName::from_static("cache-control"),
        HeaderValue::from_static("no-cache"),
    );
    response
}

/// How a stream ends.
enum Ending {
    Complete,
    Error,
    Drop,
}

/// The format's events with the turn's raw events spliced in; `true` marks a raw one.
fn with_raw_events(events: Vec<Bytes>, raw_events: &[RawEvent]) -> Vec<(Bytes, bool)> {
    let mut raw: Vec<&RawEvent> = raw_events.iter().collect();
    raw.sort_by_key(|event| event.after_chunks); // stable: one position keeps the script's order
    let mut raw = raw.into_iter().peekable();
    let mut out = Vec::with_capacity(events.len() + raw_events.len());
    for (index, event) in events.into_iter().enumerate() {
        while let Some(extra) = raw.next_if(|extra| extra.after_chunks <= index) {
            out.push((Bytes::from(extra.text.clone()), true));
        }
        out.push((event, false));
    }
    out.extend(raw.map(|extra| (Bytes::from(extra.text.clone()), true)));
    out
}

/// Waits out a scripted stall; false when the client went away meanwhile.
async fn stall(tx: &mpsc::Sender<Result<Bytes, io::Error>>, ms: Option<u64>) -> bool {
    match ms {
        Some(ms) => tokio::select! {
            _ = tx.closed() => false,
            _ = tokio::time::sleep(Duration::from_millis(ms)) => true,
        },
        None => {
            tx.closed().await;
            false
        }
    }
}

/// Sends the turn's events into the body channel, with delays, an error event, a stall or a
/// drop. Returns whether every event was handed over (false when the client went away).
async fn play(
    api: WireApi,
    plan: Plan,
    turn: StreamTurn,
    tx: mpsc::Sender<Result<Bytes, io::Error>>,
) -> bool {
    let events = with_raw_events(formats::render(api, &plan), &turn.raw_events);
    let (limit, ending) = match (turn.drop_after_chunks, turn.error_after_chunks) {
        (Some(drop), Some(error)) if error < drop => (error, Ending::Error),
        (Some(drop), _) => (drop, Ending::Drop),
        (None, Some(error)) => (error, Ending::Error),
        (None, None) => (events.len(), Ending::Complete),
    };
    // The format's own events sent (Responses numbers its error event after them).
    let sent = events.iter().take(limit).filter(|(_, raw)| !raw).count();
    let mut out: Vec<Bytes> = events
        .into_iter()
        .take(limit)
        .map(|(event, _)| event)
        .collect();
    if let Ending::Error = ending {
        let error = turn.error.clone().unwrap_or_default();
        out.extend(formats::render_error(api, &plan, &error, sent));
    }
    let stall_at = turn.stall_after_chunks.map(|events| events.min(out.len()));
    let delay = Duration::from_millis(turn.delay_ms);
    // A pace, not a pause: event n leaves at n × delay, so timer slack does not add up and a
    // scripted rate (a benchmark's tokens per second) is the rate sent. The first tick is at once.
    let mut pace = (!delay.is_zero()).then(|| {
        let mut pace = tokio::time::interval(delay);
        pace.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        pace
    });
    let total = out.len();
    for (index, event) in out.into_iter().enumerate() {
        if stall_at == Some(index) && !stall(&tx, turn.stall_ms).await {
            return false;
        }
        if let Some(pace) = pace.as_mut() {
            pace.tick().await;
        }
        if tx.send(Ok(event)).await.is_err() {
            return false; // the client went away
        }
    }
    if stall_at == Some(total) && !stall(&tx, turn.stall_ms).await {
        return false;
    }
    if let Ending::Drop = ending {
        tokio::time::sleep(delay + DROP_FLUSH_GRACE).await;
        // A body error makes hyper abandon the connection without the terminating chunk.
        let _ = tx
            .send(Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "mock provider: connection dropped as scripted",
            )))
            .await;
    }
    true
}

/// A streaming body fed by [`play`]; an `Err` item aborts the connection mid-body.
struct ChannelBody(mpsc::Receiver<Result<Bytes, io::Error>>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.get_mut()
            .0
            .poll_recv(cx)
            .map(|item| item.map(|result| result.map(Frame::data)))
    }
}
