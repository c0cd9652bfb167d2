//! Envelopes: how a request, a notification and a response are written as one line, and how a
//! line from the agent is classified.

use super::RpcError;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// One message from the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response {
        id: Value,
        result: Result<Value, RpcError>,
    },
    /// A request the agent expects us to answer (`id` is echoed verbatim).
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
pub enum DecodeError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a message of this protocol: {0}")]
    Shape(String),
}

/// How one protocol frames its messages. Implementations are pure (no I/O).
pub trait Dialect: Send + Sync + 'static {
    /// The id of our `n`-th request (numbers by default).
    fn request_id(&self, n: u64, method: &str) -> Value {
        let _ = method;
        Value::from(n)
    }
    fn encode_request(&self, id: &Value, method: &str, params: &Value) -> String;
    fn encode_notification(&self, method: &str, params: Option<&Value>) -> String;
    fn encode_response(&self, id: &Value, result: &Result<Value, RpcError>) -> String;
    fn decode(&self, line: &str) -> Result<Incoming, DecodeError>;
}

/// JSON-RPC 2.0, with or without the `"jsonrpc": "2.0"` member on what we write. Reading
/// accepts both (Codex omits it, ACP agents send it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonRpc {
    version_member: bool,
}

impl JsonRpc {
    /// Standard JSON-RPC 2.0 (ACP agents).
    pub const fn v2() -> Self {
        JsonRpc {
            version_member: true,
        }
    }

    /// JSON-RPC 2.0 shapes without the `"jsonrpc"` member (`codex app-server`).
    pub const fn bare() -> Self {
        JsonRpc {
            version_member: false,
        }
    }

    fn envelope(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.version_member {
            m.insert("jsonrpc".into(), Value::from("2.0"));
        }
        m
    }
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

impl Dialect for JsonRpc {
    fn encode_request(&self, id: &Value, method: &str, params: &Value) -> String {
        let mut m = self.envelope();
        m.insert("id".into(), id.clone());
        m.insert("method".into(), Value::from(method));
        m.insert("params".into(), params.clone());
        Value::Object(m).to_string()
    }

    fn encode_notification(&self, method: &str, params: Option<&Value>) -> String {
        let mut m = self.envelope();
        m.insert("method".into(), Value::from(method));
        if let Some(p) = params {
            m.insert("params".into(), p.clone());
        }
        Value::Object(m).to_string()
    }

    fn encode_response(&self, id: &Value, result: &Result<Value, RpcError>) -> String {
        let mut m = self.envelope();
        m.insert("id".into(), id.clone());
        match result {
            Ok(v) => m.insert("result".into(), v.clone()),
            Err(e) => m.insert("error".into(), json!(e)),
        };
        Value::Object(m).to_string()
    }

    fn decode(&self, line: &str) -> Result<Incoming, DecodeError> {
        let raw: Raw = serde_json::from_str(line)?;
        let params = raw.params.unwrap_or(Value::Null);
        match (raw.id, raw.method) {
            (Some(id), Some(method)) if !id.is_null() => {
                Ok(Incoming::Request { id, method, params })
            }
            (_, Some(method)) => Ok(Incoming::Notification { method, params }),
            (Some(id), None) => {
                let result = match raw.error {
                    Some(e) => Err(e),
                    None => Ok(raw.result.unwrap_or(Value::Null)),
                };
                Ok(Incoming::Response { id, result })
            }
            (None, None) => Err(DecodeError::Shape(truncate(line, 200))),
        }
    }
}

/// Cuts a line for a log message.
pub(crate) fn truncate(s: &str, max: usize) -> String {
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
    fn classifies_requests_responses_and_notifications_with_or_without_the_member() {
        let d = JsonRpc::bare();
        assert_eq!(
            d.decode(r#"{"id":3,"result":{"turn":{}}}"#).unwrap(),
            Incoming::Response {
                id: json!(3),
                result: Ok(json!({"turn": {}}))
            }
        );
        assert_eq!(
            d.decode(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"bad"}}"#)
                .unwrap(),
            Incoming::Response {
                id: json!("a"),
                result: Err(RpcError {
                    code: -32600,
                    message: "bad".into(),
                    data: None
                })
            }
        );
        assert_eq!(
            d.decode(r#"{"method":"item/x/requestApproval","id":0,"params":{"a":1}}"#)
                .unwrap(),
            Incoming::Request {
                id: json!(0),
                method: "item/x/requestApproval".into(),
                params: json!({"a": 1})
            }
        );
        assert_eq!(
            d.decode(r#"{"method":"warning","params":{"m":1},"emittedAtMs":1}"#)
                .unwrap(),
            Incoming::Notification {
                method: "warning".into(),
                params: json!({"m": 1})
            }
        );
        assert!(d.decode("{}").is_err());
        assert!(d.decode("nope").is_err());
    }

    fn parsed(line: String) -> Value {
        serde_json::from_str(&line).expect("a JSON line")
    }

    #[test]
    fn writes_the_member_only_in_v2() {
        assert_eq!(
            parsed(JsonRpc::bare().encode_request(&json!(1), "initialize", &json!({}))),
            json!({"id": 1, "method": "initialize", "params": {}})
        );
        assert_eq!(
            parsed(JsonRpc::v2().encode_request(&json!(1), "initialize", &json!({}))),
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        );
        assert_eq!(
            parsed(JsonRpc::bare().encode_notification("initialized", None)),
            json!({"method": "initialized"})
        );
        assert_eq!(
            parsed(JsonRpc::v2().encode_response(&json!(0), &Ok(json!({"outcome": "x"})))),
            json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": "x"}})
        );
        let refused = Err(crate::rpc::rpc_error(-32601, "no"));
        assert_eq!(
            parsed(JsonRpc::bare().encode_response(&json!(0), &refused)),
            json!({"id": 0, "error": {"code": -32601, "message": "no"}})
        );
    }
}
