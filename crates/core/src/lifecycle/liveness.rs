//! Whether an exit of a runtime is a failure: only while the session uses it. Before the
//! session exists (an exit then is the open's or restart's error, reported by the call that
//! waited for it), while it closes, or when the bridge asked for the stop, an exit is
//! expected.

use crate::agent_process::ExitInfo;
use agent_bridge_protocol::{ErrorCode, ProviderError};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

const STARTING: u8 = 0;
const LIVE: u8 = 1;
const CLOSING: u8 = 2;

/// A runtime's state as far as its exit goes; cloned into its inbound.
#[derive(Debug, Clone, Default)]
pub struct Liveness {
    state: Arc<AtomicU8>,
    /// Cancelled when the runtime closes: events still waiting for room in the session's sink
    /// are dropped (nobody reads them any more).
    closed: CancellationToken,
}

impl Liveness {
    /// The session uses the runtime: from now on an exit is a runtime failure.
    pub fn go_live(&self) {
        let _ = self
            .state
            .compare_exchange(STARTING, LIVE, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Not live again (a restart is bringing the runtime back): an exit is the restart's.
    pub fn restart(&self) {
        let _ = self
            .state
            .compare_exchange(LIVE, STARTING, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// The session closes (or drops the runtime): the exit is expected.
    pub fn close(&self) {
        self.state.store(CLOSING, Ordering::SeqCst);
        self.closed.cancel();
    }

    pub fn is_live(&self) -> bool {
        self.state.load(Ordering::SeqCst) == LIVE
    }

    pub fn is_closing(&self) -> bool {
        self.state.load(Ordering::SeqCst) == CLOSING
    }

    /// Resolves once the runtime closes.
    pub async fn closed(&self) {
        self.closed.cancelled().await
    }

    /// What an end of the runtime `label` means: a runtime failure (its exit status and last
    /// stderr lines) while live and not asked for, else nothing.
    pub fn failure(&self, label: &str, exit: Option<&ExitInfo>) -> Option<ProviderError> {
        if !self.is_live() || exit.is_some_and(|e| e.expected) {
            return None;
        }
        Some(match exit {
            Some(exit) => exit.error(label),
            None => ProviderError::new(format!("{label} closed its output unexpectedly"))
                .with_code(ErrorCode::RuntimeExited),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn exit(expected: bool) -> ExitInfo {
        ExitInfo {
            status: "signal: 9 (SIGKILL)".into(),
            code: None,
            signal: Some(9),
            stderr: "boom".into(),
            expected,
        }
    }

    #[test]
    fn only_an_unasked_exit_of_a_live_runtime_fails() {
        let live = Liveness::default();
        assert_eq!(live.failure("agent", Some(&exit(false))), None, "starting");
        live.go_live();
        let failure = live
            .failure("agent", Some(&exit(false)))
            .expect("a failure");
        assert_eq!(failure.code, Some(ErrorCode::RuntimeExited));
        assert_eq!(failure.diagnostic.as_deref(), Some("boom"));
        assert!(failure.message.contains("agent exited unexpectedly"));
        assert_eq!(live.failure("agent", Some(&exit(true))), None, "asked for");
        assert!(live.failure("agent", None).is_some(), "output closed");
        live.restart();
        assert_eq!(
            live.failure("agent", Some(&exit(false))),
            None,
            "restarting"
        );
        live.go_live();
        live.close();
        assert_eq!(live.failure("agent", Some(&exit(false))), None, "closing");
        live.go_live();
        assert!(live.is_closing(), "a closed runtime does not come back");
    }
}
