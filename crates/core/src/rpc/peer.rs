//! The peer: one writer task (bounded queue), one reader task, the table of waiting calls.
//!
//! A peer is dead once its agent's output ended, its process exited or writing to it failed,
//! whichever comes first: from then on every waiting call has failed, and a new call, a
//! notification or a call still waiting for room in the queue fails at once.

use super::reader::read;
use super::writer::{watch_exit, write, Outgoing};
use super::{Dialect, Inbound, RpcError};
use crate::agent_process::ExitInfo;
use crate::codec::{BoundedLineCodec, Line};
use crate::supervisor::StdoutLines;
use async_trait::async_trait;
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// Where the peer reads the agent's lines from.
#[async_trait]
pub trait LineSource: Send + 'static {
    /// The next line; `None` at end of input.
    async fn next_line(&mut self) -> Option<Line>;
}

#[async_trait]
impl LineSource for StdoutLines {
    async fn next_line(&mut self) -> Option<Line> {
        StdoutLines::next_line(self).await
    }
}

#[async_trait]
impl<R: AsyncRead + Unpin + Send + 'static> LineSource for FramedRead<R, BoundedLineCodec> {
    async fn next_line(&mut self) -> Option<Line> {
        match self.next().await {
            Some(Ok(line)) => Some(line),
            Some(Err(e)) => {
                tracing::warn!("reading from the agent failed: {e}");
                None
            }
            None => None,
        }
    }
}

/// Why a call to the agent failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PeerError {
    #[error("{peer} answered `{method}` with an error: {error}")]
    Rpc {
        peer: String,
        method: String,
        error: RpcError,
    },
    #[error("{peer} is not running ({reason}); `{method}` was not answered")]
    Closed {
        peer: String,
        method: String,
        reason: String,
    },
    #[error("{peer} did not answer `{method}` within {} s", .limit.as_secs_f64())]
    Timeout {
        peer: String,
        method: String,
        limit: Duration,
    },
}

impl PeerError {
    /// The agent's own error object, when it answered with one.
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            PeerError::Rpc { error, .. } => Some(error),
            PeerError::Closed { .. } | PeerError::Timeout { .. } => None,
        }
    }
}

/// How a peer runs.
#[derive(Debug, Clone)]
pub struct PeerOptions {
    /// Names the agent in errors and logs (`codex app-server`, `gemini`...).
    pub name: String,
    /// Lines waiting for the writer, at most.
    pub outbox: usize,
    /// Limit of [`PeerHandle::call`].
    pub call_timeout: Duration,
    /// Fires to stop reading (the agent exited but a grandchild keeps its stdout open).
    pub stop_reading: CancellationToken,
    /// The process's exit, reported to [`Inbound::closed`] after the last line.
    pub exit: Option<watch::Receiver<Option<ExitInfo>>>,
    /// Cancelled by the reader at end of input (the process owner then stops the process).
    pub eof: Option<CancellationToken>,
    /// The pid of the bridge's child behind the pipes (the agent's guard): a call made after it
    /// exited but before its exit was taken in fails at once (see `child.rs`).
    pub child: Option<u32>,
}

impl PeerOptions {
    pub fn new(name: impl Into<String>) -> Self {
        PeerOptions {
            name: name.into(),
            outbox: 256,
            call_timeout: Duration::from_secs(30),
            stop_reading: CancellationToken::new(),
            exit: None,
            eof: None,
            child: None,
        }
    }
}

struct Waiting {
    method: String,
    tx: oneshot::Sender<Result<Value, PeerError>>,
}

#[derive(Default)]
struct Calls {
    waiting: HashMap<String, Waiting>,
    /// Why the peer is dead, once it is: new calls fail at once.
    closed: Option<String>,
}

pub(super) struct Shared {
    pub(super) name: String,
    pub(super) dialect: Arc<dyn Dialect>,
    outbox: mpsc::Sender<Outgoing>,
    calls: Mutex<Calls>,
    next_id: AtomicU64,
    call_timeout: Duration,
    /// Cancelled when the peer dies: stops the writer and whoever waits for room in its queue.
    dead: CancellationToken,
    child: Option<u32>,
}

/// A cloneable handle for talking to the agent.
#[derive(Clone)]
pub struct PeerHandle {
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for PeerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerHandle")
            .field("name", &self.shared.name)
            .finish_non_exhaustive()
    }
}

/// The key of an id in the table of waiting calls (ids compare as JSON).
fn key(id: &Value) -> String {
    id.to_string()
}

