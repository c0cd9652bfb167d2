//! One agent CLI process, owned by the core: spawned through the guard, its last stderr lines
//! kept (a bounded ring) for diagnostics, its exit detected and published, and stopped by
//! stdin close → SIGTERM → SIGKILL with the transport's grace times.
//!
//! A keeper task owns the [`ManagedChild`], whose `wait` sees the exit *before* reaping the
//! leader and SIGKILLs whatever is left in the group — the native binary behind an npm
//! launcher, or the CLI itself when its guard was killed — while the group id cannot have been
//! reused; only then is the leader reaped.
//! Providers never hold children themselves: they get the pipes (or a [`PeerHandle`] over
//! them) and this handle.

use crate::rpc::{Dialect, Inbound, Peer, PeerHandle, PeerOptions};
use crate::supervisor::{ManagedChild, SpawnError, SpawnSpec, StderrTail, StdoutLines};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::process::ChildStdin;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

/// How long the agent's stdout is still read after the process exited (a grandchild outside
/// the group may hold it open).
pub const EXIT_READ_GRACE: Duration = Duration::from_secs(2);
/// How long after the exit the stderr reader may take to see the end of stderr.
pub const STDERR_CLOSE_LIMIT: Duration = Duration::from_millis(250);
/// How long after its stdout closed a process may still run before its group is killed.
pub const EOF_EXIT_GRACE: Duration = Duration::from_millis(500);

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// Human-readable status (`exit status: 1`, `signal: 9 (SIGKILL)`, or unknown).
    pub status: String,
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// The last stderr lines.
    pub stderr: String,
    /// The exit was asked for (a stop, a close): not a failure.
    pub expected: bool,
}

impl ExitInfo {
    fn new(status: Option<ExitStatus>, stderr: String, expected: bool) -> Self {
        use std::os::unix::process::ExitStatusExt;
        ExitInfo {
            status: status
                .map(|s| s.to_string())
                .unwrap_or_else(|| "unknown exit status".into()),
            code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| s.signal()),
            stderr,
            expected,
        }
    }

    /// The runtime failure this exit means: "`label` exited unexpectedly (status)", with the
    /// stderr tail as diagnostic.
    pub fn error(&self, label: &str) -> ProviderError {
        let error = ProviderError::new(format!("{label} exited unexpectedly ({})", self.status))
            .with_code(ErrorCode::RuntimeExited);
        if self.stderr.is_empty() {
            error
        } else {
            error.with_diagnostic(self.stderr.clone())
        }
    }
}

/// The pipes of a started process.
pub struct AgentIo {
    pub stdin: ChildStdin,
    pub stdout: StdoutLines,
}

/// A running agent process.
#[derive(Debug)]
pub struct AgentProcess {
    label: String,
    pid: Option<u32>,
    stderr: StderrTail,
    exit: watch::Receiver<Option<ExitInfo>>,
    stop: std::sync::Mutex<Option<oneshot::Sender<oneshot::Sender<()>>>>,
    expected: Arc<AtomicBool>,
    /// Cancelled by the reader at end of input.
    eof: CancellationToken,
    /// Cancelled by the keeper `EXIT_READ_GRACE` after the exit.
    stop_reading: CancellationToken,
}

impl AgentProcess {
    /// Spawns `spec` (through the guard when enabled); `label` names it in errors ("Claude
    /// Code", "codex app-server").
    pub fn spawn(spec: &SpawnSpec, label: &str) -> Result<(AgentProcess, AgentIo), SpawnError> {
        let mut child = ManagedChild::spawn(spec)?;
        let io_error = |what: &str| SpawnError::Io {
            program: spec.program.clone(),
            source: std::io::Error::other(format!("no {what} pipe")),
        };
        let stdin = child.take_stdin().ok_or_else(|| io_error("stdin"))?;
        let stdout = child
            .take_stdout_lines()
            .ok_or_else(|| io_error("stdout"))?;
        let (exit_tx, exit_rx) = watch::channel(None);
        let (stop_tx, stop_rx) = oneshot::channel();
        let process = AgentProcess {
            label: label.to_string(),
            pid: child.pid(),
            stderr: child.stderr_tail_handle(),
            exit: exit_rx,
            stop: std::sync::Mutex::new(Some(stop_tx)),
            expected: Arc::new(AtomicBool::new(false)),
            eof: CancellationToken::new(),
            stop_reading: CancellationToken::new(),
        };
        let keeper = Keeper {
            child,
            stderr: process.stderr.clone(),
            expected: process.expected.clone(),
            eof: process.eof.clone(),
            stop_reading: process.stop_reading.clone(),
            exit_tx,
        };
        tokio::spawn(keeper.run(stop_rx));
        Ok((process, AgentIo { stdin, stdout }))
    }

