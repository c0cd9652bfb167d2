//! The session's [`Inbound`]: the core peer's reader task hands it the app-server's notifications
//! and server requests in order; it turns them into [`AgentEvent`]s and sends them into the
//! session's bounded sink, awaiting room. No queue of our own: a slow host slows the reader,
//! and through the stdout pipe the CLI.
//!
//! It is installed when the process starts, before the thread exists, so nothing the CLI says
//! during `open` waits in a buffer; until the thread is known the normalizer routes nothing but
//! warnings (there is no turn yet).

use crate::commands::Commands;
use crate::launch::LABEL;
use crate::normalize::Normalizer;
use crate::permissions::{self, Asked, PendingApproval};
use crate::questions;
use crate::wire::notify::{Notification, ServerRequest};
use agent_bridge_core::agent_process::ExitInfo;
use agent_bridge_core::rpc::{Inbound, IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::ErrorCode;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// State shared by the session methods and the reader.
#[derive(Debug)]
pub struct Shared {
    pub normalizer: Normalizer,
    /// Permission id -> the Codex request waiting for it.
    pub approvals: HashMap<String, PendingApproval>,
    /// The session exists (open succeeded): an exit from now on is a runtime failure.
    pub live: bool,
    /// The session is closing (or dropped): the exit is expected.
    pub closing: bool,
    /// Which of the session's app-servers runs: 0 for the open's, one more per restart.
    pub runtime: u32,
    /// The session's skills and custom prompts.
    pub commands: Commands,
}

pub type SharedState = Arc<Mutex<Shared>>;

pub fn shared(normalizer: Normalizer) -> SharedState {
    Arc::new(Mutex::new(Shared {
        normalizer,
        approvals: HashMap::new(),
        live: false,
        closing: false,
        runtime: 0,
        commands: Commands::default(),
    }))
}

pub fn lock(shared: &SharedState) -> MutexGuard<'_, Shared> {
    // A poisoned lock only means a panic elsewhere; the state itself stays usable.
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sends a session's app-server messages into its sink.
pub struct SessionEvents {
    shared: SharedState,
    sink: SessionSink,
}

impl SessionEvents {
    pub fn new(shared: SharedState, sink: SessionSink) -> Self {
        Self { shared, sink }
    }
}

impl SessionEvents {
    /// Sends events into the sink in order, waiting while it is full; stops when the session
    /// is gone.
    async fn send(&self, events: Vec<AgentEvent>) {
        for ev in events {
            if !self.sink.send(ev).await {
                return;
            }
        }
    }
}

#[async_trait::async_trait]
impl Inbound for SessionEvents {
    async fn notification(&self, peer: &PeerHandle, method: String, params: Value) {
        if method == crate::wire::notify::method::SKILLS_CHANGED {
            // Only an invalidation: list them again (in the background, not on this path).
            crate::commands::refresh(&self.shared, peer, &self.sink);
            return;
        }
        let events = notification(&self.shared, &method, params);
        self.send(events).await;
    }

    async fn request(&self, _peer: &PeerHandle, request: IncomingRequest) {
        let events = server_request(&self.shared, request).await;
        self.send(events).await;
    }

    async fn closed(&self, _peer: &PeerHandle, exit: Option<ExitInfo>) {
        let expected = {
            let s = lock(&self.shared);
            !s.live || s.closing
        };
        if expected || exit.as_ref().is_some_and(|e| e.expected) {
            return;
        }
        let error = match exit {
            Some(exit) => exit.error(LABEL),
            None => agent_bridge_protocol::ProviderError::new(format!(
                "{LABEL} closed its output unexpectedly"
            ))
            .with_code(ErrorCode::RuntimeExited),
        };
        self.send(vec![AgentEvent::RuntimeFailed(error)]).await;
    }
}

/// For short-lived app-servers (catalog, session list): logs and drops notifications; server
/// requests get the peer's default refusal.
#[derive(Debug, Default, Clone, Copy)]
pub struct Discard;

#[async_trait::async_trait]
impl Inbound for Discard {
    async fn notification(&self, _peer: &PeerHandle, method: String, _params: Value) {
        tracing::debug!(%method, "codex notification ignored (no session)");
    }
}

fn notification(shared: &SharedState, method: &str, params: Value) -> Vec<AgentEvent> {
    tracing::trace!(%method, params = %format!("{params:.400}"), "codex notification");
    let mut s = lock(shared);
    if method == "serverRequest/resolved" {
        if let Notification::RequestResolved(r) = Notification::parse(method, params) {
            let id = permissions::permission_id(s.runtime, &r.request_id);
            s.approvals.remove(&id);
            return vec![AgentEvent::PermissionResolved { permission_id: id }];
        }
        return Vec::new();
    }
    s.normalizer.notification(method, params)
}

async fn server_request(shared: &SharedState, request: IncomingRequest) -> Vec<AgentEvent> {
    let IncomingRequest {
        id,
        method,
        params,
        responder,
    } = request;
    let parsed = {
        let s = lock(shared);
        match ServerRequest::parse(&method, params) {
            ServerRequest::CommandApproval(p) => Ok((
                permissions::command_request(&p, permissions::permission_id(s.runtime, &id)),
                p.item_id,
                Asked::Approval,
            )),
            ServerRequest::UserInput(p) => Ok((
                questions::request(&p, permissions::permission_id(s.runtime, &id)),
                p.item_id,
                Asked::Questions(p.questions),
            )),
            ServerRequest::McpElicitation(p) => {
                let permission_id = permissions::permission_id(s.runtime, &id);
                Ok(
                    match permissions::mcp_tool_approval(&p, permission_id.clone()) {
                        Some(request) => (request, String::new(), Asked::McpToolApproval),
                        None => {
                            let asked = permissions::elicitation(&p);
                            let mut request = asked.permission(permission_id);
                            if let Some(meta) = request.metadata.as_mut() {
                                meta.insert("threadId".into(), p.thread_id.clone().into());
                                meta.insert("turnId".into(), p.turn_id.clone().into());
                            }
                            (request, String::new(), Asked::Elicitation(asked))
                        }
                    },
                )
            }
            ServerRequest::FileChangeApproval(p) => {
                let snapshot = s.normalizer.tool(&p.item_id);
                Ok((
                    permissions::file_change_request(
                        &p,
                        permissions::permission_id(s.runtime, &id),
                        snapshot,
                    ),
                    p.item_id,
                    Asked::Approval,
                ))
            }
            ServerRequest::Other(m) => Err(m),
        }
    };
    let (request, item_id, asked) = match parsed {
        Ok(r) => r,
        Err(m) => {
            tracing::warn!(method = %m, "codex server request not supported; answered with an error");
            let error = agent_bridge_core::rpc::rpc_error(
                agent_bridge_core::rpc::METHOD_NOT_FOUND,
                format!("agent-bridge does not handle `{m}`"),
            );
            responder.respond(Err(error)).await;
            return Vec::new();
        }
    };
    // Answered later (by id) when the user decides, or cancelled with the turn.
    let rpc_id = responder.detach();
    lock(shared).approvals.insert(
        request.id.clone(),
        PendingApproval {
            rpc_id,
            item_id,
            asked,
        },
    );
    vec![AgentEvent::Permission(request)]
}
