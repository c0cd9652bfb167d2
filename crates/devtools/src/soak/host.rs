//! The soak's bridge: agent-bridge's `serve` as a child, its stdout read line by line on a thread
//! (stamped, parsed) and handed to the driver's single loop; every request written goes through
//! the ledger first.

use super::ledger::Ledger;
use crate::host::child::{serve_command, stamped_lines_all};
use anyhow::{anyhow, Context};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    pub lines: mpsc::Receiver<(Instant, Result<Value, String>)>,
    pub pid: u32,
    next_id: i64,
}

impl Host {
    /// Starts the bridge with `env` added and its stderr appended to `log`.
    pub fn spawn(
        bridge: &Path,
        plugin_dir: Option<&Path>,
        env: &[(&str, &str)],
        log: &Path,
    ) -> anyhow::Result<Host> {
        let stderr = std::fs::File::create(log)
            .with_context(|| format!("creating the bridge log {}", log.display()))?;
        let mut cmd = serve_command(bridge, plugin_dir);
        cmd.envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {} serve", bridge.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("the bridge has no stdout"))?;
        Ok(Host {
            stdin: child.stdin.take(),
            lines: stamped_lines_all(stdout),
            pid: child.id(),
            child,
            next_id: 0,
        })
    }

    fn write(&mut self, message: &Value) -> anyhow::Result<()> {
        let mut bytes = serde_json::to_vec(message)?;
        bytes.push(b'\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("the bridge's stdin is closed"))?;
        stdin.write_all(&bytes)?;
        stdin.flush()?;
        Ok(())
    }

    /// Writes a request; returns its id.
    pub fn request(
        &mut self,
        ledger: &mut Ledger,
        method: &str,
        params: Value,
    ) -> anyhow::Result<i64> {
        self.next_id += 1;
        let id = self.next_id;
        let input = (method == agent_bridge_protocol::wire::METHOD_SEND)
            .then(|| {
                params
                    .get("connectionId")
                    .and_then(Value::as_str)
                    .zip(params.get("input"))
            })
            .flatten();
        ledger.on_request(id, method, input);
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    /// `provider/send` of one input on `connection`.
    pub fn send(
        &mut self,
        ledger: &mut Ledger,
        connection: &str,
        input: Value,
    ) -> anyhow::Result<i64> {
        let params = json!({ "connectionId": connection, "input": input });
        self.request(ledger, agent_bridge_protocol::wire::METHOD_SEND, params)
    }

    /// `shutdown`, stdin closed, then waits for the exit (killing the bridge after `limit`);
    /// returns the exit status and whether it had to be killed.
    pub fn shutdown(&mut self, limit: Duration) -> anyhow::Result<(ExitStatus, bool)> {
        let _ = self.write(&json!({"jsonrpc": "2.0", "method": "shutdown", "params": {}}));
        self.stdin = None;
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok((status, false));
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                return Ok((self.child.wait()?, true));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