    /// Spawns `spec` and starts a JSON-RPC peer over its pipes. The peer's
    /// [`Inbound::closed`] gets the exit after the last line.
    pub fn spawn_peer(
        spec: &SpawnSpec,
        label: &str,
        dialect: Arc<dyn Dialect>,
        inbound: Arc<dyn Inbound>,
        call_timeout: Duration,
    ) -> Result<(AgentProcess, PeerHandle), SpawnError> {
        let (process, io) = AgentProcess::spawn(spec, label)?;
        let mut options = process.peer_options();
        options.call_timeout = call_timeout;
        let peer = Peer::start(io.stdout, io.stdin, dialect, inbound, options);
        Ok((process, peer))
    }

    /// Options for a peer over this process's pipes: its name, exit and read limits.
    pub fn peer_options(&self) -> PeerOptions {
        let mut options = PeerOptions::new(self.label.clone());
        options.stop_reading = self.stop_reading.clone();
        options.exit = Some(self.exit.clone());
        options.eof = Some(self.eof.clone());
        options.child = self.pid;
        options
    }

    /// Registers the process in a session's scope: a close of that session is answered only
    /// once it is gone.
    pub fn register(&self, scope: &crate::scope::ProcessScope) {
        if let Some(pid) = self.pid {
            scope.register(pid);
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The last stderr lines.
    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// The stderr lines as they come ([`StderrTail::subscribe`]).
    pub fn stderr_lines(&self) -> StderrTail {
        self.stderr.clone()
    }

    /// Marks the coming exit as asked for (the session is closing).
    pub fn expect_exit(&self) {
        self.expected.store(true, Ordering::SeqCst);
    }

    /// The exit, once the process is gone.
    pub fn exited(&self) -> Option<ExitInfo> {
        self.exit.borrow().clone()
    }

    /// Waits for the exit.
    pub async fn wait_exit(&self) -> Option<ExitInfo> {
        let mut rx = self.exit.clone();
        rx.wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|i| i.clone())
    }

    /// A receiver of the exit.
    pub fn exit_watch(&self) -> watch::Receiver<Option<ExitInfo>> {
        self.exit.clone()
    }

    /// Graceful stop: waits `STOP_GRACE` for the process to leave on its own (close its stdin
    /// first, e.g. [`PeerHandle::close_input`]), then SIGTERM, then SIGKILL; returns once the
    /// whole group is gone.
    pub async fn stop(&self) {
        self.expect_exit();
        if let Some(stop) = self.take_stop() {
            let (done_tx, done_rx) = oneshot::channel();
            if stop.send(done_tx).is_ok() {
                let _ = done_rx.await;
            }
        }
        let _ = self.wait_exit().await;
    }

    fn take_stop(&self) -> Option<oneshot::Sender<oneshot::Sender<()>>> {
        match self.stop.lock() {
            Ok(mut s) => s.take(),
            Err(p) => p.into_inner().take(),
        }
    }

    /// Immediate SIGKILL of the group, without waiting.
    pub fn kill_now(&self) {
        self.expect_exit();
        // Dropping the stop channel tells the keeper to kill at once.
        self.take_stop();
    }

    /// True once the process is known to be gone (or being killed).
    pub fn is_gone(&self) -> bool {
        self.exited().is_some()
    }

    /// SIGKILL of the group; returns once the process is reaped.
    pub async fn kill(&self) {
        self.kill_now();
        let _ = tokio::time::timeout(Duration::from_secs(3), self.wait_exit()).await;
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// Owns the child until it is gone.
struct Keeper {
    child: ManagedChild,
    stderr: StderrTail,
    expected: Arc<AtomicBool>,
    eof: CancellationToken,
    stop_reading: CancellationToken,
    exit_tx: watch::Sender<Option<ExitInfo>>,
}

impl Keeper {
    async fn run(mut self, stop_rx: oneshot::Receiver<oneshot::Sender<()>>) {
        enum Why {
            Stop(oneshot::Sender<()>),
            Kill,
            Exited,
            Eof,
        }
        let why = tokio::select! {
            stop = stop_rx => match stop {
                Ok(tx) => Why::Stop(tx),
                Err(_) => Why::Kill,
            },
            _ = self.child.wait() => Why::Exited,
            _ = self.eof.cancelled() => Why::Eof,
        };
        let mut done = None;
        match why {
            Why::Stop(tx) => {
                self.child.shutdown_after_stdin_closed().await;
                done = Some(tx);
            }
            Why::Kill => self.child.kill().await,
            // `wait` killed what the leader left in its group before reaping it.
            Why::Exited => {}
            Why::Eof => {
                let _ = tokio::time::timeout(EOF_EXIT_GRACE, self.child.wait()).await;
                self.child.kill().await;
            }
        }
        let status = self.child.wait().await.ok();
        // The last stderr lines are in once stderr closed (bounded: a descendant outside the
        // group may hold it open).
        self.stderr.closed_within(STDERR_CLOSE_LIMIT).await;
        let info = ExitInfo::new(
            status,
            self.stderr.text(),
            self.expected.load(Ordering::SeqCst),
        );
        tracing::debug!(status = %info.status, expected = info.expected, "agent process exited");
        let _ = self.exit_tx.send(Some(info));
        if let Some(tx) = done {
            let _ = tx.send(());
        }
        tokio::time::sleep(EXIT_READ_GRACE).await;
        self.stop_reading.cancel();
    }
}
