//! [`BridgeHost`]: spawns `agent-bridge serve`, talks JSON-RPC lines to it, and records and
//! checks everything it prints.

use crate::procs::{self, ProcInfo};
use crate::reader::{self, Shared, State};
use agent_bridge_protocol::jsonrpc::RpcError;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, Command};
use tokio::task::JoinHandle;

/// Code of an [`RpcError`] the host makes itself when the bridge gave no answer in time.
pub const HOST_TIMEOUT: i64 = -1;
/// Code of an [`RpcError`] the host makes itself when writing to the bridge failed.
pub const HOST_IO: i64 = -2;
/// Code of an [`RpcError`] the host makes itself when a result has the wrong shape.
pub const HOST_BAD_RESULT: i64 = -3;

/// How to start the bridge. `HostOptions::default()` runs `<bin> serve` in the repo root with a
/// fresh temporary data dir.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// The binary; default [`crate::bridge_binary`].
    pub bin: Option<PathBuf>,
    /// Arguments; default `["serve"]`.
    pub args: Vec<String>,
    /// Working directory; default the workspace root (it holds `plugin.json`).
    pub cwd: Option<PathBuf>,
    /// Extra environment variables (added to the test process's own).
    pub env: Vec<(String, String)>,
    /// `plugin.dataDir` sent by [`BridgeHost::initialize`]; default a temp dir the host owns.
    pub data_dir: Option<PathBuf>,
    /// How long a JSON-RPC request may wait for its answer.
    pub request_timeout: Duration,
}

impl Default for HostOptions {
    fn default() -> Self {
        Self {
            bin: None,
            args: vec!["serve".to_string()],
            cwd: None,
            // Its report of idle spares goes to a folder of its own, so that a `doctor` run with
            // the same environment sees this bridge's spares only.
            // No warm spares unless a test asks (`.env(IDLE_ENV, ..)`): each last close would
            // otherwise start a spare agent process, doubling the agent starts of a suite.
            env: vec![
                (
                    agent_bridge_core::spares::DIR_ENV.to_string(),
                    spares_dir().display().to_string(),
                ),
                (
                    agent_bridge_core::spares::IDLE_ENV.to_string(),
                    "0".to_string(),
                ),
            ],
            data_dir: None,
            request_timeout: Duration::from_secs(30),
        }
    }
}

/// A folder of its own for one bridge's report of idle spares.
fn spares_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("agent-bridge-spares-{}-{n}", std::process::id()))
}

impl HostOptions {
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    pub fn bin(mut self, bin: impl Into<PathBuf>) -> Self {
        self.bin = Some(bin.into());
        self
    }

    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }
}

/// A running `agent-bridge serve` child and everything it printed. See the crate docs.
pub struct BridgeHost {
    pub(crate) shared: Arc<Shared>,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    child: tokio::sync::Mutex<Child>,
    exit: Mutex<Option<ExitStatus>>,
    pid: u32,
    next_id: AtomicI64,
    next_unique: AtomicI64,
    data_dir: PathBuf,
    _temp: Option<tempfile::TempDir>,
    tasks: Vec<JoinHandle<()>>,
    seen: Mutex<Vec<ProcInfo>>,
    pub(crate) request_timeout: Duration,
}

fn host_error(code: i64, message: impl Into<String>) -> RpcError {
    RpcError {
        code,
        message: message.into(),
        data: None,
    }
}

impl BridgeHost {
    /// Starts the bridge with [`HostOptions::default`].
    pub async fn spawn() -> anyhow::Result<BridgeHost> {
        Self::spawn_with(HostOptions::default()).await
    }

