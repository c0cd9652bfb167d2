//! A runtime that dies is restarted, not given up on. When the agent reports its runtime dead
//! the active turn fails (with the agent's diagnostic) and its permissions are resolved, as
//! before; a session whose agent can restart then stays open, *down*: its next prompt, command
//! or configure first restarts the runtime (resuming the native session) and says so with a
//! `session.notice`. The session ends with `session.runtime_failed` only when the agent cannot
//! restart, the restart fails, or the runtime died [`CRASH_LOOP_LIMIT`] times in a row without
//! completing a turn (a crash loop). On a shared process the deaths are the process's (its
//! launch's): one death failing N sessions counts once, and a turn completed by any session of
//! the launch resets the count.

use super::*;
use crate::agent::Restarted;
use crate::lifecycle::shared::ProcessDeaths;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ProviderNotice, Severity};

/// Deaths in a row, without a turn completing in between, after which the session is given up.
pub const CRASH_LOOP_LIMIT: u32 = 3;

/// Restart attempts before the session is given up: a CLI that fails to come back once (a
/// transient start failure) is tried once more.
const RESTART_ATTEMPTS: u32 = 2;

/// The pause between two restart attempts.
const RESTART_PAUSE: std::time::Duration = std::time::Duration::from_millis(500);

/// The end of a diagnostic, for the log.
fn tail(diagnostic: &str) -> &str {
    let mut start = diagnostic.len().saturating_sub(1000);
    while !diagnostic.is_char_boundary(start) {
        start += 1;
    }
    &diagnostic[start..]
}

/// The session's runtime health, as far as restarts go.
#[derive(Debug, Default)]
pub(super) struct Recovery {
    /// The runtime died and was not restarted yet: why.
    pub down: Option<ProviderError>,
    /// Deaths since the last completed turn.
    pub deaths_in_a_row: u32,
    /// Restarts so far (numbers the notices).
    pub restarts: u32,
    /// On a shared process: the crash-loop count of its launch.
    pub shared: Option<ProcessDeaths>,
}

impl Recovery {
    /// A turn completed: the runtime works.
    pub fn progressed(&mut self) {
        self.deaths_in_a_row = 0;
        if let Some(shared) = &self.shared {
            shared.progressed();
        }
    }
}

impl Actor {
    /// After a runtime failure was settled (turn failed, permissions resolved): keeps the
    /// session for a restart, or returns the error that ends it.
    pub(super) fn keep_for_restart(
        &mut self,
        session: &dyn AgentSession,
        error: ProviderError,
    ) -> Result<(), ProviderError> {
        self.recovery.deaths_in_a_row += 1;
        if !session.can_restart() {
            return Err(error);
        }
        let in_a_row = match session.shared_death() {
            Some(death) => {
                let in_a_row = death.deaths.died(death.serial);
                self.recovery.shared = Some(death.deaths);
                in_a_row
            }
            None => self.recovery.deaths_in_a_row,
        };
        if in_a_row >= CRASH_LOOP_LIMIT {
            return Err(ProviderError::new(format!(
                "the agent stopped {in_a_row} times in a row without completing a turn; giving up: {}",
                error.message
            ))
            .with_code(ErrorCode::CrashLoop)
            .with_diagnostic(error.diagnostic.clone().unwrap_or_default()));
        }
        tracing::warn!(session = %self.session_id, "the agent runtime stopped ({}); it restarts with the next prompt", error.message);
        self.recovery.down = Some(error);
        Ok(())
    }

