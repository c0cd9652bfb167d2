//! The session's [`MessageHandler`]: the reader task hands it the app-server's notifications and
//! server requests in order; it turns them into [`AgentEvent`]s and sends them into the
//! session's bounded sink, awaiting room. No queue of our own: a slow host slows the reader,
//! and through the stdout pipe the CLI.
//!
//! It is installed when the process starts, before the thread exists, so nothing the CLI says
//! during `open` waits in a buffer; until the thread is known the normalizer routes nothing but
//! warnings (there is no turn yet).

use crate::client::{MessageHandler, RpcHandle, ServerMessage};
use crate::normalize::Normalizer;
use crate::permissions::{self, PendingApproval};
use crate::wire::notify::{Notification, ServerRequest};
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::ProviderError;
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
}

pub type SharedState = Arc<Mutex<Shared>>;

pub fn shared(normalizer: Normalizer) -> SharedState {
    Arc::new(Mutex::new(Shared {
        normalizer,
        approvals: HashMap::new(),
        live: false,
        closing: false,
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

#[async_trait::async_trait]
impl MessageHandler for SessionEvents {
    async fn handle(&self, rpc: &RpcHandle, message: ServerMessage) {
        let events = match message {
            ServerMessage::Notification { method, params } => {
                notification(&self.shared, &method, params)
            }
            ServerMessage::Request { id, method, params } => {
                server_request(&self.shared, rpc, id, &method, params)
            }
            ServerMessage::Exited { status, stderr } => {
                let s = lock(&self.shared);
                if !s.live || s.closing {
                    return;
                }
                drop(s);
                let message = match status {
                    Some(s) => format!("codex app-server exited unexpectedly ({s})"),
                    None => "codex app-server exited unexpectedly".to_string(),
                };
                let error = ProviderError::new(message)
                    .with_code("runtime_exited")
                    .with_diagnostic(stderr);
                vec![AgentEvent::RuntimeFailed(error)]
            }
        };
        for ev in events {
            // Waits while the sink is full; false = the session is gone, drop the rest.
            if !self.sink.send(ev).await {
                return;
            }
        }
    }
}

fn notification(shared: &SharedState, method: &str, params: Value) -> Vec<AgentEvent> {
    let mut s = lock(shared);
    if method == "serverRequest/resolved" {
        if let Notification::RequestResolved(r) = Notification::parse(method, params) {
            let id = permissions::permission_id(&r.request_id);
            s.approvals.remove(&id);
            return vec![AgentEvent::PermissionResolved { permission_id: id }];
        }
        return Vec::new();
    }
    s.normalizer.notification(method, params)
}

fn server_request(
    shared: &SharedState,
    rpc: &RpcHandle,
    id: Value,
    method: &str,
    params: Value,
) -> Vec<AgentEvent> {
    let mut s = lock(shared);
    let (request, item_id) = match ServerRequest::parse(method, params) {
        ServerRequest::CommandApproval(p) => (permissions::command_request(&p, &id), p.item_id),
        ServerRequest::FileChangeApproval(p) => {
            let snapshot = s.normalizer.tool(&p.item_id);
            (
                permissions::file_change_request(&p, &id, snapshot),
                p.item_id,
            )
        }
        ServerRequest::Other(m) => {
            tracing::warn!(method = %m, "codex server request not supported; answered with an error");
            rpc.respond_error(&id, -32601, &format!("agent-bridge does not handle `{m}`"));
            return Vec::new();
        }
    };
    s.approvals.insert(
        request.id.clone(),
        PendingApproval {
            rpc_id: id,
            item_id,
        },
    );
    vec![AgentEvent::Permission(request)]
}
