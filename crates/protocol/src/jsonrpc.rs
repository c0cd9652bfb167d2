//! JSON-RPC 2.0 envelopes and the bridge's error codes.

use crate::Json;
use serde::{Deserialize, Serialize};

/// Every JSON-RPC error code the bridge sends or reads, in one table: JSON-RPC 2.0's own, the
/// bridge wire's ([`RpcErrorCode`], `docs/wire.md`), Agentty's plugin protocol's and the vendor
/// CLIs'. Each protocol gives the server range (-32000 to -32099) a meaning of its own, so one
/// number can stand here under two protocols' names.
pub mod codes {
    // JSON-RPC 2.0, every peer.
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a JSON-RPC 2.0 request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method is not served.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// An internal error (a request the handler dropped unanswered, say).
    pub const INTERNAL_ERROR: i64 = -32603;

    // The bridge's wire (host <-> bridge).
    /// The input needs a capability the connection did not negotiate.
    pub const CAPABILITY_NOT_NEGOTIATED: i64 = -32001;
    /// Not initialized yet, connection closed, bridge shutting down, agent CLI missing.
    pub const UNAVAILABLE: i64 = -32002;

    // Agentty's executable-plugin protocol (API 2), Agentty's answers to the plugin.
    /// Permission missing, or refused because a link reached the plugin.
    pub const AGENTTY_PERMISSION_DENIED: i64 = -32001;
    /// No window open, no session yet.
    pub const AGENTTY_UNAVAILABLE: i64 = -32002;

    // The vendor CLIs.
    /// ACP's `auth_required`: the agent needs a login first.
    pub const ACP_AUTH_REQUIRED: i64 = -32000;
    /// The bridge's answer to a Claude Code control request it refuses (the control protocol
    /// carries a message only).
    pub const CLAUDE_CONTROL_ERROR: i64 = -32000;
}

/// Error codes of the bridge wire contract (their numbers: [`codes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcErrorCode {
    /// -32700: the line is not JSON.
    ParseError,
    /// -32600: not a JSON-RPC 2.0 object, or a line over 16 MiB.
    InvalidRequest,
    /// -32601: unknown method.
    MethodNotFound,
    /// -32602: schema violation, unknown provider/connection/session, duplicate session id.
    InvalidParams,
    /// -32001: the input needs a capability the connection did not negotiate.
    CapabilityNotNegotiated,
    /// -32002: not initialized yet, connection closed, bridge shutting down, agent CLI missing.
    Unavailable,
    /// -32603: an internal error of the bridge.
    Internal,
}

impl RpcErrorCode {
    pub fn code(self) -> i64 {
        match self {
            RpcErrorCode::ParseError => codes::PARSE_ERROR,
            RpcErrorCode::InvalidRequest => codes::INVALID_REQUEST,
            RpcErrorCode::MethodNotFound => codes::METHOD_NOT_FOUND,
            RpcErrorCode::InvalidParams => codes::INVALID_PARAMS,
            RpcErrorCode::CapabilityNotNegotiated => codes::CAPABILITY_NOT_NEGOTIATED,
            RpcErrorCode::Unavailable => codes::UNAVAILABLE,
            RpcErrorCode::Internal => codes::INTERNAL_ERROR,
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Json>,
}

/// Most characters of an error message: a message quoting what the host sent (an unknown id
/// of 1 MiB, say) is cut, with `…`.
pub const MAX_ERROR_MESSAGE: usize = 2000;

/// `text` cut to at most `max` characters (then ending with `…`).
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

impl RpcError {
    /// An error of the bridge; a message over [`MAX_ERROR_MESSAGE`] characters is cut.
    pub fn new(code: RpcErrorCode, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = if message.len() > MAX_ERROR_MESSAGE {
            clip(&message, MAX_ERROR_MESSAGE)
        } else {
            message
        };
        Self {
            code: code.code(),
            message,
            data: None,
        }
    }

    pub fn with_diagnostic(mut self, diagnostic: impl Into<String>) -> Self {
        self.data = Some(serde_json::json!({ "diagnostic": diagnostic.into() }));
        self
    }
}

/// A JSON-RPC request id: a number or a string (null only in error responses). Any JSON number
/// is kept as parsed (negative, beyond `i64`, with a fraction) and echoed as that number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(serde_json::Number),
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{}", Json::String(s.clone())),
        }
    }
}

