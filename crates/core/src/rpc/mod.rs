//! One JSON-RPC peer for every agent wire: line-delimited messages, requests matched to their
//! answers, requests *from* the agent served by the provider's [`Inbound`], notifications
//! delivered in order, a bounded writer, a time limit per request, and a dead agent (its output
//! ended, its process exited, or writing to it failed) failing every waiting and every later
//! request at once, with a precise error.
//!
//! The envelope is a [`Dialect`]: JSON-RPC 2.0 with the `"jsonrpc"` member (ACP agents),
//! without it (`codex app-server`), or a provider's own (Claude's control protocol), so the
//! matching, ordering and failure rules are written once.
//!
//! Backpressure: the reader awaits the provider's handler for every notification and request,
//! so a handler that waits (its session's bounded sink is full) stops the reader, and the pipe
//! stops the agent. Outgoing lines go through a bounded queue to one writer task; a caller waits
//! for room instead of growing memory.

mod child;
mod dialect;
mod inbound;
mod peer;
mod reader;
#[cfg(test)]
mod tests;
mod writer;

pub use dialect::{DecodeError, Dialect, Incoming, JsonRpc};
pub use inbound::{Inbound, IncomingRequest, Responder};
pub use peer::{LineSource, Peer, PeerError, PeerHandle, PeerOptions};

/// The JSON-RPC error object (the same type the bridge's own wire uses).
pub use agent_bridge_protocol::jsonrpc::RpcError;

/// The codes of the one table ([`agent_bridge_protocol::jsonrpc::codes`]) the agent peers use.
pub use agent_bridge_protocol::jsonrpc::codes::{INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND};

/// Builds an error object.
pub fn rpc_error(code: i64, message: impl Into<String>) -> RpcError {
    RpcError {
        code,
        message: message.into(),
        data: None,
    }
}
