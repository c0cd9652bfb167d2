//! An open that lands on a shared process in its last moments: the session joined a process
//! that was alive, and it died (a crash, a `kill -9`) before the session's native session was
//! set up. The open is then tried once more, on the new process the pool starts, instead of
//! failing: the death was another session's trouble, not this open's. A process of the
//! session's own that dies while opening fails the open at once (its own CLI failed).

use agent_bridge_protocol::{ErrorCode, ProviderError};
use std::future::Future;

/// Runs `attempt`; when `shared` and it failed because the agent process exited
/// (`runtime_exited`), runs it once more and returns that result.
pub async fn open_again_if_died<T, F, Fut>(
    shared: bool,
    agent: &str,
    attempt: F,
) -> Result<T, ProviderError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T, ProviderError>>,
{
    match attempt().await {
        Err(e) if shared && e.has_code(&ErrorCode::RuntimeExited) => {
            tracing::warn!(
                "the shared {agent} process exited while a session opened on it ({}); opening it on a new one",
                e.message
            );
            attempt().await
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn died() -> ProviderError {
        ProviderError::new("agent is not running (its output ended)")
            .with_code(ErrorCode::RuntimeExited)
    }

    #[tokio::test]
    async fn a_shared_process_that_died_under_the_open_gets_one_more_attempt() {
        let tries = AtomicU32::new(0);
        let r = open_again_if_died(true, "x", || async {
            match tries.fetch_add(1, Ordering::SeqCst) {
                0 => Err(died()),
                _ => Ok(7),
            }
        })
        .await;
        assert_eq!(r.ok(), Some(7));
        assert_eq!(tries.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn only_one_more_and_only_for_a_death_on_a_shared_process() {
        let tries = AtomicU32::new(0);
        let r: Result<(), _> = open_again_if_died(true, "x", || async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(died())
        })
        .await;
        assert!(r.is_err());
        assert_eq!(tries.load(Ordering::SeqCst), 2, "twice at most");

        let own = AtomicU32::new(0);
        let r: Result<(), _> = open_again_if_died(false, "x", || async {
            own.fetch_add(1, Ordering::SeqCst);
            Err(died())
        })
        .await;
        assert!(r.is_err());
        assert_eq!(own.load(Ordering::SeqCst), 1, "its own process: no retry");

        let refused = AtomicU32::new(0);
        let r: Result<(), _> = open_again_if_died(true, "x", || async {
            refused.fetch_add(1, Ordering::SeqCst);
            Err(ProviderError::new("bad model").with_code(ErrorCode::AgentError))
        })
        .await;
        assert!(r.is_err());
        assert_eq!(
            refused.load(Ordering::SeqCst),
            1,
            "the agent's own refusal: no retry"
        );
    }
}
