//! plaincall: an OpenAI-compatible proxy that lets small LLMs call complex tools.
//!
//! A request's path through the crate: [`server`] (router and layers) → [`routes`] (`chat`
//! for chat completions, `messages` for Anthropic Messages via [`wire`], `passthrough` for
//! every other `/v1/*` route) → [`pipe`] (tools
//! rewritten into plain-English form, calls translated back; [`stream`] for SSE) →
//! [`upstream`] (the HTTP client for the main model and the translator backends).

pub mod auth;
pub mod budget;
pub mod cli;
pub mod config;
pub mod config_error;
pub mod drain;
pub mod error;
pub mod eval;
pub mod explain;
pub mod json;
pub mod memory;
pub mod metrics;
pub mod metrics_layer;
pub mod openai;
pub mod owner;
pub mod pipe;
pub mod prompts;
pub mod redact;
pub mod routes;
pub mod server;
pub mod shared;
pub mod sse;
pub mod startup;
pub mod state;
pub mod upstream;
pub mod wire;

pub use config::Config;
pub use server::{router, serve, AppState, Stopped};

/// rustls needs one process-wide crypto provider; ring is the one compiled in.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
