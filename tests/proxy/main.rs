//! plaincall tested from the outside, as one test binary: real HTTP servers on loopback (mock
//! upstreams and translators from `support`), plaincall started in-process or as its own binary,
//! driven over real sockets. One module per behaviour; `cargo test --test proxy <module>` runs one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

mod anthropic_messages;
mod auth;
mod checked_calls;
mod clarifications;
mod config_cli;
mod deployment;
mod described_formats;
mod direct_fallback;
mod error_responses;
mod eval_cli;
mod first_run;
mod foreign_errors;
mod grounding;
mod grounding_corpus;
mod in_flight_limit;
mod layers;
mod lost_requests;
mod metric_labels;
mod missing_facts;
mod mode_learning;
mod operations;
mod parser_properties;
mod passthrough;
mod prompt_mode;
mod quickstart;
mod responses_api;
mod runaway;
mod shared_cases;
mod shared_state;
mod slow_clients;
mod split_actions;
mod ssrf;
mod stream_endings;
mod stream_equivalence;
mod streaming_passthrough;
mod streaming_translation;
mod text_calls;
mod traces;
mod translation_log;
mod translation_pipe;
mod upstream_params;
mod upstream_timeouts;
mod warm_prefixes;
mod weak_main_model;
mod wrong_tool;
