//! What the app-server says, as events: the core's inbound driver hands this module's
//! [`CodexTranslator`] the notifications and server requests in order and sends the events it
//! returns into the session's bounded sink, awaiting room. No queue of our own: a slow host
//! slows the reader, and through the stdout pipe the CLI.
//!
//! It is installed when the process starts, before the thread exists, so nothing the CLI says
//! during `open` waits in a buffer; until the thread is known the normalizer routes nothing but
//! warnings (there is no turn yet).

use crate::launch::LABEL;
use crate::permissions::{self, Asked, PendingApproval};
use crate::questions;
use crate::state::{lock, SharedState};
use crate::wire::notify::{Notification, ServerRequest};
use agent_bridge_core::lifecycle::{EventTarget, InboundDriver, Liveness, Translator};
use agent_bridge_core::rpc::{IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::ProviderPermissionRequest;
use serde_json::Value;
use std::sync::Arc;

/// Translates a session's app-server messages (the core's [`InboundDriver`] sends the events).
///
/// [`InboundDriver`]: agent_bridge_core::lifecycle::InboundDriver
pub struct CodexTranslator {
    shared: SharedState,
    sink: SessionSink,
}

impl CodexTranslator {
    pub fn new(shared: SharedState, sink: SessionSink) -> Self {
        CodexTranslator { shared, sink }
    }

    /// The session's inbound: this translator in the core's driver.
    pub fn inbound(
        shared: SharedState,
        sink: SessionSink,
        liveness: Liveness,
    ) -> Arc<InboundDriver<CodexTranslator>> {
        let events = EventTarget::new(Some(sink.clone()));
        Arc::new(InboundDriver::new(
            CodexTranslator { shared, sink },
            events,
            liveness,
            LABEL,
        ))
    }
}

#[async_trait::async_trait]
impl Translator for CodexTranslator {
    async fn notification(
        &self,
        peer: &PeerHandle,
        method: String,
        params: Value,
    ) -> Vec<AgentEvent> {
        if method == crate::wire::notify::method::SKILLS_CHANGED {
            // Only an invalidation: list them again (in the background, not on this path).
            crate::commands::refresh(&self.shared, peer, &self.sink);
            return Vec::new();
        }
        notification(&self.shared, &method, params)
    }

    async fn request(&self, _peer: &PeerHandle, request: IncomingRequest) -> Vec<AgentEvent> {
        server_request(&self.shared, request).await
    }

    fn ended(&self) {
        // The dead app-server's requests can no longer be answered.
        lock(&self.shared).approvals.clear();
    }

    /// A sub-agent thread restored at open (a shared app-server routes its messages here).
    fn owns(&self, native: &str) -> bool {
        lock(&self.shared).normalizer.has_child(native)
    }
}

/// One notification of the app-server (not `skills/changed`, which only refreshes the
/// commands): `serverRequest/resolved` settles a waiting request, the rest goes to the
/// session's normalizer.
pub fn notification(shared: &SharedState, method: &str, params: Value) -> Vec<AgentEvent> {
    tracing::trace!(%method, params = %format!("{params:.400}"), "codex notification");
    let mut s = lock(shared);
    if method == "serverRequest/resolved" {
        if let Notification::RequestResolved(r) = Notification::parse(method, params) {
            let id = permissions::permission_id(s.runtime, &r.request_id);
            let pending = s.approvals.take(&id).is_some();
            // Without a thread it may be another session's (on a shared app-server).
            if pending || r.thread_id.is_some() {
                return vec![AgentEvent::PermissionResolved { permission_id: id }];
            }
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
    let asked = ask(shared, &id, &method, params);
    let (request, item_id, asked) = match asked {
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
    hold(shared, request, responder.detach(), item_id, asked)
}

/// What a server request asks the user: the permission request, the item it is about (empty
/// when none) and how its answer is written; `Err(method)` for a request not handled.
pub fn ask(
    shared: &SharedState,
    id: &Value,
    method: &str,
    params: Value,
) -> Result<(ProviderPermissionRequest, String, Asked), String> {
    let s = lock(shared);
    match ServerRequest::parse(method, params) {
        ServerRequest::CommandApproval(p) => Ok((
            permissions::command_request(&p, permissions::permission_id(s.runtime, id)),
            p.item_id,
            Asked::Approval,
        )),
        ServerRequest::UserInput(p) => Ok((
            questions::request(&p, permissions::permission_id(s.runtime, id)),
            p.item_id,
            Asked::Questions(p.questions),
        )),
        ServerRequest::McpElicitation(p) => {
            let permission_id = permissions::permission_id(s.runtime, id);
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
                    permissions::permission_id(s.runtime, id),
                    snapshot,
                ),
                p.item_id,
                Asked::Approval,
            ))
        }
        ServerRequest::Other(m) => Err(m),
    }
}

/// Keeps a request for the user's answer (by its JSON-RPC id `rpc_id`, within the running
/// turn) and returns the permission event.
pub fn hold(
    shared: &SharedState,
    request: ProviderPermissionRequest,
    rpc_id: Value,
    item_id: String,
    asked: Asked,
) -> Vec<AgentEvent> {
    let mut s = lock(shared);
    let turn = s.normalizer.active_turn().map(|(core, _)| core.to_string());
    s.approvals.insert(
        request.id.clone(),
        PendingApproval {
            rpc_id,
            item_id,
            asked,
        },
        turn,
    );
    vec![AgentEvent::Permission(request)]
}
