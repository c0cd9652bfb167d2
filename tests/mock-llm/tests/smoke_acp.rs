//! The pinned ACP adapters (claude-agent-acp, codex-acp) directly against the mock: one
//! text turn over ACP (initialize -> session/new -> session/prompt).
//! Known benign egress: claude-agent-acp's bundled Claude Code tries one CONNECT to
//! raw.githubusercontent.com:443 per process start (refused by the proxy trap); nothing else.

mod common;

use common::{assert_only_families, TIMEOUT};
use mock_llm::{hermetic, require_cli, Family, HermeticEnv, MockLlm};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout, Command};

struct Acp {
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    /// Text of the `agent_message_chunk` updates seen.
    agent_text: String,
}

impl Acp {
    async fn send(&mut self, msg: Value) {
        let line = format!("{msg}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Sends a request and reads until its response, answering agent requests on the way.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let read = async {
            loop {
                let line = self
                    .lines
                    .next_line()
                    .await
                    .unwrap()
                    .expect("agent closed stdout");
                let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if msg["id"] == json!(id) && msg.get("method").is_none() {
                    return msg;
                }
                if msg["method"] == "session/update" {
                    let update = &msg["params"]["update"];
                    if update["sessionUpdate"] == "agent_message_chunk" {
                        self.agent_text
                            .push_str(update["content"]["text"].as_str().unwrap_or(""));
                    }
                } else if msg.get("method").is_some() && msg.get("id").is_some() {
                    // No agent->client request is expected in a text turn; refuse politely.
                    let reply = json!({"jsonrpc": "2.0", "id": msg["id"],
                        "error": {"code": -32601, "message": "not supported by the smoke test"}});
                    self.send(reply).await;
                }
            }
        };
        tokio::time::timeout(TIMEOUT, read)
            .await
            .unwrap_or_else(|_| panic!("{method} timed out"))
    }
}

/// Runs one ACP text turn; returns (agent text, stopReason, seconds).
async fn text_turn(env: &HermeticEnv, program: &Path) -> (String, Value, f64) {
    let started = Instant::now();
    let mut cmd = Command::new(program);
    env.apply(&mut cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let pgid = child.id().expect("pid") as i32;
    let mut acp = Acp {
        stdin: child.stdin.take().unwrap(),
        lines: BufReader::new(child.stdout.take().unwrap()).lines(),
        next_id: 0,
        agent_text: String::new(),
    };
    let init = acp
        .call(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        )
        .await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let cwd = env.workdir.display().to_string();
    let session = acp
        .call("session/new", json!({"cwd": cwd, "mcpServers": []}))
        .await;
    let session_id = session["result"]["sessionId"].clone();
    assert!(session_id.is_string(), "{session}");
    let prompt = json!({"sessionId": session_id, "prompt": [{"type": "text", "text": "say hi"}]});
    let result = acp.call("session/prompt", prompt).await;
    // codex-acp does not exit when stdin closes and its npm bin is a launcher around the
    // native binary: kill the whole group.
    // SAFETY: plain syscall on the child's own process group.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
    let _ = child.wait().await;
    (
        acp.agent_text,
        result["result"]["stopReason"].clone(),
        started.elapsed().as_secs_f64(),
    )
}

fn report(cli: &str, path: &Path, secs: f64) {
    let version = mock_llm::package_version(path).unwrap_or_else(|| "unknown".into());
    eprintln!("{cli} {version} acp-say-hi ok in {secs:.2} s");
    mock_llm::report_ok(cli, &version, "acp-say-hi");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn claude_agent_acp_text_turn() {
    let Some(cli) = require_cli("claude-agent-acp") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::claude_agent_acp(&mock, root.path()).unwrap();
    let (text, stop, secs) = text_turn(&env, &cli).await;
    assert!(text.contains("hi!"), "agent text {text:?}");
    assert_eq!(stop, "end_turn");
    assert_only_families(&mock, &[Family::Anthropic, Family::ProxyRefused]);
    let refused: Vec<String> = mock.proxy_refused().into_iter().map(|r| r.path).collect();
    assert!(
        refused.len() <= 1 && refused.iter().all(|p| p == "raw.githubusercontent.com:443"),
        "unexpected outbound attempts: {refused:?}"
    );
    report("claude-agent-acp", &cli, secs);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn codex_acp_text_turn() {
    let Some(cli) = require_cli("codex-acp") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::codex_acp(&mock, root.path()).unwrap();
    let (text, stop, secs) = text_turn(&env, &cli).await;
    assert!(text.contains("hi!"), "agent text {text:?}");
    assert_eq!(stop, "end_turn");
    let calls = assert_only_families(&mock, &[Family::OpenaiResponses]);
    assert!(calls.iter().all(|r| r.path == "/v1/responses"));
    report("codex-acp", &cli, secs);
}
