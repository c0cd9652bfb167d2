//! Calling the agent: every call is bounded and keeps draining the agent's events; a runtime
//! failure the agent reports is settled by the actor loop, where the session is at hand; a turn
//! the core ends itself is first abandoned by the agent.

use super::*;
use crate::limits::ABANDON_TIMEOUT;
use agent_bridge_protocol::ErrorCode;

/// What an agent call returns when a close of the session cancelled it.
fn closing_error() -> ProviderError {
    ProviderError::new("the session is closing").with_code(ErrorCode::SessionClosed)
}

impl Actor {
    /// Runs one agent call with the usual time limit while still draining the agent's events,
    /// so an agent may wait on its CLI inside a call without filling its bounded sink. The call
    /// is dropped (an error) as soon as the agent reports its runtime dead.
    pub(super) async fn call<T>(
        &mut self,
        fut: impl std::future::Future<Output = Result<T, ProviderError>>,
    ) -> Result<T, ProviderError> {
        self.call_within(CALL_TIMEOUT, "the agent", true, fut).await
    }

    /// [`call`](Self::call) with its own limit. An `interruptible` call is dropped when the
    /// runtime fails or a close is admitted; one that is not runs to its end (or limit): the
    /// core's own clean-up calls.
    pub(super) async fn call_within<T>(
        &mut self,
        limit: Duration,
        what: &str,
        interruptible: bool,
        fut: impl std::future::Future<Output = Result<T, ProviderError>>,
    ) -> Result<T, ProviderError> {
        if let Some(error) = self.failure.as_ref().filter(|_| interruptible) {
            return Err(error.clone());
        }
        let cancel = self.cancel.clone();
        if interruptible && cancel.is_cancelled() {
            return Err(closing_error());
        }
        let fut = bounded(limit, what, fut);
        tokio::pin!(fut);
        let mut rx = self.events.take();
        let result = loop {
            tokio::select! {
                biased;
                _ = cancel.cancelled(), if interruptible => break Err(closing_error()),
                r = &mut fut => break r,
                ev = next_event(&mut rx) => match ev {
                    Some(ev) => {
                        self.handle_agent_event(ev).await;
                        if let Some(error) = self.failure.as_ref().filter(|_| interruptible) {
                            break Err(error.clone());
                        }
                    }
                    None => {
                        rx = None;
                        self.events_ended();
                    }
                },
            }
        };
        if rx.is_some() {
            self.events = rx;
        }
        result
    }

    /// Handles the agent's events queued now (only those: a busy agent cannot hold it here), so
    /// that they reach the host before what the caller makes of a call's result.
    pub(super) async fn handle_queued_events(&mut self) {
        let Some(mut rx) = self.events.take() else {
            return;
        };
        for _ in 0..rx.len() {
            match rx.try_recv() {
                Ok(ev) => self.handle_agent_event(ev).await,
                Err(_) => break,
            }
        }
        if self.events.is_none() {
            self.events = Some(rx);
        }
    }

    /// Every sink is gone: the agent can report nothing more.
    pub(super) fn events_ended(&mut self) {
        self.events = None;
        self.note_failure(ProviderError::new("the agent runtime stopped unexpectedly"));
    }

    /// Records that the runtime died; [`settle_failure`](Self::settle_failure) acts on it.
    pub(super) fn note_failure(&mut self, error: ProviderError) {
        if self.dead.is_none() && self.recovery.down.is_none() && self.failure.is_none() {
            self.failure = Some(error);
        }
    }

    /// Acts on a runtime failure reported meanwhile.
    pub(super) async fn settle_failure(&mut self, session: &mut Box<dyn AgentSession>) {
        if let Some(error) = self.failure.take() {
            self.runtime_failed(session, error).await;
        }
    }

    /// Handles the agent events already queued (at most one queue's worth, so a flooding
    /// agent cannot starve the commands).
    pub(super) async fn drain_queued_events(&mut self) {
        for _ in 0..SESSION_QUEUE {
            let Some(rx) = self.events.as_mut() else {
                return;
            };
            match rx.try_recv() {
                Ok(ev) => self.handle_agent_event(ev).await,
                Err(mpsc::error::TryRecvError::Empty) => return,
                Err(mpsc::error::TryRecvError::Disconnected) => return self.events_ended(),
            }
        }
    }

    /// Tells the agent the core is ending the active turn (`only`: if it is that turn), with
    /// the turn's pending permissions. Returns the turn's id.
    pub(super) async fn abandon(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        only: Option<&str>,
    ) -> Option<String> {
        let turn_id = self
            .turn
            .as_ref()
            .map(|t| t.id.clone())
            .filter(|id| only.is_none_or(|o| o == id))?;
        let pending = self.pending_for(&turn_id);
        let abandon = async {
            session.abandon_turn(&turn_id, pending).await;
            Ok(())
        };
        if let Err(e) = self
            .call_within(ABANDON_TIMEOUT, "abandoning the turn", false, abandon)
            .await
        {
            tracing::warn!(session = %self.session_id, "{e}; settling the turn anyway");
        }
        // What the agent reported while abandoning (its own resolutions, say) comes first.
        self.drain_queued_events().await;
        Some(turn_id)
    }

    /// The core ends the active turn itself: the agent abandons it, then the core settles it.
    pub(super) async fn abandon_and_end(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        only: Option<&str>,
        outcome: TurnOutcome,
    ) {
        if let Some(turn_id) = self.abandon(session, only).await {
            // A no-op if the agent ended the turn meanwhile.
            self.end_turn(Some(&turn_id), outcome).await;
        }
    }
}
