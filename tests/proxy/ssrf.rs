//! No client path can send a request anywhere but below the configured upstream base URL:
//! not to another host (with the upstream's key), not above the base path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::time::Duration;

use proptest::prelude::*;
use support::{MockServer, Proxy, Reply};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use url::Url;

const KEY: &str = "sk-upstream-secret-123";

/// Sends `target` as the request line's path exactly as written (an HTTP client library
/// would normalise `..` and `//` before sending), and returns the status and body.
async fn raw_get(proxy: &Proxy, target: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(proxy.addr).await.unwrap();
    let request = format!("GET {target} HTTP/1.1\r\nhost: plaincall\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("plaincall answers")
        .unwrap();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned());
    (status, body.unwrap_or_default())
}

#[tokio::test]
async fn paths_that_name_another_host_or_climb_out_reach_nobody() {
    let victim = MockServer::start(|_| Reply::ok(serde_json::json!({"stolen": true}))).await;
    let upstream = MockServer::start(|r| Reply::ok(serde_json::json!({"path": r.path}))).await;
    let proxy = Proxy::start(&upstream.url(), &format!("api_key = \"{KEY}\"")).await;
    let v = victim.addr;
    let attacks = [
        format!("/v1/http://{v}/steal"),
        format!("/v1/HTTP://{v}/steal"),
        format!("/v1/https:%2F%2F{v}/steal"),
        format!("/v1//{v}/steal"),
        "/v1/../admin".to_owned(),
        "/v1/%2e%2e/admin".to_owned(),
        "/v1/%2E./admin".to_owned(),
        "/v1/models/./x".to_owned(),
        "/v1/models/%2e".to_owned(),
        "/v1/a//b".to_owned(),
    ];
    for path in &attacks {
        let (status, body) = raw_get(&proxy, path).await;
        if status == 400 {
            assert!(body.contains("invalid_request_error"), "{path}: {body}");
            continue;
        }
        // Anything forwarded stays on the upstream, below its /v1.
        assert_eq!(status, 200, "{path}: {body}");
        let seen: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(
            seen["path"].as_str().unwrap().starts_with("/v1/"),
            "{path}: {body}"
        );
    }
    // `/v1/\\host` is not a host either: a segment with encoded backslashes, or refused.
    let (status, _) = raw_get(&proxy, &format!("/v1/\\\\{v}/steal")).await;
    assert!(matches!(status, 200 | 400), "status {status}");
    assert!(victim.requests().is_empty(), "another host was reached");
    for seen in upstream.requests() {
        assert!(
            seen.path.starts_with("/v1/"),
            "left the base path: {}",
            seen.path
        );
        assert!(
            !seen.path.contains(".."),
            "dot segment forwarded: {}",
            seen.path
        );
    }
    // The dot-segment and empty-segment paths are refused outright.
    for path in ["/v1/../admin", "/v1/%2e%2e/admin", "/v1/a//b", &attacks[0]] {
        assert_eq!(raw_get(&proxy, path).await.0, 400, "{path}");
    }
}

#[tokio::test]
async fn ordinary_paths_keep_their_encoding() {
    let upstream = MockServer::start(|r| Reply::ok(serde_json::json!({"path": r.path}))).await;
    let proxy = Proxy::start(&format!("{}/", upstream.url()), "").await;
    for (sent, forwarded) in [
        ("/v1/models/org%2Fmodel", "/v1/models/org%2Fmodel"),
        ("/v1/files/a%20b", "/v1/files/a%20b"),
        ("/v1/models/qwen2.5:0.5b", "/v1/models/qwen2.5:0.5b"),
        ("/v1/embeddings", "/v1/embeddings"),
    ] {
        let (status, body) = raw_get(&proxy, sent).await;
        assert_eq!(status, 200, "{sent}: {body}");
        let seen: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(seen["path"], forwarded, "{sent}");
    }
}

fn client(base: &str) -> plaincall::UpstreamClient {
    let d = Duration::from_secs(1);
    let pool = plaincall::Pool {
        idle: 4,
        idle_timeout: d,
    };
    plaincall::UpstreamClient::new(Url::parse(base).unwrap(), None, d, d, d, pool).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the client's path and query, the upstream URL keeps the configured scheme,
    /// host, port and base path, and has no dot segment.
    #[test]
    fn upstream_urls_stay_below_the_base(
        rest in "([a-zA-Z0-9.:@%/\\\\?#_-]|%2[eEfF]|%5[cC]|\\.\\.|//|http://|\u{e9}){0,12}",
        query in proptest::option::of("[a-z=&%/:.]{0,10}"),
    ) {
        for base in ["http://127.0.0.1:8080/v1", "https://127.0.0.1:9443/api/v1/", "http://127.0.0.1:8080"] {
            let configured = Url::parse(base).unwrap();
            let Ok(uri) = client(base).endpoint(&rest, query.as_deref()) else { continue };
            let url = Url::parse(&uri.to_string()).unwrap();
            prop_assert_eq!(url.scheme(), configured.scheme());
            prop_assert_eq!(url.host_str(), configured.host_str());
            prop_assert_eq!(url.port_or_known_default(), configured.port_or_known_default());
            let prefix = configured.path().trim_end_matches('/').to_owned() + "/";
            prop_assert!(url.path().starts_with(&prefix), "{} from {:?}", url, rest);
            prop_assert!(url.fragment().is_none());
            for segment in url.path_segments().unwrap() {
                let decoded = percent_encoding::percent_decode_str(segment).decode_utf8_lossy();
                prop_assert!(decoded != "." && decoded != ".." && !decoded.is_empty(), "{} from {:?}", url, rest);
            }
        }
    }
}

