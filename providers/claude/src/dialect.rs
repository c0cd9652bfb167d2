//! Claude Code's control protocol as a dialect of the core's JSON-RPC peer.
//!
//! - our requests: `{"type":"control_request","request_id":ID,"request":{"subtype":METHOD,…}}`;
//! - their answers: `{"type":"control_response","response":{"subtype":"success"|"error",
//!   "request_id":ID,"response":{…}|"error":"…"}}`;
//! - their requests (`can_use_tool`, `hook_callback`, `mcp_message`) have the same envelope and
//!   get the same answer shape;
//! - every other line (`system`, `assistant`, `user`, `stream_event`, `result`,
//!   `control_cancel_request`, …) is a notification whose method is its `type` and whose
//!   params are the whole line.

use crate::wire;
use agent_bridge_core::rpc::{DecodeError, Dialect, Incoming, RpcError};
use serde_json::{json, Value};

/// `code` of an error answer (the control protocol carries a message only).
pub use agent_bridge_protocol::jsonrpc::codes::CLAUDE_CONTROL_ERROR as CONTROL_ERROR;

#[derive(Debug, Clone, Copy, Default)]
pub struct ControlDialect;

fn id_str(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Dialect for ControlDialect {
    fn request_id(&self, n: u64, method: &str) -> Value {
        Value::from(format!("bridge-{method}-{n}"))
    }

    fn encode_request(&self, id: &Value, method: &str, params: &Value) -> String {
        let mut request = match params {
            Value::Object(m) => m.clone(),
            _ => serde_json::Map::new(),
        };
        request
            .entry("subtype")
            .or_insert_with(|| Value::from(method));
        wire::control_request_line(&id_str(id), Value::Object(request))
    }

    fn encode_notification(&self, method: &str, params: Option<&Value>) -> String {
        let mut line = match params {
            Some(Value::Object(m)) => m.clone(),
            _ => serde_json::Map::new(),
        };
        line.insert("type".into(), Value::from(method));
        Value::Object(line).to_string()
    }

    fn encode_response(&self, id: &Value, result: &Result<Value, RpcError>) -> String {
        match result {
            Ok(v) => wire::control_success_line(&id_str(id), v.clone()),
            Err(e) => wire::control_error_line(&id_str(id), &e.message),
        }
    }

    fn decode(&self, line: &str) -> Result<Incoming, DecodeError> {
        let v: Value = serde_json::from_str(line)?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "control_response" => {
                let body = &v["response"];
                let id = body.get("request_id").cloned().ok_or_else(|| {
                    DecodeError::Shape("control_response without request_id".into())
                })?;
                let result = if body["subtype"] == "success" {
                    Ok(body.get("response").cloned().unwrap_or(Value::Null))
                } else {
                    let message = body
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("control request failed");
                    Err(RpcError {
                        code: CONTROL_ERROR,
                        message: message.to_string(),
                        data: None,
                    })
                };
                Ok(Incoming::Response { id, result })
            }
            "control_request" => {
                let id = v.get("request_id").cloned().ok_or_else(|| {
                    DecodeError::Shape("control_request without request_id".into())
                })?;
                let params = v.get("request").cloned().unwrap_or_else(|| json!({}));
                let method = params
                    .get("subtype")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                Ok(Incoming::Request { id, method, params })
            }
            "" => Err(DecodeError::Shape("a line without `type`".into())),
            other => Ok(Incoming::Notification {
                method: other.to_string(),
                params: v,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parsed(line: String) -> Value {
        serde_json::from_str(&line).expect("JSON")
    }

    #[test]
    fn requests_answers_and_stream_lines() {
        let d = ControlDialect;
        let id = d.request_id(3, "interrupt");
        assert_eq!(id, json!("bridge-interrupt-3"));
        assert_eq!(
            parsed(d.encode_request(&id, "interrupt", &json!({}))),
            json!({"type": "control_request", "request_id": "bridge-interrupt-3",
                   "request": {"subtype": "interrupt"}})
        );
        assert_eq!(
            d.decode(r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"ok":1}}}"#)
                .unwrap(),
            Incoming::Response { id: json!("r1"), result: Ok(json!({"ok": 1})) }
        );
        let refused = d
            .decode(r#"{"type":"control_response","response":{"subtype":"error","request_id":"r2","error":"no"}}"#)
            .unwrap();
        assert!(
            matches!(refused, Incoming::Response { result: Err(ref e), .. } if e.message == "no")
        );
        assert_eq!(
            d.decode(r#"{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","tool_name":"Bash"}}"#)
                .unwrap(),
            Incoming::Request {
                id: json!("c1"),
                method: "can_use_tool".into(),
                params: json!({"subtype": "can_use_tool", "tool_name": "Bash"})
            }
        );
        assert_eq!(
            d.decode(r#"{"type":"result","subtype":"success"}"#)
                .unwrap(),
            Incoming::Notification {
                method: "result".into(),
                params: json!({"type": "result", "subtype": "success"})
            }
        );
        assert_eq!(
            parsed(d.encode_response(&json!("c1"), &Ok(json!({"behavior": "allow"})))),
            json!({"type": "control_response", "response": {"subtype": "success",
                   "request_id": "c1", "response": {"behavior": "allow"}}})
        );
        assert!(d.decode("[]").is_err());
    }
}
