//! The one error type of the request path, and the Chat Completions shape of its body; the
//! other formats' shapes are `crate::wire::WireError`'s. Errors the upstream returns are not
//! made here: they are passed on elsewhere (scrubbed of the configured keys, and on a
//! converted route rewrapped in the client's format).

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// How an event stream that plaincall ends early ends, in the client's wire format.
pub(crate) type ErrorEvent = fn(&ProxyError) -> bytes::Bytes;

#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("request body is not valid JSON: {0}")]
    InvalidJson(String),
    #[error("{message}")]
    InvalidRequest {
        message: String,
        param: Option<String>,
    },
    #[error("request body exceeds the limit of {limit} bytes")]
    BodyTooLarge { limit: u64 },
    #[error("missing or invalid API key for this proxy")]
    Unauthorized,
    #[error("no route for {method} {path}")]
    NotFound { method: String, path: String },
    /// A WebSocket upgrade on a route plaincall serves over HTTP only: 426 tells a client that
    /// tries WebSocket first (Codex's default provider) to use HTTP at once, not to retry.
    #[error("{0} is served over HTTP only: send the request as a POST, not over a WebSocket")]
    WebSocketRefused(&'static str),
    /// `URL: cause`. The hint names the setting, since a wrong address is the usual cause.
    #[error("could not reach the upstream at {0} (is it running? plaincall sends requests to the `upstream.url` setting, env PLAINCALL_UPSTREAM_URL)")]
    UpstreamUnreachable(String),
    /// `setting` names the configuration key whose limit ran out.
    #[error("{}", timeout_message(*.kind, *.after, .setting))]
    UpstreamTimeout {
        kind: TimeoutKind,
        after: Duration,
        setting: Arc<str>,
    },
    #[error("the client sent nothing of its request body for {} (server.body_read_timeout)", humantime::format_duration(*.0))]
    ClientBodyTimeout(Duration),
    #[error("the client's request body did not arrive within {} (server.body_timeout)", humantime::format_duration(*.0))]
    ClientBodyDeadline(Duration),
    #[error(
        "plaincall is at its limit of {0} requests in flight (server.max_in_flight); retry shortly"
    )]
    Overloaded(usize),
    #[error("plaincall holds as much of request bodies as it may ({0} bytes, server.max_buffered_bytes); retry shortly")]
    MemoryBudget(u64),
    #[error("plaincall is shutting down and its grace period (server.shutdown_grace) ran out")]
    ShuttingDown,
    #[error("plaincall is shutting down and takes no new requests; retry on another instance")]
    Draining,
    /// The upstream (or a translator backend) at `url` answered with a redirect.
    #[error("the upstream at {url} answered with a redirect ({status}); plaincall does not follow redirects, since they would carry the key and the conversation to another address: set the final URL in the configuration")]
    UpstreamRedirect { status: u16, url: String },
    /// A stored conversation lives in Redis, which did not answer.
    #[error("the conversation of previous_response_id cannot be read now: {0}; retry shortly, or send the earlier turns as input")]
    SharedState(String),
    #[error("the upstream sent a response plaincall cannot read: {0}")]
    UpstreamProtocol(String),
    #[error("internal error")]
    Internal(String),
}

/// Which upstream wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutKind {
    Connect,
    Headers,
    Stalled,
}

fn timeout_message(kind: TimeoutKind, after: Duration, setting: &str) -> String {
    let after = humantime::format_duration(after);
    match kind {
        TimeoutKind::Connect => {
            format!("could not connect to the upstream within {after} ({setting})")
        }
        TimeoutKind::Headers => {
            format!("the upstream sent no response headers within {after} ({setting})")
        }
        TimeoutKind::Stalled => {
            format!("the upstream's response stalled: nothing for {after} ({setting})")
        }
    }
}

/// The wire form: `{"error": {"message", "type", "param", "code"}}`.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    message: String,
    #[serde(rename = "type")]
    kind: &'a str,
    param: Option<&'a str>,
    code: &'a str,
}

