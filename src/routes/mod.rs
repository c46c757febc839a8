//! HTTP handlers, one file per kind of route.

pub mod chat;
pub mod ops;
pub mod passthrough;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderMap, Method, Uri};
use axum::response::Response;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use http_body_util::BodyExt;

use crate::error::ProxyError;
use crate::upstream::end_to_end_headers;

pub async fn not_found(method: Method, uri: Uri) -> ProxyError {
    ProxyError::NotFound {
        method: method.to_string(),
        path: uri.path().to_owned(),
    }
}

pub fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// Reads a whole request body, refusing more than `limit` bytes.
pub async fn read_body(headers: &HeaderMap, body: Body, limit: u64) -> Result<Bytes, ProxyError> {
    if content_length(headers).is_some_and(|len| len > limit) {
        return Err(ProxyError::BodyTooLarge { limit });
    }
    let limited = http_body_util::Limited::new(body, usize::try_from(limit).unwrap_or(usize::MAX));
    match limited.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            Err(ProxyError::BodyTooLarge { limit })
        }
        Err(error) => Err(ProxyError::InvalidRequest {
            message: format!("could not read the request body: {error}"),
            param: None,
        }),
    }
}

/// A request body streamed on to the upstream, cut off past `limit` bytes. The flag tells
/// the caller that a send failed because of the limit rather than the upstream.
pub fn limited_stream(
    body: Body,
    limit: u64,
) -> (
    impl Stream<Item = Result<Bytes, axum::Error>> + Send + 'static,
    Arc<AtomicBool>,
) {
    let exceeded = Arc::new(AtomicBool::new(false));
    let flag = exceeded.clone();
    let mut seen: u64 = 0;
    let stream = body.into_data_stream().map(move |chunk| {
        let chunk = chunk?;
        seen += chunk.len() as u64;
        if seen > limit {
            flag.store(true, Ordering::Relaxed);
            return Err(axum::Error::new(ProxyError::BodyTooLarge { limit }));
        }
        Ok(chunk)
    });
    (stream, exceeded)
}

/// A response plaincall read whole (and may have changed): the upstream's status and
/// end-to-end headers, the length and encoding set anew for `body`.
pub fn bytes_response(
    status: axum::http::StatusCode,
    headers: &HeaderMap,
    body: Bytes,
) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let mut headers = end_to_end_headers(headers);
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    *response.headers_mut() = headers;
    response
}

/// The upstream's response as the client's: status, end-to-end headers, and the body
/// streamed chunk by chunk as it arrives.
pub fn relay(response: reqwest::Response) -> Response {
    let status = response.status();
    let headers = end_to_end_headers(response.headers());
    let mut out = Response::new(Body::from_stream(response.bytes_stream()));
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    out
}
