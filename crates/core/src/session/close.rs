//! Closing a session, and answering what arrives for a session that is not (or no longer)
//! open. A close is answered only once the processes spawned for the session are gone.

use super::*;
use agent_bridge_protocol::ErrorCode;

/// Why a command is not handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The open failed or was canceled.
    NotOpen,
    /// A close was admitted and is queued behind this command.
    Closing,
    /// `session.closed` is out: nothing of this session may follow but answers.
    Closed,
}

impl Refusal {
    fn error(self) -> ProviderError {
        match self {
            Refusal::NotOpen => ProviderError::new("the session failed to open")
                .with_code(ErrorCode::SessionNotOpen),
            Refusal::Closing => {
                ProviderError::new("the session is closing").with_code(ErrorCode::SessionClosed)
            }
            Refusal::Closed => {
                ProviderError::new("the session is closed").with_code(ErrorCode::SessionClosed)
            }
        }
    }
}

impl Actor {
    /// Answers a command the session will not handle.
    pub(super) async fn refuse(&mut self, cmd: SessionCommand, why: Refusal) {
        match cmd {
            SessionCommand::Prompt(p) => match why {
                Refusal::Closed => {
                    // Admission refuses inputs once a close is admitted; nothing may follow
                    // session.closed, so a prompt that raced the close is only logged.
                    tracing::warn!(client_message_id = %p.client_message_id, "prompt for a closed session dropped");
                }
                Refusal::NotOpen | Refusal::Closing => {
                    let error = why.error();
                    self.prompt_result(p.client_message_id, PromptResult::Failed { error })
                        .await;
                }
            },
            SessionCommand::Interrupt { request_id }
            | SessionCommand::Configure { request_id, .. }
            | SessionCommand::Revert { request_id, .. }
            | SessionCommand::CanStopRuntime { request_id } => {
                let error = match why {
                    Refusal::NotOpen => Refusal::Closed.error(),
                    Refusal::Closing | Refusal::Closed => why.error(),
                };
                self.emit(ProviderEvent::RequestFailed { request_id, error })
                    .await;
            }
            SessionCommand::Close { request_id, done } => {
                if let Some(request_id) = request_id {
                    self.emit(ProviderEvent::RequestCompleted { request_id })
                        .await;
                }
                if let Some(done) = done {
                    let _ = done.send(());
                }
            }
            SessionCommand::Permission { .. } => {}
        }
    }

    /// The open failed (`canceled` false) or a close canceled it: waits until the provider's
    /// processes are gone, answers the open (`request.failed`), then every queued command. No
    /// `session.closed` follows: the session was never announced, so there is nothing to close
    /// (the close itself is answered `request.completed`).
    pub(super) async fn unopened(
        &mut self,
        rx: &mut mpsc::Receiver<SessionCommand>,
        request_id: String,
        error: ProviderError,
        canceled: bool,
    ) {
        // What the agent reported while opening is not published: the session never opened.
        self.spool = None;
        self.events = None;
        self.scope.wait_gone(PROCESS_GONE_TIMEOUT).await;
        // The id is free before the answer goes out: a host that retries the open as soon as
        // it reads the failure is not refused as a duplicate.
        self.unregister();
        self.emit(ProviderEvent::RequestFailed { request_id, error })
            .await;
        // Commands admitted while opening still get their answers.
        rx.close();
        while let Some(cmd) = rx.recv().await {
            match cmd {
                close @ SessionCommand::Close { .. } if canceled => {
                    self.refuse(close, Refusal::Closed).await
                }
                cmd => self.refuse(cmd, Refusal::NotOpen).await,
            }
        }
    }

    /// Closes the session: the agent abandons the active turn and closes, is dropped (which
    /// kills what it still holds), its processes are waited for; then the turn, tools,
    /// permissions and children are settled, `session.closed` and the answer go out.
    pub(super) async fn close(
        &mut self,
        mut session: Box<dyn AgentSession>,
        request_id: Option<String>,
        done: Option<oneshot::Sender<()>>,
    ) {
        if let Ok(mut s) = self.shared.lock() {
            s.begin_close();
        }
        // What the session's processes started is counted while they still run.
        self.scope.census().await;
        self.abandon(&mut session, None).await;
        if tokio::time::timeout(CLOSE_CALL_TIMEOUT, session.close())
            .await
            .is_err()
        {
            tracing::warn!(session = %self.session_id, "the agent did not close in time; dropping it");
        }
        // What the agent reported while closing (a persistence handle its CLI saved on exit)
        // still comes before `session.closed`.
        self.drain_queued_events().await;
        drop(session);
        self.scope.wait_gone(PROCESS_GONE_TIMEOUT).await;
        self.end_turn(None, TurnOutcome::Canceled).await;
        for id in self.pending_permissions() {
            self.resolve_permission(&id).await;
        }
        // Tools still running outside a turn (background work) end with the session.
        for item in children::settle(&mut self.store, ToolStatus::Canceled, "session closed") {
            self.emit(ProviderEvent::TimelineItem {
                session_id: self.session_id.clone(),
                item,
                timestamp: None,
            })
            .await;
        }
        self.close_children().await;
        self.emit(ProviderEvent::SessionClosed {
            session_id: self.session_id.clone(),
            error: None,
        })
        .await;
        if let Some(request_id) = request_id {
            self.emit(ProviderEvent::RequestCompleted { request_id })
                .await;
        }
        if let Some(done) = done {
            let _ = done.send(());
        }
    }
}
