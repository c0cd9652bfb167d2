//! One session's actor: it owns the agent's `AgentSession`, the turn state machine, the
//! pending permissions and the timeline store, and is the only writer of that session's events.
//! Every protocol invariant of a session is enforced here, whatever the agent does.

mod agent_events;
mod calls;
mod children;
mod close;
mod open;
mod recovery;
mod spool;
mod turns;

use agent_bridge_protocol::ErrorCode;
use close::Refusal;

use crate::agent::{
    AgentEvent, AgentSession, ChildSession, CommandOutcome, OpenRequest, OpenedSession, Provider,
    ProviderContext, SessionSink, TurnOutcome, TurnRequest, SESSION_QUEUE,
};
use crate::emitter::Outbound;
use crate::scope::ProcessScope;
use crate::timeline::TimelineStore;
use agent_bridge_protocol::{
    Capability, ItemBody, PromptDelivery, PromptInput, PromptResult, ProviderConfigChanges,
    ProviderError, ProviderEvent, ProviderPermissionResponse, ProviderPrompt, Restoration,
    RevertScope, TimelineItem, ToolStatus, TurnState,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::limits::{bounded, PROCESS_GONE_TIMEOUT};
pub use crate::limits::{CALL_TIMEOUT, CLOSE_CALL_TIMEOUT, INTERRUPT_GRACE, OPEN_TIMEOUT};
pub(crate) use agent_events::strip_carried_context;
pub use children::MAX_CHILDREN;
pub use recovery::CRASH_LOOP_LIMIT;
pub use spool::SPOOL_MEMORY_BYTES;

/// Capacity of a session's command queue.
pub const COMMAND_QUEUE: usize = 64;

/// Host commands for a session, already admitted.
#[derive(Debug)]
pub enum SessionCommand {
    Prompt(ProviderPrompt),
    Interrupt {
        request_id: String,
    },
    Permission {
        permission_id: String,
        response: ProviderPermissionResponse,
    },
    Configure {
        request_id: String,
        changes: ProviderConfigChanges,
    },
    CanStopRuntime {
        request_id: String,
    },
    Revert {
        request_id: String,
        token: serde_json::Value,
        scope: RevertScope,
    },
    Close {
        request_id: Option<String>,
        done: Option<oneshot::Sender<()>>,
    },
}

/// State shared between the actor and admission (which runs on the transport task).
#[derive(Debug, Default)]
pub struct SessionShared {
    /// Permission id -> the turn it was raised in (`None`: outside a turn).
    pub pending_permissions: HashMap<String, Option<String>>,
    pub closing: bool,
    /// Cancelled when a close of this session (or its connection) is admitted: an open or an
    /// agent call in progress is then dropped.
    pub cancel: CancellationToken,
}

impl SessionShared {
    /// A close was admitted: refuse further inputs and cancel what is in progress.
    pub fn begin_close(&mut self) {
        self.closing = true;
        self.cancel.cancel();
    }
}

/// The connection's handle on a session.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    pub tx: mpsc::Sender<SessionCommand>,
    pub shared: Arc<Mutex<SessionShared>>,
}

/// Unregisters a session id from its connection.
pub type OnExit = Box<dyn FnOnce(&str) + Send>;

/// Everything the actor needs from its connection.
pub struct SessionSpawn {
    pub connection_id: String,
    pub out: Outbound,
    pub provider: Arc<dyn Provider>,
    pub ctx: ProviderContext,
    pub capabilities: Vec<Capability>,
    pub request_id: String,
    pub open: OpenRequest,
    /// Called with the session id when the actor ends (to unregister it).
    pub on_exit: OnExit,
}

struct ActiveTurn {
    id: String,
    interrupt_deadline: Option<Instant>,
}

