//! Label values a client chooses (tool and model names) cannot grow `/metrics` without bound.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use support::{
    backend_toml, calls_message, chat, completion, nl_call, translator_reply, MockServer, Proxy,
    Reply,
};

/// A complex tool (rewritten by `auto`) under any name.
fn complex_tool(name: &str) -> serde_json::Value {
    let mut tool = support::fixture_tool("set_reminder");
    tool["function"]["name"] = json!(name);
    tool
}

#[tokio::test]
async fn tool_names_beyond_the_bound_are_counted_as_other() {
    let translator = MockServer::start(|_| {
        translator_reply(r#"{"message":"x","schedule":{"type":"once","at":"2030-01-01T09:00:00"}}"#)
    })
    .await;
    let main = MockServer::start(|r| {
        let name = r.json()["tools"][0]["function"]["name"]
            .as_str()
            .unwrap()
            .to_owned();
        Reply::ok(completion(
            calls_message(vec![nl_call("c1", &name, "remind me")]),
            "tool_calls",
        ))
    })
    .await;
    let proxy = Proxy::start(
        &main.url(),
        &format!(
            "{}\n[translation.tools]\nconfigured_tool = \"nl\"\n",
            backend_toml(&translator.url())
        ),
    )
    .await;
    let before = proxy.metrics().len();
    let long = "x".repeat(300);
    let mut names: Vec<String> = (0..200).map(|i| format!("tool_{i}")).collect();
    names.push(long.clone());
    names.push("configured_tool".into());
    for name in &names {
        let body = json!({
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [complex_tool(name)],
        });
        let (status, answer) = chat(&proxy, &body).await;
        assert_eq!(status, 200, "{answer}");
    }
    let metrics = proxy.metrics();
    let tool_series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("plaincall_translations_total{"))
        .collect();
    // The configured name, the first CLIENT_LABELS names, and `other`, per outcome.
    assert!(
        tool_series.len() <= plaincall::CLIENT_LABELS + 2,
        "{} series",
        tool_series.len()
    );
    assert!(metrics.contains("tool=\"other\""));
    assert!(
        metrics.contains("tool=\"configured_tool\""),
        "configured names keep their label"
    );
    assert!(
        metrics.contains("tool=\"tool_0\""),
        "the first names seen keep theirs"
    );
    assert!(!metrics.contains(&long));
    assert!(metrics.len() < before + 40_000, "{} bytes", metrics.len());
}
