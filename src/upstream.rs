//! Every HTTP client plaincall makes. The request paths (the main upstream and every
//! translator backend, `/readyz`'s probe) and the trace exporter ([`OtlpTransport`]) share
//! [`UpstreamClient`]: hyper-util's connection pool over rustls, not
//! reqwest, since on the forward path reqwest parsed each request's URL twice and ran a
//! redirect layer plaincall does not use (about 4% of the CPU a forwarded request costs,
//! `docs/measurements.md`). The one-off requests (the start-up probes, `plaincall health`,
//! `plaincall eval`) use the same type ([`UpstreamClient::one_off`]), so every client follows
//! no redirect (one would carry the key and the conversation to the host it names), reads no
//! proxy from the environment, verifies against the platform's roots, and has explicit
//! timeouts.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};
use http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use http_body::Frame;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Empty, Full, StreamBody};
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use url::Url;

use crate::config::Secret;
use crate::error::{ProxyError, TimeoutKind};

/// A request on its way upstream: built whole, sent by [`UpstreamClient::send`].
pub(crate) type UpstreamRequest = http::Request<Body>;
/// A request body: bytes in memory, or a client's body streamed on ([`streamed`]).
pub type Body = UnsyncBoxBody<Bytes, BoxError>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How soon after sending a request the connection must have closed, unanswered, for the
/// request to go once more: a keep-alive connection the server was closing fails at once; one
/// closed later may have been worked on.
const RESEND_WITHIN: Duration = Duration::from_secs(2);

/// The body of a request plaincall built itself (a turn, a translator call), kept beside it so
/// that [`UpstreamClient::send`] can send it once more; a client's forwarded request is sent
/// once, as a proxy does with a POST.
#[derive(Clone)]
struct Resendable(Bytes);

impl Resendable {
    /// The same request again (method, URL, headers, body), not resendable a second time.
    fn copy_of(&self, request: &UpstreamRequest) -> UpstreamRequest {
        let mut again = http::Request::new(whole(self.0.clone()));
        *again.method_mut() = request.method().clone();
        *again.uri_mut() = request.uri().clone();
        *again.headers_mut() = request.headers().clone();
        again
    }
}

/// Whether the connection closed before any of the response came: nothing was answered.
fn closed_unanswered(error: &hyper_util::client::legacy::Error) -> bool {
    std::error::Error::source(error)
        .and_then(|source| source.downcast_ref::<hyper::Error>())
        .is_some_and(hyper::Error::is_incomplete_message)
}

