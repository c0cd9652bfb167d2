//! Builders for `ProviderInput` values (plain JSON, so tests can also build invalid ones).

use serde_json::{json, Value};
use std::path::Path;

/// Merges `patch` into `base` (objects recursively; anything else replaces).
pub fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                merge(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (b, p) => *b = p,
    }
}

/// A minimal `ProviderSessionConfig`: `{cwd, env: {}, mcpServers: {}, persist: false}` with
/// `patch` merged in (e.g. `json!({"mode": "auto", "persist": true})`).
pub fn session_config(cwd: &Path, patch: Value) -> Value {
    let mut config =
        json!({ "cwd": cwd.display().to_string(), "env": {}, "mcpServers": {}, "persist": false });
    merge(&mut config, patch);
    config
}

/// `session.open` of a new session (`history: "skip"`).
pub fn open(request_id: &str, session_id: &str, config: Value) -> Value {
    json!({ "type": "session.open", "requestId": request_id, "sessionId": session_id, "config": config, "history": "skip" })
}

/// `session.open` resuming `persistence`, with `history` `"replay"` or `"skip"`.
pub fn resume(
    request_id: &str,
    session_id: &str,
    config: Value,
    persistence: Value,
    history: &str,
) -> Value {
    json!({
        "type": "session.open", "requestId": request_id, "sessionId": session_id,
        "config": config, "persistence": persistence, "history": history,
    })
}

fn prompt(session_id: &str, client_message_id: &str, delivery: &str, input: Value) -> Value {
    json!({
        "type": "session.prompt", "sessionId": session_id,
        "prompt": { "clientMessageId": client_message_id, "delivery": delivery, "input": input },
    })
}

/// A text message prompt with `delivery: "auto"`.
pub fn message(session_id: &str, client_message_id: &str, text: &str) -> Value {
    prompt(
        session_id,
        client_message_id,
        "auto",
        json!({ "type": "message", "content": [{ "type": "text", "text": text }] }),
    )
}

/// A text message prompt with `delivery: "steer"`.
pub fn steer(session_id: &str, client_message_id: &str, text: &str) -> Value {
    prompt(
        session_id,
        client_message_id,
        "steer",
        json!({ "type": "message", "content": [{ "type": "text", "text": text }] }),
    )
}

/// A command prompt (`/name arguments`) with `delivery: "auto"`.
pub fn command(session_id: &str, client_message_id: &str, name: &str, arguments: &str) -> Value {
    prompt(
        session_id,
        client_message_id,
        "auto",
        json!({ "type": "command", "name": name, "arguments": arguments }),
    )
}

pub fn interrupt(request_id: &str, session_id: &str) -> Value {
    json!({ "type": "session.interrupt", "requestId": request_id, "sessionId": session_id })
}

/// `session.configure` with `changes` as given (`{"model": ..}`, `{"providerOptions": {..}}`).
pub fn configure(request_id: &str, session_id: &str, changes: Value) -> Value {
    json!({ "type": "session.configure", "requestId": request_id, "sessionId": session_id, "changes": changes })
}

/// `session.permission` answering `permission_id` with `response` (`{"behavior": "allow"}`).
pub fn permission(session_id: &str, permission_id: &str, response: Value) -> Value {
    json!({ "type": "session.permission", "sessionId": session_id, "permissionId": permission_id, "response": response })
}

pub fn close(request_id: &str, session_id: &str) -> Value {
    json!({ "type": "session.close", "requestId": request_id, "sessionId": session_id })
}

pub fn can_stop_runtime(request_id: &str, session_id: &str) -> Value {
    json!({ "type": "session.can_stop_runtime", "requestId": request_id, "sessionId": session_id })
}

pub fn catalog(request_id: &str) -> Value {
    json!({ "type": "catalog", "requestId": request_id })
}

pub fn sessions(request_id: &str) -> Value {
    json!({ "type": "sessions", "requestId": request_id })
}
