//! What `bench --codex` drives besides the bridge: a child speaking JSON-RPC lines over its
//! stdio (`codex app-server`, codex-acp) in a process group of its own, each stdout line
//! stamped when it is read.

use crate::host::child::{piped_command, stamped_lines};
use agent_bridge_core::supervisor::SpawnSpec;
use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A JSON-RPC child: `jsonrpc` says whether messages carry `"jsonrpc": "2.0"` (ACP does, the
/// app-server's dialect does not).
pub struct RpcChild {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<(Instant, Value)>,
    next: i64,
    jsonrpc: bool,
    name: &'static str,
    pub pid: u32,
}

impl RpcChild {
    /// Starts `spec` in a new process group; returns it and the instant just before the spawn.
    pub fn spawn(
        spec: &SpawnSpec,
        name: &'static str,
        jsonrpc: bool,
    ) -> anyhow::Result<(RpcChild, Instant)> {
        let mut cmd = piped_command(spec);
        cmd.process_group(0);
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", spec.program))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("{name} has no stdout"))?;
        let stdin = child.stdin.take();
        let lines = stamped_lines(stdout);
        let pid = child.id();
        let me = RpcChild {
            child,
            stdin,
            lines,
            next: 0,
            jsonrpc,
            name,
            pid,
        };
        Ok((me, started))
    }

    fn write(&mut self, mut message: Value) -> anyhow::Result<Instant> {
        if self.jsonrpc {
            message["jsonrpc"] = json!("2.0");
        }
        let mut bytes = serde_json::to_vec(&message)?;
        bytes.push(b'\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("{}'s stdin is closed", self.name))?;
        let at = Instant::now();
        stdin.write_all(&bytes)?;
        stdin.flush()?;
        Ok(at)
    }

    /// Writes a request; returns its id and when it was written.
    pub fn request(&mut self, method: &str, params: Value) -> anyhow::Result<(i64, Instant)> {
        self.next += 1;
        let id = self.next;
        let at = self.write(json!({"id": id, "method": method, "params": params}))?;
        Ok((id, at))
    }

    pub fn notify(&mut self, method: &str) -> anyhow::Result<()> {
        self.write(json!({ "method": method })).map(|_| ())
    }

    /// Reads messages until `pred` accepts one (an error answer to any request fails);
    /// returns when that one was read, and it.
    pub fn wait(
        &mut self,
        limit: Duration,
        what: &str,
        mut pred: impl FnMut(Instant, &Value) -> bool,
    ) -> anyhow::Result<(Instant, Value)> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((_, v)) if v.get("error").is_some() && v.get("method").is_none() => {
                    bail!("{}: {what}: error answer {v}", self.name)
                }
                Ok((_, v)) if v.get("id").is_some() && v.get("method").is_some() => {
                    self.answer_request(&v)?
                }
                Ok((at, v)) if pred(at, &v) => return Ok((at, v)),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    bail!("{}: no {what} within {limit:?}", self.name)
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("{} exited while waiting for {what}", self.name)
                }
            }
        }
    }

    /// Answers a request from the child: an ACP permission with its first "allow" option,
    /// anything else with method-not-found (the bench serves no client capability).
    fn answer_request(&mut self, request: &Value) -> anyhow::Result<()> {
        let id = request["id"].clone();
        let method = request["method"].as_str().unwrap_or_default();
        let answer = if method == "session/request_permission" {
            let options = request["params"]["options"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let allow = options
                .iter()
                .find(|o| o["kind"].as_str().is_some_and(|k| k.starts_with("allow")))
                .or_else(|| options.first());
            match allow.and_then(|o| o["optionId"].as_str()) {
                Some(option) => json!({"id": id, "result": {
                    "outcome": {"outcome": "selected", "optionId": option}}}),
                None => json!({"id": id, "result": {"outcome": {"outcome": "cancelled"}}}),
            }
        } else {
            json!({"id": id, "error": {"code": -32601,
                "message": format!("the bench client does not serve {method}")}})
        };
        self.write(answer).map(|_| ())
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Closes stdin and waits up to `limit` for the child to exit by itself (an ACP agent
    /// that stops its own children on EOF); the drop kills what is left.
    pub fn close_stdin_and_wait(&mut self, limit: Duration) {
        self.stdin = None;
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A request and its answer: returns when it was written, when answered, and the result.
    pub fn call(
        &mut self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> anyhow::Result<(Instant, Instant, Value)> {
        let (id, sent) = self.request(method, params)?;
        let (at, v) = self.wait(limit, &format!("answer to {method}"), |_, v| {
            v["id"] == json!(id) && v.get("method").is_none()
        })?;
        Ok((sent, at, v["result"].clone()))
    }
}

impl Drop for RpcChild {
    /// Closes stdin, then kills the whole group (codex-acp does not exit on EOF, and both are
    /// npm launchers around a native binary).
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(group) = libc::pid_t::try_from(self.pid) {
            if group > 1 {
                // SAFETY: a plain syscall on the group this child leads (`process_group(0)`).
                unsafe {
                    libc::killpg(group, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
