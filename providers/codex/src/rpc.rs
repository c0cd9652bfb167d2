//! The app-server's JSON-RPC framing: one JSON object per line, JSON-RPC 2.0 shapes *without*
//! the `"jsonrpc"` field. Requests `{id, method, params}`, responses `{id, result | error}`,
//! notifications `{method, params}`; the server sends requests of its own (approvals).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A JSON-RPC error object as the app-server sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} (code {code})")]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// One message from the app-server.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests (our ids are numbers).
    Response {
        id: u64,
        result: Result<Value, RpcError>,
    },
    /// A request the server expects us to answer (`id` echoed verbatim).
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a JSON-RPC message: {0}")]
    Shape(String),
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
}

/// Classifies one stdout line.
pub fn parse_line(line: &str) -> Result<Incoming, ParseError> {
    let raw: Raw = serde_json::from_str(line)?;
    let params = raw.params.unwrap_or(Value::Null);
    match (raw.id, raw.method) {
        (Some(id), Some(method)) => Ok(Incoming::Request { id, method, params }),
        (None, Some(method)) => Ok(Incoming::Notification { method, params }),
        (Some(id), None) => {
            let id = id
                .as_u64()
                .ok_or_else(|| ParseError::Shape(format!("response to unknown id {id}")))?;
            let result = match raw.error {
                Some(e) => Err(e),
                None => Ok(raw.result.unwrap_or(Value::Null)),
            };
            Ok(Incoming::Response { id, result })
        }
        (None, None) => Err(ParseError::Shape(truncate(line, 200))),
    }
}

pub fn request_line(id: u64, method: &str, params: &Value) -> String {
    json!({ "id": id, "method": method, "params": params }).to_string()
}

pub fn notification_line(method: &str, params: Option<&Value>) -> String {
    match params {
        Some(p) => json!({ "method": method, "params": p }).to_string(),
        None => json!({ "method": method }).to_string(),
    }
}

pub fn result_line(id: &Value, result: &Value) -> String {
    json!({ "id": id, "result": result }).to_string()
}

pub fn error_line(id: &Value, code: i64, message: &str) -> String {
    json!({ "id": id, "error": { "code": code, "message": message } }).to_string()
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn classifies_the_four_shapes() {
        assert_eq!(
            parse_line(r#"{"id":3,"result":{"turn":{}}}"#).unwrap(),
            Incoming::Response {
                id: 3,
                result: Ok(json!({"turn":{}}))
            }
        );
        assert_eq!(
            parse_line(r#"{"id":4,"error":{"code":-32600,"message":"bad"}}"#).unwrap(),
            Incoming::Response {
                id: 4,
                result: Err(RpcError {
                    code: -32600,
                    message: "bad".into(),
                    data: None
                })
            }
        );
        assert_eq!(
            parse_line(
                r#"{"method":"item/commandExecution/requestApproval","id":0,"params":{"a":1}}"#
            )
            .unwrap(),
            Incoming::Request {
                id: json!(0),
                method: "item/commandExecution/requestApproval".into(),
                params: json!({"a":1})
            }
        );
        assert_eq!(
            parse_line(r#"{"method":"warning","params":{"message":"m"},"emittedAtMs":1}"#).unwrap(),
            Incoming::Notification {
                method: "warning".into(),
                params: json!({"message":"m"})
            }
        );
        assert!(parse_line("{}").is_err());
        assert!(parse_line("nope").is_err());
    }

    #[test]
    fn lines_have_no_jsonrpc_field() {
        assert_eq!(
            request_line(1, "initialize", &json!({})),
            r#"{"id":1,"method":"initialize","params":{}}"#
        );
        assert_eq!(
            notification_line("initialized", None),
            r#"{"method":"initialized"}"#
        );
        assert_eq!(
            result_line(&json!(0), &json!({"decision":"accept"})),
            r#"{"id":0,"result":{"decision":"accept"}}"#
        );
    }
}
