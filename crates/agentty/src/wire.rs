//! Agentty's executable-plugin protocol (API 4): JSON-RPC 2.0, one object per line, Agentty →
//! plugin on stdin, plugin → Agentty on stdout. Request ids are counted per direction.

use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The protocol version this plugin is written for (`apiVersion` of the manifest): 4, the
/// lowest that has `tools/call` (`mcp.tools`, `contributes.tools`).
pub const API_VERSION: u32 = 4;

/// Agentty's error codes (from the one table, [`agent_bridge_protocol::jsonrpc::codes`]).
pub mod codes {
    pub use agent_bridge_protocol::jsonrpc::codes::{
        AGENTTY_PERMISSION_DENIED as PERMISSION_DENIED, AGENTTY_UNAVAILABLE as UNAVAILABLE,
        INVALID_PARAMS, METHOD_NOT_FOUND,
    };
}

/// An error answer of Agentty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    pub code: i64,
    pub message: String,
}

/// One line from Agentty.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// Agentty → plugin call: `initialize` and `tools/call`.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// Agentty's answer to a request of this plugin.
    Response {
        id: u64,
        result: Result<Value, HostError>,
    },
}

impl Incoming {
    /// Parses a line; `None` for anything that is not a JSON-RPC object.
    pub fn parse(line: &str) -> Option<Incoming> {
        let value: Value = serde_json::from_str(line.trim()).ok()?;
        let object = value.as_object()?;
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        let id = object.get("id").filter(|id| !id.is_null()).cloned();
        match (id, object.get("method").and_then(Value::as_str)) {
            (Some(id), Some(method)) => Some(Incoming::Request {
                id,
                method: method.to_string(),
                params,
            }),
            (None, Some(method)) => Some(Incoming::Notification {
                method: method.to_string(),
                params,
            }),
            (Some(id), None) => {
                let id = id.as_u64()?;
                let result = match object.get("error") {
                    Some(error) => Err(HostError {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("error")
                            .to_string(),
                    }),
                    None => Ok(object.get("result").cloned().unwrap_or(Value::Null)),
                };
                Some(Incoming::Response { id, result })
            }
            (None, None) => None,
        }
    }
}

/// Where the user is, as far as the plugin's permissions let it see (`context`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The workspace folder (only with `workspace.read`).
    pub workspace_cwd: Option<PathBuf>,
    /// The workspace's name (only with `workspace.read`).
    pub workspace_name: Option<String>,
    /// The focused pane: its id and what runs in it (`claude`, `codex`, `shell`, ...).
    pub pane_id: Option<u64>,
    pub pane_kind: Option<String>,
}

#[derive(Deserialize)]
struct RawContext {
    #[serde(default)]
    workspace: Option<RawWorkspace>,
    #[serde(default)]
    pane: Option<RawPane>,
}

#[derive(Deserialize)]
struct RawWorkspace {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

#[derive(Deserialize)]
struct RawPane {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    kind: Option<String>,
}

impl Context {
    /// The context of `params.context`, or `None` when the message carries none.
    pub fn of(params: &Value) -> Option<Context> {
        let raw: RawContext = serde_json::from_value(params.get("context")?.clone()).ok()?;
        let workspace = raw.workspace;
        let cwd = workspace
            .as_ref()
            .and_then(|w| w.cwd.as_deref())
            .filter(|c| !c.trim().is_empty())
            .map(PathBuf::from);
        Some(Context {
            workspace_cwd: cwd,
            workspace_name: workspace.and_then(|w| w.name),
            pane_id: raw.pane.as_ref().and_then(|p| p.id),
            pane_kind: raw.pane.and_then(|p| p.kind),
        })
    }
}

/// A user interaction with the panel (`ui/event`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct UiEvent {
    pub element: String,
    pub event: String,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub item: Option<String>,
    #[serde(default)]
    pub action: Option<String>,
}

impl UiEvent {
    /// The value as text (`input` events), empty when there is none.
    pub fn text(&self) -> String {
        match &self.value {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        }
    }
}

/// A plugin → Agentty request line.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A plugin → Agentty notification line.
pub fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// The answer to one of Agentty's requests.
pub fn response(id: &Value, result: Result<Value, (i64, String)>) -> String {
    match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        Err((code, message)) => json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": code, "message": message}})
        .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_agentty_lines() {
        assert_eq!(
            Incoming::parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":1}}"#),
            Some(Incoming::Request {
                id: json!(1),
                method: "initialize".into(),
                params: json!({"a": 1})
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"jsonrpc":"2.0","method":"shutdown","params":{}}"#),
            Some(Incoming::Notification {
                method: "shutdown".into(),
                params: json!({})
            })
        );
        assert_eq!(
            Incoming::parse(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"no"}}"#),
            Some(Incoming::Response {
                id: 7,
                result: Err(HostError {
                    code: -32001,
                    message: "no".into()
                })
            })
        );
        assert_eq!(Incoming::parse("not json"), None);
        assert_eq!(Incoming::parse("[1]"), None);
    }

    #[test]
    fn the_context_carries_the_folder_only_when_it_is_there() {
        let with = json!({"context": {"workspace": {"id": 3, "active": true, "name": "api",
            "cwd": "/src/api"}, "pane": {"id": 9, "kind": "claude", "status": "idle"},
            "language": "en"}});
        let ctx = Context::of(&with).expect("context");
        assert_eq!(ctx.workspace_cwd, Some(PathBuf::from("/src/api")));
        assert_eq!(
            (ctx.pane_id, ctx.pane_kind.as_deref()),
            (Some(9), Some("claude"))
        );
        // Without `workspace.read` Agentty leaves out the folder and the title.
        let without = json!({"context": {"workspace": {"id": 3, "active": true},
            "pane": null, "language": "en"}});
        let ctx = Context::of(&without).expect("context");
        assert_eq!(ctx.workspace_cwd, None);
        assert_eq!(Context::of(&json!({})), None);
    }
}
