//! `session/request_permission` in the crate's types, read tolerantly: the crate's
//! [`PermissionOptionKind`] has no catch-all arm, so one option of a kind newer than the crate
//! would refuse the whole request (and leave the agent waiting). An unknown kind is mapped to
//! the nearest known one before the crate reads it: `allow...` to `allow_always`, anything
//! else to `reject_always` (never a `*_once`, which the bridge picks by default); a missing
//! `name` becomes empty (the option id is shown).

use super::acp::{
    PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome,
};
use serde_json::Value;

const KNOWN_KINDS: &[&str] = &["allow_once", "allow_always", "reject_once", "reject_always"];

/// The params of a `session/request_permission`.
pub fn read(mut params: Value) -> Result<RequestPermissionRequest, serde_json::Error> {
    if let Some(options) = params.get_mut("options").and_then(Value::as_array_mut) {
        for option in options.iter_mut().filter_map(Value::as_object_mut) {
            let kind = option.get("kind").and_then(Value::as_str).unwrap_or("");
            if !KNOWN_KINDS.contains(&kind) {
                let nearest = if kind.starts_with("allow") {
                    "allow_always"
                } else {
                    "reject_always"
                };
                tracing::info!(
                    kind,
                    nearest,
                    "ACP permission option kind not known; mapped"
                );
                option.insert("kind".into(), nearest.into());
            }
            option.entry("name").or_insert_with(|| "".into());
        }
    }
    serde_json::from_value(params)
}

/// Whether an option allows.
pub fn allows(kind: PermissionOptionKind) -> bool {
    matches!(
        kind,
        PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
    )
}

/// Whether an option holds for this time only.
pub fn once(kind: PermissionOptionKind) -> bool {
    matches!(
        kind,
        PermissionOptionKind::AllowOnce | PermissionOptionKind::RejectOnce
    )
}

/// The answer: the chosen option, or `cancelled` (the turn was interrupted).
pub fn answer(option_id: Option<&str>) -> RequestPermissionResponse {
    RequestPermissionResponse::new(match option_id {
        Some(id) => {
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string()))
        }
        None => RequestPermissionOutcome::Cancelled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_newer_agents_option_kind_is_mapped_not_refused() {
        let req = read(
            json!({"sessionId": "s", "toolCall": {"toolCallId": "t", "futureField": 1},
            "options": [
                {"optionId": "a", "name": "Allow", "kind": "allow_once"},
                {"optionId": "s", "name": "For this session", "kind": "allow_session"},
                {"optionId": "n", "kind": "deny_forever"}
            ]}),
        )
        .expect("read");
        let kinds: Vec<PermissionOptionKind> = req.options.iter().map(|o| o.kind).collect();
        assert_eq!(
            kinds,
            vec![
                PermissionOptionKind::AllowOnce,
                PermissionOptionKind::AllowAlways,
                PermissionOptionKind::RejectAlways
            ]
        );
        assert_eq!(req.options[2].name, "");
    }

    #[test]
    fn the_answer_is_the_wire_shape() {
        assert_eq!(
            serde_json::to_value(answer(Some("x"))).expect("json"),
            json!({"outcome": {"outcome": "selected", "optionId": "x"}})
        );
        assert_eq!(
            serde_json::to_value(answer(None)).expect("json"),
            json!({"outcome": {"outcome": "cancelled"}})
        );
    }
}
