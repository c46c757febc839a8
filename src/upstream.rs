//! The one HTTP client type: the main upstream and every translator backend are instances.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method};
use bytes::Bytes;
use futures_util::Stream;
use url::Url;

use crate::config::Secret;
use crate::error::{ProxyError, TimeoutKind};

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus `host`,
/// which reqwest sets from the upstream URL.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// Copies end-to-end headers: drops hop-by-hop ones and those the `Connection` header names.
pub(crate) fn end_to_end_headers(headers: &HeaderMap) -> HeaderMap {
    let named_by_connection: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let n = name.as_str();
        if HOP_BY_HOP.contains(&n) || named_by_connection.iter().any(|c| c == n) {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    out
}

const X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// Idle keep-alive connections kept per upstream host.
const IDLE_CONNECTIONS: usize = 32;

#[derive(Clone)]
pub struct UpstreamClient {
    http: reqwest::Client,
    base: Url,
    api_key: Option<Secret>,
    connect_timeout: Duration,
    timeout: Duration,
    read_timeout: Duration,
    settings: Arc<Settings>,
}

/// The configuration keys behind the three timeouts, named in timeout errors.
struct Settings {
    connect: Arc<str>,
    headers: Arc<str>,
    read: Arc<str>,
}

impl std::fmt::Debug for UpstreamClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamClient")
            .field("base", &self.base.as_str())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl UpstreamClient {
    /// `connect_timeout` bounds establishing the connection; `timeout` the wait from sending
    /// the request to its response headers; `read_timeout` each silence between two chunks
    /// of the response body, on every path (see [`UpstreamClient::next_chunk`]). reqwest's
    /// own `timeout` would cut long streams and its `read_timeout` also runs while waiting
    /// for headers, so neither is used.
    pub fn new(
        base: Url,
        api_key: Option<Secret>,
        connect_timeout: Duration,
        read_timeout: Duration,
        timeout: Duration,
    ) -> Result<UpstreamClient, ProxyError> {
        let http = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(60))
            // A burst of streams would otherwise leave as many idle connections (and their
            // buffers) in the pool for a minute.
            .pool_max_idle_per_host(IDLE_CONNECTIONS)
            // A redirect would carry the upstream key and the conversation to whatever host it
            // names: it is answered as an error instead (see `send`).
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| ProxyError::Internal(format!("building the HTTP client: {e}")))?;
        Ok(UpstreamClient {
            http,
            base,
            api_key,
            connect_timeout,
            timeout,
            read_timeout,
            settings: Arc::new(Settings {
                connect: "upstream.connect_timeout".into(),
                headers: "upstream.timeout".into(),
                read: "upstream.read_timeout".into(),
            }),
        })
    }

    /// Names the configuration keys that timeout errors cite (translator backends).
    pub fn with_settings(mut self, connect: &str, headers: &str, read: &str) -> UpstreamClient {
        self.settings = Arc::new(Settings {
            connect: connect.into(),
            headers: headers.into(),
            read: read.into(),
        });
        self
    }

    fn timed_out(&self, kind: TimeoutKind) -> ProxyError {
        let (after, setting) = match kind {
            TimeoutKind::Connect => (self.connect_timeout, &self.settings.connect),
            TimeoutKind::Headers => (self.timeout, &self.settings.headers),
            TimeoutKind::Stalled => (self.read_timeout, &self.settings.read),
        };
        ProxyError::UpstreamTimeout {
            kind,
            after,
            setting: setting.clone(),
        }
    }

    fn failed(&self, error: reqwest::Error) -> ProxyError {
        ProxyError::from_upstream(error, (self.connect_timeout, &self.settings.connect))
    }

    pub fn base_url(&self) -> &Url {
        &self.base
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The upstream URL for `rest`, the client's path below `/v1/` (no leading slash), and
    /// its raw query. Each client segment is decoded, checked and appended to the configured
    /// base as one encoded segment, so no path can change the scheme, host or port, or climb
    /// out of the base path (`Url::join` would let `http://elsewhere/x` or `..` do both).
    pub fn endpoint(&self, rest: &str, query: Option<&str>) -> Result<Url, ProxyError> {
        let mut url = self.base.clone();
        {
            let mut segments = url
                .path_segments_mut()
                .map_err(|()| ProxyError::Internal("the upstream URL cannot take a path".into()))?;
            segments.pop_if_empty();
            for raw in rest.split('/') {
                segments.push(&client_segment(raw, rest)?);
            }
        }
        url.set_query(query);
        url.set_fragment(None);
        Ok(url)
    }

    /// Builds the upstream request from the client's headers: end-to-end headers only, and
    /// the configured key instead of the client's `Authorization` when there is one.
    /// `forward_client_auth` is false when the client's key was one of plaincall's own.
    pub fn request(
        &self,
        method: Method,
        url: Url,
        client_headers: &HeaderMap,
        forward_client_auth: bool,
    ) -> reqwest::RequestBuilder {
        let mut headers = end_to_end_headers(client_headers);
        // An Anthropic client sends its key as `x-api-key`: the configured key goes out the
        // same way as well, and the client's own key follows the `Authorization` rule.
        let anthropic_key = headers.contains_key(X_API_KEY);
        if self.api_key.is_some() || !forward_client_auth {
            headers.remove(header::AUTHORIZATION);
            headers.remove(X_API_KEY);
        }
        if let Some(key) = &self.api_key {
            if let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {}", key.expose())) {
                value.set_sensitive(true);
                headers.insert(header::AUTHORIZATION, value);
            }
            if let (true, Ok(mut value)) = (anthropic_key, HeaderValue::from_str(key.expose())) {
                value.set_sensitive(true);
                headers.insert(X_API_KEY, value);
            }
        }
        self.http.request(method, url).headers(headers)
    }

    /// A POST of a whole body (as it came, or changed by plaincall): the client's headers as
    /// [`Self::request`] takes them, but the body's own length, never the client's
    /// `Content-Length`, which no longer holds once a model alias or `drop_params` changed the
    /// body (the upstream would wait for bytes that never come).
    pub(crate) fn post_whole(
        &self,
        url: Url,
        client_headers: &HeaderMap,
        forward_client_auth: bool,
        body: Bytes,
    ) -> reqwest::RequestBuilder {
        // `request` copied the client's length; the body's replaces it (`headers` replaces a
        // name it is given, where `header` would add a second value).
        let mut length = HeaderMap::with_capacity(1);
        length.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        self.request(Method::POST, url, client_headers, forward_client_auth)
            .headers(length)
            .body(body)
    }

    /// A main-model turn of the pipe: the client's end-to-end headers and query go with it, as
    /// on a byte-for-byte forward, but the body is plaincall's (its own length and type).
    pub fn post_turn(
        &self,
        rest: &str,
        query: Option<&str>,
        body: Bytes,
        client_headers: &HeaderMap,
        forward_client_auth: bool,
    ) -> Result<reqwest::RequestBuilder, ProxyError> {
        let mut headers = client_headers.clone();
        headers.remove(header::CONTENT_LENGTH);
        headers.remove(header::CONTENT_ENCODING);
        self.post_read(rest, query, body, headers, forward_client_auth)
    }

    /// A JSON POST that plaincall originates (translator calls): of the client's headers only
    /// its key and request id go with it.
    pub fn post_json(
        &self,
        rest: &str,
        body: Bytes,
        client_headers: &HeaderMap,
        forward_client_auth: bool,
    ) -> Result<reqwest::RequestBuilder, ProxyError> {
        let mut headers = HeaderMap::new();
        for name in [
            header::AUTHORIZATION,
            HeaderName::from_static("x-request-id"),
        ] {
            if let Some(value) = client_headers.get(&name) {
                headers.insert(name, value.clone());
            }
        }
        self.post_read(rest, None, body, headers, forward_client_auth)
    }

    /// A JSON POST whose answer plaincall reads itself, so it asks for it uncompressed.
    fn post_read(
        &self,
        rest: &str,
        query: Option<&str>,
        body: Bytes,
        mut headers: HeaderMap,
        forward_client_auth: bool,
    ) -> Result<reqwest::RequestBuilder, ProxyError> {
        let url = self.endpoint(rest, query)?;
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
        Ok(self
            .request(Method::POST, url, &headers, forward_client_auth)
            .body(body))
    }

    /// Sends and waits for the response headers, within `timeout`.
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ProxyError> {
        match tokio::time::timeout(self.timeout, request.send()).await {
            Ok(Ok(response)) if is_redirect(response.status()) => {
                Err(ProxyError::UpstreamRedirect {
                    status: response.status().as_u16(),
                    url: crate::error::shown_url(&self.base),
                })
            }
            Ok(Ok(response)) => Ok(response),
            Ok(Err(error)) => Err(self.failed(error)),
            Err(_) => Err(self.timed_out(TimeoutKind::Headers)),
        }
    }

    /// The next chunk of a response body, within `read_timeout`: the one place that bounds
    /// silence in a response body.
    pub async fn next_chunk(
        &self,
        response: &mut reqwest::Response,
    ) -> Result<Option<Bytes>, ProxyError> {
        match tokio::time::timeout(self.read_timeout, response.chunk()).await {
            Ok(Ok(chunk)) => Ok(chunk),
            Ok(Err(error)) => Err(self.failed(error)),
            Err(_) => Err(self.timed_out(TimeoutKind::Stalled)),
        }
    }

    /// A response body as a stream of chunks, each within `read_timeout`.
    pub fn body_stream(
        &self,
        response: reqwest::Response,
    ) -> impl Stream<Item = Result<Bytes, ProxyError>> + Send + 'static {
        let client = self.clone();
        futures_util::stream::try_unfold(response, move |mut response| {
            let client = client.clone();
            async move {
                let chunk = client.next_chunk(&mut response).await?;
                Ok(chunk.map(|chunk| (chunk, response)))
            }
        })
    }

    /// Sends, waits for the headers within `timeout`, then reads the whole body.
    pub async fn send_and_read(
        &self,
        request: reqwest::RequestBuilder,
        limit: u64,
    ) -> Result<(reqwest::StatusCode, HeaderMap, Bytes), ProxyError> {
        let mut response = self.send(request).await?;
        let status = response.status();
        let headers = std::mem::take(response.headers_mut());
        let body = self.read_limited(response, limit).await?;
        Ok((status, headers, body))
    }

    /// Reads a whole response body, refusing more than `limit` bytes. Sized up front from
    /// `Content-Length` so that a large body is not copied while it grows.
    pub async fn read_limited(
        &self,
        mut response: reqwest::Response,
        limit: u64,
    ) -> Result<Bytes, ProxyError> {
        let too_large =
            || ProxyError::UpstreamProtocol(format!("response body exceeds {limit} bytes"));
        let expected = response.content_length().unwrap_or(0);
        if expected > limit {
            return Err(too_large());
        }
        let mut body = bytes::BytesMut::with_capacity(usize::try_from(expected).unwrap_or(0));
        while let Some(chunk) = self.next_chunk(&mut response).await? {
            if body.len() as u64 + chunk.len() as u64 > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.freeze())
    }
}

/// A status that asks the client to go elsewhere; `304 Not Modified` is an answer.
fn is_redirect(status: reqwest::StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// One segment of a client's path, percent-decoded. Empty, `.` and `..` segments (however
/// encoded) are refused: on the way upstream they would drop or climb path levels.
fn client_segment(raw: &str, path: &str) -> Result<String, ProxyError> {
    let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
    if decoded.is_empty() || decoded == "." || decoded == ".." {
        return Err(ProxyError::InvalidRequest {
            message: format!(
                "the path `/v1/{path}` has an empty, `.` or `..` segment; plaincall forwards only plain paths"
            ),
            param: None,
        });
    }
    Ok(decoded.into_owned())
}