/// One outgoing message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outgoing {
    Response {
        jsonrpc: &'static str,
        id: Option<RequestId>,
        result: Json,
    },
    Error {
        jsonrpc: &'static str,
        id: Option<RequestId>,
        error: RpcError,
    },
    Notification {
        jsonrpc: &'static str,
        method: &'static str,
        params: Json,
    },
}

impl Outgoing {
    pub fn result(id: RequestId, result: Json) -> Self {
        Outgoing::Response {
            jsonrpc: "2.0",
            id: Some(id),
            result,
        }
    }

    pub fn error(id: Option<RequestId>, error: RpcError) -> Self {
        Outgoing::Error {
            jsonrpc: "2.0",
            id,
            error,
        }
    }

    pub fn notification(method: &'static str, params: Json) -> Self {
        Outgoing::Notification {
            jsonrpc: "2.0",
            method,
            params,
        }
    }
}

/// One incoming message, after the envelope was checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: RequestId,
        method: String,
        params: Json,
    },
    Notification {
        method: String,
        params: Json,
    },
    /// A response to a request the bridge sent (the bridge sends none today; tolerated).
    Response {
        id: RequestId,
    },
}

impl Incoming {
    /// Checks a parsed JSON value against the JSON-RPC 2.0 envelope rules.
    pub fn from_value(value: Json) -> Result<Incoming, (Option<RequestId>, RpcError)> {
        let Json::Object(mut obj) = value else {
            return Err((
                None,
                RpcError::new(
                    RpcErrorCode::InvalidRequest,
                    "a message must be a JSON-RPC 2.0 object",
                ),
            ));
        };
        let id = match obj.remove("id") {
            None => None,
            Some(v) => match serde_json::from_value::<RequestId>(v) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err((
                        None,
                        RpcError::new(
                            RpcErrorCode::InvalidRequest,
                            "`id` must be a number or a string",
                        ),
                    ))
                }
            },
        };
        if obj.get("jsonrpc").and_then(Json::as_str) != Some("2.0") {
            return Err((
                id,
                RpcError::new(RpcErrorCode::InvalidRequest, "`jsonrpc` must be \"2.0\""),
            ));
        }
        let params = obj.remove("params").unwrap_or(Json::Null);
        match (obj.remove("method"), id) {
            (Some(Json::String(method)), Some(id)) => Ok(Incoming::Request { id, method, params }),
            (Some(Json::String(method)), None) => Ok(Incoming::Notification { method, params }),
            (Some(_), id) => Err((
                id,
                RpcError::new(RpcErrorCode::InvalidRequest, "`method` must be a string"),
            )),
            (None, Some(id)) if obj.contains_key("result") || obj.contains_key("error") => {
                Ok(Incoming::Response { id })
            }
            (None, id) => Err((
                id,
                RpcError::new(RpcErrorCode::InvalidRequest, "a request needs a `method`"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bridge wire's codes are the table's, and no two of them share a number.
    #[test]
    fn the_wire_codes_are_distinct_entries_of_the_table() {
        let all = [
            RpcErrorCode::ParseError,
            RpcErrorCode::InvalidRequest,
            RpcErrorCode::MethodNotFound,
            RpcErrorCode::InvalidParams,
            RpcErrorCode::CapabilityNotNegotiated,
            RpcErrorCode::Unavailable,
            RpcErrorCode::Internal,
        ];
        let numbers: std::collections::BTreeSet<i64> = all.iter().map(|c| c.code()).collect();
        assert_eq!(numbers.len(), all.len());
        assert_eq!(
            numbers.into_iter().collect::<Vec<_>>(),
            vec![-32700, -32603, -32602, -32601, -32600, -32002, -32001]
        );
    }
}
