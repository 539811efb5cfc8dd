//! Incremental Server-Sent Events decoder (WHATWG "event stream interpretation").
//!
//! Bytes go in as they arrive, in chunks of any size; complete events come out. Lines end with
//! LF, CR or CRLF — including a CR that ends one chunk and an LF that starts the next. Lines are
//! split on bytes and decoded only when complete, so a UTF-8 character split across chunks is
//! never torn (CR and LF never occur inside a multi-byte sequence). Unlike a browser, a final
//! event not followed by a blank line is dispatched by [`SseDecoder::finish`]: several providers'
//! recordings end that way. `[DONE]` is ordinary data here; protocols interpret it.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; `None` when absent (WHATWG calls that type `message`).
    pub event: Option<String>,
    /// All `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen so far in the stream (ids persist across events).
    pub id: Option<String>,
    /// A `retry:` reconnection time in milliseconds sent with this event.
    pub retry: Option<u64>,
}

/// The decoder state between chunks.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the current, not yet terminated line.
    line: Vec<u8>,
    /// The previous chunk ended in CR: an LF starting the next chunk belongs to that line end.
    skip_lf: bool,
    /// Whether the stream start (and a possible BOM) has been passed.
    started: bool,
    data: String,
    has_data: bool,
    event_type: Option<String>,
    last_id: Option<String>,
    retry: Option<u64>,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk and returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        self.feed_into(chunk, &mut events);
        events
    }

    /// Feeds a chunk, appending completed events to `out`.
    pub fn feed_into(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) {
        if self.skip_lf {
            if chunk.is_empty() {
                return;
            }
            self.skip_lf = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        while let Some(end) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&chunk[..end]);
            let terminator = chunk[end];
            chunk = &chunk[end + 1..];
            if terminator == b'\r' {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
        }
        self.line.extend_from_slice(chunk);
    }

    /// The stream ended: processes an unterminated last line and dispatches a pending event.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, &mut out);
        }
        self.dispatch(&mut out);
        self.skip_lf = false;
        out.pop()
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        let mut line = String::from_utf8_lossy(line);
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_string().into();
            }
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return; // comment
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event_type = Some(value.to_string()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {} // unknown fields are ignored
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event_type = self.event_type.take();
        let retry = self.retry.take();
        if !self.has_data {
            self.data.clear();
            return;
        }
        self.has_data = false;
        out.push(SseEvent {
            event: event_type.filter(|t| !t.is_empty()),
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
            retry,
        });
    }
}

/// Decodes a whole byte stream at once (tests, recorded fixtures).
pub fn decode_all(bytes: &[u8]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new();
    let mut events = decoder.feed(bytes);
    events.extend(decoder.finish());
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_of(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    /// Decodes `bytes` split at every position given, to check chunking never matters.
    fn decode_split(bytes: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        let mut start = 0;
        for &cut in cuts {
            decoder.feed_into(&bytes[start..cut], &mut events);
            start = cut;
        }
        decoder.feed_into(&bytes[start..], &mut events);
        events.extend(decoder.finish());
        events
    }

    #[test]
    fn lf_cr_and_crlf_line_endings() {
        for stream in [
            "data: a\n\ndata: b\n\n",
            "data: a\r\rdata: b\r\r",
            "data: a\r\n\r\ndata: b\r\n\r\n",
            "data: a\r\n\ndata: b\n\r\n",
        ] {
            assert_eq!(
                data_of(&decode_all(stream.as_bytes())),
                ["a", "b"],
                "{stream:?}"
            );
        }
    }

    #[test]
    fn cr_at_chunk_end_and_lf_at_next_chunk_start() {
        let mut decoder = SseDecoder::new();
        assert!(decoder.feed(b"data: a\r").is_empty());
        assert!(decoder.feed(b"\n\r").len() == 1);
        // The LF after that CR is part of the same line end, not a second blank line.
        let events = decoder.feed(b"\ndata: b\r\n\r\n");
        assert_eq!(data_of(&events), ["b"]);
    }

    #[test]
    fn multi_line_data_event_and_id() {
        let events = decode_all(b"event: update\nid: 7\ndata: line1\ndata:line2\ndata\n\n");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event.as_deref(), Some("update"));
        assert_eq!(events[0].id.as_deref(), Some("7"));
        assert_eq!(events[0].data, "line1\nline2\n");
    }

    #[test]
    fn only_one_space_after_the_colon_is_removed() {
        let events = decode_all(b"data:  two spaces\n\ndata:none\n\n");
        assert_eq!(data_of(&events), [" two spaces", "none"]);
    }

    #[test]
    fn trailing_spaces_after_json_are_kept() {
        let events = decode_all(b"data: {\"a\":1}   \n\n");
        assert_eq!(events[0].data, "{\"a\":1}   ");
    }

    #[test]
    fn comments_and_blank_events_are_skipped() {
        let events = decode_all(b": keep-alive\n\n:another\nevent: ping\n\ndata: x\n\n");
        assert_eq!(data_of(&events), ["x"]);
        // An `event:` without data dispatches nothing and does not leak into the next event.
        assert_eq!(events[0].event, None);
    }

    #[test]
    fn empty_data_line_is_an_event_with_empty_data() {
        let events = decode_all(b"data:\n\n");
        assert_eq!(data_of(&events), [""]);
    }

    #[test]
    fn last_event_without_blank_line_is_flushed_at_eof() {
        assert_eq!(data_of(&decode_all(b"data: a\n\ndata: b")), ["a", "b"]);
        assert_eq!(data_of(&decode_all(b"data: a\n\ndata: b\n")), ["a", "b"]);
        assert_eq!(data_of(&decode_all(b"data: a\r")), ["a"]);
    }

    #[test]
    fn id_persists_and_retry_is_parsed() {
        let events = decode_all(b"id: 1\nretry: 3000\ndata: a\n\ndata: b\n\nid\ndata: c\n\n");
        assert_eq!(events[0].id.as_deref(), Some("1"));
        assert_eq!(events[0].retry, Some(3000));
        assert_eq!(events[1].id.as_deref(), Some("1"));
        assert_eq!(events[1].retry, None);
        assert_eq!(events[2].id.as_deref(), Some(""));
    }

    #[test]
    fn bom_is_stripped_once() {
        let events = decode_all("\u{feff}data: a\n\n".as_bytes());
        assert_eq!(data_of(&events), ["a"]);
    }

    #[test]
    fn utf8_split_across_chunks() {
        let stream = "data: 今日は 🌲\n\n".as_bytes();
        for cut in 0..stream.len() {
            assert_eq!(data_of(&decode_split(stream, &[cut])), ["今日は 🌲"]);
        }
    }

    #[test]
    fn every_two_way_split_gives_the_same_events() {
        let stream = b"event: a\r\ndata: 1\r\ndata: 2\r\n\r\n: c\rdata: 3\r\rdata: 4\n\ndata: 5";
        let whole = decode_all(stream);
        assert_eq!(data_of(&whole), ["1\n2", "3", "4", "5"]);
        for cut in 0..=stream.len() {
            assert_eq!(decode_split(stream, &[cut]), whole, "cut at {cut}");
        }
        let cuts: Vec<usize> = (1..stream.len()).collect();
        assert_eq!(decode_split(stream, &cuts), whole, "byte by byte");
    }
}
