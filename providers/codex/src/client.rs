//! One `codex app-server` process and its JSON-RPC multiplexer.
//!
//! Three tasks per process:
//! - the writer drains the queue of outgoing lines into the CLI's stdin. That queue is unbounded
//!   on purpose: it holds one line per request we make or per server request we answer, and
//!   the reader must never wait on the writer (the CLI may itself be blocked writing stdout);
//! - the reader answers waiting calls at once and hands everything else (notifications, server
//!   requests, finally the exit) to the process's [`MessageHandler`], in order, awaiting it.
//!   There is no queue between the CLI and the handler: a handler that waits (the session's
//!   bounded sink is full) stops the reader, and the pipe's backpressure stops the CLI;
//! - the keeper owns the [`ManagedChild`]: it notices the CLI's exit (then kills the rest of the
//!   process group, e.g. the native binary behind the npm launcher), tells the reader, and
//!   performs the shutdown.
//!
//! A call's answer can sit behind a waiting handler. That cannot deadlock a session: the core
//! keeps draining the sink while an `AgentSession` method runs (and always between them), and
//! during `Provider::open` only a few deduplicated warnings reach the sink (which holds `SESSION_QUEUE` events).

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

/// How long the reader still reads stdout after the CLI exited (a grandchild outside the
/// process group may hold it open).
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What the reader hands to the handler: everything that is not a response.
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

/// Takes what an app-server sends besides responses, one message at a time, on the reader
/// task. `Exited` comes last. Waiting here is backpressure on the CLI.
#[async_trait::async_trait]
pub trait MessageHandler: Send + Sync + 'static {
    async fn handle(&self, rpc: &RpcHandle, message: ServerMessage);
}

/// For short-lived app-servers (catalog, session list): logs and drops notifications, refuses
/// server requests.
#[derive(Debug, Default, Clone, Copy)]
pub struct Discard;

#[async_trait::async_trait]
impl MessageHandler for Discard {
    async fn handle(&self, rpc: &RpcHandle, message: ServerMessage) {
        match message {
            ServerMessage::Notification { method, .. } => {
                tracing::debug!(%method, "codex notification ignored (no session)");
            }
            ServerMessage::Request { id, method, .. } => {
                tracing::debug!(%method, "codex server request refused (no session)");
                rpc.respond_error(&id, -32601, &format!("no session to handle `{method}`"));
            }
            ServerMessage::Exited { .. } => {}
        }
    }
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

/// A started app-server: the request handle and the process control.
pub struct AppServer {
    pub rpc: RpcHandle,
    pub process: ProcessControl,
}

impl AppServer {
    /// Spawns the CLI; `handler` takes its notifications and server requests.
    pub fn spawn(
        spec: &SpawnSpec,
        handler: Arc<dyn MessageHandler>,
    ) -> Result<AppServer, SpawnError> {
        let mut child = ManagedChild::spawn(spec)?;
        let pid = child.pid();
        let stderr = child.stderr_tail_handle();
        let stdin = child.take_stdin();
        let stdout = child.take_stdout_lines();
        let (outbox, mut out_rx) = mpsc::unbounded_channel::<Outgoing>();
        let rpc = RpcHandle {
            outbox,
            pending: Arc::new(Mutex::new(HashMap::new())),
            next_id: Arc::new(AtomicU64::new(1)),
        };

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

        // Reader (it also reports the exit, after the last line).
        let (eof_tx, eof_rx) = oneshot::channel::<()>();
        let (exit_tx, exit_rx) = oneshot::channel::<Option<String>>();
        tokio::spawn(read(
            stdout,
            rpc.clone(),
            handler,
            eof_tx,
            exit_rx,
            stderr.clone(),
        ));

        // Keeper.
        let (stop_tx, stop_rx) = oneshot::channel::<oneshot::Sender<()>>();
        tokio::spawn(keep(child, stop_rx, eof_rx, exit_tx));

        Ok(AppServer {
            rpc,
            process: ProcessControl {
                stop: Some(stop_tx),
                pid,
                stderr,
            },
        })
    }
}

/// What the reader waits for next.
enum Next {
    Line(Option<Line>),
    Exited(Option<String>),
    GiveUp,
}

/// Reads stdout until EOF (or `EXIT_GRACE` after the CLI exited), then reports the exit.
async fn read(
    mut stdout: Option<agent_bridge_core::supervisor::StdoutLines>,
    rpc: RpcHandle,
    handler: Arc<dyn MessageHandler>,
    eof_tx: oneshot::Sender<()>,
    mut exit_rx: oneshot::Receiver<Option<String>>,
    stderr: StderrTail,
) {
    let mut status: Option<Option<String>> = None;
    let grace = tokio::time::sleep(Duration::MAX);
    tokio::pin!(grace);
    loop {
        let next = match stdout.as_mut() {
            None => Next::Line(None),
            Some(lines) => tokio::select! {
                biased;
                line = lines.next_line() => Next::Line(line),
                s = &mut exit_rx, if status.is_none() => Next::Exited(s.ok().flatten()),
                _ = &mut grace, if status.is_some() => Next::GiveUp,
            },
        };
        match next {
            Next::Line(Some(line)) => deliver(line, &rpc, handler.as_ref()).await,
            Next::Line(None) => break,
            Next::Exited(s) => {
                status = Some(s);
                grace
                    .as_mut()
                    .reset(tokio::time::Instant::now() + EXIT_GRACE);
            }
            Next::GiveUp => {
                tracing::warn!(
                    "codex app-server exited but its stdout stayed open; stopped reading"
                );
                break;
            }
        }
    }
    // Fail every waiting call.
    if let Ok(mut p) = rpc.pending.lock() {
        p.clear();
    }
    let _ = eof_tx.send(());
    let status = match status {
        Some(s) => s,
        // The keeper answers within ~0.5 s of the EOF (or drops the sender on a stop).
        None => exit_rx.await.ok().flatten(),
    };
    // Give the stderr reader a moment to take the last lines.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let message = ServerMessage::Exited {
        status,
        stderr: stderr.text(),
    };
    handler.handle(&rpc, message).await;
}

