//! A minimal Agent Client Protocol client for the benchmarks: drives an ACP adapter (Zed's
//! claude-agent-acp, codex-acp) over stdio the way an editor does — `initialize`,
//! `session/new`, `session/prompt` — allowing whatever permission it asks for, and stamps
//! each line the moment it is read. Blocking on purpose: a host thread per pipe keeps the
//! measured latency free of an async runtime's scheduling.

use super::turn_phases::TurnStamps;
use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// An ACP agent process and its session.
pub struct AcpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<(Instant, Value)>,
    next_id: i64,
    pub session_id: Option<String>,
}

impl AcpClient {
    /// Starts `program` with exactly `env` in `cwd`; returns it and the instant before the
    /// spawn.
    pub fn spawn(
        program: &Path,
        args: &[String],
        env: &BTreeMap<String, String>,
        cwd: &Path,
    ) -> anyhow::Result<(AcpClient, Instant)> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .envs(env)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", program.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("the ACP agent has no stdout"))?;
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            let mut line = String::new();
            loop {
                line.clear();
                match out.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let at = Instant::now();
                        // Adapters may log to stdout; a non-JSON line is not a message.
                        let Ok(value) = serde_json::from_str::<Value>(&line) else {
                            continue;
                        };
                        if tx.send((at, value)).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let client = AcpClient {
            child,
            stdin,
            lines,
            next_id: 0,
            session_id: None,
        };
        Ok((client, started))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn write(&mut self, message: &Value) -> anyhow::Result<Instant> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("the ACP agent's stdin is closed"))?;
        let mut bytes = serde_json::to_vec(message)?;
        bytes.push(b'\n');
        let at = Instant::now();
        stdin.write_all(&bytes)?;
        stdin.flush()?;
        Ok(at)
    }

    /// Answers a request from the agent: a permission with its first "allow" option, anything
    /// else with method-not-found (this client advertises no capability).
    fn serve(&mut self, id: Value, method: &str, params: &Value) -> anyhow::Result<()> {
        let answer = if method == "session/request_permission" {
            let options = params["options"].as_array().cloned().unwrap_or_default();
            let allow = options
                .iter()
                .find(|o| o["kind"].as_str().is_some_and(|k| k.starts_with("allow")))
                .or_else(|| options.first());
            match allow.and_then(|o| o["optionId"].as_str()) {
                Some(option) => json!({"jsonrpc": "2.0", "id": id, "result": {
                    "outcome": {"outcome": "selected", "optionId": option}}}),
                None => json!({"jsonrpc": "2.0", "id": id, "result": {
                    "outcome": {"outcome": "cancelled"}}}),
            }
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                "message": format!("the bench client does not serve {method}")}})
        };
        self.write(&answer).map(|_| ())
    }

    /// Sends a request and reads until its answer; `on_update` sees each `session/update`.
    /// Returns the result, when the request was written and when its answer was read.
    fn call_with(
        &mut self,
        method: &str,
        params: Value,
        limit: Duration,
        mut on_update: impl FnMut(Instant, &Value),
    ) -> anyhow::Result<(Value, Instant, Instant)> {
        self.next_id += 1;
        let id = self.next_id;
        let sent =
            self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = sent + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (at, msg) = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    bail!("ACP agent: no answer to {method} within {limit:?}")
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("the ACP agent exited while answering {method}")
                }
            };
            match (msg.get("id"), msg.get("method").and_then(Value::as_str)) {
                (Some(rid), Some(m)) => {
                    let m = m.to_string();
                    self.serve(rid.clone(), &m, &msg["params"])?;
                }
                (None, Some("session/update")) => on_update(at, &msg["params"]["update"]),
                (Some(rid), None) if rid.as_i64() == Some(id) => {
                    if let Some(err) = msg.get("error") {
                        bail!("ACP {method} failed: {err}");
                    }
                    let result = msg.get("result").cloned().unwrap_or(Value::Null);
                    return Ok((result, sent, at));
                }
                _ => {}
            }
        }
    }

    /// `initialize` (protocol 1, no client capabilities); returns when it was answered.
    pub fn initialize(&mut self, limit: Duration) -> anyhow::Result<Instant> {
        let params = json!({"protocolVersion": 1, "clientCapabilities": {}});
        let (_, _, at) = self.call_with("initialize", params, limit, |_, _| {})?;
        Ok(at)
    }

    /// `session/new` in `cwd`; returns when it was answered.
    pub fn new_session(&mut self, cwd: &Path, limit: Duration) -> anyhow::Result<Instant> {
        let params = json!({"cwd": cwd.display().to_string(), "mcpServers": []});
        let (result, _, at) = self.call_with("session/new", params, limit, |_, _| {})?;
        let id = result["sessionId"]
            .as_str()
            .ok_or_else(|| anyhow!("session/new returned no sessionId: {result}"))?;
        self.session_id = Some(id.to_string());
        Ok(at)
    }

    /// One text prompt: written -> its `session/prompt` answer, with the first
    /// `agent_message_chunk` between.
    pub fn turn(&mut self, text: &str, limit: Duration) -> anyhow::Result<TurnStamps> {
        let session = self
            .session_id
            .clone()
            .ok_or_else(|| anyhow!("no ACP session yet"))?;
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        let mut first = None;
        let (result, sent, end) = self.call_with("session/prompt", params, limit, |at, u| {
            if u["sessionUpdate"] == "agent_message_chunk" {
                first.get_or_insert(at);
            }
        })?;
        if result["stopReason"] != "end_turn" {
            bail!("an ACP bench turn stopped with {result}");
        }
        Ok(TurnStamps {
            sent,
            first_output: first,
            end,
        })
    }
}

impl Drop for AcpClient {
    /// Closes stdin (an ACP agent exits on its own), kills it after 2 s.
    fn drop(&mut self) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