    /// Starts the bridge: piped stdio, its own process group, killed when the host drops.
    pub async fn spawn_with(options: HostOptions) -> anyhow::Result<BridgeHost> {
        let bin = match options.bin {
            Some(bin) => bin,
            None => tokio::task::spawn_blocking(crate::bridge_binary).await??,
        };
        let (temp, data_dir) = match options.data_dir {
            Some(dir) => (None, dir),
            None => {
                let temp = tempfile::Builder::new().prefix("bridge-data-").tempdir()?;
                let path = temp.path().to_path_buf();
                (Some(temp), path)
            }
        };
        let mut cmd = Command::new(&bin);
        cmd.args(&options.args)
            .current_dir(options.cwd.unwrap_or_else(crate::workspace_root))
            .envs(options.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", bin.display()))?;
        let pid = child
            .id()
            .ok_or_else(|| anyhow::anyhow!("the bridge exited at once"))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow::anyhow!("no stdout pipe"))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| anyhow::anyhow!("no stderr pipe"))?;
        let shared = Arc::new(Shared::new());
        let tasks = vec![
            tokio::spawn(reader::read_stdout(stdout, shared.clone())),
            tokio::spawn(reader::read_stderr(stderr, shared.clone())),
        ];
        Ok(BridgeHost {
            shared,
            stdin: tokio::sync::Mutex::new(stdin),
            child: tokio::sync::Mutex::new(child),
            exit: Mutex::new(None),
            pid,
            next_id: AtomicI64::new(1),
            next_unique: AtomicI64::new(1),
            data_dir,
            _temp: temp,
            tasks,
            seen: Mutex::new(Vec::new()),
            request_timeout: options.request_timeout,
        })
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The bridge's pid (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The `plugin.dataDir` this host hands to the bridge.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// A fresh id `<prefix>-<n>`, unique within this host.
    pub fn unique(&self, prefix: &str) -> String {
        format!(
            "{prefix}-{}",
            self.next_unique.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Writes raw bytes to the bridge's stdin, as they are.
    pub async fn send_raw_bytes(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut guard = self.stdin.lock().await;
        let stdin = guard.as_mut().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin is closed")
        })?;
        stdin.write_all(bytes).await?;
        stdin.flush().await
    }

    /// Writes one line (a `\n` is appended) to the bridge's stdin.
    pub async fn send_raw(&self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.send_raw_bytes(&bytes).await
    }