fn whole(bytes: Bytes) -> Body {
    Full::new(bytes)
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// A body sent as `chunks` arrive; an error in them ends the request.
pub fn streamed<S, E>(chunks: S) -> Body
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: Into<BoxError> + 'static,
{
    StreamBody::new(chunks.map_ok(Frame::data).map_err(Into::into)).boxed_unsync()
}
/// The upstream's answer: its head, and its body read chunk by chunk
/// ([`UpstreamClient::next_chunk`]).
pub type UpstreamResponse = http::Response<Incoming>;

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus `host`,
/// which the client sets from the upstream URL.
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

/// The most an upstream connection's read buffer grows to, and so the largest response
/// head it takes (nginx's own `proxy_buffer_size` is 4 or 8 KiB; hyper's least is 8 KiB).
const UPSTREAM_READ_BUFFER: usize = 16 * 1024;

/// Routes whose upstream URI is made once, at start-up: the paths every request takes.
const KNOWN_ROUTES: &[&str] = &[
    "chat/completions",
    "completions",
    "responses",
    "messages",
    "models",
    "embeddings",
];

type Http = hyper_util::client::legacy::Client<HttpsConnector<HttpConnector>, Body>;

#[derive(Clone)]
pub struct UpstreamClient {
    http: Http,
    /// The configured URL, credentials removed (they go as `basic`).
    base: Url,
    /// [`KNOWN_ROUTES`] under `base`, without a query.
    known: Arc<[(&'static str, Uri)]>,
    api_key: Option<Secret>,
    /// `Authorization: Basic` from credentials written into the URL, sent when nothing else
    /// authorizes the request.
    basic: Option<HeaderValue>,
    connect_timeout: Duration,
    timeout: Duration,
    read_timeout: Duration,
    settings: Arc<Settings>,
}

/// The silence allowed between two chunks of a response body, and the setting that says so.
struct Stall {
    after: Duration,
    setting: Arc<str>,
}

impl Stall {
    async fn next_chunk(
        &self,
        response: &mut UpstreamResponse,
    ) -> Result<Option<Bytes>, ProxyError> {
        loop {
            match tokio::time::timeout(self.after, response.body_mut().frame()).await {
                Ok(None) => return Ok(None),
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
                Ok(Some(Err(error))) => {
                    return Err(ProxyError::UpstreamProtocol(crate::error::root_cause(
                        &error,
                    )))
                }
                Err(_) => return Err(self.timed_out()),
            }
        }
    }

    fn timed_out(&self) -> ProxyError {
        ProxyError::UpstreamTimeout {
            kind: TimeoutKind::Stalled,
            after: self.after,
            setting: self.setting.clone(),
        }
    }
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

/// The keep-alive pool of an [`UpstreamClient`]: at most `idle` connections kept for reuse,
/// each closed once it has been idle for `idle_timeout`. That must stay under the server's own
/// keep-alive: a request written on a connection the server is closing is lost
/// ("connection closed before message completed"), and a POST is not retried.
#[derive(Debug, Clone, Copy)]
pub struct Pool {
    pub idle: usize,
    pub idle_timeout: Duration,
}

impl Pool {
    /// The pool for the upstream and the translators: as many idle connections kept as
    /// requests can be in flight at once, for `upstream.pool_idle_timeout`.
    pub(crate) fn of(config: &crate::config::Config) -> Pool {
        Pool {
            idle: config.server.max_in_flight,
            idle_timeout: config.upstream.pool_idle_timeout,
        }
    }
}

impl UpstreamClient {
    /// `connect_timeout` bounds establishing the connection; `timeout` the wait from sending
    /// the request to its response headers; `read_timeout` each silence between two chunks
    /// of the response body, on every path (see [`UpstreamClient::next_chunk`]).
    /// `pool` is what the keep-alive pool keeps for reuse, and for how long.
    pub fn new(
        mut base: Url,
        api_key: Option<Secret>,
        connect_timeout: Duration,
        read_timeout: Duration,
        timeout: Duration,
        pool: Pool,
    ) -> Result<UpstreamClient, ProxyError> {
        let internal = |what: &str, e: &dyn std::fmt::Display| {
            ProxyError::Internal(format!("building the HTTP client: {what}: {e}"))
        };
        let tls = rustls_platform_verifier::BuilderVerifierExt::with_platform_verifier(
            rustls::ClientConfig::builder(),
        )
        .map_err(|e| internal("the platform's certificate verifier", &e))?
        .with_no_client_auth();
        let mut tcp = HttpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        tcp.set_connect_timeout(Some(connect_timeout));
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        let http = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(pool.idle_timeout)
            // A bound below the steady concurrency would close and reopen a connection for a
            // share of the requests (at 64 clients and 32 kept: 1 in 13).
            .pool_max_idle_per_host(pool.idle.max(1))
            // A connection keeps its read buffer while idle, grown to what its fastest
            // response needed: with hyper's default (~400 KiB) 500 fast streams left 196 MB
            // of RSS behind them (157 MB at peak with 32 kept); with 16 KiB, 30 MB (39 MB).
            .http1_max_buf_size(UPSTREAM_READ_BUFFER)
            .build(connector);
        let basic = basic_auth(&base);
        // Neither the URL a request goes to nor one an error names carries the credentials.
        let _ = base.set_username("");
        let _ = base.set_password(None);
        let mut client = UpstreamClient {
            http,
            base,
            known: Arc::new([]),
            api_key,
            basic,
            connect_timeout,
            timeout,
            read_timeout,
            settings: Arc::new(Settings {
                connect: "upstream.connect_timeout".into(),
                headers: "upstream.timeout".into(),
                read: "upstream.read_timeout".into(),
            }),
        };
        let known: Vec<(&'static str, Uri)> = KNOWN_ROUTES
            .iter()
            .filter_map(|&route| Some((route, client.make_endpoint(route, None).ok()?)))
            .collect();
        client.known = known.into();
        Ok(client)
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
            TimeoutKind::Stalled => return self.stall().timed_out(),
        };
        ProxyError::UpstreamTimeout {
            kind,
            after,
            setting: setting.clone(),
        }
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
    pub fn endpoint(&self, rest: &str, query: Option<&str>) -> Result<Uri, ProxyError> {
        if query.is_none() {
            if let Some((_, uri)) = self.known.iter().find(|(route, _)| *route == rest) {
                return Ok(uri.clone());
            }
        }
        self.make_endpoint(rest, query)
    }

    fn make_endpoint(&self, rest: &str, query: Option<&str>) -> Result<Uri, ProxyError> {
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
        Uri::try_from(url.as_str())
            .map_err(|e| ProxyError::Internal(format!("the upstream URL `{url}`: {e}")))
    }

    /// Builds the upstream request from the client's headers: end-to-end headers only, and
    /// the configured key instead of the client's `Authorization` when there is one.
    /// `forward_client_auth` is false when the client's key was one of plaincall's own.
    /// The body is empty; the caller sets its own.
    pub fn request(
        &self,
        method: Method,
        uri: Uri,
        client_headers: &HeaderMap,
        forward_client_auth: bool,
    ) -> UpstreamRequest {
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
        if let Some(basic) = &self.basic {
            if !headers.contains_key(header::AUTHORIZATION) {
                headers.insert(header::AUTHORIZATION, basic.clone());
            }
        }
        let mut request =
            http::Request::new(Empty::new().map_err(|never| match never {}).boxed_unsync());
        *request.method_mut() = method;
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        request
    }

    /// A POST of a whole body (as it came, or changed by plaincall): the client's headers as
    /// [`Self::request`] takes them, but the body's own length, never the client's
    /// `Content-Length`, which no longer holds once a model alias or `drop_params` changed the
    /// body (the upstream would wait for bytes that never come).
    pub(crate) fn post_whole(
        &self,
        uri: Uri,
        client_headers: &HeaderMap,
        forward_client_auth: bool,
        body: Bytes,
    ) -> UpstreamRequest {
        let mut request = self.request(Method::POST, uri, client_headers, forward_client_auth);
        request
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        *request.body_mut() = whole(body);
        request
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
    ) -> Result<UpstreamRequest, ProxyError> {
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
    ) -> Result<UpstreamRequest, ProxyError> {
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
    ) -> Result<UpstreamRequest, ProxyError> {
        let uri = self.endpoint(rest, query)?;
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
        let again = Resendable(body.clone());
        let mut request = self.post_whole(uri, &headers, forward_client_auth, body);
        request.extensions_mut().insert(again);
        Ok(request)
    }

    /// Sends and waits for the response headers, within `timeout`. A request plaincall built
    /// itself ([`Resendable`]) that the upstream's connection closes at once (within
    /// [`RESEND_WITHIN`]) without an answer is sent once more, within the same `timeout`: a
    /// keep-alive connection the server was closing as plaincall wrote on it loses the
    /// request, and a turn lost so ended a conversation with a 502 (once or twice in a long
    /// run of questions on llama-server). A model's turn changes nothing upstream, so sending
    /// it again is safe; a connection closed after the server worked on the request for a
    /// while (a crash, a gateway's timeout) is the client's 502, and a request plaincall
    /// relays byte for byte ([`Self::post_whole`] alone) is sent once.
    pub async fn send(&self, mut request: UpstreamRequest) -> Result<UpstreamResponse, ProxyError> {
        // The current span (a turn's, a translator exchange's) is the upstream's parent.
        crate::telemetry::propagate::inject(request.headers_mut());
        // Kept to name it in an error; a `Uri` clone shares its bytes.
        let uri = request.uri().clone();
        let again = request
            .extensions()
            .get::<Resendable>()
            .map(|body| body.copy_of(&request));
        let started = tokio::time::Instant::now();
        let deadline = started + self.timeout;
        let answer = match (
            tokio::time::timeout_at(deadline, self.http.request(request)).await,
            again,
        ) {
            (Ok(Err(error)), Some(again))
                if closed_unanswered(&error) && started.elapsed() < RESEND_WITHIN =>
            {
                tracing::info!(
                    upstream = %shown_uri(&uri),
                    "the upstream closed the connection without answering: sent once more"
                );
                tokio::time::timeout_at(deadline, self.http.request(again)).await
            }
            (answer, _) => answer,
        };
        match answer {
            Ok(Ok(response)) if is_redirect(response.status()) => {
                Err(ProxyError::UpstreamRedirect {
                    status: response.status().as_u16(),
                    url: crate::error::shown_url(&self.base),
                })
            }
            Ok(Ok(response)) => Ok(response),
            Ok(Err(error)) => Err(self.send_failed(&error, &uri)),
            Err(_) => Err(self.timed_out(TimeoutKind::Headers)),
        }
    }

    /// A request that got no answer: the connect timeout is plaincall's own setting; anything
    /// else names the URL (no credentials, no query) and the innermost cause.
    fn send_failed(&self, error: &hyper_util::client::legacy::Error, uri: &Uri) -> ProxyError {
        if error.is_connect() && io_kind(error) == Some(std::io::ErrorKind::TimedOut) {
            return self.timed_out(TimeoutKind::Connect);
        }
        ProxyError::UpstreamUnreachable(format!(
            "{}: {}",
            shown_uri(uri),
            crate::error::root_cause(error)
        ))
    }

    /// The next chunk of a response body, within `read_timeout`: the one place that bounds
    /// silence in a response body. Trailers are skipped.
    pub async fn next_chunk(
        &self,
        response: &mut UpstreamResponse,
    ) -> Result<Option<Bytes>, ProxyError> {
        self.stall().next_chunk(response).await
    }

    fn stall(&self) -> Stall {
        Stall {
            after: self.read_timeout,
            setting: self.settings.read.clone(),
        }
    }

    /// A response body as a stream of chunks, each within `read_timeout`. The stream holds
    /// only what reading needs, not a clone of the client (its URL and key) per chunk.
    pub fn body_stream(
        &self,
        response: UpstreamResponse,
    ) -> impl Stream<Item = Result<Bytes, ProxyError>> + Send + 'static {
        futures_util::stream::try_unfold(
            (response, self.stall()),
            |(mut response, stall)| async move {
                let chunk = stall.next_chunk(&mut response).await?;
                Ok(chunk.map(|chunk| (chunk, (response, stall))))
            },
        )
    }

    /// Sends, waits for the headers within `timeout`, then reads the whole body.
    pub async fn send_and_read(
        &self,
        request: UpstreamRequest,
        limit: u64,
    ) -> Result<(StatusCode, HeaderMap, Bytes), ProxyError> {
        let mut response = self.send(request).await?;
        let status = response.status();
        let headers = std::mem::take(response.headers_mut());
        let expected = content_length(&headers);
        let body = self.read_body(response, expected, limit).await?;
        Ok((status, headers, body))
    }

    /// Reads a whole response body, refusing more than `limit` bytes.
    pub async fn read_limited(
        &self,
        response: UpstreamResponse,
        limit: u64,
    ) -> Result<Bytes, ProxyError> {
        let expected = content_length(response.headers());
        self.read_body(response, expected, limit).await
    }

    /// Sized up front from `Content-Length` (`expected`) so that a large body is not copied
    /// while it grows.
    async fn read_body(
        &self,
        mut response: UpstreamResponse,
        expected: Option<u64>,
        limit: u64,
    ) -> Result<Bytes, ProxyError> {
        let too_large =
            || ProxyError::UpstreamProtocol(format!("response body exceeds {limit} bytes"));
        let expected = expected.unwrap_or(0);
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

/// The trace exporter's transport: an [`UpstreamClient`] (no redirects, the platform's roots,
/// every wait bounded by `timeout`), driven on the server's runtime whichever thread the
/// exporter calls from, its answer read up to [`OTLP_RESPONSE_LIMIT`].
#[derive(Debug)]
pub struct OtlpTransport {
    client: UpstreamClient,
    runtime: tokio::runtime::Handle,
}

/// A collector's answer is a short protobuf message; more is refused.
const OTLP_RESPONSE_LIMIT: u64 = 64 * 1024;

impl OtlpTransport {
    /// Must be called inside the runtime that will carry the exports.
    pub fn new(url: &Url, timeout: Duration) -> Result<OtlpTransport, ProxyError> {
        let key = "telemetry.export_timeout";
        // Collectors (Phoenix's uvicorn among them) close an idle connection after 5 s.
        let pool = Pool {
            idle: 1,
            idle_timeout: timeout.min(Duration::from_secs(4)),
        };
        let client = UpstreamClient::new(url.clone(), None, timeout, timeout, timeout, pool)?
            .with_settings(key, key, key);
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| {
            ProxyError::Internal(format!("the trace exporter needs a runtime: {e}"))
        })?;
        Ok(OtlpTransport { client, runtime })
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for OtlpTransport {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, opentelemetry_http::HttpError> {
        let (parts, body) = request.into_parts();
        let client = self.client.clone();
        let (status, headers, body) = self
            .runtime
            .spawn(async move {
                // The exporter's own headers (`OTEL_EXPORTER_OTLP_HEADERS`) carry its key.
                let request = client.post_whole(parts.uri, &parts.headers, true, body);
                client.send_and_read(request, OTLP_RESPONSE_LIMIT).await
            })
            .await??;
        let mut response = http::Response::new(body);
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        Ok(response)
    }
}

impl UpstreamClient {
    /// A client for one-off requests below `base` (the start-up probes, `plaincall health`,
    /// `plaincall eval`): the one policy of every client here, with `timeout` for connecting,
    /// for the response headers and for each silence in the body, and at most one connection
    /// kept, for a second. A timeout error names `bound`, where that one limit comes from.
    pub(crate) fn one_off(
        base: Url,
        api_key: Option<Secret>,
        timeout: Duration,
        bound: &str,
    ) -> Result<UpstreamClient, ProxyError> {
        let pool = Pool {
            idle: 1,
            idle_timeout: Duration::from_secs(1),
        };
        Ok(
            UpstreamClient::new(base, api_key, timeout, timeout, timeout, pool)?
                .with_settings(bound, bound, bound),
        )
    }

    /// One request to `route` below the base (`""` for the base itself): a `POST` of `json`
    /// when given, else a `GET`, read whole up to `limit` bytes: its status and body. A
    /// redirect is [`ProxyError::UpstreamRedirect`], never followed.
    pub(crate) async fn exchange_once(
        &self,
        route: &str,
        json: Option<Bytes>,
        limit: u64,
    ) -> Result<(StatusCode, Bytes), ProxyError> {
        let response = self.send(self.one_off_request(route, json)?).await?;
        let status = response.status();
        Ok((status, self.read_limited(response, limit).await?))
    }

    /// The status of one request to `route`, as [`Self::exchange_once`] sends it; the body
    /// is not read (a probe needs the status only, however large the answer).
    pub(crate) async fn status_once(
        &self,
        route: &str,
        json: Option<Bytes>,
    ) -> Result<StatusCode, ProxyError> {
        Ok(self
            .send(self.one_off_request(route, json)?)
            .await?
            .status())
    }

    fn one_off_request(
        &self,
        route: &str,
        json: Option<Bytes>,
    ) -> Result<UpstreamRequest, ProxyError> {
        // Below the base only: a route is plaincall's own constant, never a client's, but an
        // absolute one would still leave the configured host.
        if route.contains("://") || route.starts_with('/') {
            return Err(ProxyError::Internal(format!(
                "`{route}` is no route below the base"
            )));
        }
        let url = self
            .base
            .join(route)
            .map_err(|e| ProxyError::Internal(format!("the URL for `{route}`: {e}")))?;
        let uri = Uri::try_from(url.as_str()).map_err(|e| {
            ProxyError::Internal(format!("the URL `{}`: {e}", crate::error::shown_url(&url)))
        })?;
        let request = match json {
            Some(body) => {
                let mut headers = HeaderMap::new();
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                self.post_whole(uri, &headers, false, body)
            }
            None => self.request(Method::GET, uri, &HeaderMap::new(), false),
        };
        Ok(request)
    }
}

/// A message's `Content-Length` (a client's request or an upstream's response), when it has a
/// valid one.
pub(crate) fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// `Authorization: Basic` for credentials written into the URL (`http://user:pass@host`),
/// as clients that take a URL send them.
fn basic_auth(url: &Url) -> Option<HeaderValue> {
    use base64::Engine as _;
    if url.username().is_empty() && url.password().is_none() {
        return None;
    }
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let pair = format!(
        "{}:{}",
        decode(url.username()),
        decode(url.password().unwrap_or(""))
    );
    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
    let mut value = HeaderValue::from_str(&format!("Basic {encoded}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// A request URI as errors name it: scheme, host, port and path.
fn shown_uri(uri: &Uri) -> String {
    format!(
        "{}://{}{}",
        uri.scheme_str().unwrap_or("http"),
        uri.authority().map_or("", |a| a.as_str()),
        uri.path()
    )
}

/// The kind of the I/O error somewhere in `error`'s chain.
fn io_kind(error: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        current = error.source();
    }
    None
}

/// A status that asks the client to go elsewhere; `304 Not Modified` is an answer.
fn is_redirect(status: StatusCode) -> bool {
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