struct Actor {
    session_id: String,
    connection_id: String,
    out: Outbound,
    shared: Arc<Mutex<SessionShared>>,
    store: TimelineStore,
    turn: Option<ActiveTurn>,
    /// Set once the runtime died for good; prompts then fail.
    dead: Option<ProviderError>,
    /// Restarting a runtime that died (see `recovery`).
    recovery: recovery::Recovery,
    /// A runtime failure reported but not yet acted on (see `settle_failure`).
    failure: Option<ProviderError>,
    children: children::Children,
    cwd: String,
    /// The agent's event stream; `None` once every sink is gone.
    events: Option<mpsc::Receiver<AgentEvent>>,
    /// A command that may start a turn is running: its turn id, and its end if the agent
    /// reported one before the core announced the turn.
    pending_command_turn: Option<String>,
    early_end: Option<TurnOutcome>,
    /// While `Provider::open` runs, what the actor emits is held here (see `spool`).
    spool: Option<spool::Spool>,
    /// The processes spawned for this session; its token is the session's cancellation.
    scope: ProcessScope,
    cancel: CancellationToken,
    /// The connection negotiated `permission`: the host can answer `session.permission`.
    host_answers_permissions: bool,
    /// Permission requests the host cannot answer (no `permission`), denied by the actor at
    /// its next step; bounded by what the agent has pending.
    unanswerable: Vec<String>,
    /// The session's recent user and assistant text (see [`crate::carry_over`]).
    log: crate::carry_over::ConversationLog,
    /// Unregisters the session id (taken when called: see [`Actor::unregister`]).
    on_exit: Option<OnExit>,
    /// The agent restarted in a new conversation: the context its next prompt carries.
    carry_over: Option<String>,
}

/// Prepares a session actor: returns the handle admission uses and the actor future. Register
/// the handle before spawning the future, so the actor's own unregistering comes after.
pub fn prepare_session(
    spawn: SessionSpawn,
    shared: Arc<Mutex<SessionShared>>,
) -> (SessionHandle, impl std::future::Future<Output = ()> + Send) {
    let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
    let handle = SessionHandle {
        tx,
        shared: shared.clone(),
    };
    (handle, run(spawn, rx, shared))
}

async fn run(
    spawn: SessionSpawn,
    mut rx: mpsc::Receiver<SessionCommand>,
    shared: Arc<Mutex<SessionShared>>,
) {
    let SessionSpawn {
        connection_id,
        out,
        provider,
        ctx,
        capabilities,
        request_id,
        open,
        on_exit,
    } = spawn;
    let session_id = open.session_id.clone();
    let cwd = open.config.cwd.clone();
    let scope = open.scope.clone();
    let (sink, events) = SessionSink::channel();
    let mut actor = Actor {
        session_id: session_id.clone(),
        connection_id,
        out,
        shared,
        store: TimelineStore::default(),
        turn: None,
        dead: None,
        recovery: recovery::Recovery::default(),
        failure: None,
        children: children::Children::default(),
        cwd,
        events: Some(events),
        pending_command_turn: None,
        early_end: None,
        spool: None,
        cancel: scope.token(),
        scope,
        host_answers_permissions: capabilities.contains(&Capability::Permission),
        unanswerable: Vec::new(),
        log: Default::default(),
        carry_over: None,
        on_exit: Some(on_exit),
    };
    let session = match actor.open(provider.open(&ctx, open, sink)).await {
        open::OpenEnd::Opened(opened) => Some(
            actor
                .publish_open(*opened, &request_id, &capabilities)
                .await,
        ),
        open::OpenEnd::Failed(error) => {
            actor.unopened(&mut rx, request_id, error, false).await;
            None
        }
        open::OpenEnd::Canceled => {
            let error = ProviderError::new("the session was closed while it was opening")
                .with_code(ErrorCode::Canceled);
            actor.unopened(&mut rx, request_id, error, true).await;
            None
        }
    };
    if let Some(session) = session {
        actor.serve(session, &mut rx).await;
    }
    actor.unregister();
}

impl Actor {
    /// Frees the session id (once): a host may open it again from here on.
    fn unregister(&mut self) {
        if let Some(on_exit) = self.on_exit.take() {
            on_exit(&self.session_id);
        }
    }

