//! Per-event validation against two schemas: the JSON Schema of `ProviderEvent` generated from
//! our own wire types, and the hand-written one transcribed from Paseo's spec
//! ([`crate::paseo_schema`]); then a strict serde round trip through
//! `agent_bridge_protocol::ProviderEvent` (catches optional fields sent as `null` and keys the
//! schema does not know), and the tool-call `error` rule.

use agent_bridge_protocol::ProviderEvent;
use serde_json::Value;
use std::sync::OnceLock;

fn validator() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let schema = agent_bridge_protocol::schema::event_schema();
            jsonschema::validator_for(&schema)
                .map_err(|e| format!("the ProviderEvent schema does not compile: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Every problem with one `ProviderEvent`, as human-readable strings (empty when valid).
pub fn validate_event(event: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    match validator() {
        Ok(v) => {
            for err in v.iter_errors(event) {
                problems.push(format!(
                    "own schema: {err} (at `{}`, schema `{}`)",
                    err.instance_path, err.schema_path
                ));
            }
        }
        Err(e) => problems.push(e),
    }
    problems.extend(crate::paseo_schema::check(event));
    match serde_json::from_value::<ProviderEvent>(event.clone()) {
        Ok(parsed) => match serde_json::to_value(&parsed) {
            Ok(round) => diff("event", event, &round, &mut problems),
            Err(e) => problems.push(format!("round trip: cannot re-serialize: {e}")),
        },
        Err(e) => problems.push(format!("round trip: not a ProviderEvent: {e}")),
    }
    if let Some(item) = event.get("item") {
        check_tool_call(item, &mut problems);
    }
    problems
}

/// `tool_call`: `error` is `null` unless `status` is `failed`; then it is present and not null.
fn check_tool_call(item: &Value, problems: &mut Vec<String>) {
    if item.get("type").and_then(Value::as_str) != Some("tool_call") {
        return;
    }
    let status = item.get("status").and_then(Value::as_str).unwrap_or("");
    match (status, item.get("error")) {
        ("failed", None | Some(Value::Null)) => {
            problems.push("tool_call: status `failed` needs a non-null `error`".to_string())
        }
        ("failed", Some(_)) => {}
        (_, Some(Value::Null)) => {}
        (other, None) => problems.push(format!(
            "tool_call: status `{other}` needs `error: null` (key missing)"
        )),
        (other, Some(e)) => problems.push(format!(
            "tool_call: status `{other}` must carry `error: null`, got {e}"
        )),
    }
}

/// Keys whose `null` value is legal although the field is optional.
fn null_allowed(path: &str) -> bool {
    path.ends_with(".exitCode")
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Compares what the bridge sent with what the typed round trip produced.
fn diff(path: &str, sent: &Value, round: &Value, problems: &mut Vec<String>) {
    match (sent, round) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let sub = format!("{path}.{key}");
                match b.get(key) {
                    Some(other) => diff(&sub, value, other, problems),
                    None if value.is_null() && null_allowed(&sub) => {}
                    None if value.is_null() => {
                        problems.push(format!("optional field `{sub}` is null (omit it instead)"))
                    }
                    None => problems.push(format!(
                        "unexpected field `{sub}` (not part of the protocol)"
                    )),
                }
            }
            for key in b.keys() {
                if !a.contains_key(key) {
                    problems.push(format!(
                        "field `{path}.{key}` is missing (the typed round trip adds it)"
                    ));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), x, y, problems);
            }
        }
        (Value::Number(_), Value::Number(_)) if numbers_equal(sent, round) => {}
        (a, b) if a == b => {}
        (a, b) => problems.push(format!(
            "`{path}` does not survive the typed round trip: sent {a}, parsed as {b}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_a_valid_turn_event() {
        let ev =
            json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "started"});
        assert_eq!(validate_event(&ev), Vec::<String>::new());
    }

    #[test]
    fn rejects_null_optional_and_unknown_fields() {
        let ev = json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "failed", "error": null, "x": 1});
        let problems = validate_event(&ev);
        assert!(
            problems.iter().any(|p| p.contains("`event.error` is null")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("unexpected field `event.x`")),
            "{problems:?}"
        );
    }

    #[test]
    fn rejects_bad_enum_and_tool_call_error_rule() {
        let ev = json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "done"});
        assert!(!validate_event(&ev).is_empty());
        let item = json!({"type": "timeline.item", "sessionId": "s", "item": {
            "type": "tool_call", "id": "i", "callId": "c", "name": "shell",
            "detail": {"type": "shell", "command": "ls", "exitCode": null},
            "status": "completed", "error": "boom"}});
        let problems = validate_event(&item);
        assert!(
            problems
                .iter()
                .any(|p| p.contains("must carry `error: null`")),
            "{problems:?}"
        );
        let ok = json!({"type": "timeline.item", "sessionId": "s", "item": {
            "type": "tool_call", "id": "i", "callId": "c", "name": "shell",
            "detail": {"type": "shell", "command": "ls", "exitCode": null},
            "status": "running", "error": null}});
        assert_eq!(validate_event(&ok), Vec::<String>::new());
    }
}
