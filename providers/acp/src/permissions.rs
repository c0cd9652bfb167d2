//! `session/request_permission` <-> Paseo permissions: the agent's own options become the
//! actions (their `optionId` and label); the answer is `{outcome: selected, optionId}`, or
//! `{outcome: cancelled}` when the turn is interrupted.

use crate::normalize::tools;
use crate::wire::acp::{
    PermissionOption, PermissionOptionKind, RequestPermissionRequest, ToolKind,
};
use crate::wire::permission::{allows, answer, once};
use crate::wire::tool_call::{self, ToolSnapshot};
use agent_bridge_protocol::{
    ActionVariant, JsonMap, PermissionBehavior, PermissionKind, ProviderPermissionAction,
    ProviderPermissionRequest, ProviderPermissionResponse,
};
use serde_json::{json, Value};

/// An agent request waiting for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The JSON-RPC id of the agent's request.
    pub rpc_id: Value,
    pub options: Vec<PermissionOption>,
    pub tool_call_id: String,
}

/// The permission id of an agent request id: request ids are unique within one agent
/// process, so the ids of a restarted agent (`restarts` > 0) carry the restart's number.
pub fn permission_id(rpc_id: &Value, restarts: u32) -> String {
    let id = match rpc_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match restarts {
        0 => format!("acp-permission-{id}"),
        n => format!("acp-permission-r{n}-{id}"),
    }
}

fn behavior(kind: PermissionOptionKind) -> PermissionBehavior {
    if allows(kind) {
        PermissionBehavior::Allow
    } else {
        PermissionBehavior::Deny
    }
}

fn actions(options: &[PermissionOption]) -> Vec<ProviderPermissionAction> {
    options
        .iter()
        .map(|o| ProviderPermissionAction {
            id: o.option_id.0.to_string(),
            label: if o.name.is_empty() {
                o.option_id.0.to_string()
            } else {
                o.name.clone()
            },
            behavior: behavior(o.kind),
            variant: Some(match o.kind {
                PermissionOptionKind::AllowOnce => ActionVariant::Primary,
                k if allows(k) => ActionVariant::Secondary,
                _ => ActionVariant::Danger,
            }),
            intent: None,
        })
        .collect()
}

fn object(v: Value) -> JsonMap {
    match v {
        Value::Object(m) => m,
        _ => JsonMap::new(),
    }
}

/// The Paseo request of an agent's permission request; `snapshot` is the tool call merged
/// with what the timeline already knows of it; `restarts` numbers the agent process.
pub fn request(
    p: &RequestPermissionRequest,
    rpc_id: &Value,
    snapshot: &ToolSnapshot,
    restarts: u32,
) -> ProviderPermissionRequest {
    let call = tools::tool_call(snapshot);
    let kind = if snapshot.fields.kind == Some(ToolKind::SwitchMode) {
        PermissionKind::Mode
    } else {
        PermissionKind::Tool
    };
    ProviderPermissionRequest {
        id: permission_id(rpc_id, restarts),
        name: call.name.clone(),
        kind,
        title: snapshot.fields.title.clone(),
        description: None,
        input: snapshot.fields.raw_input.clone().map(object),
        detail: Some(call.detail),
        suggestions: None,
        actions: Some(actions(&p.options)),
        metadata: Some(object(json!({
            "toolCallId": snapshot.tool_call_id,
            "kind": snapshot.fields.kind.as_ref().map(tool_call::kind_name),
            "options": p.options,
        }))),
    }
}

/// The `optionId` answering `response`: the chosen action when it is one of the agent's
/// options of the right behavior, else the first `*_once` option of that behavior, else any.
pub fn option_for(
    options: &[PermissionOption],
    response: &ProviderPermissionResponse,
) -> Option<String> {
    let allow = response.is_allow();
    let fits = |o: &&PermissionOption| (behavior(o.kind) == PermissionBehavior::Allow) == allow;
    if let Some(chosen) = response.selected_action_id() {
        if let Some(o) = options
            .iter()
            .filter(fits)
            .find(|o| &*o.option_id.0 == chosen)
        {
            return Some(o.option_id.0.to_string());
        }
    }
    options
        .iter()
        .filter(fits)
        .find(|o| once(o.kind))
        .or_else(|| options.iter().find(fits))
        .map(|o| o.option_id.0.to_string())
}

/// The answer of a permission request (the crate's `RequestPermissionResponse`).
pub fn outcome(option_id: Option<&str>) -> Value {
    serde_json::to_value(answer(option_id)).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::fixture;
    use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
    use pretty_assertions::assert_eq;

    fn recorded(agent: &str) -> (Value, RequestPermissionRequest) {
        fixture(agent, "tool-permission-prompt")
            .lines()
            .find_map(|l| match JsonRpc::v2().decode(l) {
                Ok(Incoming::Request { id, method, params })
                    if method == crate::wire::method::REQUEST_PERMISSION =>
                {
                    Some((id, crate::wire::permission::read(params).expect("params")))
                }
                _ => None,
            })
            .expect("a permission request")
    }

    #[test]
    fn the_recorded_requests_become_permissions_with_the_agents_options() {
        for agent in ["gemini", "qwen", "opencode", "claude-agent-acp"] {
            let (id, p) = recorded(agent);
            let req = request(&p, &id, &p.tool_call, 0);
            insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!(format!("permission_{agent}"), req); });
        }
    }

    #[test]
    fn answers_pick_the_agents_option() {
        let (_, p) = recorded("qwen");
        let allow = |id: Option<&str>| ProviderPermissionResponse::Allow {
            selected_action_id: id.map(str::to_string),
            updated_input: None,
            updated_permissions: None,
        };
        assert_eq!(
            option_for(&p.options, &allow(None)).as_deref(),
            Some("proceed_once")
        );
        assert_eq!(
            option_for(&p.options, &allow(Some("proceed_always_user"))).as_deref(),
            Some("proceed_always_user")
        );
        // A deny action id with an allow behavior is not taken.
        assert_eq!(
            option_for(&p.options, &allow(Some("cancel"))).as_deref(),
            Some("proceed_once")
        );
        let deny = ProviderPermissionResponse::deny("no");
        assert_eq!(option_for(&p.options, &deny).as_deref(), Some("cancel"));
        assert_eq!(
            outcome(Some("cancel")),
            json!({"outcome": {"outcome": "selected", "optionId": "cancel"}})
        );
        assert_eq!(outcome(None), json!({"outcome": {"outcome": "cancelled"}}));
    }

    #[test]
    fn a_restarted_agents_permission_ids_do_not_repeat_the_first_ones() {
        let ids: Vec<String> = [(json!(0), 0), (json!(0), 1), (json!("a"), 2)]
            .iter()
            .map(|(id, restarts)| permission_id(id, *restarts))
            .collect();
        assert_eq!(
            ids,
            vec![
                "acp-permission-0",
                "acp-permission-r1-0",
                "acp-permission-r2-a"
            ]
        );
    }
}
