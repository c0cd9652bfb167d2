//! [`MockLlm`]: the server handle tests hold (start, request log, script, shutdown).

use crate::record::{Family, RecordedRequest};
use crate::script::{Script, ScriptReply, ScriptState};
use std::fs::File;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Errors of the mock server.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    #[error("cannot bind 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
    #[error("cannot open request log {path}: {source}")]
    RequestLog {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Start options.
#[derive(Debug, Default)]
pub struct MockOptions {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Appends every request (as JSON, one per line, once answered) to this file.
    pub request_log: Option<PathBuf>,
    /// Initial script.
    pub script: Option<Script>,
}

/// State shared by the handle and the connection tasks.
#[derive(Debug)]
pub(crate) struct Shared {
    pub requests: Mutex<Vec<RecordedRequest>>,
    pub script: Mutex<ScriptState>,
    /// Counts model calls (numbers the "hi! (mock reply N)" answers and response ids).
    pub model_calls: AtomicU64,
    pub request_log: Option<Mutex<File>>,
    pub changed: Notify,
    /// When the mock started (request timestamps are relative to it).
    pub started: std::time::Instant,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            requests: Mutex::default(),
            script: Mutex::default(),
            model_calls: AtomicU64::default(),
            request_log: None,
            changed: Notify::new(),
            started: std::time::Instant::now(),
        }
    }
}

/// Locks a mutex, ignoring poisoning (a panicked connection task must not break the log).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running mock LLM server on 127.0.0.1. Dropping it stops the server.
#[derive(Debug)]
pub struct MockLlm {
    shared: Arc<Shared>,
    addr: SocketAddr,
    cancel: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl MockLlm {
    /// Starts a mock on a free port.
    pub async fn start() -> Result<MockLlm, MockError> {
        Self::start_with(MockOptions::default()).await
    }

    /// Starts a mock with options.
    pub async fn start_with(options: MockOptions) -> Result<MockLlm, MockError> {
        let listener = TcpListener::bind(("127.0.0.1", options.port))
            .await
            .map_err(|source| MockError::Bind {
                port: options.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| MockError::Bind {
            port: options.port,
            source,
        })?;
        let request_log = match options.request_log {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(|source| MockError::RequestLog { path, source })?,
            )),
            None => None,
        };
        let shared = Arc::new(Shared {
            request_log,
            ..Shared::default()
        });
        if let Some(script) = options.script {
            lock(&shared.script).push(script);
        }
        let cancel = CancellationToken::new();
        let task = tokio::spawn(crate::http::accept_loop(
            listener,
            shared.clone(),
            cancel.clone(),
        ));
        tracing::debug!(%addr, "mock-llm listening");
        Ok(MockLlm {
            shared,
            addr,
            cancel,
            task: Some(task),
        })
    }

    /// The TCP port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port>` (no trailing slash; append `/v1` for OpenAI-style clients).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
    }

    /// The proxy-trap URL (same server): use as HTTP(S)_PROXY to catch outbound traffic.
    pub fn proxy_url(&self) -> String {
        self.base_url()
    }

    /// A snapshot of the request log.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Requests of one family.
    pub fn requests_of(&self, family: Family) -> Vec<RecordedRequest> {
        lock(&self.shared.requests)
            .iter()
            .filter(|r| r.family == family)
            .cloned()
            .collect()
    }

    /// Requests to the model APIs (any family).
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests)
            .iter()
            .filter(|r| r.is_model_call())
            .cloned()
            .collect()
    }

    /// Refused proxy requests (`CONNECT host:port` / absolute URIs): outbound attempts.
    pub fn proxy_refused(&self) -> Vec<RecordedRequest> {
        self.requests_of(Family::ProxyRefused)
    }

    /// Empties the request log.
    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// Adds a script's rules and steps (steps queue after those already pending).
    pub fn push_script(&self, script: Script) {
        lock(&self.shared.script).push(script);
    }

    /// Queues steps (see [`Script::steps`]).
    pub fn push_steps(&self, steps: impl IntoIterator<Item = ScriptReply>) {
        self.push_script(Script::steps(steps));
    }

    /// Steps not consumed yet.
    pub fn pending_steps(&self) -> usize {
        lock(&self.shared.script).pending_steps()
    }

    /// Waits until `pred` holds for the request log (checked on every change), or the
    /// timeout passes. Returns whether it held.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        pred: impl Fn(&[RecordedRequest]) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.shared.changed.notified();
            if pred(&lock(&self.shared.requests)) {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return pred(&lock(&self.shared.requests));
            }
        }
    }

    /// Stops accepting, closes open connections and waits for the accept task.
    pub async fn shutdown(mut self) {
        self.cancel.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}
