//! A minimal ACP client driving `agent-bridge acp` over stdio, for the ACP agent tests.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

pub const BIN: &str = env!("CARGO_BIN_EXE_agent-bridge");

/// Longest wait for one message: a real CLI's turn against the mock model included.
const WAIT: Duration = Duration::from_secs(90);

/// The workspace root (plugin.json lives there).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the workspace root")
        .to_path_buf()
}

/// How the client answers `session/request_permission`.
#[derive(Debug, Clone)]
pub enum PermissionAnswer {
    /// Select the first option of this kind (`allow_once`, `reject_once`…).
    Kind(&'static str),
    Cancelled,
    /// Do not answer (the test answers itself).
    Hold,
}

pub struct AcpClient {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
    pub permissions: PermissionAnswer,
    /// Every `session/request_permission` seen.
    pub asked: Vec<Value>,
}

impl AcpClient {
    pub fn start(provider: &str, data_dir: &Path, env: &[(&str, &str)]) -> AcpClient {
        AcpClient::start_in(provider, &repo_root(), data_dir, None, env)
    }

    /// The agent with another plugin folder, and (`clean_env`) only the environment given.
    pub fn start_in(
        provider: &str,
        plugin_dir: &Path,
        data_dir: &Path,
        clean_env: Option<&std::collections::BTreeMap<String, String>>,
        env: &[(&str, &str)],
    ) -> AcpClient {
        let mut cmd = Command::new(BIN);
        if let Some(clean) = clean_env {
            cmd.env_clear().envs(clean);
        }
        cmd.args(["acp", "--provider", provider, "--plugin-dir"])
            .arg(plugin_dir)
            .arg("--data-dir")
            .arg(data_dir)
            .env("AGENT_BRIDGE_DEMO", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("agent-bridge acp starts");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel(10_000);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("the agent wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(value).await.is_err() {
                    return;
                }
            }
        });
        AcpClient {
            child,
            stdin,
            lines: rx,
            next_id: 0,
            permissions: PermissionAnswer::Kind("allow_once"),
            asked: vec![],
        }
    }

    pub async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await
    }

    /// Sends a request; returns its id.
    pub async fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// The next message of the agent (answering permission requests as told).
    pub async fn next(&mut self) -> Value {
        let message = tokio::time::timeout(WAIT, self.lines.recv())
            .await
            .expect("the agent answers in time")
            .expect("the agent's output is open");
        if message["method"] == "session/request_permission" {
            self.asked.push(message.clone());
            let answer = match &self.permissions {
                PermissionAnswer::Kind(kind) => {
                    let option = message["params"]["options"]
                        .as_array()
                        .and_then(|o| o.iter().find(|o| o["kind"] == *kind))
                        .map(|o| o["optionId"].clone())
                        .expect("the permission offers the option kind");
                    Some(json!({"outcome": {"outcome": "selected", "optionId": option}}))
                }
                PermissionAnswer::Cancelled => Some(json!({"outcome": {"outcome": "cancelled"}})),
                PermissionAnswer::Hold => None,
            };
            if let Some(result) = answer {
                let id = message["id"].clone();
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
                    .await;
            }
        }
        message
    }

    /// Messages until the answer to `id`; returns (the notifications before it, the answer).
    pub async fn until(&mut self, id: u64) -> (Vec<Value>, Value) {
        let mut before = vec![];
        loop {
            let m = self.next().await;
            if m.get("method").is_none() && m["id"] == id {
                return (before, m);
            }
            before.push(m);
        }
    }

    /// Sends a request and waits for its answer.
    pub async fn call(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.request(method, params).await;
        self.until(id).await
    }

    pub async fn initialize(&mut self) -> Value {
        let (_, answer) = self
            .call(
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": {
                    "fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
                    "clientInfo": {"name": "acp-test", "version": "0"}}),
            )
            .await;
        answer
    }

    pub async fn new_session(&mut self, cwd: &Path) -> String {
        let (_, answer) = self
            .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        answer["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("session/new answered {answer}"))
            .to_string()
    }

    pub async fn prompt(&mut self, session: &str, text: &str) -> (Vec<Value>, Value) {
        self.call(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        )
        .await
    }

    /// Closes stdin and waits for the agent to exit.
    pub async fn close_stdin(&mut self) -> std::process::ExitStatus {
        self.stdin.take();
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the agent exits after stdin closes")
            .expect("wait")
    }
}

/// The `session/update`s among `messages`, as their `update` objects.
pub fn updates(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter(|m| m["method"] == "session/update")
        .map(|m| m["params"]["update"].clone())
        .collect()
}

/// The text of every update of `kind` (`agent_message_chunk`…), joined.
pub fn chunks(messages: &[Value], kind: &str) -> String {
    updates(messages)
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
        .collect()
}

/// A process under the agent: its pid and command line.
#[derive(Debug, Clone)]
pub struct Proc {
    pub pid: i32,
    pub cmdline: String,
}

fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`; comm may hold spaces, so read after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Every live descendant of `root`.
pub fn descendants(root: i32) -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let pids: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    let mut out = vec![];
    for pid in pids {
        let mut p = pid;
        let mut depth = 0;
        while let Some(parent) = parent_of(p) {
            if parent == root {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                    .unwrap_or_default();
                out.push(Proc { pid, cmdline });
                break;
            }
            if parent <= 1 || depth > 32 {
                break;
            }
            p = parent;
            depth += 1;
        }
    }
    out
}

/// True while `pid` lives (a zombie counts as gone).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rfind(')')
                .map(|i| s[i + 1..].trim_start().starts_with('Z'))
        })
        .is_some_and(|zombie| !zombie)
}
