//! The one owner of an agent's process and the JSON-RPC peer over its pipes.

use super::errors::{call_error, spawn_error};
use super::Liveness;
use crate::agent_process::AgentProcess;
use crate::rpc::{Dialect, Inbound, PeerError, PeerHandle};
use crate::scope::ProcessScope;
use crate::supervisor::SpawnSpec;
use agent_bridge_protocol::ProviderError;
use std::sync::Arc;
use std::time::Duration;

/// How long a failed start waits for the process to exit (and its stderr to close) before it
/// is stopped: its last words are the diagnostic.
pub const START_EXIT_WAIT: Duration = Duration::from_secs(1);

/// How long a failed call waits for the agent's exit to report it (its output may end up to
/// `EOF_EXIT_GRACE` before the process is made to go).
pub const CALL_EXIT_WAIT: Duration = Duration::from_secs(2);

/// How to start one runtime.
pub struct RuntimeLaunch<'a> {
    pub spec: &'a SpawnSpec,
    /// Names the agent in errors and logs ("Claude Code", "codex app-server").
    pub label: &'a str,
    /// How to install the CLI, for a "not found" error.
    pub install: &'a str,
    pub dialect: Arc<dyn Dialect>,
    /// Longest a call may wait for its answer unless it says otherwise.
    pub call_timeout: Duration,
    /// The session's process scope, which the process joins (a close waits for it).
    pub scope: Option<&'a ProcessScope>,
}

/// A running agent: its process, the peer over its pipes, and whether its exit would be a
/// failure.
pub struct AgentRuntime {
    pub rpc: PeerHandle,
    pub process: AgentProcess,
    pub liveness: Liveness,
}

impl AgentRuntime {
    /// Spawns the agent; what it sends goes to `inbound` (built with a clone of `liveness`).
    pub fn spawn(
        launch: RuntimeLaunch<'_>,
        inbound: Arc<dyn Inbound>,
        liveness: Liveness,
    ) -> Result<AgentRuntime, ProviderError> {
        let (process, rpc) = AgentProcess::spawn_peer(
            launch.spec,
            launch.label,
            launch.dialect,
            inbound,
            launch.call_timeout,
        )
        .map_err(|e| spawn_error(e, launch.install))?;
        if let Some(scope) = launch.scope {
            process.register(scope);
        }
        Ok(AgentRuntime {
            rpc,
            process,
            liveness,
        })
    }

    pub fn label(&self) -> &str {
        self.process.label()
    }

    /// The agent's last stderr lines.
    pub fn stderr(&self) -> String {
        self.process.stderr_tail()
    }

    /// A failed call, with the agent's last stderr lines.
    pub fn error(&self, e: PeerError) -> ProviderError {
        call_error(e, &self.stderr())
    }

    /// A call that failed. When the agent is gone its exit says why (status and last stderr
    /// lines, as the runtime failure does), waited for up to `CALL_EXIT_WAIT`.
    pub async fn call_failure(&self, e: PeerError) -> ProviderError {
        if let PeerError::Closed { .. } = e {
            let exit = tokio::time::timeout(CALL_EXIT_WAIT, self.process.wait_exit()).await;
            if let Ok(Some(exit)) = exit {
                if !exit.expected {
                    return exit.error(self.label());
                }
            }
        }
        self.error(e)
    }

    /// A call of the start (a handshake) failed: the agent is given [`START_EXIT_WAIT`] to exit
    /// (it usually is exiting: a bad argument, a conversation it cannot find) so its stderr is
    /// complete, then stopped. The error carries those last lines.
    pub async fn failed_start(&self, e: PeerError) -> ProviderError {
        let stderr = self.last_words().await;
        call_error(e, &stderr)
    }

    /// The agent's last stderr lines once it has exited: it is given [`START_EXIT_WAIT`] to
    /// exit (and its stderr to close), then stopped.
    pub async fn last_words(&self) -> String {
        let exited = tokio::time::timeout(START_EXIT_WAIT, self.process.wait_exit())
            .await
            .ok()
            .flatten();
        self.liveness.close();
        self.process.kill().await;
        match exited {
            Some(exit) => exit.stderr,
            None => self.stderr(),
        }
    }

    /// Stops the agent: its stdin is closed (agents leave on end of input), then its process
    /// group is stopped (TERM, KILL); after `limit` it is killed. Its exit is expected.
    pub async fn shutdown(&self, limit: Duration) {
        self.liveness.close();
        self.process.expect_exit();
        self.rpc.close_input().await;
        if tokio::time::timeout(limit, self.process.stop())
            .await
            .is_err()
        {
            self.process.kill().await;
        }
    }

    /// Stops the agent at once (SIGKILL to its group) without waiting; its exit is expected.
    pub fn kill_now(&self) {
        self.liveness.close();
        self.process.kill_now();
    }
}
