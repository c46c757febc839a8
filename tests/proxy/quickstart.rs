//! The README's quickstart, run as a newcomer runs it, in a fresh copy of the repository (the
//! files a clone has): `scripts/quickstart.sh` with its help and argument errors, and pointed at
//! OpenAI-compatible servers the user already has (mocks here), ends with a translated call.
//! The models-included run needs a 1.5 GB download and is done by hand (see the script).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use support::{
    calls_message, client, closed_address, completion, fixture_tool, nl_call, translator_reply,
    MockServer, Reply,
};
use tokio::io::AsyncBufReadExt;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The tracked and untracked-but-not-ignored files of the checkout, copied into a new folder:
/// what a fresh clone holds, with no `target/`, `.venv` or caches.
fn fresh_copy() -> tempfile::TempDir {
    let listed = std::process::Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(ROOT)
        .output()
        .expect("git runs (the test needs a git checkout)");
    assert!(listed.status.success(), "git ls-files failed");
    let dir = tempfile::tempdir().unwrap();
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).unwrap();
        let from = Path::new(ROOT).join(name);
        if !from.is_file() {
            continue; // deleted in the working tree
        }
        let to = dir.path().join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap(); // keeps the executable bit
    }
    dir
}

/// The commands of the README's quickstart block.
fn readme_quickstart(root: &Path) -> Vec<String> {
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("\n## Quickstart")
        .nth(1)
        .expect("the README has a Quickstart section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("with a sh block");
    block
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

fn script(root: &Path) -> std::process::Command {
    // Run as the README writes it, so the executable bit is checked too.
    let mut command = std::process::Command::new(root.join("scripts/quickstart.sh"));
    command
        .current_dir(root)
        .env("PLAINCALL_DEV_BIN", env!("CARGO_BIN_EXE_plaincall"))
        .stdin(Stdio::null());
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PLAINCALL_") || key == "RUST_LOG" {
            command.env_remove(&key);
        }
    }
    command
}

#[test]
fn the_readme_quickstart_is_install_script_example() {
    let copy = fresh_copy();
    let commands = readme_quickstart(copy.path());
    assert_eq!(
        commands,
        [
            "cargo install --locked --path .",
            "scripts/quickstart.sh",
            "python3 examples/quickstart.py"
        ],
        "the test below runs these; keep them in step"
    );
    for file in ["scripts/quickstart.sh", "examples/quickstart.py"] {
        assert!(copy.path().join(file).is_file(), "{file} is not in a clone");
    }
}

#[test]
fn help_and_argument_errors() {
    let copy = fresh_copy();
    let out = script(copy.path()).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for option in [
        "--upstream URL",
        "--translator URL",
        "--translator-model NAME",
        "--port",
    ] {
        assert!(help.contains(option), "{option} not in the help:\n{help}");
    }
    for (args, message) in [
        (vec!["--bogus"], "unknown argument: --bogus"),
        (vec!["--upstream"], "--upstream needs a value"),
        (
            vec![
                "--upstream",
                "http://127.0.0.1:9/v1",
                "--translator",
                "http://127.0.0.1:9/v1",
            ],
            "--translator needs --translator-model NAME",
        ),
        (
            vec![
                "--upstream",
                "http://127.0.0.1:9/v1",
                "--translator-model",
                "m",
            ],
            "--translator-model needs --translator URL",
        ),
        (vec!["--upstream", "127.0.0.1:9"], "is not an http(s) URL"),
        (vec!["--port", "eighty"], "ports are numbers"),
    ] {
        let out = script(copy.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn quickstart_with_existing_servers_ends_with_a_translated_call() {
    plaincall::install_crypto_provider();
    let copy = fresh_copy();
    let main = MockServer::start(|request| {
        if request.method == "GET" {
            return Reply::ok(json!({"object": "list", "data": []}));
        }
        let call = nl_call("call_1", "set_reminder", "daily at 09:00 to check email");
        Reply::ok(completion(calls_message(vec![call]), "tool_calls"))
    })
    .await;
    let translator = MockServer::start(|request| {
        if request.method == "GET" {
            return Reply::ok(json!({"object": "list", "data": []}));
        }
        translator_reply(r#"{"message": "Check email", "schedule_type": "daily", "at": "09:00"}"#)
    })
    .await;
    let port = closed_address().port();
    let mut command = script(copy.path());
    command
        .args(["--upstream", &main.url(), "--translator", &translator.url()])
        .args(["--translator-model", "tiny", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    let ready = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            seen.push(line.clone());
            if line.contains("tiny reachable") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(ready, Ok(true), "{}", seen.join("\n"));
    assert!(
        seen.iter().any(|l| l.contains("examples/quickstart.py")),
        "{seen:?}"
    );

    // What examples/quickstart.py sends (tests/python/test_quickstart.py runs the file itself).
    let body = json!({"model": "qwen2.5-coder-0.5b", "tools": [fixture_tool("set_reminder")],
        "messages": [{"role": "user", "content": "Remind me every day at 09:00 to check my email."}]});
    let answer: serde_json::Value = client()
        .post(format!("http://127.0.0.1:{port}/v1/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let call = &answer["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "set_reminder", "{answer}");
    let arguments: serde_json::Value =
        serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["schedule_type"], "daily", "{answer}");

    // SIGTERM to the script stops plaincall with it.
    let pid = child.id().unwrap();
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the script exits")
        .unwrap();
    let gone = std::net::TcpStream::connect(("127.0.0.1", port)).is_err();
    assert!(gone, "plaincall still listens after the script stopped");
}

/// The compose stack has a translator, and plaincall is pointed at it.
#[test]
fn compose_runs_a_translator() {
    let compose = std::fs::read_to_string(Path::new(ROOT).join("docker/compose.yaml")).unwrap();
    assert!(
        compose.contains("\n  translator:\n"),
        "no translator service"
    );
    assert!(
        compose.contains("PLAINCALL_TRANSLATOR_URL: http://translator:8080/v1"),
        "plaincall is not pointed at it"
    );
    assert!(compose.contains("PLAINCALL_TRANSLATOR_MODEL:"));
}
