//! plaincall: an OpenAI-compatible proxy that lets small LLMs call complex tools.
//!
//! A request's path through the crate: `server` (the layers around the router, and
//! admission: metrics, the in-flight limit, access keys) → `routes` (`chat` for chat
//! completions, `messages` and `responses` for the other wire formats via `wire`,
//! `passthrough` for every other `/v1/*` route) → `pipe` (tools rewritten into
//! plain-English form, calls translated back, whole or streamed) → `upstream` (the HTTP
//! client for the main model and the translator backends).

pub(crate) mod auth;
pub(crate) mod budget;
pub mod cli;
pub(crate) mod config;
pub(crate) mod config_error;
pub(crate) mod drain;
pub(crate) mod error;
pub(crate) mod eval;
pub(crate) mod explain;
pub(crate) mod json;
pub(crate) mod memory;
pub(crate) mod metrics;
pub(crate) mod openai;
pub(crate) mod owner;
pub(crate) mod pipe;
pub(crate) mod prompts;
pub(crate) mod redact;
pub(crate) mod routes;
pub(crate) mod server;
pub(crate) mod shared;
pub mod sse;
pub(crate) mod startup;
pub(crate) mod state;
pub(crate) mod telemetry;
pub(crate) mod text;
pub(crate) mod upstream;
pub(crate) mod wire;

pub use config::Config;
pub use metrics::CLIENT_LABELS;
pub use server::{serve, AppState, Stopped};
pub use upstream::{Pool, UpstreamClient};

/// The parts of the pipe that fuzz targets, property tests and benchmarks drive directly:
/// the parsers of model text, the schema derivations and the grounding check.
pub mod parts {
    pub use crate::pipe::grounding::{
        at_path, ground, said_members, unworkable, Decision, Evidence, Outcome, Report, Rule, Rules,
    };
    pub use crate::pipe::prompt_mode::example_of;
    pub use crate::pipe::prompt_mode::holdback::HoldBack;
    pub use crate::pipe::prompt_mode::parse::{parse_calls, ParsedCall};
    pub use crate::pipe::{evidence_of, nl_field};
    pub use crate::pipe::{grammar, schema_text};
}

/// rustls needs one process-wide crypto provider; ring is the one compiled in.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
