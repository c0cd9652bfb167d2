//! One provider connection: its negotiated capabilities, its launch context, its sessions, and
//! admission of `provider/send` inputs.

use crate::agent::{CatalogQuery, OpenRequest, ProcessScope, ProviderContext, SessionsQuery};
use crate::emitter::Outbound;
use crate::registry::ProviderEntry;
use crate::session::{prepare_session, SessionCommand, SessionHandle, SessionSpawn};
use agent_bridge_protocol::jsonrpc::{RpcError, RpcErrorCode};
use agent_bridge_protocol::{Capability, ProviderEvent, ProviderInput};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

pub use crate::limits::CLOSE_TIMEOUT;
use crate::limits::{timeout_error, CATALOG_TIMEOUT, SESSIONS_TIMEOUT};

pub struct Connection {
    pub id: String,
    pub entry: Arc<ProviderEntry>,
    pub capabilities: Vec<Capability>,
    pub ctx: ProviderContext,
    out: Outbound,
    sessions: Arc<Mutex<HashMap<String, SessionHandle>>>,
    closed: AtomicBool,
}

/// What admission decided to do once the `null` answer is written.
pub enum Dispatch {
    Nothing,
    Task(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>),
    Command(
        tokio::sync::mpsc::OwnedPermit<SessionCommand>,
        SessionCommand,
    ),
    Open(Box<SessionSpawnLater>),
}

/// A session open whose actor starts after the admission answer.
pub struct SessionSpawnLater {
    spawn: SessionSpawn,
    slot: Arc<Mutex<HashMap<String, SessionHandle>>>,
    reserved: Arc<Mutex<crate::session::SessionShared>>,
}

impl Dispatch {
    pub fn run(self) {
        match self {
            Dispatch::Nothing => {}
            Dispatch::Task(fut) => {
                tokio::spawn(fut);
            }
            Dispatch::Command(permit, cmd) => {
                permit.send(cmd);
            }
            Dispatch::Open(later) => {
                let SessionSpawnLater {
                    spawn,
                    slot,
                    reserved,
                } = *later;
                let id = spawn.open.session_id.clone();
                let (handle, actor) = prepare_session(spawn, reserved);
                let inserted = slot.lock().map(|mut map| map.insert(id, handle)).is_ok();
                if !inserted {
                    tracing::error!("session table poisoned");
                }
                tokio::spawn(actor);
            }
        }
    }
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(RpcErrorCode::InvalidParams, message)
}

