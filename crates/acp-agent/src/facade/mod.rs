//! The facade: one task that owns every ACP session, reads the client's lines, the core's
//! events and the answers of its own calls to the core, in one `select!`, so the order of what
//! the client sees is the order the core said it (updates before the prompt's answer, a
//! replay before the load's answer).
//!
//! Calls to the core (`provider/send` is admission only) run in their own tasks and report a
//! refusal back here, so the facade never waits on the core while the core waits on it.

mod events;
mod requests;

use crate::core_link::{CoreError, CoreLink};
use crate::permission::AskedPermission;
use crate::session_ids::Choice;
use crate::timeline::TimelineStream;
use agent_bridge_protocol::jsonrpc::{RequestId, RpcError};
use agent_bridge_protocol::wire::ProviderInfo;
use agent_bridge_protocol::{
    HistoryMode, ProviderAvailability, ProviderCommand, ProviderConfigState, ProviderEvent,
    ProviderInput, ProviderPersistence, ProviderSessionConfig,
};
use agent_client_protocol_schema::v1::{SessionNotification, SessionUpdate};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use tokio::sync::mpsc;

/// JSON-RPC error codes the facade answers with.
pub mod code {
    pub const INVALID_PARAMS: i64 = -32602;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INTERNAL: i64 = -32603;
    /// ACP's "authentication required".
    pub const AUTH_REQUIRED: i64 = -32000;
}

pub fn error(code: i64, message: impl Into<String>) -> RpcError {
    RpcError {
        code,
        message: agent_bridge_protocol::jsonrpc::clip(&message.into(), 2000),
        data: None,
    }
}

/// How a session came to be opened, which decides its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenKind {
    New,
    /// `session/load`: the history is replayed before the answer.
    Load,
    /// `session/resume`: reopened without a replay.
    Resume,
}

/// A prompt waiting for its turn to end.
#[derive(Debug)]
pub struct PendingPrompt {
    pub id: RequestId,
    pub client_message_id: String,
    pub turn_id: Option<String>,
}

/// One ACP session and the core session behind it.
#[derive(Debug)]
pub struct Session {
    pub core_id: String,
    pub stream: TimelineStream,
    pub config: Option<ProviderConfigState>,
    pub commands: Vec<ProviderCommand>,
    pub prompts: Vec<PendingPrompt>,
    /// `session/cancel` arrived: the turn's prompts answer `cancelled`.
    pub cancel_requested: bool,
    /// The open's request and how it answers, until `session.ready`.
    pub opening: Option<(RequestId, OpenKind)>,
    /// Updates of a session the client does not know yet (before `session/new` answered).
    pub held: Vec<SessionUpdate>,
}

/// A core request waiting for its event.
#[derive(Debug)]
pub enum Wait {
    /// A session open: it answers at `session.ready`, and fails at `request.failed`.
    Open {
        session: String,
        /// A reopen that asked for a remembered choice: sent again without it when refused.
        fallback: Option<Box<Fallback>>,
    },
    Sessions {
        id: RequestId,
    },
    Configure {
        id: RequestId,
        session: String,
        /// `session/set_mode` answers `{}`; `session/set_config_option` answers the options.
        options: bool,
    },
    Close {
        id: RequestId,
        session: String,
    },
    /// `session/cancel` is a notification: nothing answers.
    Interrupt,
    /// A load or resume of a session open here: it is closed, then reopened.
    Reopen {
        session: String,
        reopen: Reopen,
    },
}

/// A reopen without the remembered choice, for when the provider refuses that choice (a model
/// since retired, a mode it no longer has): the session still opens, in the defaults.
#[derive(Debug)]
pub struct Fallback {
    pub config: ProviderSessionConfig,
    pub persistence: Option<ProviderPersistence>,
    pub history: HistoryMode,
    pub refused: Choice,
}

/// What a load or resume of a live session asked, kept while the session closes.
#[derive(Debug)]
pub struct Reopen {
    pub id: RequestId,
    pub cwd: String,
    pub mcp: Vec<agent_client_protocol_schema::v1::McpServer>,
    pub kind: OpenKind,
}

/// What a task reports back to the facade.
#[derive(Debug)]
pub enum Internal {
    /// The core refused an input sent for `request` (a `provider/send` admission).
    Refused { request: Refusal, error: CoreError },
}

/// What a refused input was for.
#[derive(Debug)]
pub enum Refusal {
    Prompt {
        session: String,
        client_message_id: String,
    },
    Waiting {
        request_id: String,
    },
    Permission,
}

/// The facade's state.
pub struct Facade {
    out: crate::transport::Out,
    core: CoreLink,
    provider: ProviderInfo,
    agent: String,
    data_dir: PathBuf,
    connection: Option<String>,
    availability: Option<ProviderAvailability>,
    sessions: HashMap<String, Session>,
    /// Core session id → ACP session id.
    acp_ids: HashMap<String, String>,
    waits: HashMap<String, Wait>,
    /// Permission requests sent to the client, by the id of the request.
    asked: HashMap<String, AskedPermission>,
    next_request: u64,
    internal: mpsc::Sender<Internal>,
    /// Updates decided while handling a message, sent once it is handled.
    pending_updates: Vec<(String, SessionUpdate)>,
}

impl Facade {
    pub fn new(
        out: crate::transport::Out,
        core: CoreLink,
        provider: ProviderInfo,
        agent: String,
        data_dir: PathBuf,
        internal: mpsc::Sender<Internal>,
    ) -> Facade {
        Facade {
            out,
            core,
            provider,
            agent,
            data_dir,
            connection: None,
            availability: None,
            sessions: HashMap::new(),
            acp_ids: HashMap::new(),
            waits: HashMap::new(),
            asked: HashMap::new(),
            next_request: 0,
            internal,
            pending_updates: Vec::new(),
        }
    }

