//! Replicas sharing state through a real `redis-server`: Responses conversations continued on
//! another replica (and after a restart), translations made once, a learned prompt-mode
//! switch and the descriptions calls were made from; keys under the prefix, each with a TTL;
//! Redis going away degrades a replica without failing what needs no stored state, and
//! sharing resumes by itself when it is back.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{
    backend_toml, client, completion, eventually, fixture_tool, nl_call, text_message,
    translator_reply, MockServer, Proxy, RedisServer, Reply,
};

const EMAIL: &str = "daily at 09:00 to check email";

fn email_args() -> Value {
    json!({"message": "Check email", "schedule_type": "daily", "at": "09:00"})
}

fn flat_tool(name: &str) -> Value {
    let tool = fixture_tool(name);
    json!({"type": "function", "name": tool["function"]["name"],
           "description": tool["function"]["description"],
           "parameters": tool["function"]["parameters"]})
}

/// A main model that calls `set_reminder` in plain English when the last message is the
/// user's, and answers in text after a tool result.
async fn main_model() -> MockServer {
    MockServer::start(|r| {
        if r.method == "GET" {
            return Reply::ok(json!({"object": "list", "data": []}));
        }
        let json = r.json();
        let last = json["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default();
        if last["role"] == "tool" {
            Reply::ok(completion(text_message("Reminder set."), "stop"))
        } else {
            Reply::ok(completion(
                crate::support::calls_message(vec![nl_call("call_a", "set_reminder", EMAIL)]),
                "tool_calls",
            ))
        }
    })
    .await
}

async fn translator() -> MockServer {
    MockServer::start(|_| translator_reply(&email_args().to_string())).await
}

fn settings(redis: &RedisServer, translator: &MockServer, extra: &str) -> String {
    format!(
        "{}\n[redis]\nurl = \"{}\"\nprefix = \"pc-test:\"\ntimeout = \"200ms\"\nconnect_timeout = \"300ms\"\nretry_after = \"300ms\"\n{extra}",
        backend_toml(&translator.url()),
        redis.url()
    )
}

async fn readiness(proxy: &Proxy) -> Value {
    client()
        .get(proxy.url("/readyz"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Two replicas of one configuration.
async fn replicas(main: &MockServer, toml: &str) -> (Proxy, Proxy) {
    (
        Proxy::start(&main.url(), toml).await,
        Proxy::start(&main.url(), toml).await,
    )
}

async fn respond(proxy: &Proxy, body: &Value, key: &str) -> (u16, Value) {
    let response = client()
        .post(proxy.url("/v1/responses"))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn first_turn() -> Value {
    json!({"model": "main-model", "input": "remind me daily at 9 to check email",
           "tools": [flat_tool("set_reminder")]})
}

fn next_turn(previous: &str, call_id: &str) -> Value {
    json!({"model": "main-model", "previous_response_id": previous,
           "input": [{"type": "function_call_output", "call_id": call_id, "output": "job 7"}],
           "tools": [flat_tool("set_reminder")]})
}

#[tokio::test]
async fn a_conversation_started_on_one_replica_continues_on_another() {
    let redis = RedisServer::start().await;
    let (main, translator) = (main_model().await, translator().await);
    let toml = settings(&redis, &translator, "");
    let (a, b) = replicas(&main, &toml).await;

    let (status, first) = respond(&a, &first_turn(), "key-1").await;
    assert_eq!(status, 200, "{first}");
    let id = first["id"].as_str().unwrap();
    assert_eq!(first["output"][0]["call_id"], "call_a");

    let (status, second) = respond(&b, &next_turn(id, "call_a"), "key-1").await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["output"][0]["content"][0]["text"], "Reminder set.");
    let seen = main.chat_requests()[1].json();
    let messages = seen["messages"].as_array().unwrap();
    assert_eq!(
        messages[0]["content"],
        "remind me daily at 9 to check email"
    );
    // B shows the main model its own plain-English call, as A remembered it.
    let call = &messages[1]["tool_calls"][0];
    assert_eq!(
        serde_json::from_str::<Value>(call["function"]["arguments"].as_str().unwrap()).unwrap(),
        json!({"description": EMAIL}),
        "the description A translated from, not one rendered from the arguments"
    );
    assert!(messages[2]["content"].as_str().unwrap().ends_with("job 7"));

    // Another key does not see the conversation, on either replica.
    for replica in [&a, &b] {
        let (status, error) = respond(replica, &next_turn(id, "call_a"), "key-2").await;
        assert_eq!(status, 400, "{error}");
        assert_eq!(error["error"]["param"], "previous_response_id");
    }

    // Every key under the prefix, every key with a TTL.
    let keys = redis.keys();
    assert!(
        keys.iter().any(|k| k.starts_with("pc-test:resp:")),
        "{keys:?}"
    );
    assert!(
        keys.iter().any(|k| k.starts_with("pc-test:tr:")),
        "{keys:?}"
    );
    assert!(
        keys.iter().any(|k| k.starts_with("pc-test:desc:")),
        "{keys:?}"
    );
    for key in &keys {
        assert!(key.starts_with("pc-test:"), "{key}");
        assert!(key.len() < 200, "bounded: {key}");
        let ttl: i64 = redis.cli(&["PTTL", key]).parse().unwrap_or(-1);
        assert!(ttl > 0, "{key} has no TTL ({ttl})");
    }
    // The conversation is stored under the owner's hash, not the key itself.
    assert!(!keys.iter().any(|k| k.contains("key-1")));
}

#[tokio::test]
async fn a_streamed_turn_is_stored_before_the_client_reads_that_it_completed() {
    let redis = RedisServer::start().await;
    let main = MockServer::start(|r| {
        if r.json()["stream"] == true {
            Reply::sse(vec![json!({"id": "c", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello there."},
                             "finish_reason": "stop"}]})])
        } else {
            Reply::ok(completion(text_message("Again."), "stop"))
        }
    })
    .await;
    let translator = translator().await;
    let toml = settings(&redis, &translator, "");
    let (a, b) = replicas(&main, &toml).await;
    for round in 0..5 {
        let response = client()
            .post(a.url("/v1/responses"))
            .json(&json!({"model": "m", "input": format!("hi {round}"), "stream": true}))
            .send()
            .await
            .unwrap();
        let text = response.text().await.unwrap();
        let completed = text
            .split("\n\n")
            .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .find(|event| event["type"] == "response.completed")
            .unwrap_or_else(|| panic!("{text}"));
        let id = completed["response"]["id"].as_str().unwrap();
        // At once, on the other replica.
        let body = json!({"model": "m", "previous_response_id": id, "input": "again"});
        let response = client()
            .post(b.url("/v1/responses"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "round {round}");
    }
    let last = main.chat_requests().last().unwrap().json();
    assert_eq!(last["messages"][1]["content"], "Hello there.");
}

#[tokio::test]
async fn a_translation_is_made_once_for_every_replica_and_survives_a_restart() {
    let redis = RedisServer::start().await;
    let (main, translator) = (main_model().await, translator().await);
    let toml = settings(&redis, &translator, "");
    let chat_body = json!({"model": "main-model",
        "messages": [{"role": "user", "content": "remind me daily at 9 to check email"}],
        "tools": [fixture_tool("set_reminder")]});
    let mut a = Proxy::start(&main.url(), &toml).await;
    let b = Proxy::start(&main.url(), &toml).await;
    for replica in [&a, &b] {
        let (status, body) = crate::support::chat(replica, &chat_body).await;
        assert_eq!(status, 200, "{body}");
        let call = &body["choices"][0]["message"]["tool_calls"][0];
        let args: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, email_args());
    }
    assert_eq!(translator.chat_requests().len(), 1, "translated once");
    assert!(b
        .metrics()
        .contains("plaincall_translation_cache_hits_total 1"));

    // A restarts: a new process, with nothing of its own.
    a.shutdown();
    drop(a);
    let a = Proxy::start(&main.url(), &toml).await;
    let (status, _) = crate::support::chat(&a, &chat_body).await;
    assert_eq!(status, 200);
    assert_eq!(translator.chat_requests().len(), 1, "still once");
}

#[tokio::test]
async fn a_prompt_mode_switch_learned_by_one_replica_holds_for_the_other() {
    let redis = RedisServer::start().await;
    let main = MockServer::start(|r| {
        if r.json().get("tools").is_some() {
            Reply::text(
                500,
                r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
            )
        } else {
            Reply::ok(completion(text_message("sunny"), "stop"))
        }
    })
    .await;
    let translator = translator().await;
    let toml = settings(&redis, &translator, "");
    let (a, b) = replicas(&main, &toml).await;
    let body = json!({"model": "small-model",
        "messages": [{"role": "user", "content": "weather in Rome?"}],
        "tools": [fixture_tool("get_weather")]});
    let (status, _) = crate::support::chat(&a, &body).await;
    assert_eq!(status, 200);
    assert_eq!(
        main.chat_requests().len(),
        2,
        "A: rejected, then prompt mode"
    );
    // A writes what it learned to Redis in the background: B is asked once it is there.
    eventually("A's switch is in Redis", async || {
        redis.keys().iter().any(|k| k.starts_with("pc-test:mode:"))
    })
    .await;
    let (status, _) = crate::support::chat(&b, &body).await;
    assert_eq!(status, 200);
    let requests = main.chat_requests();
    assert_eq!(requests.len(), 3, "B went to prompt mode at once");
    assert!(requests[2].json().get("tools").is_none());
    let keys = redis.keys();
    assert!(
        !keys.iter().any(|k| k.contains("small-model")),
        "hashed: {keys:?}"
    );
}

#[tokio::test]
async fn without_redis_requests_go_on_and_sharing_resumes_when_it_is_back() {
    let mut redis = RedisServer::start().await;
    let (main, translator) = (main_model().await, translator().await);
    // Readiness probed afresh each time, so that it says when Redis is back.
    let toml = settings(
        &redis,
        &translator,
        "[server]\nreadiness_cache = \"50ms\"\n",
    );
    let (a, b) = replicas(&main, &toml).await;
    redis.stop();

    // What needs no stored state is served as before, translation included.
    let chat_body = json!({"model": "main-model",
        "messages": [{"role": "user", "content": "remind me daily at 9 to check email"}],
        "tools": [fixture_tool("set_reminder")]});
    let started = std::time::Instant::now();
    let (status, body) = crate::support::chat(&a, &chat_body).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap()
            .contains("Check email")
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no long wait on Redis"
    );
    let (status, first) = respond(&a, &first_turn(), "key-1").await;
    assert_eq!(status, 200, "{first}");
    let id = first["id"].as_str().unwrap().to_owned();

    // The replica that stored it continues it; the other one says why it cannot, in the
    // Responses format.
    let (status, error) = respond(&b, &next_turn(&id, "call_a"), "key-1").await;
    assert_eq!(status, 503, "{error}");
    assert_eq!(
        error["error"]["code"], "shared_state_unavailable",
        "{error}"
    );
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("previous_response_id"));
    let (status, _) = respond(&a, &next_turn(&id, "call_a"), "key-1").await;
    assert_eq!(status, 200);

    let ready: Value = readiness(&b).await;
    assert_eq!(ready["status"], "ready", "{ready}");
    assert!(
        ready["shared_state"]
            .as_str()
            .unwrap()
            .starts_with("degraded"),
        "{ready}"
    );
    let metrics = b.metrics();
    assert!(metrics.contains("plaincall_shared_state_up 0"), "{metrics}");
    assert!(
        metrics.contains("plaincall_shared_state_commands_total{op=\"get\",outcome=\"error\"}"),
        "{metrics}"
    );

    // Redis is back (empty): once retry_after (300 ms) has passed, sharing resumes by itself:
    // a conversation A starts is continued on B.
    redis.restart().await;
    eventually("sharing resumes", async || {
        let (status, first) = respond(&a, &first_turn(), "key-1").await;
        assert_eq!(status, 200);
        let id = first["id"].as_str().unwrap().to_owned();
        let (status, _) = respond(&b, &next_turn(&id, "call_a"), "key-1").await;
        status == 200
    })
    .await;
    eventually("B's readiness says Redis is back", async || {
        readiness(&b).await["shared_state"] == "redis"
    })
    .await;
    assert!(b.metrics().contains("plaincall_shared_state_up 1"));
}

