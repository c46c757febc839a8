//! A real `redis-server` on a free loopback port, for the shared-state tests: no persistence,
//! its files in a temporary folder, stopped when dropped.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
}

impl RedisServer {
    pub async fn start() -> RedisServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut server = RedisServer {
            port,
            child: None,
            dir: tempfile::tempdir().unwrap(),
        };
        server.restart().await;
        server
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Starts it (again) on the same port, empty, and waits until it answers.
    pub async fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("redis-server cannot be started ({e}): install it (Debian: apt-get install redis-server); scripts/test.sh needs it")
            });
        self.child = Some(child);
        for _ in 0..200 {
            if self.ping().await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("redis-server did not answer on port {}", self.port);
    }

    /// Kills it: the port stops answering at once.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    async fn ping(&self) -> bool {
        let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await else {
            return false;
        };
        if stream.write_all(b"PING\r\n").await.is_err() {
            return false;
        }
        let mut reply = [0u8; 7];
        matches!(
            tokio::time::timeout(Duration::from_secs(1), stream.read_exact(&mut reply)).await,
            Ok(Ok(_))
        ) && &reply == b"+PONG\r\n"
    }

    /// A command run by `redis-cli`, its output trimmed.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string(), "--raw"])
            .args(args)
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Every key, sorted.
    pub fn keys(&self) -> Vec<String> {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string(), "--raw", "KEYS", "*"])
            .output()
            .expect("redis-cli runs");
        let mut keys: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        keys.sort();
        keys
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