/// Starts peers.
pub struct Peer;

impl Peer {
    /// Starts the writer and reader tasks over `input` (the agent's stdout) and `output` (its
    /// stdin); the agent's notifications and requests go to `inbound`.
    pub fn start<W>(
        input: impl LineSource,
        output: W,
        dialect: Arc<dyn Dialect>,
        inbound: Arc<dyn Inbound>,
        options: PeerOptions,
    ) -> PeerHandle
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(options.outbox.max(1));
        let dead = CancellationToken::new();
        let handle = PeerHandle {
            shared: Arc::new(Shared {
                name: options.name.clone(),
                dialect,
                outbox: tx,
                calls: Mutex::new(Calls::default()),
                next_id: AtomicU64::new(1),
                call_timeout: options.call_timeout,
                dead: dead.clone(),
                child: options.child,
            }),
        };
        let weak = Arc::downgrade(&handle.shared);
        tokio::spawn(write(output, rx, weak.clone(), dead));
        if let Some(exit) = options.exit.clone() {
            tokio::spawn(watch_exit(exit, weak));
        }
        tokio::spawn(read(input, handle.clone(), inbound, options));
        handle
    }
}

impl PeerHandle {
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// True once the peer is dead: its output ended, its process exited or writing failed.
    pub fn is_closed(&self) -> bool {
        self.shared
            .calls
            .lock()
            .map(|c| c.closed.is_some())
            .unwrap_or(true)
    }

