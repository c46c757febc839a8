//! The one error type of the request path. Every error plaincall itself produces becomes an
//! OpenAI-shaped body here; errors the upstream returns are forwarded untouched elsewhere.

use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

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
    /// `URL: cause`. The hint names the setting, since a wrong address is the usual cause.
    #[error("could not reach the upstream at {0} (is it running? plaincall sends requests to the `upstream.url` setting, env PLAINCALL_UPSTREAM_URL)")]
    UpstreamUnreachable(String),
    #[error("the upstream did not answer within {}", humantime::format_duration(*.0))]
    UpstreamTimeout(Duration),
    #[error("the upstream sent a response plaincall cannot read: {0}")]
    UpstreamProtocol(String),
    #[error("internal error")]
    Internal(String),
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
            ProxyError::UpstreamUnreachable(_) | ProxyError::UpstreamProtocol(_) => {
                StatusCode::BAD_GATEWAY
            }
            ProxyError::UpstreamTimeout(_) => StatusCode::GATEWAY_TIMEOUT,
            ProxyError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The OpenAI `type` field.
    fn kind(&self) -> &'static str {
        match self {
            ProxyError::InvalidJson(_)
            | ProxyError::InvalidRequest { .. }
            | ProxyError::BodyTooLarge { .. }
            | ProxyError::NotFound { .. } => "invalid_request_error",
            ProxyError::Unauthorized => "authentication_error",
            ProxyError::UpstreamUnreachable(_)
            | ProxyError::UpstreamTimeout(_)
            | ProxyError::UpstreamProtocol(_) => "upstream_error",
            ProxyError::Internal(_) => "server_error",
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
            ProxyError::UpstreamUnreachable(_) => "upstream_unreachable",
            ProxyError::UpstreamTimeout(_) => "upstream_timeout",
            ProxyError::UpstreamProtocol(_) => "upstream_protocol_error",
            ProxyError::Internal(_) => "internal_error",
        }
    }

    fn param(&self) -> Option<&str> {
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

    /// Maps a reqwest failure; the URL is named without credentials or query.
    pub fn from_upstream(error: reqwest::Error, timeout: Duration) -> ProxyError {
        let url = error.url().map(shown_url);
        let error = error.without_url();
        if error.is_timeout() {
            return ProxyError::UpstreamTimeout(timeout);
        }
        if error.is_body() || error.is_decode() {
            return ProxyError::UpstreamProtocol(root_cause(&error));
        }
        let cause = root_cause(&error);
        ProxyError::UpstreamUnreachable(match url {
            Some(url) => format!("{url}: {cause}"),
            None => cause,
        })
    }

    /// The message without the hint about `upstream.url`, for failures of a client that may
    /// not be the upstream's (a translator backend).
    pub fn detail(&self) -> String {
        match self {
            ProxyError::UpstreamUnreachable(what) => format!("could not reach {what}"),
            other => other.to_string(),
        }
    }
}

/// A URL fit for messages: no user name, password, query or fragment.
pub fn shown_url(url: &url::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// The innermost error message, which names the actual failure ("Connection refused").
pub fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

impl IntoResponse for ProxyError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::warn!(code = self.code(), error = %self, "request failed");
        } else {
            tracing::debug!(code = self.code(), error = %self, "request rejected");
        }
        let mut response = (
            status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            self.to_json(),
        )
            .into_response();
        response.extensions_mut().insert(ErrorCode(self.code()));
        response
    }
}

/// Left on error responses so the metrics layer can count errors by code.
#[derive(Clone, Copy, Debug)]
pub struct ErrorCode(pub &'static str);