    /// Restarts a runtime that is down, before a call that needs it. Ok when it runs (or was
    /// not down); an error ends the session (`session.runtime_failed`) and is what the caller
    /// answers with.
    pub(super) async fn ensure_running(
        &mut self,
        session: &mut Box<dyn AgentSession>,
    ) -> Result<(), ProviderError> {
        if let Some(error) = self.dead.as_ref() {
            return Err(not_running(error));
        }
        let Some(cause) = self.recovery.down.clone() else {
            return Ok(());
        };
        let mut restarted = self.restart_once(session).await;
        for attempt in 2..=RESTART_ATTEMPTS {
            let Err(error) = &restarted else { break };
            if error.has_code(&ErrorCode::SessionClosed) {
                break;
            }
            tracing::warn!(
                session = %self.session_id,
                attempt,
                diagnostic = %tail(error.diagnostic.as_deref().unwrap_or_default()),
                "restarting the agent failed ({}); trying again",
                error.message
            );
            tokio::time::sleep(RESTART_PAUSE).await;
            restarted = self.restart_once(session).await;
        }
        match restarted {
            Ok(how) => {
                self.recovery.down = None;
                self.recovery.restarts += 1;
                let notice = match how {
                    Restarted::Resumed => ProviderNotice {
                        id: format!("agent-restarted:{}", self.recovery.restarts),
                        severity: Severity::Warning,
                        title: "The agent was restarted".into(),
                        description: Some(format!(
                            "Its process had stopped ({}); it was started again.",
                            cause.message
                        )),
                        dismissed: None,
                    },
                    Restarted::Fresh { reason } => self.carry_over_after(&cause, &reason),
                };
                self.emit(ProviderEvent::SessionNotice {
                    session_id: self.session_id.clone(),
                    notice,
                })
                .await;
                // What the agent reported while restarting (its own notice, a new persistence
                // handle) comes next, before the call that needed the runtime.
                self.drain_queued_events().await;
                Ok(())
            }
            Err(error) if error.has_code(&ErrorCode::SessionClosed) => Err(error),
            Err(error) => {
                tracing::warn!(
                    session = %self.session_id,
                    diagnostic = %tail(error.diagnostic.as_deref().unwrap_or_default()),
                    "restarting the agent failed ({}); the session is given up",
                    error.message
                );
                let error = ProviderError::new(format!(
                    "the agent could not be restarted after it stopped ({}): {}",
                    cause.message, error.message
                ))
                .with_code(error.code.clone().unwrap_or(ErrorCode::RestartFailed))
                .with_diagnostic(error.diagnostic.clone().unwrap_or_default());
                self.recovery.down = None;
                self.give_up(error.clone()).await;
                Err(not_running(&error))
            }
        }
    }

    /// A call found the runtime gone (`runtime_exited`) before the agent reported its death: a
    /// prompt that raced the exit. The death is taken in now (it counts towards a crash loop)
    /// and the runtime restarted at once, so the caller can make its call again; false when
    /// the error is another one, the agent cannot restart, or the restart failed (then the
    /// session was given up, as for any death).
    pub(super) async fn restart_after_a_raced_death(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        error: &ProviderError,
    ) -> bool {
        if !error.has_code(&ErrorCode::RuntimeExited)
            || self.dead.is_some()
            || !session.can_restart()
        {
            return false;
        }
        // The death may have been reported meanwhile: it is this one, not a later one.
        let cause = self.failure.take().unwrap_or_else(|| error.clone());
        if self.recovery.down.is_none() {
            if let Err(fatal) = self.keep_for_restart(session.as_ref(), cause) {
                self.give_up(fatal).await;
                return false;
            }
        }
        self.ensure_running(session).await.is_ok()
    }

    /// The agent came back in a new conversation: the log of what the session exchanged goes
    /// to the model with the next prompt; the notice says so.
    fn carry_over_after(&mut self, cause: &ProviderError, reason: &str) -> ProviderNotice {
        tracing::warn!(session = %self.session_id, "the restarted agent lost the conversation ({reason}); continuing in a new one");
        self.carry_over = self.log.context();
        let offered = match self.log.len() {
            0 => "The session had no earlier messages to give it.".to_string(),
            n => format!(
                "The {n} most recent messages this session still holds are given to it with your next prompt, so you can go on."
            ),
        };
        ProviderNotice {
            id: format!("agent-conversation-lost:{}", self.recovery.restarts),
            severity: Severity::Warning,
            title: "The agent lost the conversation".into(),
            description: Some(format!(
                "Its process had stopped ({}) and it could not bring the conversation back ({reason}), so it was started again in a new conversation. {offered}",
                cause.message
            )),
            dismissed: None,
        }
    }

    /// One restart attempt with a fresh sink: whatever the previous runtime (or attempt) still
    /// had queued is dropped with its receiver.
    async fn restart_once(
        &mut self,
        session: &mut Box<dyn AgentSession>,
    ) -> Result<Restarted, ProviderError> {
        let (sink, events) = SessionSink::channel();
        self.events = Some(events);
        let restarted = self
            .call_within(
                OPEN_TIMEOUT,
                "restarting the agent",
                true,
                session.restart(sink),
            )
            .await;
        // A death reported while restarting is the restart's failure.
        match self.failure.take() {
            Some(error) => restarted.and(Err(error)),
            None => restarted,
        }
    }

    /// Ends the session's runtime for good: later prompts fail, the host is told.
    pub(super) async fn give_up(&mut self, error: ProviderError) {
        self.dead = Some(error.clone());
        self.emit(ProviderEvent::SessionRuntimeFailed {
            session_id: self.session_id.clone(),
            error,
        })
        .await;
    }
}

/// What a call on a session whose runtime is gone answers.
pub(super) fn not_running(error: &ProviderError) -> ProviderError {
    ProviderError::new(format!(
        "the agent runtime is not running: {}",
        error.message
    ))
    .with_code(ErrorCode::RuntimeFailed)
}