impl ProxyError {
    pub fn status(&self) -> StatusCode {
        match self {
            ProxyError::InvalidJson(_) | ProxyError::InvalidRequest { .. } => {
                StatusCode::BAD_REQUEST
            }
            ProxyError::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ProxyError::Unauthorized => StatusCode::UNAUTHORIZED,
            ProxyError::NotFound { .. } => StatusCode::NOT_FOUND,
            ProxyError::WebSocketRefused(_) => StatusCode::UPGRADE_REQUIRED,
            ProxyError::UpstreamUnreachable(_)
            | ProxyError::UpstreamProtocol(_)
            | ProxyError::UpstreamRedirect { .. } => StatusCode::BAD_GATEWAY,
            ProxyError::UpstreamTimeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            ProxyError::ClientBodyTimeout(_) | ProxyError::ClientBodyDeadline(_) => {
                StatusCode::REQUEST_TIMEOUT
            }
            ProxyError::Overloaded(_)
            | ProxyError::MemoryBudget(_)
            | ProxyError::ShuttingDown
            | ProxyError::SharedState(_)
            | ProxyError::Draining => StatusCode::SERVICE_UNAVAILABLE,
            ProxyError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The OpenAI `type` field.
    pub fn kind(&self) -> &'static str {
        match self {
            ProxyError::InvalidJson(_)
            | ProxyError::InvalidRequest { .. }
            | ProxyError::BodyTooLarge { .. }
            | ProxyError::NotFound { .. }
            | ProxyError::WebSocketRefused(_)
            | ProxyError::ClientBodyTimeout(_)
            | ProxyError::ClientBodyDeadline(_) => "invalid_request_error",
            ProxyError::Unauthorized => "authentication_error",
            ProxyError::UpstreamUnreachable(_)
            | ProxyError::UpstreamTimeout { .. }
            | ProxyError::UpstreamProtocol(_)
            | ProxyError::UpstreamRedirect { .. } => "upstream_error",
            ProxyError::Internal(_)
            | ProxyError::Overloaded(_)
            | ProxyError::MemoryBudget(_)
            | ProxyError::ShuttingDown
            | ProxyError::SharedState(_)
            | ProxyError::Draining => "server_error",
        }
    }

    /// A stable, low-cardinality label: the OpenAI `code` field and the metrics label.
    pub fn code(&self) -> &'static str {
        match self {
            ProxyError::InvalidJson(_) => "invalid_json",
            ProxyError::InvalidRequest { .. } => "invalid_request",
            ProxyError::BodyTooLarge { .. } => "request_too_large",
            ProxyError::Unauthorized => "invalid_api_key",
            ProxyError::NotFound { .. } => "not_found",
            ProxyError::WebSocketRefused(_) => "websocket_not_supported",
            ProxyError::UpstreamUnreachable(_) => "upstream_unreachable",
            ProxyError::UpstreamTimeout { .. } => "upstream_timeout",
            ProxyError::ClientBodyTimeout(_) | ProxyError::ClientBodyDeadline(_) => {
                "request_timeout"
            }
            ProxyError::Overloaded(_) | ProxyError::MemoryBudget(_) => "overloaded",
            ProxyError::ShuttingDown | ProxyError::Draining => "shutting_down",
            ProxyError::UpstreamProtocol(_) => "upstream_protocol_error",
            ProxyError::UpstreamRedirect { .. } => "upstream_redirect",
            ProxyError::SharedState(_) => "shared_state_unavailable",
            ProxyError::Internal(_) => "internal_error",
        }
    }

    pub fn param(&self) -> Option<&str> {
        match self {
            ProxyError::InvalidRequest { param, .. } => param.as_deref(),
            _ => None,
        }
    }

    /// The JSON body, also used for SSE error events.
    pub fn to_json(&self) -> String {
        let body = ErrorBody {
            error: ErrorDetail {
                message: self.to_string(),
                kind: self.kind(),
                param: self.param(),
                code: self.code(),
            },
        };
        serde_json::to_string(&body).unwrap_or_else(|_| {
            r#"{"error":{"message":"internal error","type":"server_error","param":null,"code":"internal_error"}}"#
                .to_owned()
        })
    }

    /// The message without the hint about `upstream.url`, for failures of a client that may
    /// not be the upstream's (a translator backend).
    pub fn detail(&self) -> String {
        match self {
            ProxyError::UpstreamUnreachable(what) => format!("could not reach {what}"),
            // Clients read "internal error"; whoever reads the detail is the operator.
            ProxyError::Internal(detail) => format!("internal error: {detail}"),
            other => other.to_string(),
        }
    }
}

/// A URL fit for messages: no user name, password, query or fragment.
pub(crate) fn shown_url(url: &url::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// The innermost error message, which names the actual failure ("Connection refused").
pub(crate) fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

impl ProxyError {
    /// The `error` event that ends a Chat Completions event stream.
    pub fn chat_event(&self) -> bytes::Bytes {
        bytes::Bytes::from(format!("event: error\ndata: {}\n\n", self.to_json()))
    }

    /// The one place an error becomes a response: logged, its status, `Retry-After` where a
    /// retry helps, and `body` (the error in the client's wire format, see
    /// `crate::wire::WireError`).
    pub fn respond(self, body: String) -> Response {
        let status = self.status();
        if let ProxyError::Internal(detail) = &self {
            tracing::error!(code = self.code(), %detail, "request failed on a plaincall bug");
        } else if status.is_server_error() {
            tracing::warn!(code = self.code(), error = %self, "request failed");
        } else {
            tracing::debug!(code = self.code(), error = %self, "request rejected");
        }
        let mut response = (
            status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response();
        if matches!(
            self,
            ProxyError::Overloaded(_)
                | ProxyError::MemoryBudget(_)
                | ProxyError::ShuttingDown
                | ProxyError::SharedState(_)
                | ProxyError::Draining
        ) {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        response
    }
}

/// The Chat Completions shape; other formats go through `crate::wire::WireError`.
impl IntoResponse for ProxyError {
    fn into_response(self) -> Response {
        let body = self.to_json();
        self.respond(body)
    }
}

/// Why plaincall cannot start, said in full: the operator reads it once, and acts on it.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("the prompt templates ({dir}) cannot be used: {source}")]
    Prompts {
        dir: String,
        source: crate::prompts::PromptError,
    },
    /// An HTTP client could not be built (the TLS roots, say).
    #[error("{0}")]
    Client(String),
}

impl From<ProxyError> for StartupError {
    fn from(error: ProxyError) -> Self {
        StartupError::Client(error.detail())
    }
}
