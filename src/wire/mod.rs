//! Wire formats other than Chat Completions, converted at the edge: a request in the client's
//! format becomes a Chat Completions request served by the one pipe, and the reply (whole or
//! streamed) is converted back. Only the conversion lives here, never a copy of the pipe.

pub mod anthropic;
pub mod anthropic_stream;

/// The wire format a client spoke, which decides the shape of the errors it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Chat,
    Anthropic,
}

impl Wire {
    /// The format of a request path: the routes are fixed, so the path decides.
    pub fn of_path(path: &str) -> Wire {
        if path == "/v1/messages" {
            Wire::Anthropic
        } else {
            Wire::Chat
        }
    }
}
