//! One `codex app-server` process and its JSON-RPC multiplexer.
//!
//! Three tasks per process:
//! - the writer drains an unbounded queue of lines into the CLI's stdin;
//! - the reader routes responses to waiting callers at once and queues everything else
//!   (notifications, server requests) for the session's pump, so an awaited call never waits
//!   behind a slow host;
//! - the keeper owns the [`ManagedChild`]: it notices the CLI's exit (then kills the rest of the
//!   process group, e.g. the native binary behind the npm launcher) and performs the shutdown.

use crate::rpc::{self, Incoming, RpcError};
use agent_bridge_core::codec::Line;
use agent_bridge_core::supervisor::{ManagedChild, SpawnError, SpawnSpec, StderrTail};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};

/// What the reader hands to the session: everything that is not a response.
#[derive(Debug)]
pub enum ServerMessage {
    Notification {
        method: String,
        params: Value,
    },
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// The process is gone (stdout closed or the process exited).
    Exited {
        status: Option<String>,
        stderr: String,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("codex app-server answered `{method}` with an error: {error}")]
    Rpc { method: String, error: RpcError },
    #[error("codex app-server exited before answering `{method}`")]
    Closed { method: String },
    #[error("codex app-server did not answer `{method}` within {secs} s")]
    Timeout { method: String, secs: u64 },
}

/// What the writer task writes.
#[derive(Debug)]
enum Outgoing {
    Line(String),
    /// Close the CLI's stdin (the app-server exits at end of input).
    Close,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>>>;

/// A cloneable handle for talking to one app-server.
#[derive(Debug, Clone)]
pub struct RpcHandle {
    outbox: mpsc::UnboundedSender<Outgoing>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
}

impl RpcHandle {
    /// Sends a request and waits for its answer (bounded by `timeout`).
    pub async fn call(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let rx = self.start_call(method, &params);
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(error))) => Err(CallError::Rpc {
                method: method.to_string(),
                error,
            }),
            Ok(Err(_)) => Err(CallError::Closed {
                method: method.to_string(),
            }),
            Err(_) => Err(CallError::Timeout {
                method: method.to_string(),
                secs: timeout.as_secs(),
            }),
        }
    }

    /// Sends a request; the answer arrives on the returned receiver (dropped = ignored).
    pub fn start_call(
        &self,
        method: &str,
        params: &Value,
    ) -> oneshot::Receiver<Result<Value, RpcError>> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        tracing::debug!(method, id, "codex request");
        if self
            .outbox
            .send(Outgoing::Line(rpc::request_line(id, method, params)))
            .is_err()
        {
            if let Ok(mut p) = self.pending.lock() {
                p.remove(&id);
            }
        }
        rx
    }

    pub fn notify(&self, method: &str, params: Option<&Value>) {
        let _ = self
            .outbox
            .send(Outgoing::Line(rpc::notification_line(method, params)));
    }

    pub fn respond(&self, id: &Value, result: &Value) {
        let _ = self
            .outbox
            .send(Outgoing::Line(rpc::result_line(id, result)));
    }

    pub fn respond_error(&self, id: &Value, code: i64, message: &str) {
        let _ = self
            .outbox
            .send(Outgoing::Line(rpc::error_line(id, code, message)));
    }

    /// Closes the CLI's stdin once everything queued before is written.
    pub fn close_input(&self) {
        let _ = self.outbox.send(Outgoing::Close);
    }
}

/// Controls the process keeper.
#[derive(Debug)]
pub struct ProcessControl {
    stop: Option<oneshot::Sender<oneshot::Sender<()>>>,
    pid: Option<u32>,
    stderr: StderrTail,
}

impl ProcessControl {
    /// Graceful stop (stdin closed, then SIGTERM/SIGKILL of the group); waits at most `limit`.
    pub async fn shutdown(&mut self, limit: Duration) {
        if let Some(stop) = self.stop.take() {
            let (done_tx, done_rx) = oneshot::channel();
            if stop.send(done_tx).is_ok() {
                let _ = tokio::time::timeout(limit, done_rx).await;
            }
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }
}

/// A started app-server: the request handle, the queue of server messages, the process control.
pub struct AppServer {
    pub rpc: RpcHandle,
    pub messages: mpsc::UnboundedReceiver<ServerMessage>,
    pub process: ProcessControl,
}

impl AppServer {
    pub fn spawn(spec: &SpawnSpec) -> Result<AppServer, SpawnError> {
        let mut child = ManagedChild::spawn(spec)?;
        let pid = child.pid();
        let stderr = child.stderr_tail_handle();
        let stdin = child.take_stdin();
        let stdout = child.take_stdout_lines();
        let (outbox, mut out_rx) = mpsc::unbounded_channel::<Outgoing>();
        let (msg_tx, messages) = mpsc::unbounded_channel();
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));