    /// Sends a request and waits for its answer, within the peer's call timeout.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, PeerError> {
        self.call_within(method, params, self.shared.call_timeout)
            .await
    }

    /// Sends a request and waits for its answer within `limit` (waiting for room in the
    /// writer's queue counts).
    pub async fn call_within(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, PeerError> {
        let (id, rx) = self.register(method)?;
        let call = async {
            self.enqueue_request(&id, method, &params).await?;
            rx.await.map_err(|_| self.closed_error(method))?
        };
        match tokio::time::timeout(limit, call).await {
            Ok(answer) => answer,
            Err(_) => {
                self.forget(&id);
                Err(PeerError::Timeout {
                    peer: self.shared.name.clone(),
                    method: method.to_string(),
                    limit,
                })
            }
        }
    }

    /// Sends a request; its answer arrives on the returned receiver (drop it to ignore it).
    /// Fails at once when the agent is gone.
    pub async fn start_call(
        &self,
        method: &str,
        params: &Value,
    ) -> Result<(Value, oneshot::Receiver<Result<Value, PeerError>>), PeerError> {
        let (id, rx) = self.register(method)?;
        self.enqueue_request(&id, method, params).await?;
        Ok((id, rx))
    }

    /// Allocates an id and enters the call in the table of waiting calls, unless the peer is
    /// dead.
    fn register(
        &self,
        method: &str,
    ) -> Result<(Value, oneshot::Receiver<Result<Value, PeerError>>), PeerError> {
        let n = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let id = self.shared.dialect.request_id(n, method);
        let (tx, rx) = oneshot::channel();
        let mut calls = self
            .shared
            .calls
            .lock()
            .map_err(|_| self.closed_error(method))?;
        let exited = || {
            self.shared
                .child
                .is_some_and(super::child::exited_unreaped)
                .then(|| "its process has exited".to_string())
        };
        if let Some(reason) = calls.closed.clone().or_else(exited) {
            return Err(PeerError::Closed {
                peer: self.shared.name.clone(),
                method: method.to_string(),
                reason,
            });
        }
        calls.waiting.insert(
            key(&id),
            Waiting {
                method: method.to_string(),
                tx,
            },
        );
        Ok((id, rx))
    }

    /// Queues a registered request for the writer; fails (and forgets it) when the peer dies
    /// first.
    async fn enqueue_request(
        &self,
        id: &Value,
        method: &str,
        params: &Value,
    ) -> Result<(), PeerError> {
        tracing::debug!(peer = %self.shared.name, method, %id, "request");
        let line = self.shared.dialect.encode_request(id, method, params);
        if self.enqueue(Outgoing::Line(line)).await {
            Ok(())
        } else {
            self.forget(id);
            Err(self.closed_error(method))
        }
    }

    /// Puts one message in the writer's queue, waiting for room; false when the peer is dead
    /// (or dies while waiting) or its writer is gone.
    async fn enqueue(&self, msg: Outgoing) -> bool {
        if self.shared.dead.is_cancelled() {
            return false;
        }
        tokio::select! {
            biased;
            _ = self.shared.dead.cancelled() => false,
            sent = self.shared.outbox.send(msg) => sent.is_ok(),
        }
    }

    /// Forgets a waiting call (its answer, if it comes, is dropped).
    pub fn forget(&self, id: &Value) {
        if let Ok(mut calls) = self.shared.calls.lock() {
            calls.waiting.remove(&key(id));
        }
    }

    /// Sends a notification; fails at once when the peer is dead.
    pub async fn notify(&self, method: &str, params: Option<&Value>) -> Result<(), PeerError> {
        let line = self.shared.dialect.encode_notification(method, params);
        if self.enqueue(Outgoing::Line(line)).await {
            Ok(())
        } else {
            Err(self.closed_error(method))
        }
    }

    /// Answers a request of the agent by its id (one taken over with
    /// [`Responder::detach`](super::Responder::detach)).
    pub async fn respond_to(&self, id: &Value, result: Result<Value, RpcError>) {
        self.respond(id, &result).await;
    }

    /// Answers a request of the agent.
    pub(super) async fn respond(&self, id: &Value, result: &Result<Value, RpcError>) {
        let line = self.shared.dialect.encode_response(id, result);
        let _ = self.enqueue(Outgoing::Line(line)).await;
    }

    /// Answers without waiting (from a destructor): queued when there is room, else from a
    /// task of its own.
    pub(super) fn respond_now(&self, id: &Value, result: &Result<Value, RpcError>) {
        if self.shared.dead.is_cancelled() {
            return;
        }
        let line = self.shared.dialect.encode_response(id, result);
        match self.shared.outbox.try_send(Outgoing::Line(line)) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
            Err(mpsc::error::TrySendError::Full(msg)) => {
                let peer = self.clone();
                if let Ok(rt) = tokio::runtime::Handle::try_current() {
                    rt.spawn(async move {
                        let _ = peer.enqueue(msg).await;
                    });
                }
            }
        }
    }

    /// Writes one raw line (for dialects with messages outside request/response).
    pub async fn send_line(&self, line: String) -> Result<(), PeerError> {
        if self.enqueue(Outgoing::Line(line)).await {
            Ok(())
        } else {
            Err(self.closed_error("write"))
        }
    }

    /// Closes the agent's stdin once every line queued before is written (a dead peer's writer
    /// has closed it already).
    pub async fn close_input(&self) {
        let _ = self.enqueue(Outgoing::Close).await;
    }

    fn closed_error(&self, method: &str) -> PeerError {
        let reason = self
            .shared
            .calls
            .lock()
            .ok()
            .and_then(|c| c.closed.clone())
            .unwrap_or_else(|| "its input is closed".to_string());
        PeerError::Closed {
            peer: self.shared.name.clone(),
            method: method.to_string(),
            reason,
        }
    }

    /// Marks the peer dead and fails every waiting call.
    pub(super) fn close_calls(&self, reason: &str) {
        self.shared.close_calls(reason);
    }

    /// Routes an answer to its caller.
    pub(super) fn resolve(&self, id: &Value, result: Result<Value, RpcError>) {
        let waiting = self
            .shared
            .calls
            .lock()
            .ok()
            .and_then(|mut c| c.waiting.remove(&key(id)));
        match waiting {
            Some(w) => {
                let answer = result.map_err(|error| PeerError::Rpc {
                    peer: self.shared.name.clone(),
                    method: w.method,
                    error,
                });
                let _ = w.tx.send(answer);
            }
            None => tracing::debug!(peer = %self.shared.name, %id, "answer to a forgotten request"),
        }
    }
}

impl Shared {
    /// Marks the peer dead (the first reason stays) and fails every waiting call.
    pub(super) fn close_calls(&self, reason: &str) {
        let (reason, waiting): (String, Vec<Waiting>) = match self.calls.lock() {
            Ok(mut calls) => {
                let reason = calls
                    .closed
                    .get_or_insert_with(|| reason.to_string())
                    .clone();
                (reason, calls.waiting.drain().map(|(_, w)| w).collect())
            }
            Err(_) => (reason.to_string(), Vec::new()),
        };
        self.dead.cancel();
        for w in waiting {
            let error = PeerError::Closed {
                peer: self.name.clone(),
                method: w.method,
                reason: reason.clone(),
            };
            let _ = w.tx.send(Err(error));
        }
    }
}