#[tokio::test]
async fn a_password_protected_redis_is_reached_with_the_configured_password() {
    let redis = RedisServer::start().await;
    redis.cli(&["CONFIG", "SET", "requirepass", "s3cret-pw"]);
    let (main, translator) = (main_model().await, translator().await);
    let chat_body = json!({"model": "main-model",
        "messages": [{"role": "user", "content": "remind me daily at 9 to check email"}],
        "tools": [fixture_tool("set_reminder")]});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("redis-password");
    std::fs::write(&file, "s3cret-pw\n").unwrap();
    let toml = settings(
        &redis,
        &translator,
        &format!("password_file = {:?}\n", file.display().to_string()),
    );
    let a = Proxy::start(&main.url(), &toml).await;
    let (status, _) = crate::support::chat(&a, &chat_body).await;
    assert_eq!(status, 200);
    let keys = redis.cli(&["-a", "s3cret-pw", "--no-auth-warning", "DBSIZE"]);
    assert!(keys.contains('1') || keys.contains('2'), "written: {keys}");

    // A wrong password: the replica serves, degraded, and never shows the password.
    let wrong = settings(&redis, &translator, "password = \"not-it-pw\"\n");
    let b = Proxy::start(&main.url(), &wrong).await;
    let (status, _) = crate::support::chat(&b, &chat_body).await;
    assert_eq!(status, 200);
    let ready = client()
        .get(b.url("/readyz"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(ready.contains("degraded"), "{ready}");
    assert!(!ready.contains("not-it-pw"), "{ready}");
    assert!(!b.metrics().contains("not-it-pw"));
}

#[tokio::test]
async fn a_redis_that_accepts_and_never_answers_costs_one_timeout_then_nothing() {
    // Accepts connections, reads nothing, answers nothing.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let mut sockets = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            sockets.push(socket);
        }
    });
    let (main, translator) = (main_model().await, translator().await);
    let toml = format!(
        "{}\n[redis]\nurl = \"redis://127.0.0.1:{port}/0\"\ntimeout = \"200ms\"\nconnect_timeout = \"300ms\"\nretry_after = \"30s\"\n",
        backend_toml(&translator.url())
    );
    let a = Proxy::start(&main.url(), &toml).await;
    let chat_body = |i: usize| {
        json!({"model": "main-model",
            "messages": [{"role": "user", "content": format!("remind me daily at 9 to check email {i}")}],
            "tools": [fixture_tool("set_reminder")]})
    };
    let started = std::time::Instant::now();
    let (status, _) = crate::support::chat(&a, &chat_body(0)).await;
    assert_eq!(status, 200);
    let first = started.elapsed();
    assert!(
        first < Duration::from_secs(3),
        "bounded by the timeouts: {first:?}"
    );
    let started = std::time::Instant::now();
    for i in 1..4 {
        let (status, _) = crate::support::chat(&a, &chat_body(i)).await;
        assert_eq!(status, 200);
    }
    let rest = started.elapsed();
    assert!(
        rest < Duration::from_secs(2),
        "within retry_after Redis is not waited for: {rest:?}"
    );
    let metrics = a.metrics();
    assert!(
        metrics.contains("plaincall_shared_state_commands_total{op=\"get\",outcome=\"skipped\"}"),
        "{metrics}"
    );
    held.abort();
}
