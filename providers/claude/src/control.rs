//! The bridge's side of the control protocol: requests it sends to the CLI and the lines it
//! writes to the CLI's stdin, over the core's JSON-RPC peer in the [`ControlDialect`]
//! (matching answers, a bounded writer and failing waiters when the CLI is gone are the
//! peer's job).

use crate::dialect::ControlDialect;
use crate::wire;
use agent_bridge_core::codec::{BoundedLineCodec, MAX_LINE};
use agent_bridge_core::rpc::{Peer, PeerError, PeerHandle, PeerOptions};
use agent_bridge_protocol::{ErrorCode, ProviderError};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// How long a control request may take before the bridge gives up on it.
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a starting CLI may take to answer `initialize`: on a machine busy with many
/// starting CLIs (16 + 16 sessions on 2 cores) it took over 20 s, and a CLI killed for being
/// slow only starts again, slower. The core's open limit still bounds the whole open.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum ControlError {
    #[error("the Claude Code process is not running")]
    Gone,
    #[error("Claude Code did not answer `{0}` in time")]
    Timeout(String),
    #[error("Claude Code refused `{subtype}`: {message}")]
    Refused { subtype: String, message: String },
}

impl ControlError {
    fn of(subtype: &str, e: PeerError) -> ControlError {
        match e {
            PeerError::Rpc { error, .. } => ControlError::Refused {
                subtype: subtype.to_string(),
                message: error.message,
            },
            PeerError::Timeout { .. } => ControlError::Timeout(subtype.to_string()),
            PeerError::Closed { .. } => ControlError::Gone,
        }
    }
}

/// Writes to one CLI and sends it control requests.
#[derive(Debug, Clone)]
pub struct ControlChannel {
    peer: PeerHandle,
}

fn subtype_of(request: &Value) -> String {
    request
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or("request")
        .to_string()
}

impl ControlChannel {
    pub fn new(peer: PeerHandle) -> Self {
        ControlChannel { peer }
    }

    /// Queues one line for the CLI (waits while the writer's queue is full).
    pub async fn write(&self, line: String) -> Result<(), ControlError> {
        self.peer
            .send_line(line)
            .await
            .map_err(|_| ControlError::Gone)
    }

    /// Closes the CLI's stdin once every queued line is written.
    pub async fn close(&self) {
        self.peer.close_input().await;
    }

    /// A stand-in whose writes fail (tests, a process that could not start).
    pub fn closed() -> ControlChannel {
        let input =
            tokio_util::codec::FramedRead::new(tokio::io::empty(), BoundedLineCodec::new(MAX_LINE));
        let peer = Peer::start(
            input,
            tokio::io::sink(),
            Arc::new(ControlDialect),
            Arc::new(agent_bridge_core::lifecycle::RefuseAll),
            PeerOptions::new("Claude Code"),
        );
        ControlChannel { peer }
    }

    /// Sends a control request without waiting for its answer (a refusal is logged).
    pub async fn send(&self, request: Value) -> Result<(), ControlError> {
        let subtype = subtype_of(&request);
        let (_, answer) = self
            .peer
            .start_call(&subtype, &request)
            .await
            .map_err(|e| ControlError::of(&subtype, e))?;
        tokio::spawn(async move {
            if let Ok(Err(PeerError::Rpc { error, .. })) = answer.await {
                tracing::warn!("claude refused `{subtype}`: {}", error.message);
            }
        });
        Ok(())
    }

    /// Sends a control request and waits for the CLI's answer.
    pub async fn request(&self, request: Value) -> Result<Value, ControlError> {
        self.request_within(request, CONTROL_TIMEOUT).await
    }

    /// [`request`](Self::request) waiting up to `limit`.
    pub async fn request_within(
        &self,
        request: Value,
        limit: Duration,
    ) -> Result<Value, ControlError> {
        let subtype = subtype_of(&request);
        self.peer
            .call_within(&subtype, request, limit)
            .await
            .map_err(|e| ControlError::of(&subtype, e))
    }
}

/// The answer to a control request the CLI sent, other than `can_use_tool` and `elicitation`
/// (which wait for the host): the bridge registers no hooks (a callback is told to continue) and hosts no
/// in-process MCP servers (a JSON-RPC error for the message); anything else is refused.
pub fn reply_to(req: &wire::ControlRequest) -> Result<Value, String> {
    match req.subtype() {
        "hook_callback" => Ok(json!({})),
        "mcp_message" => {
            let server = req.str_field("server_name").unwrap_or("?");
            let id = req
                .request
                .get("message")
                .and_then(|m| m.get("id"))
                .cloned()
                .unwrap_or(Value::Null);
            let error = json!({"code": -32601, "message": format!("no SDK MCP server named {server} in agent-bridge")});
            Ok(json!({"mcp_response": {"jsonrpc": "2.0", "id": id, "error": error}}))
        }
        other => Err(format!("agent-bridge does not handle `{other}`")),
    }
}

/// A control failure as a provider error.
pub(crate) fn control_error(e: ControlError) -> ProviderError {
    let code = match e {
        // The process died before the bridge heard of it: the core restarts it and retries.
        ControlError::Gone => ErrorCode::RuntimeExited,
        ControlError::Timeout(_) | ControlError::Refused { .. } => ErrorCode::AgentError,
    };
    ProviderError::new(e.to_string()).with_code(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn req(request: Value) -> wire::ControlRequest {
        serde_json::from_value(json!({"request_id": "r1", "request": request})).expect("request")
    }

    #[test]
    fn every_cli_request_gets_an_answer() {
        let hook = reply_to(&req(
            json!({"subtype": "hook_callback", "callback_id": "hook_0", "input": {}}),
        ));
        assert_eq!(hook, Ok(json!({})));
        let mcp = reply_to(&req(
            json!({"subtype": "mcp_message", "server_name": "x", "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}}),
        ))
        .expect("an MCP answer");
        assert_eq!(mcp["mcp_response"]["id"], 7);
        assert_eq!(mcp["mcp_response"]["error"]["code"], -32601);
        assert!(reply_to(&req(json!({"subtype": "brand_new"}))).is_err());
    }

    #[tokio::test]
    async fn a_dead_process_fails_requests_at_once() {
        let channel = ControlChannel::closed();
        // Let the reader see the end of input (on this single-threaded runtime a yield runs it).
        for _ in 0..1000 {
            if channel.peer.is_closed() {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(channel.peer.is_closed(), "the reader saw the end of input");
        assert_eq!(
            channel.request(json!({"subtype": "interrupt"})).await,
            Err(ControlError::Gone)
        );
    }
}
