//! JSON-RPC 2.0 envelopes and the bridge's error codes.

use crate::Json;
use serde::{Deserialize, Serialize};

/// Error codes of the bridge wire contract.
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
            RpcErrorCode::ParseError => -32700,
            RpcErrorCode::InvalidRequest => -32600,
            RpcErrorCode::MethodNotFound => -32601,
            RpcErrorCode::InvalidParams => -32602,
            RpcErrorCode::CapabilityNotNegotiated => -32001,
            RpcErrorCode::Unavailable => -32002,
            RpcErrorCode::Internal => -32603,
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