    fn request_id(&mut self, what: &str) -> String {
        self.next_request += 1;
        format!("acp-{what}-{}", self.next_request)
    }

    /// Sends `input` to the core in a task; a refusal comes back as [`Internal::Refused`].
    fn send(&self, input: ProviderInput, refusal: Refusal) {
        let Some(connection) = self.connection.clone() else {
            return;
        };
        let core = self.core.clone();
        let internal = self.internal.clone();
        tokio::spawn(async move {
            if let Err(error) = core.send(&connection, &input).await {
                let _ = internal
                    .send(Internal::Refused {
                        request: refusal,
                        error,
                    })
                    .await;
            }
        });
    }

    /// Sends one `session/update` (or holds it while the client does not know the session).
    async fn update(&mut self, acp_id: &str, update: SessionUpdate) {
        if let Some(s) = self.sessions.get_mut(acp_id) {
            if s.opening
                .as_ref()
                .is_some_and(|(_, kind)| *kind != OpenKind::Load)
            {
                s.held.push(update);
                return;
            }
        }
        let note = SessionNotification::new(acp_id.to_string(), update);
        match serde_json::to_value(note) {
            Ok(params) => self.out.notify("session/update", params).await,
            Err(e) => tracing::error!("an update could not be written: {e}"),
        }
    }

    async fn respond(&self, id: RequestId, result: Result<Value, RpcError>) {
        match result {
            Ok(v) => self.out.result(id, v).await,
            Err(e) => self.out.error(Some(id), e).await,
        }
    }

    /// Handles what a task reported.
    pub async fn internal(&mut self, message: Internal) {
        let Internal::Refused { request, error } = message;
        let code = match &error {
            CoreError::Refused { code: -32602, .. } => code::INVALID_PARAMS,
            _ => code::INTERNAL,
        };
        let rpc = error_of(code, &error);
        match request {
            Refusal::Prompt {
                session,
                client_message_id,
            } => {
                let Some(s) = self.sessions.get_mut(&session) else {
                    return;
                };
                if let Some(i) = s
                    .prompts
                    .iter()
                    .position(|p| p.client_message_id == client_message_id)
                {
                    let p = s.prompts.remove(i);
                    self.out.error(Some(p.id), rpc).await;
                }
            }
            Refusal::Waiting { request_id } => {
                if let Some(wait) = self.waits.remove(&request_id) {
                    self.fail_wait(wait, rpc).await;
                }
            }
            Refusal::Permission => tracing::warn!("a permission answer was refused: {error}"),
        }
    }

    async fn fail_wait(&mut self, wait: Wait, error: RpcError) {
        match wait {
            Wait::Sessions { id } | Wait::Configure { id, .. } | Wait::Close { id, .. } => {
                self.out.error(Some(id), error).await
            }
            Wait::Reopen { reopen, .. } => self.out.error(Some(reopen.id), error).await,
            Wait::Open {
                session,
                fallback: Some(fallback),
            } if self
                .sessions
                .get(&session)
                .is_some_and(|s| s.opening.is_some()) =>
            {
                tracing::warn!(
                    session,
                    refused = ?fallback.refused,
                    "the remembered choice was refused ({}); reopening in the defaults",
                    error.message
                );
                self.send_open(
                    &session,
                    fallback.config,
                    fallback.persistence,
                    fallback.history,
                    None,
                );
            }
            Wait::Open { session, .. } => {
                if let Some(s) = self.sessions.remove(&session) {
                    self.acp_ids.remove(&s.core_id);
                    if let Some((id, _)) = s.opening {
                        self.out.error(Some(id), error).await;
                    }
                }
            }
            Wait::Interrupt => tracing::warn!("an interrupt failed: {}", error.message),
        }
    }

    /// What the handles published while the sessions close need to be remembered (a Claude
    /// session publishes its handle at close when its transcript was saved only then).
    pub fn closing(&self) -> Closing {
        let sessions = self
            .acp_ids
            .iter()
            .map(|(core, acp)| {
                let choice = self
                    .sessions
                    .get(acp)
                    .and_then(|s| s.config.as_ref())
                    .map(Choice::of);
                (core.clone(), (acp.clone(), choice))
            })
            .collect();
        Closing {
            data_dir: self.data_dir.clone(),
            sessions,
        }
    }

    /// The end of the client's input: every session is closed, then the core stops.
    pub async fn shutdown(&mut self) {
        if let Some(connection) = self.connection.take() {
            if let Err(e) = self.core.close(&connection).await {
                tracing::debug!("closing the core connection: {e}");
            }
        }
        self.core.shutdown().await;
    }
}

/// The sessions being closed at the end: core session id → ACP session id and its choice.
pub struct Closing {
    data_dir: PathBuf,
    sessions: HashMap<String, (String, Option<Choice>)>,
}

impl Closing {
    /// The handle `event` publishes for one of the sessions, if it does.
    pub fn handle(&self, event: ProviderEvent) -> Option<Published> {
        let ProviderEvent::SessionPersistence {
            session_id,
            persistence,
        } = event
        else {
            return None;
        };
        let (acp, choice) = self.sessions.get(&session_id)?.clone();
        Some(Published {
            acp,
            choice,
            persistence,
        })
    }

    /// Remembers a published handle.
    pub async fn write(&self, p: Published) {
        crate::session_ids::remember(&self.data_dir, &p.acp, &p.persistence, p.choice).await;
    }
}

/// A handle published while the sessions closed.
pub struct Published {
    acp: String,
    choice: Option<Choice>,
    persistence: agent_bridge_protocol::ProviderPersistence,
}

fn error_of(code: i64, e: &CoreError) -> RpcError {
    error(code, e.to_string())
}