impl Connection {
    pub fn new(
        id: String,
        entry: Arc<ProviderEntry>,
        capabilities: Vec<Capability>,
        ctx: ProviderContext,
        out: Outbound,
    ) -> Self {
        Self {
            id,
            entry,
            capabilities,
            ctx,
            out,
            sessions: Arc::new(Mutex::new(HashMap::new())),
            closed: AtomicBool::new(false),
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn session(&self, session_id: &str) -> Result<SessionHandle, RpcError> {
        let handle = self
            .sessions
            .lock()
            .ok()
            .and_then(|m| m.get(session_id).cloned())
            .ok_or_else(|| {
                invalid(format!(
                    "unknown session `{session_id}` on connection {}",
                    self.id
                ))
            })?;
        let closing = handle.shared.lock().map(|s| s.closing).unwrap_or(true);
        if closing {
            return Err(invalid(format!("session `{session_id}` is closing")));
        }
        Ok(handle)
    }

    fn command(&self, session_id: &str, cmd: SessionCommand) -> Result<Dispatch, RpcError> {
        let handle = self.session(session_id)?;
        if let SessionCommand::Permission { permission_id, .. } = &cmd {
            let pending = handle
                .shared
                .lock()
                .map(|s| s.pending_permissions.contains_key(permission_id))
                .unwrap_or(false);
            if !pending {
                return Err(invalid(format!(
                    "no pending permission `{permission_id}` in session `{session_id}`"
                )));
            }
        }
        match handle.tx.clone().try_reserve_owned() {
            Ok(permit) => {
                if matches!(cmd, SessionCommand::Close { .. }) {
                    // The permit is held, so the close reaches the actor even if the cancel
                    // makes it stop (an open or a call in progress is dropped).
                    if let Ok(mut s) = handle.shared.lock() {
                        s.begin_close();
                    }
                }
                Ok(Dispatch::Command(permit, cmd))
            }
            Err(_) => Err(RpcError::new(
                RpcErrorCode::Unavailable,
                format!("session `{session_id}` has too many queued inputs; retry later"),
            )),
        }
    }

    /// A provider-level request answered by one event from a task of its own, within `limit`
    /// (on expiry: `request.failed` with code `timeout`).
    fn provider_task<F, Fut>(
        &self,
        request_id: String,
        limit: Duration,
        what: &'static str,
        work: F,
    ) -> Dispatch
    where
        F: FnOnce(Arc<dyn crate::agent::Provider>, ProviderContext, String) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ProviderEvent> + Send + 'static,
    {
        let provider = self.entry.provider.clone();
        let ctx = self.ctx.clone();
        let out = self.out.clone();
        let conn = self.id.clone();
        Dispatch::Task(Box::pin(async move {
            let work = work(provider, ctx, request_id.clone());
            let event = match tokio::time::timeout(limit, work).await {
                Ok(event) => event,
                Err(_) => ProviderEvent::RequestFailed {
                    request_id,
                    error: timeout_error(what, limit),
                },
            };
            out.event(&conn, event).await;
        }))
    }

    /// Admission of one input: returns what to run after answering `null`, or the refusal.
    pub fn admit(&self, input: ProviderInput) -> Result<Dispatch, RpcError> {
        if self.is_closed() {
            return Err(RpcError::new(
                RpcErrorCode::Unavailable,
                format!("connection {} is closed", self.id),
            ));
        }
        for cap in input.required_capabilities() {
            if !self.capabilities.contains(&cap) {
                return Err(RpcError::new(
                    RpcErrorCode::CapabilityNotNegotiated,
                    format!(
                        "`{}` needs capability `{cap}`, which connection {} did not negotiate",
                        input.kind(),
                        self.id
                    ),
                ));
            }
        }
        match input {
            ProviderInput::Catalog {
                request_id,
                cwd,
                provider_options,
                settings: _,
            } => {
                let query = CatalogQuery {
                    cwd,
                    provider_options: provider_options.unwrap_or_default(),
                };
                Ok(self.provider_task(
                    request_id,
                    CATALOG_TIMEOUT,
                    "the catalog",
                    move |provider, ctx, request_id| async move {
                        match provider.catalog(&ctx, query).await {
                            Ok(catalog) => ProviderEvent::Catalog {
                                request_id,
                                catalog,
                            },
                            Err(error) => ProviderEvent::RequestFailed { request_id, error },
                        }
                    },
                ))
            }
            ProviderInput::Sessions {
                request_id,
                query,
                cwd,
                limit,
                provider_options,
                settings: _,
            } => {
                let query = SessionsQuery {
                    cwd,
                    query,
                    limit: limit.map(|l| l.get()),
                    provider_options: provider_options.unwrap_or_default(),
                };
                Ok(self.provider_task(
                    request_id,
                    SESSIONS_TIMEOUT,
                    "the session list",
                    move |provider, ctx, request_id| async move {
                        match provider.list_sessions(&ctx, query).await {
                            Ok(sessions) => ProviderEvent::Sessions {
                                request_id,
                                sessions,
                            },
                            Err(error) => ProviderEvent::RequestFailed { request_id, error },
                        }
                    },
                ))
            }
            ProviderInput::SessionOpen {
                request_id,
                session_id,
                config,
                persistence,
                history,
            } => {
                if session_id.trim().is_empty() {
                    return Err(invalid("sessionId must not be empty"));
                }
                if config.cwd.trim().is_empty() {
                    return Err(invalid("config.cwd must not be empty"));
                }
                let reserved = Arc::new(Mutex::new(crate::session::SessionShared::default()));
                {
                    let mut map = self
                        .sessions
                        .lock()
                        .map_err(|_| invalid("session table poisoned"))?;
                    if map.contains_key(&session_id) {
                        return Err(invalid(format!(
                            "session `{session_id}` already exists on connection {}",
                            self.id
                        )));
                    }
                    // Reserve the id now so a duplicate is refused even before the actor runs.
                    let (tx, _rx) = tokio::sync::mpsc::channel(1);
                    map.insert(
                        session_id.clone(),
                        SessionHandle {
                            tx,
                            shared: reserved.clone(),
                        },
                    );
                }
                let scope = reserved
                    .lock()
                    .map(|s| ProcessScope::with_token(s.cancel.clone()))
                    .map_err(|_| invalid("session state poisoned"))?;
                let slot = self.sessions.clone();
                let unregister = self.sessions.clone();
                let spawn = SessionSpawn {
                    connection_id: self.id.clone(),
                    out: self.out.clone(),
                    provider: self.entry.provider.clone(),
                    ctx: self.ctx.clone(),
                    capabilities: self.capabilities.clone(),
                    request_id,
                    open: OpenRequest {
                        session_id,
                        config,
                        persistence,
                        history,
                        scope,
                    },
                    on_exit: Box::new(move |id: &str| {
                        if let Ok(mut map) = unregister.lock() {
                            map.remove(id);
                        }
                    }),
                };
                Ok(Dispatch::Open(Box::new(SessionSpawnLater {
                    spawn,
                    slot,
                    reserved,
                })))
            }
            ProviderInput::SessionPrompt { session_id, prompt } => {
                self.command(&session_id, SessionCommand::Prompt(prompt))
            }
            ProviderInput::SessionInterrupt {
                request_id,
                session_id,
            } => self.command(&session_id, SessionCommand::Interrupt { request_id }),
            ProviderInput::SessionPermission {
                session_id,
                permission_id,
                response,
            } => self.command(
                &session_id,
                SessionCommand::Permission {
                    permission_id,
                    response,
                },
            ),
            ProviderInput::SessionConfigure {
                request_id,
                session_id,
                changes,
            } => self.command(
                &session_id,
                SessionCommand::Configure {
                    request_id,
                    changes,
                },
            ),
            ProviderInput::SessionCanStopRuntime {
                request_id,
                session_id,
            } => self.command(&session_id, SessionCommand::CanStopRuntime { request_id }),
            ProviderInput::SessionClose {
                request_id,
                session_id,
            } => self.command(
                &session_id,
                SessionCommand::Close {
                    request_id: Some(request_id),
                    done: None,
                },
            ),
            ProviderInput::SessionRevert {
                request_id,
                session_id,
                token,
                scope,
            } => self.command(
                &session_id,
                SessionCommand::Revert {
                    request_id,
                    token,
                    scope,
                },
            ),
            ProviderInput::SessionArchive {
                request_id,
                persistence,
            } => Ok(self.archive_task(request_id, persistence, true)),
            ProviderInput::SessionUnarchive {
                request_id,
                persistence,
            } => Ok(self.archive_task(request_id, persistence, false)),
        }
    }

    /// `session.archive` / `session.unarchive`: a provider call, answered `request.completed`
    /// or `request.failed`.
    fn archive_task(
        &self,
        request_id: String,
        persistence: agent_bridge_protocol::ProviderPersistence,
        archived: bool,
    ) -> Dispatch {
        let what = if archived {
            "archiving the session"
        } else {
            "unarchiving the session"
        };
        self.provider_task(
            request_id,
            SESSIONS_TIMEOUT,
            what,
            move |provider, ctx, request_id| async move {
                match provider.set_archived(&ctx, persistence, archived).await {
                    Ok(()) => ProviderEvent::RequestCompleted { request_id },
                    Err(error) => ProviderEvent::RequestFailed { request_id, error },
                }
            },
        )
    }

    /// Closes every session (each emits `session.closed`) and refuses further input.
    pub async fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let handles: Vec<SessionHandle> = match self.sessions.lock() {
            Ok(map) => map.values().cloned().collect(),
            Err(_) => vec![],
        };
        let all = async move {
            let mut waits = Vec::new();
            for handle in handles {
                // Reserve first, then cancel: a session whose open is canceled still finds
                // the close queued, and answers it once its processes are gone.
                let permit = handle.tx.clone().try_reserve_owned();
                if let Ok(mut s) = handle.shared.lock() {
                    s.begin_close();
                }
                let (done, wait) = oneshot::channel();
                let close = SessionCommand::Close {
                    request_id: None,
                    done: Some(done),
                };
                let sent = match permit {
                    Ok(permit) => {
                        permit.send(close);
                        true
                    }
                    Err(tokio::sync::mpsc::error::TrySendError::Full(_)) => {
                        handle.tx.send(close).await.is_ok()
                    }
                    Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => false,
                };
                if sent {
                    waits.push(wait);
                }
            }
            for w in waits {
                let _ = w.await;
            }
        };
        if tokio::time::timeout(CLOSE_TIMEOUT, all).await.is_err() {
            tracing::warn!(connection = %self.id, "sessions did not close in time; abandoning them");
        }
    }
}