/// An upstream or translator that redirects would send the key and the conversation to the
/// host it names: the redirect is answered as a 502 that says so, and the host hears nothing.
#[tokio::test]
async fn redirects_are_not_followed_to_another_host() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"stolen": true}))).await;
    for status in [301u16, 302, 303, 307, 308] {
        let location = format!("http://{}/v1/chat/completions", elsewhere.addr);
        let upstream = MockServer::start(move |_| Reply::Redirect {
            status,
            location: location.clone(),
        })
        .await;
        let proxy = Proxy::start(&upstream.url(), &format!("api_key = \"{KEY}\"")).await;
        let body =
            serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        let (got, answer) = support::chat(&proxy, &body).await;
        assert_eq!(got, 502, "{status}: {answer}");
        assert_eq!(answer["error"]["code"], "upstream_redirect", "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("redirect") && !m.contains(KEY)),
            "{answer}"
        );
        // A passthrough route too, and the Anthropic route in its own shape.
        let models = support::client()
            .get(proxy.url("/v1/models"))
            .send()
            .await
            .unwrap();
        assert_eq!(models.status().as_u16(), 502);
        let messages = support::client()
            .post(proxy.url("/v1/messages"))
            .json(&serde_json::json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}))
            .send()
            .await
            .unwrap();
        assert_eq!(messages.status().as_u16(), 502);
        let error: serde_json::Value = messages.json().await.unwrap();
        assert_eq!(error["type"], "error", "{error}");
    }
    assert!(elsewhere.requests().is_empty(), "a redirect was followed");
}

#[tokio::test]
async fn a_translator_that_redirects_is_a_failed_translation_not_a_leak() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"stolen": true}))).await;
    let location = format!("http://{}/v1/chat/completions", elsewhere.addr);
    let translator = MockServer::start(move |_| Reply::Redirect {
        status: 307,
        location: location.clone(),
    })
    .await;
    let main = MockServer::scripted(vec![
        Reply::ok(support::completion(
            support::calls_message(vec![support::nl_call(
                "call_1",
                "set_reminder",
                "Remind me to stretch every day at 9",
            )]),
            "tool_calls",
        )),
        support::no_direct_call(),
        Reply::ok(support::completion(support::text_message("Sorry."), "stop")),
    ])
    .await;
    let proxy = Proxy::start(&main.url(), &support::backend_toml(&translator.url())).await;
    let body = serde_json::json!({
        "model": "m",
        "messages": [{"role": "user", "content": "Remind me to stretch every day at 9"}],
        "tools": [support::fixture_tool("set_reminder")],
    });
    let (status, answer) = support::chat(&proxy, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert!(!translator.requests().is_empty());
    assert!(
        elsewhere.requests().is_empty(),
        "the translator's redirect was followed"
    );
}

/// A mock that answers every request with a 307 to `elsewhere`.
async fn redirecting_to(elsewhere: &MockServer) -> MockServer {
    let location = format!("http://{}/v1/models", elsewhere.addr);
    MockServer::start(move |_| Reply::Redirect {
        status: 307,
        location: location.clone(),
    })
    .await
}

/// The start-up probes use the same client type: a redirect is reported, never followed, for
/// the upstream and for each translator.
#[tokio::test]
async fn the_start_up_probe_does_not_follow_a_redirect() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"data": []}))).await;
    let upstream = redirecting_to(&elsewhere).await;
    let translator = redirecting_to(&elsewhere).await;
    let served = support::Served::start(&[
        ("PLAINCALL_UPSTREAM_URL", &upstream.url()),
        ("PLAINCALL_TRANSLATOR_URL", &translator.url()),
        ("PLAINCALL_TRANSLATOR_MODEL", "small"),
    ])
    .await;
    let upstream_line = served
        .wait_for_line("the upstream answered 307 (a redirect)")
        .await;
    assert!(
        upstream_line.contains("follows no redirect"),
        "{upstream_line}"
    );
    served
        .wait_for_line("the translator small answered 307 (a redirect)")
        .await;
    // Both probes were answered: had either followed, `elsewhere` would have heard it first.
    assert!(!upstream.requests().is_empty() && !translator.requests().is_empty());
    assert!(
        elsewhere.requests().is_empty(),
        "a probe followed a redirect"
    );
    served.stop().await;
}

