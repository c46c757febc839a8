//! `sse::Parser` fed bytes in pieces. The first byte says how many cuts (0..=15), the next
//! that many bytes are the piece lengths, the rest is the stream.
//!
//! The stream goes through four parsers: limit 4096 (the brief's) and a small limit taken
//! from the data (1..=64, so the size error is reached with short inputs), each fed once in
//! pieces and once whole.
//!
//! Invariant: chunking changes nothing. Either both runs end in `TooLarge`, or both succeed
//! with the same events. That both-or-neither holds for errors follows from the code: a run
//! in pieces also checks `event_bytes + partial line` at each piece's end, but a partial line
//! only grows, and once complete it adds at least as much (its length + 1) to the event's
//! size, so the whole run fails too, later. Events returned before a run's error are not
//! compared (a run in pieces gets some, the whole run none).
#![no_main]

use libfuzzer_sys::fuzz_target;
use plaincall::sse::{Event, Parser, SseError};

fn run(max: usize, pieces: &[&[u8]]) -> Result<Vec<Event>, SseError> {
    let mut parser = Parser::new(max);
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(parser.push(piece)?);
    }
    Ok(events)
}

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let count = usize::from(count % 16).min(rest.len());
    let (lengths, body) = rest.split_at(count);

    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut at = 0;
    for &length in lengths {
        let end = (at + usize::from(length)).min(body.len());
        pieces.push(&body[at..end]);
        at = end;
    }
    pieces.push(&body[at..]);

    let small = 1 + usize::from(data.last().copied().unwrap_or(0) % 64);
    for max in [4096, small] {
        let in_pieces = run(max, &pieces);
        let whole = run(max, &[body]);
        assert_eq!(
            in_pieces, whole,
            "max {max}: pieces {pieces:?} differ from the whole stream"
        );
        if let Ok(events) = &whole {
            for event in events {
                // Lossy UTF-8 turns one bad byte into 3: the bound on what one event may hold.
                assert!(
                    event.data.len() <= 3 * max,
                    "event past the limit: {event:?}"
                );
            }
        }
    }
});
