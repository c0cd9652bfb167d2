//! What the Claude section of the bench runs besides the bridge, the mock and the hermetic
//! environment (`crate::host::mock`): the CLI driven directly over stream-json with the
//! bridge's own flags, each stdout line stamped when it is read.

use super::turn_phases::TurnStamps;
use crate::host::child::{piped_command, stamped_lines};
use agent_bridge_core::supervisor::SpawnSpec;
use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// From the Claude provider's debug log: how long each session's CLI took from its spawn to
/// answering `initialize` (the line `claude started and answered in X ms session=ID`), by id.
pub fn cli_start_times(log: &str) -> BTreeMap<String, f64> {
    const MARK: &str = "claude started and answered in ";
    log.lines()
        .filter_map(|line| {
            let rest = &line[line.find(MARK)? + MARK.len()..];
            let ms: f64 = rest.split_whitespace().next()?.parse().ok()?;
            let session = rest.split("session=").nth(1)?.split_whitespace().next()?;
            Some((session.to_string(), ms))
        })
        .collect()
}

/// `claude` driven directly: stream-json over its stdio, the bridge's command line.
pub struct DirectCli {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<(Instant, Value)>,
    next: u64,
}

impl DirectCli {
    /// Starts the CLI; returns it and the instant just before the spawn.
    pub fn spawn(spec: &SpawnSpec) -> anyhow::Result<(DirectCli, Instant)> {
        let mut cmd = piped_command(spec);
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", spec.program))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("claude has no stdout"))?;
        let stdin = child.stdin.take();
        let lines = stamped_lines(stdout);
        let cli = DirectCli {
            child,
            stdin,
            lines,
            next: 0,
        };
        Ok((cli, started))
    }

    /// Writes one line; returns when it was written.
    fn write(&mut self, line: &str) -> anyhow::Result<Instant> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("claude's stdin is closed"))?;
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let at = Instant::now();
        stdin.write_all(&bytes)?;
        stdin.flush()?;
        Ok(at)
    }

    /// Waits for the first line matching `pred`; returns when it was read.
    pub fn wait_line(
        &mut self,
        limit: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> anyhow::Result<Instant> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, v)) if pred(&v) => return Ok(at),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => bail!("claude: no {what} within {limit:?}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("claude exited while waiting for {what}")
                }
            }
        }
    }

    /// Sends the control `initialize` the bridge sends; returns when its answer was read.
    pub fn initialize(&mut self, limit: Duration) -> anyhow::Result<Instant> {
        self.next += 1;
        let id = format!("bench-initialize-{}", self.next);
        let line = agent_bridge_claude::wire::control_request_line(
            &id,
            json!({"subtype": "initialize", "hooks": null}),
        );
        self.write(&line)?;
        self.wait_line(limit, "initialize answer", |v| {
            v["type"] == "control_response" && v["response"]["request_id"] == id.as_str()
        })
    }

    /// Writes a user message; returns when it was written.
    pub fn send_user(&mut self, text: &str) -> anyhow::Result<Instant> {
        self.next += 1;
        let uuid = format!("00000000-0000-4000-8000-{:012}", self.next);
        let line = agent_bridge_claude::wire::user_line(
            vec![json!({"type": "text", "text": text})],
            &uuid,
        );
        self.write(&line)
    }

    /// One turn: the prompt written -> its `result` read, with the first text delta between.
    pub fn turn(&mut self, text: &str, limit: Duration) -> anyhow::Result<TurnStamps> {
        let sent = self.send_user(text)?;
        let deadline = sent + limit;
        let mut first_output = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (at, v) = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(mpsc::RecvTimeoutError::Timeout) => bail!("claude: no result within {limit:?}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("claude exited during a turn")
                }
            };
            if v["type"] == "result" {
                if v["is_error"] == true {
                    bail!("a direct claude turn failed: {}", v["result"]);
                }
                return Ok(TurnStamps {
                    sent,
                    first_output,
                    end: at,
                });
            }
            if v["type"] == "stream_event" && v["event"]["delta"]["type"] == "text_delta" {
                first_output.get_or_insert(at);
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for DirectCli {
    /// Closes stdin (the CLI exits on its own), kills it after 2 s.
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn cli_start_times_come_from_the_provider_log() {
        let log = "\
2026-11-30T16:02:11.298082Z DEBUG spawned program=/x/claude pid=Some(1)
2026-11-30T16:02:11.891985Z DEBUG claude started and answered in 594.6 ms session=cold0
garbage claude started and answered in x ms session=cold1
2026-11-30T16:02:14.096879Z DEBUG claude started and answered in 703.2 ms session=cold2
";
        let times = cli_start_times(log);
        assert_eq!(times.len(), 2);
        assert_eq!(times.get("cold0"), Some(&594.6));
        assert_eq!(times.get("cold2"), Some(&703.2));
    }
}