/// `plaincall health` against a URL that redirects is unhealthy, and the target hears nothing.
#[tokio::test]
async fn health_does_not_follow_a_redirect() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"ok": true}))).await;
    let redirecting = redirecting_to(&elsewhere).await;
    let mut command = support::plaincall_command();
    command
        .arg("health")
        .arg("--url")
        .arg(format!("{}/healthz", redirecting.url()));
    let (code, _, stderr) = support::run_command(command).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("unhealthy") && stderr.contains("307"),
        "{stderr}"
    );
    assert_eq!(redirecting.requests().len(), 1);
    assert!(
        elsewhere.requests().is_empty(),
        "health followed a redirect"
    );
}

/// `plaincall eval` asks the upstream directly too: a redirect there is a failed case, not a
/// request to the host it names.
#[tokio::test]
async fn eval_does_not_follow_a_redirect() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"stolen": true}))).await;
    let redirecting = redirecting_to(&elsewhere).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("proxy.toml");
    std::fs::write(
        &config,
        format!("[upstream]\nurl = \"{}\"\n", redirecting.url()),
    )
    .unwrap();
    let manifest = env!("CARGO_MANIFEST_DIR");
    let cases = dir.path().join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"tool\": \"set_reminder\", \"description\": \"daily at 09:00 to check email\", \"expect\": {\"message\": \"Check email\"}}\n",
    )
    .unwrap();
    let mut command = support::plaincall_command();
    command
        .arg("eval")
        .arg("--tools")
        .arg(format!("{manifest}/tests/fixtures/tools"))
        .arg("--cases")
        .arg(&cases)
        .arg("--model")
        .arg("m")
        .arg("--config")
        .arg(&config);
    let (_, stdout, stderr) = support::run_command(command).await;
    assert!(
        !redirecting.requests().is_empty(),
        "eval asked nothing: {stdout}\n{stderr}"
    );
    assert!(elsewhere.requests().is_empty(), "eval followed a redirect");
}

/// `/readyz` asks the upstream with the forward path's client: a redirect is not ready, and
/// the host it names hears nothing.
#[tokio::test]
async fn readyz_does_not_follow_a_redirect() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"data": []}))).await;
    let redirecting = redirecting_to(&elsewhere).await;
    let proxy = Proxy::start(&redirecting.url(), "").await;
    let response = support::client()
        .get(proxy.url("/readyz"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 503);
    assert!(!redirecting.requests().is_empty(), "readyz asked nothing");
    assert!(
        elsewhere.requests().is_empty(),
        "readyz followed a redirect"
    );
}

/// `plaincall translate` asks the translator once: a redirect is a failure it reports.
#[tokio::test]
async fn translate_does_not_follow_a_redirect() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({"stolen": true}))).await;
    let redirecting = redirecting_to(&elsewhere).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("proxy.toml");
    std::fs::write(&config, support::backend_toml(&redirecting.url())).unwrap();
    let mut command = support::plaincall_command();
    command
        .arg("translate")
        .arg("--tool")
        .arg(format!(
            "{}/tests/fixtures/tools/set_reminder.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg("--config")
        .arg(&config)
        .arg("daily at 9 to check email");
    let (code, stdout, stderr) = support::run_command(command).await;
    assert_ne!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        !redirecting.requests().is_empty(),
        "translate asked nothing"
    );
    assert!(
        elsewhere.requests().is_empty(),
        "translate followed a redirect"
    );
}

/// The trace exporter posts spans to the collector: a collector that redirects gets them, the
/// host it names does not.
#[tokio::test(flavor = "multi_thread")]
async fn the_trace_exporter_does_not_follow_a_redirect() {
    let elsewhere = MockServer::start(|_| Reply::ok(serde_json::json!({}))).await;
    let collector = redirecting_to(&elsewhere).await;
    let main =
        MockServer::start(|_| Reply::ok(support::completion(support::text_message("hi"), "stop")))
            .await;
    let served = support::Served::start(&[
        ("PLAINCALL_UPSTREAM_URL", &main.url()),
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            &format!("http://{}", collector.addr),
        ),
        ("OTEL_BSP_SCHEDULE_DELAY", "50"),
    ])
    .await;
    // Exports go one at a time: once a second has reached the collector, the first is over,
    // a redirect it might have followed included.
    for exports in [1, 2] {
        let response = support::client()
            .post(served.url("/v1/chat/completions"))
            .json(
                &serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        support::eventually("the exporter posts to the collector", async || {
            collector.requests().len() >= exports
        })
        .await;
    }
    assert!(
        elsewhere.requests().is_empty(),
        "the exporter followed a redirect"
    );
    served.stop().await;
}
