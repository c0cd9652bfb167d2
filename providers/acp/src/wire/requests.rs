//! The params of the requests and notifications the bridge sends, built from the crate's types
//! and serialized for the peer (which takes JSON values).

use super::acp::{
    CancelNotification, ClientCapabilities, CloseSessionRequest, ContentBlock,
    FileSystemCapabilities, Implementation, InitializeRequest, ListSessionsRequest,
    LoadSessionRequest, McpServer, NewSessionRequest, PromptRequest, ResumeSessionRequest,
    SessionConfigOptionValue, SetSessionConfigOptionRequest, SetSessionModeRequest,
};
use agent_client_protocol_schema::ProtocolVersion;
use serde::Serialize;
use serde_json::Value;

fn params(request: impl Serialize) -> Value {
    // The crate's request types are plain data: serializing them cannot fail.
    serde_json::to_value(request).unwrap_or(Value::Null)
}

/// `initialize`: protocol v1; no file system or terminal served (the agent does its own).
pub fn initialize() -> Value {
    let mut fs = FileSystemCapabilities::new();
    fs.read_text_file = false;
    fs.write_text_file = false;
    let mut caps = ClientCapabilities::new();
    caps.fs = fs;
    caps.terminal = false;
    params(
        InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(caps)
            .client_info(Implementation::new(
                "agent-bridge",
                env!("CARGO_PKG_VERSION"),
            )),
    )
}

/// `session/new` in `cwd`.
pub fn new_session(cwd: &str, mcp: Vec<McpServer>) -> Value {
    params(NewSessionRequest::new(cwd).mcp_servers(mcp))
}

/// `session/load` of `session_id` in `cwd`.
pub fn load_session(session_id: &str, cwd: &str, mcp: Vec<McpServer>) -> Value {
    params(LoadSessionRequest::new(session_id.to_string(), cwd).mcp_servers(mcp))
}

/// `session/resume` of `session_id` in `cwd`. The crate leaves an empty `mcpServers` out
/// (optional in `session/resume`); it is sent as the bridge always sent it, since an agent
/// older than the schema may still require it as in `session/new` and `session/load`.
pub fn resume_session(session_id: &str, cwd: &str, mcp: Vec<McpServer>) -> Value {
    let mut p = params(ResumeSessionRequest::new(session_id.to_string(), cwd).mcp_servers(mcp));
    if let Some(fields) = p.as_object_mut() {
        fields
            .entry("mcpServers")
            .or_insert_with(|| Value::Array(Vec::new()));
    }
    p
}

/// `session/load` or `session/resume` (`how`) of `session_id`: the same params.
pub fn reopen(how: &str, session_id: &str, cwd: &str, mcp: Vec<McpServer>) -> Value {
    if how == super::method::SESSION_RESUME {
        resume_session(session_id, cwd, mcp)
    } else {
        load_session(session_id, cwd, mcp)
    }
}

/// `session/close`.
pub fn close_session(session_id: &str) -> Value {
    params(CloseSessionRequest::new(session_id.to_string()))
}

/// `session/list`, one page (of `cwd`'s sessions when given).
pub fn list_sessions(cwd: Option<&str>, cursor: Option<&str>) -> Value {
    params(
        ListSessionsRequest::new()
            .cwd(cwd.map(std::path::PathBuf::from))
            .cursor(cursor.map(str::to_string)),
    )
}

/// `session/prompt`.
pub fn prompt(session_id: &str, blocks: Vec<ContentBlock>) -> Value {
    params(PromptRequest::new(session_id.to_string(), blocks))
}

/// `session/cancel` (a notification).
pub fn cancel(session_id: &str) -> Value {
    params(CancelNotification::new(session_id.to_string()))
}

/// `session/set_mode`.
pub fn set_mode(session_id: &str, mode_id: &str) -> Value {
    params(SetSessionModeRequest::new(
        session_id.to_string(),
        mode_id.to_string(),
    ))
}

/// `session/set_config_option` to a select's value.
pub fn set_config_option(session_id: &str, config_id: &str, value: &str) -> Value {
    set_config_value(session_id, config_id, SessionConfigOptionValue::from(value))
}

/// `session/set_config_option` to a value of any kind (a boolean goes with `"type":
/// "boolean"`).
pub fn set_config_value(
    session_id: &str,
    config_id: &str,
    value: SessionConfigOptionValue,
) -> Value {
    params(SetSessionConfigOptionRequest::new(
        session_id.to_string(),
        config_id.to_string(),
        value,
    ))
}

/// `session/set_model`: not in ACP v1 (so not in the crate), the shape the agents serving it
/// take.
pub fn set_model(session_id: &str, model_id: &str) -> Value {
    serde_json::json!({"sessionId": session_id, "modelId": model_id})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::acp::{EnvVariable, McpServerStdio};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// The params are what the hand-written requests sent (the pinned agents' transcripts),
    /// but for `clientCapabilities.auth`, which the crate always writes (ACP v1's default,
    /// no terminal login served).
    #[test]
    fn the_params_are_the_wire_the_agents_know() {
        assert_eq!(
            initialize(),
            json!({
                "protocolVersion": 1,
                "clientCapabilities": {
                    "fs": { "readTextFile": false, "writeTextFile": false },
                    "terminal": false,
                    "auth": { "terminal": false },
                },
                "clientInfo": { "name": "agent-bridge", "version": env!("CARGO_PKG_VERSION") },
            })
        );
        let stdio = McpServer::Stdio(
            McpServerStdio::new("local", "srv")
                .args(vec!["-v".into()])
                .env(vec![EnvVariable::new("A", "1")]),
        );
        assert_eq!(
            new_session("/w", vec![stdio]),
            json!({"cwd": "/w", "mcpServers": [
                {"name": "local", "command": "srv", "args": ["-v"], "env": [{"name": "A", "value": "1"}]}]})
        );
        assert_eq!(
            load_session("s", "/w", vec![]),
            json!({"sessionId": "s", "cwd": "/w", "mcpServers": []})
        );
        assert_eq!(
            resume_session("s", "/w", vec![]),
            json!({"sessionId": "s", "cwd": "/w", "mcpServers": []})
        );
        assert_eq!(close_session("s"), json!({"sessionId": "s"}));
        assert_eq!(cancel("s"), json!({"sessionId": "s"}));
        assert_eq!(list_sessions(None, None), json!({}));
        assert_eq!(
            list_sessions(Some("/w"), Some("c2")),
            json!({"cwd": "/w", "cursor": "c2"})
        );
        assert_eq!(
            set_mode("s", "plan"),
            json!({"sessionId": "s", "modeId": "plan"})
        );
        assert_eq!(
            set_config_option("s", "model", "fast"),
            json!({"sessionId": "s", "configId": "model", "value": "fast"})
        );
        assert_eq!(
            set_config_value("s", "yolo", SessionConfigOptionValue::boolean(true)),
            json!({"sessionId": "s", "configId": "yolo", "type": "boolean", "value": true})
        );
        assert_eq!(
            prompt("s", vec![ContentBlock::from("hi")]),
            json!({"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]})
        );
    }
}
