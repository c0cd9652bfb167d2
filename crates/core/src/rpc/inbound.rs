//! What the agent sends us besides answers: notifications and requests, handed to the
//! provider's [`Inbound`] one at a time, in order, on the reader task.

use super::{rpc_error, PeerHandle, RpcError, INTERNAL_ERROR, METHOD_NOT_FOUND};
use crate::agent_process::ExitInfo;
use async_trait::async_trait;
use serde_json::Value;

/// A provider's handler for one agent connection. Each call runs on the peer's reader task:
/// waiting inside it is backpressure on the agent. Answer a request at once (a small lookup) or
/// keep its [`Responder`] and answer later (a permission the user decides); a responder dropped
/// unanswered answers with an internal error, so the agent is never left waiting.
#[async_trait]
pub trait Inbound: Send + Sync + 'static {
    async fn notification(&self, peer: &PeerHandle, method: String, params: Value);

    /// A request from the agent. The default refuses it with `-32601`.
    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) {
        let _ = peer;
        let method = request.method.clone();
        request
            .responder
            .respond(Err(rpc_error(
                METHOD_NOT_FOUND,
                format!("agent-bridge does not serve `{method}`"),
            )))
            .await;
    }

    /// The agent's output ended; every waiting call has failed already. `exit` is the
    /// process's exit when the peer runs a process ([`crate::agent_process`]). Called last.
    async fn closed(&self, peer: &PeerHandle, exit: Option<ExitInfo>) {
        let _ = (peer, exit);
    }
}

/// One request from the agent.
#[derive(Debug)]
pub struct IncomingRequest {
    pub id: Value,
    pub method: String,
    pub params: Value,
    pub responder: Responder,
}

/// Answers one request of the agent, exactly once.
#[derive(Debug)]
pub struct Responder {
    peer: PeerHandle,
    id: Value,
    method: String,
    answered: bool,
}

impl Responder {
    pub(super) fn new(peer: PeerHandle, id: Value, method: String) -> Self {
        Responder {
            peer,
            id,
            method,
            answered: false,
        }
    }

    /// Takes the request over: the caller answers it later with [`PeerHandle::respond_to`]
    /// (by id), and owns the duty to answer. Returns the id.
    pub fn detach(mut self) -> Value {
        self.answered = true;
        std::mem::take(&mut self.id)
    }

    /// Sends the answer (waits for room in the writer's queue).
    pub async fn respond(mut self, result: Result<Value, RpcError>) {
        self.answered = true;
        self.peer.respond(&self.id, &result).await;
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        if !self.answered {
            tracing::debug!(method = %self.method, "agent request dropped unanswered; refusing it");
            let error = rpc_error(
                INTERNAL_ERROR,
                format!("agent-bridge could not answer `{}`", self.method),
            );
            self.peer.respond_now(&self.id, &Err(error));
        }
    }
}