        // Writer.
        if let Some(mut stdin) = stdin {
            tokio::spawn(async move {
                while let Some(Outgoing::Line(line)) = out_rx.recv().await {
                    let mut bytes = line.into_bytes();
                    bytes.push(b'\n');
                    if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                        break;
                    }
                }
                let _ = stdin.shutdown().await;
            });
        }

        // Reader.
        let (eof_tx, eof_rx) = oneshot::channel::<()>();
        if let Some(mut lines) = stdout {
            let pending = pending.clone();
            let msg_tx = msg_tx.clone();
            tokio::spawn(async move {
                while let Some(line) = lines.next_line().await {
                    let text = match line {
                        Line::Text(t) => t,
                        Line::Oversize { len: n } => {
                            tracing::warn!(
                                "codex app-server sent an oversize line ({n} bytes); skipped"
                            );
                            continue;
                        }
                        Line::InvalidUtf8 => {
                            tracing::warn!("codex app-server sent a non-UTF-8 line; skipped");
                            continue;
                        }
                    };
                    if text.trim().is_empty() {
                        continue;
                    }
                    match rpc::parse_line(&text) {
                        Ok(Incoming::Response { id, result }) => {
                            let waiter = pending.lock().ok().and_then(|mut p| p.remove(&id));
                            match waiter {
                                Some(tx) => {
                                    let _ = tx.send(result);
                                }
                                None => tracing::debug!(id, "response to a forgotten request"),
                            }
                        }
                        Ok(Incoming::Notification { method, params }) => {
                            let _ = msg_tx.send(ServerMessage::Notification { method, params });
                        }
                        Ok(Incoming::Request { id, method, params }) => {
                            let _ = msg_tx.send(ServerMessage::Request { id, method, params });
                        }
                        Err(e) => tracing::warn!("unreadable line from codex app-server: {e}"),
                    }
                }
                // Fail every waiting call.
                if let Ok(mut p) = pending.lock() {
                    p.clear();
                }
                let _ = eof_tx.send(());
            });
        }

        // Keeper.
        let (stop_tx, stop_rx) = oneshot::channel::<oneshot::Sender<()>>();
        let keeper_stderr = stderr.clone();
        tokio::spawn(keep(child, stop_rx, eof_rx, msg_tx, keeper_stderr));

        Ok(AppServer {
            rpc: RpcHandle {
                outbox,
                pending,
                next_id: Arc::new(AtomicU64::new(1)),
            },
            messages,
            process: ProcessControl {
                stop: Some(stop_tx),
                pid,
                stderr,
            },
        })
    }
}

/// Owns the child until it exits or is asked to stop.
async fn keep(
    mut child: ManagedChild,
    stop_rx: oneshot::Receiver<oneshot::Sender<()>>,
    mut eof_rx: oneshot::Receiver<()>,
    msg_tx: mpsc::UnboundedSender<ServerMessage>,
    stderr: StderrTail,
) {
    let mut eof_seen = false;
    let status = tokio::select! {
        stop = stop_rx => {
            match stop {
                Ok(done) => {
                    child.shutdown().await;
                    let _ = done.send(());
                }
                // The session was dropped without a close: no grace.
                Err(_) => child.kill_now(),
            }
            return;
        }
        status = child.wait() => status.ok().map(|s| s.to_string()),
        _ = &mut eof_rx => {
            eof_seen = true;
            match tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
                Ok(Ok(s)) => Some(s.to_string()),
                _ => None,
            }
        }
    };
    // The leader is gone (or its stdout is): whatever it left in its group (the native binary
    // behind the npm launcher, the code-mode host) goes too, which also closes stdout.
    child.kill_now();
    if !eof_seen {
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut eof_rx).await;
    }
    // Give the stderr reader a moment to take the last lines.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let _ = msg_tx.send(ServerMessage::Exited {
        status,
        stderr: stderr.text(),
    });
}