    /// Handles host commands and agent events until the session closes.
    async fn serve(
        &mut self,
        mut session: Box<dyn AgentSession>,
        rx: &mut mpsc::Receiver<SessionCommand>,
    ) {
        // On a shared process, a completed turn resets its launch's crash-loop count.
        self.recovery.shared = session.shared_death().map(|d| d.deaths);
        loop {
            // A runtime failure reported meanwhile (or while opening) is acted on first.
            self.settle_failure(&mut session).await;
            self.deny_unanswerable(&mut session).await;
            let deadline = self.turn.as_ref().and_then(|t| t.interrupt_deadline);
            tokio::select! {
                biased;
                cmd = rx.recv() => {
                    // What the agent already reported happened before this command: a steer
                    // that arrives after the agent ended its turn starts a new turn.
                    self.drain_queued_events().await;
                    match cmd {
                        Some(SessionCommand::Close { request_id, done }) => {
                            self.close(session, request_id, done).await;
                            break;
                        }
                        Some(cmd) if self.cancel.is_cancelled() => {
                            self.refuse(cmd, Refusal::Closing).await
                        }
                        Some(cmd) => {
                            self.settle_failure(&mut session).await;
                            self.handle_command(&mut session, cmd).await;
                        }
                        None => {
                            self.close(session, None, None).await;
                            break;
                        }
                    }
                }
                ev = next_event(&mut self.events) => match ev {
                    Some(ev) => self.handle_agent_event(ev).await,
                    None => self.events_ended(),
                },
                _ = sleep_until(deadline) => {
                    tracing::warn!(session = %self.session_id, "agent did not end the turn after interrupt; canceling it");
                    self.abandon_and_end(&mut session, None, TurnOutcome::Canceled).await;
                }
            }
        }
        // Answer anything still queued after the close.
        rx.close();
        while let Some(cmd) = rx.recv().await {
            self.refuse(cmd, Refusal::Closed).await;
        }
    }
}

async fn next_event(events: &mut Option<mpsc::Receiver<AgentEvent>>) -> Option<AgentEvent> {
    match events {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

impl Actor {
    /// Emits one event of this session (held in the spool while the open runs).
    async fn emit(&mut self, event: ProviderEvent) {
        match self.spool.as_mut() {
            Some(spool) => spool.push(event).await,
            None => self.out.event(&self.connection_id, event).await,
        }
    }

    async fn handle_command(&mut self, session: &mut Box<dyn AgentSession>, cmd: SessionCommand) {
        match cmd {
            SessionCommand::Prompt(prompt) => self.prompt(session, prompt).await,
            SessionCommand::Interrupt { request_id } => self.interrupt(session, request_id).await,
            SessionCommand::Permission {
                permission_id,
                response,
            } => self.permission(session, permission_id, response).await,
            SessionCommand::Configure {
                request_id,
                changes,
            } => match match self.ensure_running(session).await {
                Ok(()) => self.call(session.configure(changes)).await,
                Err(error) => Err(error),
            } {
                Ok(config) => {
                    // The agent's own announcements of the change (queued before its answer)
                    // come first: the configure's result is the last word.
                    self.handle_queued_events().await;
                    self.emit(ProviderEvent::SessionConfig {
                        session_id: self.session_id.clone(),
                        config,
                    })
                    .await;
                    self.emit(ProviderEvent::RequestCompleted { request_id })
                        .await;
                }
                Err(error) => {
                    self.emit(ProviderEvent::RequestFailed { request_id, error })
                        .await
                }
            },
            SessionCommand::CanStopRuntime { request_id } => {
                let idle = self.turn.is_none()
                    && self.pending_permissions().is_empty()
                    && self.store.running_tools() == 0
                    && self.children.running_tools() == 0;
                // A runtime that is down has nothing left to stop.
                let down = self.recovery.down.is_some() || self.dead.is_some();
                let can_stop = idle
                    && (down
                        || self
                            .call(async { Ok(session.can_stop_runtime().await) })
                            .await
                            .unwrap_or(false));
                self.emit(ProviderEvent::SessionCanStopRuntime {
                    request_id,
                    session_id: self.session_id.clone(),
                    can_stop,
                })
                .await;
            }
            SessionCommand::Revert {
                request_id,
                token,
                scope,
            } => self.revert(session, request_id, token, scope).await,
            SessionCommand::Close { .. } => {}
        }
    }

    /// `session.revert`, only between turns; answered `request.completed` once the agent
    /// rewound.
    async fn revert(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        request_id: String,
        token: agent_bridge_protocol::Json,
        scope: agent_bridge_protocol::RevertScope,
    ) {
        let result = if let Some(turn) = self.turn.as_ref() {
            Err(ProviderError::new(format!(
                "a turn is running ({}); interrupt it before rewinding",
                turn.id
            ))
            .with_code(ErrorCode::TurnActive))
        } else {
            match self.ensure_running(session).await {
                Ok(()) => self.call(session.revert(token, scope)).await,
                Err(error) => Err(error),
            }
        };
        let event = match result {
            Ok(()) => ProviderEvent::RequestCompleted { request_id },
            Err(error) => ProviderEvent::RequestFailed { request_id, error },
        };
        self.emit(event).await;
    }
}