    /// Sends a JSON-RPC request and awaits its answer: `Ok(result)` or the bridge's error object.
    /// Host-side failures use the codes [`HOST_TIMEOUT`], [`HOST_IO`].
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut st = self.state();
            if method == "provider/send" {
                if let (Some(conn), Some(input)) = (
                    params.get("connectionId").and_then(Value::as_str),
                    params.get("input"),
                ) {
                    st.checker.on_input(conn, input);
                }
            }
            st.pending.insert(id, (method.to_string(), params.clone()));
        }
        let line =
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
        if let Err(e) = self.send_raw(&line).await {
            let mut st = self.state();
            if let (Some((_, params)), true) = (st.pending.remove(&id), method == "provider/send") {
                let conn = params
                    .get("connectionId")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                st.checker
                    .on_refused(conn, params.get("input").unwrap_or(&Value::Null));
            }
            return Err(host_error(HOST_IO, format!("cannot write `{method}`: {e}")));
        }
        let what = format!("the answer to `{method}` (id {id})");
        let response = self
            .wait_for(self.request_timeout, &what, |st| {
                st.responses.get(&id).cloned()
            })
            .await
            .map_err(|e| host_error(HOST_TIMEOUT, format!("{e:#}")))?;
        match response.get("error") {
            Some(error) => Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| {
                host_error(HOST_BAD_RESULT, format!("malformed error object: {error}"))
            })),
            None => Ok(response.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Sends a JSON-RPC notification.
    pub async fn notify(&self, method: &str, params: Value) -> std::io::Result<()> {
        let line = json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string();
        self.send_raw(&line).await
    }

    /// `initialize` with `apiVersion: 1`, this host's name and `plugin: {id, dir, dataDir}`.
    pub async fn initialize(&self) -> Result<Value, RpcError> {
        let params = json!({
            "apiVersion": 1,
            "host": { "name": "agent-bridge-conformance", "version": env!("CARGO_PKG_VERSION") },
            "plugin": {
                "id": "agent-bridge",
                "dir": crate::workspace_root().display().to_string(),
                "dataDir": self.data_dir.display().to_string(),
            },
        });
        self.request("initialize", params).await
    }

    /// `provider/connect` with `versions: [1]`; returns `(connectionId, negotiated capabilities)`.
    pub async fn connect(
        &self,
        provider_id: &str,
        capabilities: &[&str],
        launch: Option<Value>,
    ) -> Result<(String, Vec<String>), RpcError> {
        let mut request = json!({ "versions": [1], "capabilities": capabilities });
        if let Some(launch) = launch {
            request["launch"] = launch;
        }
        let result = self
            .request(
                "provider/connect",
                json!({ "providerId": provider_id, "request": request }),
            )
            .await?;
        let bad = || {
            host_error(
                HOST_BAD_RESULT,
                format!("malformed provider/connect result: {result}"),
            )
        };
        let id = result
            .get("connectionId")
            .and_then(Value::as_str)
            .ok_or_else(bad)?;
        let caps = result
            .get("capabilities")
            .and_then(Value::as_array)
            .ok_or_else(bad)?
            .iter()
            .map(|c| c.as_str().map(str::to_string).ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((id.to_string(), caps))
    }

    /// `provider/send`: resolves once the bridge admitted the input, or with its refusal.
    pub async fn send(&self, connection_id: &str, input: Value) -> Result<(), RpcError> {
        self.request(
            "provider/send",
            json!({ "connectionId": connection_id, "input": input }),
        )
        .await
        .map(|_| ())
    }

    /// `provider/close` of a connection.
    pub async fn close_connection(&self, connection_id: &str) -> Result<(), RpcError> {
        self.request("provider/close", json!({ "connectionId": connection_id }))
            .await
            .map(|_| ())
    }

    /// The `shutdown` notification.
    pub async fn shutdown(&self) -> std::io::Result<()> {
        self.state().checker.on_stopping();
        self.notify("shutdown", json!({})).await
    }

    /// Closes the bridge's stdin (the normal way a host stops it).
    pub async fn close_stdin(&self) {
        self.state().checker.on_stopping();
        self.stdin.lock().await.take();
    }

    /// Sends a signal to the bridge process (not its group).
    pub fn signal(&self, signal: i32) -> std::io::Result<()> {
        self.state().checker.on_stopping();
        // SAFETY: kill(2) has no memory-safety preconditions.
        let rc = unsafe { libc::kill(self.pid as i32, signal) };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Waits for the bridge to exit.
    pub async fn wait_exit(&self, timeout: Duration) -> anyhow::Result<ExitStatus> {
        if let Some(status) = *self.exit.lock().unwrap_or_else(|p| p.into_inner()) {
            return Ok(status);
        }
        let mut child = self.child.lock().await;
        let status = tokio::time::timeout(timeout, child.wait())
            .await
            .map_err(|_| anyhow::anyhow!("the bridge did not exit within {timeout:?}"))??;
        *self.exit.lock().unwrap_or_else(|p| p.into_inner()) = Some(status);
        Ok(status)
    }

    /// Live descendants of the bridge right now (they are also remembered, and killed when the
    /// host drops, in case a test fails before they are gone).
    pub fn descendants(&self) -> Vec<ProcInfo> {
        let found = procs::descendants(self.pid as i32);
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        for p in &found {
            if !seen.contains(p) {
                seen.push(p.clone());
            }
        }
        found
    }
}

impl Drop for BridgeHost {
    fn drop(&mut self) {
        let running = self.child.get_mut().try_wait().ok().flatten().is_none();
        if running {
            let mut all = procs::descendants(self.pid as i32);
            all.extend(
                self.seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .iter()
                    .cloned(),
            );
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe {
                libc::kill(-(self.pid as i32), libc::SIGKILL);
            }
            procs::kill_all(&all);
        } else {
            procs::kill_all(&self.seen.lock().unwrap_or_else(|p| p.into_inner()));
        }
        for task in &self.tasks {
            task.abort();
        }
        if std::thread::panicking() {
            return;
        }
        let st = self.state();
        let fresh = st
            .checker
            .violations()
            .get(st.reported..)
            .unwrap_or(&[])
            .to_vec();
        if !fresh.is_empty() {
            panic!(
                "protocol violations found (never asserted):\n{}",
                fresh.join("\n")
            );
        }
    }
}
