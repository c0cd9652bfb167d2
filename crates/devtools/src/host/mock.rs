//! The mock model server and the hermetic environments of the real CLIs, as the bench and the
//! soak run them: the `mock-llm` binary as a child (127.0.0.1 only), and per CLI a temp root
//! prepared by `mock-llm env CLI` (own HOME and config dir, dummy key, the mock as base URL and
//! proxy trap, telemetry and updates off).

use anyhow::{anyhow, bail, Context};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A model request from the mock's log (`GET /_mock/requests`).
#[derive(Debug, Clone, Deserialize)]
pub struct ModelRequest {
    pub path: String,
    pub at_unix_us: u64,
    #[serde(default)]
    pub done_unix_us: Option<u64>,
}

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

impl Drop for Hermetic {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
