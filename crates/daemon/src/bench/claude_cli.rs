//! What the Claude section of the bench runs besides the bridge: the `mock-llm` binary as the
//! model server, a hermetic environment for the real `claude` (made by `mock-llm env claude`:
//! own HOME and config dir, dummy key, the mock as base URL and proxy trap, telemetry and
//! updates off), and the CLI driven directly over stream-json with the bridge's own flags, each
//! stdout line stamped when it is read.

use super::codex_drive::stamped_lines;
use super::turn_phases::{ModelRequest, TurnStamps};
use agent_bridge_core::supervisor::SpawnSpec;
use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The `mock-llm` binary as a child: prints `MOCK_LLM_URL=...` once listening.
pub struct MockServer {
    child: Child,
    pub url: String,
}

impl MockServer {
    pub fn start(bin: &Path) -> anyhow::Result<MockServer> {
        let mut child = Command::new(bin)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("mock-llm has no stdout"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| anyhow!("mock-llm did not report its address"))?;
        let url = line
            .trim()
            .strip_prefix("MOCK_LLM_URL=")
            .ok_or_else(|| anyhow!("unexpected first line from mock-llm: {line:?}"))?
            .to_string();
        Ok(MockServer { child, url })
    }
}

impl MockServer {
    /// One request to the mock's control endpoints; returns the status and the body.
    fn control(&self, method: &str, path: &str) -> anyhow::Result<(u16, String)> {
        use std::io::Read;
        let addr = self
            .url
            .strip_prefix("http://")
            .ok_or_else(|| anyhow!("not an http URL: {}", self.url))?;
        let mut stream = std::net::TcpStream::connect(addr)
            .with_context(|| format!("connecting to the mock at {addr}"))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: mock\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        );
        stream.write_all(head.as_bytes())?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        let status = response
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| anyhow!("no HTTP status from the mock"))?;
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        Ok((status, body))
    }

    /// Empties the mock's request log (`POST /_mock/clear`): it keeps every request body,
    /// and a long session resends its whole conversation with each request.
    pub fn clear_log(&self) -> anyhow::Result<()> {
        match self.control("POST", "/_mock/clear")? {
            (200, _) => Ok(()),
            (status, _) => bail!("the mock refused to clear its log: {status}"),
        }
    }

    /// The logged requests with their arrival and answer-end times.
    pub fn model_requests(&self) -> anyhow::Result<Vec<ModelRequest>> {
        let (status, body) = self.control("GET", "/_mock/requests")?;
        if status != 200 {
            bail!("the mock did not list its requests: {status}");
        }
        serde_json::from_str(&body).context("the mock's request log")
    }

    /// The request log as the mock serves it (`GET /_mock/requests`).
    pub fn requests(&self) -> anyhow::Result<Vec<Value>> {
        let (status, body) = self.control("GET", "/_mock/requests")?;
        if status != 200 {
            bail!("the mock did not list its requests: {status}");
        }
        serde_json::from_str(&body).context("the mock's request log")
    }

    /// What the mock answered to each logged request (`text`, `tool-call:Bash`, ...).
    pub fn replies(&self) -> anyhow::Result<Vec<String>> {
        let (status, body) = self.control("GET", "/_mock/requests")?;
        if status != 200 {
            bail!("the mock did not list its requests: {status}");
        }
        let log: Vec<Value> = serde_json::from_str(&body).context("the mock's request log")?;
        Ok(log
            .iter()
            .filter_map(|r| r["reply"].as_str().map(str::to_string))
            .collect())
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temp root with HOME, a working directory and the CLI's full environment.
pub struct Hermetic {
    pub root: PathBuf,
    pub workdir: PathBuf,
    pub env: BTreeMap<String, String>,
}

impl Hermetic {
    /// A fresh temp root prepared for `claude` by `mock-llm env claude` (the recipe of
    /// `tests/mock-llm`'s `hermetic::claude` for the mock at `mock_url`), with `claude`'s own
    /// directory first on PATH.
    pub fn new(mock_bin: &Path, mock_url: &str, claude: &Path) -> anyhow::Result<Hermetic> {
        Hermetic::for_cli(mock_bin, mock_url, "claude", claude)
    }

    /// [`Hermetic::new`] for another CLI of `mock-llm env` (`codex`, `codex-acp`, ...).
    pub fn for_cli(
        mock_bin: &Path,
        mock_url: &str,
        name: &str,
        cli: &Path,
    ) -> anyhow::Result<Hermetic> {
        let port = mock_url
            .rsplit(':')
            .next()
            .and_then(|p| p.parse::<u16>().ok())
            .ok_or_else(|| anyhow!("no port in the mock's URL {mock_url:?}"))?;
        let root =
            std::env::temp_dir().join(format!("agent-bridge-bench-{name}-{}", std::process::id()));
        // Removed again on drop, also when `mock-llm env` fails.
        let mut herm = Hermetic {
            workdir: root.join("work"),
            root,
            env: BTreeMap::new(),
        };
        let mut cmd = Command::new(mock_bin);
        cmd.arg("env")
            .arg(name)
            .arg("--root")
            .arg(&herm.root)
            .arg("--port")
            .arg(port.to_string())
            .stdin(Stdio::null());
        if let Some(bin) = cli.parent() {
            // The recipe puts the pinned CLIs' bin dir first on PATH: make it this CLI's.
            cmd.env("AGENT_BRIDGE_CLI_BIN", bin);
        }
        let out = cmd
            .output()
            .with_context(|| format!("running {} env {name}", mock_bin.display()))?;
        if !out.status.success() {
            bail!(
                "{} env {name} failed: {}",
                mock_bin.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        herm.env = serde_json::from_slice(&out.stdout)
            .context("mock-llm env did not print a JSON object of variables")?;
        Ok(herm)
    }

    /// A launcher for `exe` with spares turned off (the bridge for cold opens and for the turn
    /// comparison). With `log`, its Claude provider logs at debug level into that file (how
    /// long each CLI took to start and answer); without, the bridge logs as usual.
    pub fn no_spare_launcher(&self, exe: &Path, log: Option<&Path>) -> anyhow::Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let quote = |p: &Path| p.display().to_string().replace('\'', r"'\''");
        let (name, script) = match log {
            Some(log) => (
                "agent-bridge-no-spare-debug",
                format!(
                    "#!/bin/sh\nAGENT_BRIDGE_CLAUDE_SPARE=0 AGENT_BRIDGE_LOG=warn,agent_bridge_claude=debug exec '{}' \"$@\" 2>>'{}'\n",
                    quote(exe),
                    quote(log)
                ),
            ),
            None => (
                "agent-bridge-no-spare",
                format!(
                    "#!/bin/sh\nAGENT_BRIDGE_CLAUDE_SPARE=0 exec '{}' \"$@\"\n",
                    quote(exe)
                ),
            ),
        };
        let path = self.root.join(name);
        std::fs::write(&path, script).with_context(|| format!("writing {}", path.display()))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        Ok(path)
    }
}

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

impl Drop for Hermetic {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
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
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        if let Some(base) = &spec.base_env {
            cmd.env_clear().envs(base);
        }
        cmd.envs(&spec.env);
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