/// Routes one stdout line: a response to its caller, anything else to the handler.
async fn deliver(line: Line, rpc: &RpcHandle, handler: &dyn MessageHandler) {
    let text = match line {
        Line::Text(t) => t,
        Line::Oversize { len: n } => {
            tracing::warn!("codex app-server sent an oversize line ({n} bytes); skipped");
            return;
        }
        Line::InvalidUtf8 => {
            tracing::warn!("codex app-server sent a non-UTF-8 line; skipped");
            return;
        }
    };
    if text.trim().is_empty() {
        return;
    }
    match rpc::parse_line(&text) {
        Ok(Incoming::Response { id, result }) => {
            let waiter = rpc.pending.lock().ok().and_then(|mut p| p.remove(&id));
            match waiter {
                Some(tx) => {
                    let _ = tx.send(result);
                }
                None => tracing::debug!(id, "response to a forgotten request"),
            }
        }
        Ok(Incoming::Notification { method, params }) => {
            let message = ServerMessage::Notification { method, params };
            handler.handle(rpc, message).await;
        }
        Ok(Incoming::Request { id, method, params }) => {
            let message = ServerMessage::Request { id, method, params };
            handler.handle(rpc, message).await;
        }
        Err(e) => tracing::warn!("unreadable line from codex app-server: {e}"),
    }
}

/// Owns the child until it exits or is asked to stop; tells the reader the exit status.
async fn keep(
    mut child: ManagedChild,
    stop_rx: oneshot::Receiver<oneshot::Sender<()>>,
    eof_rx: oneshot::Receiver<()>,
    exit_tx: oneshot::Sender<Option<String>>,
) {
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
        _ = eof_rx => {
            match tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
                Ok(Ok(s)) => Some(s.to_string()),
                _ => None,
            }
        }
    };
    // The leader is gone (or its stdout is): whatever it left (the native binary behind the npm
    // launcher, the code-mode host) goes too, which also closes stdout. A reaped leader's guard
    // did that before it exited; a leader that still runs is killed now.
    child.kill_now();
    let _ = exit_tx.send(status);
}
