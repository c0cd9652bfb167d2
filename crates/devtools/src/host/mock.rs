//! The mock model server and the hermetic environments of the real CLIs, as the bench and the
//! soak run them: `tests/mock-llm`'s server on a runtime of its own inside this process
//! (127.0.0.1 only), and per CLI a temp root prepared by its `hermetic` recipe (own HOME and
//! config dir, dummy key, the mock as base URL and proxy trap, telemetry and updates off).

use anyhow::{anyhow, Context};
use mock_llm::{Cli, MockLlm, RecordedRequest};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The mock model server, served by worker threads of its own (the bench and the soak are
/// synchronous). Dropping it stops the server.
pub struct MockServer {
    server: Option<MockLlm>,
    runtime: tokio::runtime::Runtime,
}

impl MockServer {
    pub fn start() -> anyhow::Result<MockServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .thread_name("mock-llm")
            .enable_all()
            .build()
            .context("starting the mock's runtime")?;
        let server = runtime
            .block_on(MockLlm::start())
            .context("starting the mock model server")?;
        Ok(MockServer {
            server: Some(server),
            runtime,
        })
    }

    fn server(&self) -> anyhow::Result<&MockLlm> {
        self.server
            .as_ref()
            .ok_or_else(|| anyhow!("the mock model server has stopped"))
    }

    pub fn port(&self) -> anyhow::Result<u16> {
        Ok(self.server()?.port())
    }

    /// Empties the request log: it keeps every request body, and a long session resends its
    /// whole conversation with each request.
    pub fn clear_log(&self) -> anyhow::Result<()> {
        self.server()?.clear_requests();
        Ok(())
    }

    /// The request log: every request with its arrival and answer-end times and what the mock
    /// answered (`text`, `tool-call:Bash`, ...).
    pub fn requests(&self) -> anyhow::Result<Vec<RecordedRequest>> {
        Ok(self.server()?.requests())
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            self.runtime.block_on(server.shutdown());
        }
    }
}

/// A temp root with HOME, a working directory and the CLI's full environment.
pub struct Hermetic {
    pub root: PathBuf,
    pub workdir: PathBuf,
    pub env: BTreeMap<String, String>,
}

impl Hermetic {
    /// A fresh temp root prepared for the CLI `name` of `mock_llm::Cli` (`claude`, `codex`,
    /// `codex-acp`, ...) at `cli`, talking to `mock`, with `cli`'s own directory first on PATH.
    pub fn for_cli(mock: &MockServer, name: &str, cli: &Path) -> anyhow::Result<Hermetic> {
        let kind = Cli::ALL
            .into_iter()
            .find(|c| c.bin_name() == name)
            .ok_or_else(|| anyhow!("the mock has no hermetic recipe for {name}"))?;
        let root =
            std::env::temp_dir().join(format!("agent-bridge-bench-{name}-{}", std::process::id()));
        // Removed again on drop, also when the recipe fails.
        let mut herm = Hermetic {
            workdir: root.join("work"),
            root,
            env: BTreeMap::new(),
        };
        let prepared = mock_llm::hermetic::build(kind, mock.port()?, &herm.root)
            .with_context(|| format!("preparing the hermetic environment of {name}"))?;
        herm.workdir = prepared.workdir;
        herm.env = prepared.env;
        if let Some(dir) = cli.parent() {
            // The recipe puts the pinned CLIs' bin dir first on PATH: make it this CLI's.
            let path = herm.env.get("PATH").cloned().unwrap_or_default();
            herm.env
                .insert("PATH".into(), format!("{}:{path}", dir.display()));
        }
        Ok(herm)
    }

    /// A launcher for `bridge` with spares turned off (the bridge for cold opens and for the
    /// turn comparison). With `log`, its Claude provider logs at debug level into that file
    /// (how long each CLI took to start and answer); without, the bridge logs as usual.
    pub fn no_spare_launcher(&self, bridge: &Path, log: Option<&Path>) -> anyhow::Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let quote = |p: &Path| p.display().to_string().replace('\'', r"'\''");
        let (name, script) = match log {
            Some(log) => (
                "agent-bridge-no-spare-debug",
                format!(
                    "#!/bin/sh\nAGENT_BRIDGE_CLAUDE_SPARE=0 AGENT_BRIDGE_LOG=warn,agent_bridge_claude=debug exec '{}' \"$@\" 2>>'{}'\n",
                    quote(bridge),
                    quote(log)
                ),
            ),
            None => (
                "agent-bridge-no-spare",
                format!(
                    "#!/bin/sh\nAGENT_BRIDGE_CLAUDE_SPARE=0 exec '{}' \"$@\"\n",
                    quote(bridge)
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

/// A logged request as the mock records it, for tests of what reads the log.
#[cfg(test)]
pub fn recorded(
    family: mock_llm::Family,
    path: &str,
    at_unix_us: u64,
    done_unix_us: Option<u64>,
) -> RecordedRequest {
    RecordedRequest {
        seq: 0,
        at_ms: 0,
        at_unix_us,
        done_unix_us,
        method: "POST".into(),
        path: path.into(),
        headers: BTreeMap::new(),
        body: serde_json::Value::Null,
        family,
        reply: "text".into(),
        client_disconnected: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn the_mock_answers_logs_and_clears_and_a_claude_env_points_at_it() {
        let mock = MockServer::start().expect("mock");
        let port = mock.port().expect("port");
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let body =
            r#"{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"say hi"}]}"#;
        write!(
            stream,
            "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("request");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("answer");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        let log = mock.requests().expect("log");
        assert_eq!(log.len(), 1, "{log:?}");
        assert_eq!(log[0].path, "/v1/messages");
        assert!(log[0].done_unix_us.is_some_and(|d| d >= log[0].at_unix_us));
        mock.clear_log().expect("clear");
        assert!(mock.requests().expect("log").is_empty());

        let cli = Path::new("/opt/pinned/bin/claude");
        let herm = Hermetic::for_cli(&mock, "claude", cli).expect("hermetic");
        let url = format!("http://127.0.0.1:{port}");
        assert_eq!(herm.env.get("ANTHROPIC_BASE_URL"), Some(&url));
        assert!(herm.env["PATH"].starts_with("/opt/pinned/bin:"));
        assert!(herm.workdir.is_dir() && herm.workdir.starts_with(&herm.root));
        let root = herm.root.clone();
        drop(herm);
        assert!(!root.exists(), "the temp root is removed");
        assert!(Hermetic::for_cli(&mock, "nosuch", cli).is_err());
    }
}
