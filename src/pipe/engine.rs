//! What a turn runs on, and nothing of the serving layer: the configuration, the upstream
//! client, the pipe, the metrics, the mode selector, the secrets to scrub, the shutdown signal
//! and the shared state. Built once at start-up.

use crate::config::Config;
use crate::drain::Drain;
use crate::error::StartupError;
use crate::metrics::Metrics;
use crate::pipe::prompt_mode::ModeSelector;
use crate::pipe::Pipe;
use crate::redact::Secrets;
use crate::shared::{Meters, Shared};
use crate::upstream::UpstreamClient;

pub struct Engine {
    pub config: Config,
    pub upstream: UpstreamClient,
    pub metrics: Metrics,
    pub pipe: Pipe,
    pub modes: ModeSelector,
    pub drain: Drain,
    /// The configured keys, scrubbed from upstream error bodies and relayed event streams
    /// before they are passed on.
    pub secrets: Secrets,
    /// Redis, when configured: what replicas share.
    pub shared: Shared,
}

impl Engine {
    pub fn new(config: Config) -> Result<Engine, StartupError> {
        let upstream = UpstreamClient::new(
            config.upstream.base_url.clone(),
            config.upstream.api_key.clone(),
            config.upstream.connect_timeout,
            config.upstream.read_timeout,
            config.upstream.timeout,
            crate::upstream::Pool::of(&config),
        )?;
        let metrics = Metrics::with_configured(config.translation.tools.keys().cloned().collect());
        let shared = Shared::new(
            &config.redis,
            Meters {
                ops: metrics.shared_state.clone(),
                up: metrics.shared_state_up.clone(),
            },
        )
        .map_err(|e| StartupError::Client(e.0))?;
        Ok(Engine {
            pipe: Pipe::new(&config, upstream.clone(), shared.clone())?,
            modes: ModeSelector::new(config.tool_calling.clone()).shared_by(shared.clone()),
            secrets: crate::redact::configured(&config),
            drain: Drain::default(),
            upstream,
            metrics,
            shared,
            config,
        })
    }

    /// A client's `Authorization` is forwarded only when it was not one of plaincall's own
    /// access keys.
    pub fn forward_client_auth(&self) -> bool {
        self.config.server.access_keys.is_empty()
    }
}

/// What serving a chat request came to.
pub(crate) enum Served {
    /// The upstream's answer, read whole: an error, or one with nothing to change (the
    /// serving layer scrubs an error of the configured keys).
    AsRead {
        status: http::StatusCode,
        headers: http::HeaderMap,
        body: bytes::Bytes,
    },
    /// The upstream's answer to pass on as it streams: a forwarded request's, or for a
    /// rewritten one an error or a whole answer to a streamed request.
    Relay(crate::upstream::UpstreamResponse),
    /// A translated stream's events, for the client's format to render.
    Events(crate::pipe::event::Events),
    /// A translated whole answer, for the client's format to render.
    Whole {
        status: http::StatusCode,
        headers: http::HeaderMap,
        completion: crate::openai::RawObject,
    },
    /// The upstream refused native `tools` for this model: serve again in prompt mode.
    ToolsRejected,
}

/// The most of an upstream error body read to see whether it rejects `tools`.
const REJECTION_BODY_LIMIT: u64 = 256 * 1024;

impl Served {
    /// An upstream's error answer to `sent`, read (up to [`REJECTION_BODY_LIMIT`]) to see
    /// whether it refuses native `tools`: [`Served::ToolsRejected`] then, else the error as
    /// read, to go back unchanged.
    pub(crate) async fn refusal(
        upstream: &UpstreamClient,
        response: crate::upstream::UpstreamResponse,
        sent: &[u8],
    ) -> Result<Served, crate::error::ProxyError> {
        let status = response.status();
        let headers = response.headers().clone();
        let body = upstream
            .read_limited(response, REJECTION_BODY_LIMIT)
            .await?;
        if crate::pipe::prompt_mode::rejects_tools(status.as_u16(), &body, sent) {
            return Ok(Served::ToolsRejected);
        }
        Ok(Served::AsRead {
            status,
            headers,
            body,
        })
    }
}
