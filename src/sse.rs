//! A bounded Server-Sent Events parser (the WHATWG event-stream format). The crates that parse
//! SSE correctly do not bound an event's size; this one refuses an event past `max_event`
//! bytes, and scans each byte once however the stream is chunked.

use bytes::{Buf, BytesMut};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, when one was given.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// How a Chat Completions stream that plaincall ends early ends: an `error` event in the
/// OpenAI error shape, which the OpenAI SDKs raise as an API error (the other formats' own are
/// `crate::wire::Wire::error_event`'s).
pub fn error_event(error: &crate::error::ProxyError) -> bytes::Bytes {
    error.chat_event()
}

/// The largest single event plaincall reads from an upstream's stream.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Whether `headers` say the body is an event stream.
pub fn is_event_stream(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SseError {
    #[error("an SSE event exceeds {0} bytes")]
    TooLarge(usize),
}

pub struct Parser {
    buffer: BytesMut,
    /// Bytes of `buffer` already known to hold no line end.
    scanned: usize,
    /// A `\r` ended the last line: a `\n` right after it belongs to the same line end.
    after_cr: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    event_bytes: usize,
    max_event: usize,
}

impl Parser {
    pub fn new(max_event: usize) -> Parser {
        Parser {
            buffer: BytesMut::new(),
            scanned: 0,
            after_cr: false,
            data: String::new(),
            has_data: false,
            event: None,
            event_bytes: 0,
            max_event,
        }
    }

    /// Feeds bytes; returns the events they complete.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Event>, SseError> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        loop {
            if self.after_cr && !self.buffer.is_empty() {
                if self.buffer[0] == b'\n' {
                    self.buffer.advance(1);
                }
                self.after_cr = false;
            }
            let Some(offset) = self.buffer[self.scanned..]
                .iter()
                .position(|b| *b == b'\n' || *b == b'\r')
            else {
                self.scanned = self.buffer.len();
                if self.event_bytes + self.buffer.len() > self.max_event {
                    return Err(SseError::TooLarge(self.max_event));
                }
                return Ok(events);
            };
            let end = self.scanned + offset;
            let line = self.buffer.split_to(end + 1);
            self.scanned = 0;
            if line[end] == b'\r' {
                self.after_cr = true;
            }
            let line = &line[..end];
            self.event_bytes += line.len() + 1;
            if self.event_bytes > self.max_event {
                return Err(SseError::TooLarge(self.max_event));
            }
            if let Some(event) = self.line(line) {
                events.push(event);
            }
        }
    }

    fn line(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            self.event_bytes = 0;
            let event = self.event.take();
            if !self.has_data {
                return None;
            }
            self.has_data = false;
            return Some(Event {
                event,
                data: std::mem::take(&mut self.data),
            });
        }
        if line[0] == b':' {
            return None;
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event = Some(value.into_owned()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(parser: &mut Parser, chunks: &[&[u8]]) -> Result<Vec<Event>, SseError> {
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(parser.push(chunk)?);
        }
        Ok(events)
    }

    fn data(text: &str) -> Event {
        Event {
            event: None,
            data: text.into(),
        }
    }

    #[test]
    fn events_comments_and_line_ends() -> Result<(), SseError> {
        let mut p = Parser::new(1024);
        let events = all(
            &mut p,
            &[b": keep-alive\n\ndata: {\"a\":1}\n\ndata:x\r\ndata: y\r\n\r\nevent: error\ndata: e\r\rdata: [DONE]\n\n"],
        )?;
        assert_eq!(
            events,
            vec![
                data("{\"a\":1}"),
                data("x\ny"),
                Event {
                    event: Some("error".into()),
                    data: "e".into()
                },
                data("[DONE]"),
            ]
        );
        Ok(())
    }

    #[test]
    fn split_anywhere_including_between_cr_and_lf() -> Result<(), SseError> {
        let text = b"data: one\r\n\r\ndata: two\n\n";
        for cut in 0..text.len() {
            let mut p = Parser::new(1024);
            let events = all(&mut p, &[&text[..cut], &text[cut..]])?;
            assert_eq!(events, vec![data("one"), data("two")], "cut at {cut}");
        }
        Ok(())
    }

    #[test]
    fn oversized_events_are_refused_even_without_line_ends() {
        let mut p = Parser::new(16);
        assert_eq!(p.push(&[b'a'; 17]), Err(SseError::TooLarge(16)));
        let mut p = Parser::new(16);
        assert_eq!(
            p.push(b"data: 0123456789\ndata: 0123456789\n"),
            Err(SseError::TooLarge(16))
        );
    }

    #[test]
    fn size_resets_after_each_event() -> Result<(), SseError> {
        let mut p = Parser::new(16);
        for _ in 0..10 {
            assert_eq!(p.push(b"data: 12345678\n\n")?, vec![data("12345678")]);
        }
        Ok(())
    }
}
