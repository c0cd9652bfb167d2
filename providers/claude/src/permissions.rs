//! `can_use_tool` and `elicitation` requests -> Paseo permission requests, and the host's
//! answers -> the CLI's `control_response`.

use crate::normalize::tools;
use crate::wire::ControlRequest;
use agent_bridge_core::elicitation::Elicitation;
use agent_bridge_protocol::{
    ActionIntent, ActionVariant, JsonMap, PermissionBehavior, PermissionKind,
    ProviderPermissionAction, ProviderPermissionRequest, ProviderPermissionResponse,
};
use serde_json::{json, Value};

/// The tool Claude asks the user questions with; its permission is the question.
pub const QUESTION_TOOL: &str = "AskUserQuestion";

/// A permission the CLI is waiting on.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingPermission {
    /// The CLI's control `request_id` (also the Paseo permission id).
    pub request_id: String,
    pub tool_name: String,
    pub tool_use_id: Option<String>,
    pub input: Value,
    /// An MCP server's elicitation (the request's subtype was `elicitation`).
    pub elicitation: Option<Elicitation>,
}

/// The plan-approval actions offered for `ExitPlanMode`.
pub fn plan_actions() -> Vec<ProviderPermissionAction> {
    vec![
        ProviderPermissionAction {
            id: "reject".into(),
            label: "Keep planning".into(),
            behavior: PermissionBehavior::Deny,
            variant: Some(ActionVariant::Secondary),
            intent: Some(ActionIntent::Dismiss),
        },
        ProviderPermissionAction {
            id: "implement".into(),
            label: "Implement (accept edits)".into(),
            behavior: PermissionBehavior::Allow,
            variant: Some(ActionVariant::Primary),
            intent: Some(ActionIntent::Implement),
        },
        ProviderPermissionAction {
            id: "implement_resume".into(),
            label: "Implement (bypass permissions)".into(),
            behavior: PermissionBehavior::Allow,
            variant: Some(ActionVariant::Secondary),
            intent: Some(ActionIntent::ImplementResume),
        },
    ]
}

/// The Paseo request of a control request that waits for the user (`can_use_tool`,
/// `elicitation`), or `None` for one the bridge answers itself.
pub fn asked_by(req: &ControlRequest) -> Option<(ProviderPermissionRequest, PendingPermission)> {
    match req.subtype() {
        "can_use_tool" => Some(from_can_use_tool(req)),
        "elicitation" => Some(from_elicitation(req)),
        _ => None,
    }
}

/// Builds the Paseo request of a `can_use_tool` control request.
pub fn from_can_use_tool(req: &ControlRequest) -> (ProviderPermissionRequest, PendingPermission) {
    let tool_name = req.str_field("tool_name").unwrap_or("tool").to_string();
    let input = req
        .request
        .get("input")
        .cloned()
        .unwrap_or(Value::Object(JsonMap::new()));
    let kind = match tool_name.as_str() {
        "ExitPlanMode" => PermissionKind::Plan,
        QUESTION_TOOL => PermissionKind::Question,
        _ => PermissionKind::Tool,
    };
    let display = req
        .str_field("display_name")
        .unwrap_or(&tool_name)
        .to_string();
    let summary = tools::summary(&tool_name, &input);
    let title = req
        .str_field("title")
        .map(str::to_string)
        .or_else(|| (kind == PermissionKind::Question).then(|| question_title(&input)))
        .unwrap_or_else(|| {
            if summary.is_empty() {
                display.clone()
            } else {
                format!("{display}: {summary}")
            }
        });
    let suggestions: Vec<JsonMap> = req
        .request
        .get("permission_suggestions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_object().cloned())
        .collect();
    let mut metadata = JsonMap::new();
    let tool_use_id = req.str_field("tool_use_id").map(str::to_string);
    for (key, field) in [
        ("toolUseId", "tool_use_id"),
        ("blockedPath", "blocked_path"),
        ("decisionReason", "decision_reason"),
        ("agentId", "agent_id"),
    ] {
        if let Some(v) = req.request.get(field).filter(|v| !v.is_null()) {
            metadata.insert(key.into(), v.clone());
        }
    }
    if kind == PermissionKind::Plan {
        if let Some(plan) = input.get("plan") {
            metadata.insert("planText".into(), plan.clone());
        }
    }
    let request = ProviderPermissionRequest {
        id: req.request_id.clone(),
        name: tool_name.clone(),
        kind,
        title: Some(title),
        description: req.str_field("description").map(str::to_string),
        input: input.as_object().cloned(),
        detail: Some(tools::detail_for(&tool_name, &input)),
        suggestions: (!suggestions.is_empty()).then_some(suggestions),
        actions: (kind == PermissionKind::Plan).then(plan_actions),
        metadata: (!metadata.is_empty()).then_some(metadata),
    };
    let pending = PendingPermission {
        request_id: req.request_id.clone(),
        tool_name,
        tool_use_id,
        input,
        elicitation: None,
    };
    (request, pending)
}

/// Builds the Paseo question of an `elicitation` control request (an MCP server asks the user
/// through the CLI; see `agent_bridge_core::elicitation`).
pub fn from_elicitation(req: &ControlRequest) -> (ProviderPermissionRequest, PendingPermission) {
    let server = req.str_field("mcp_server_name").unwrap_or("MCP server");
    let message = req.str_field("message").unwrap_or("");
    let elicitation = Elicitation::of_request(
        server,
        message,
        req.str_field("mode"),
        req.str_field("url"),
        req.str_field("elicitation_id"),
        req.request.get("requested_schema"),
    );
    let request = elicitation.permission(req.request_id.clone());
    let pending = PendingPermission {
        request_id: req.request_id.clone(),
        tool_name: agent_bridge_core::elicitation::NAME.into(),
        tool_use_id: None,
        input: Value::Object(request.input.clone().unwrap_or_default()),
        elicitation: Some(elicitation),
    };
    (request, pending)
}

/// The title of an `AskUserQuestion` request: its question, or how many it asks.
fn question_title(input: &Value) -> String {
    let questions = input
        .get("questions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    match questions {
        [one] => one
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or("Claude Code has a question")
            .to_string(),
        many => format!("Claude Code has {} questions", many.len()),
    }
}

/// The input a question is answered with: the asked input with the host's keys on top (so an
/// answer of just `{"answers": {...}}` keeps the `questions` the CLI checks it against).
fn question_input(asked: &Value, host: &JsonMap) -> Value {
    let mut merged = asked.as_object().cloned().unwrap_or_default();
    for (key, value) in host {
        merged.insert(key.clone(), value.clone());
    }
    Value::Object(merged)
}

/// What answering a permission does besides the control response.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The `response` object of the control response.
    pub response: Value,
    /// The turn must stop (deny with `interrupt`).
    pub interrupt: bool,
    /// Plan approval: switch to this permission mode.
    pub set_mode: Option<&'static str>,
}

/// The CLI's answer for the host's response.
pub fn answer(pending: &PendingPermission, response: &ProviderPermissionResponse) -> Answer {
    if let Some(elicitation) = &pending.elicitation {
        let interrupt = matches!(
            response,
            ProviderPermissionResponse::Deny {
                interrupt: Some(true),
                ..
            }
        );
        return Answer {
            response: elicitation.result(response),
            interrupt,
            set_mode: None,
        };
    }
    match response {
        ProviderPermissionResponse::Allow {
            selected_action_id,
            updated_input,
            updated_permissions,
        } => {
            let input = match updated_input {
                Some(host) if pending.tool_name == QUESTION_TOOL => {
                    question_input(&pending.input, host)
                }
                Some(host) => Value::Object(host.clone()),
                None => pending.input.clone(),
            };
            let mut body = json!({"behavior": "allow", "updatedInput": input});
            if let Some(perms) = updated_permissions.as_ref().filter(|p| !p.is_empty()) {
                body["updatedPermissions"] = Value::Array(perms.clone());
            }
            let set_mode = if pending.tool_name == "ExitPlanMode" {
                Some(
                    if selected_action_id.as_deref() == Some("implement_resume") {
                        "bypassPermissions"
                    } else {
                        "acceptEdits"
                    },
                )
            } else {
                None
            };
            Answer {
                response: body,
                interrupt: false,
                set_mode,
            }
        }
        ProviderPermissionResponse::Deny {
            message, interrupt, ..
        } => {
            let message = message
                .clone()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| {
                    if pending.tool_name == QUESTION_TOOL {
                        "The user dismissed the question without answering.".into()
                    } else {
                        "The user denied this tool use.".into()
                    }
                });
            let stop = interrupt.unwrap_or(false);
            let mut body = json!({"behavior": "deny", "message": message});
            if stop {
                body["interrupt"] = Value::Bool(true);
            }
            Answer {
                response: body,
                interrupt: stop,
                set_mode: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::CliMessage;
    use pretty_assertions::assert_eq;

    fn fixture_request() -> ControlRequest {
        let text = crate::normalize::tests_support::fixture("claude-tool-permission-prompt");
        text.lines()
            .filter_map(|l| match CliMessage::parse(l) {
                Ok(CliMessage::ControlRequest(r)) => Some(r),
                _ => None,
            })
            .next()
            .expect("a can_use_tool request")
    }

    #[test]
    fn can_use_tool_becomes_a_tool_permission() {
        let (request, pending) = from_can_use_tool(&fixture_request());
        insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("bash_permission", request); });
        assert_eq!(
            pending.tool_use_id.as_deref(),
            Some("toolu_f97d57a3514d42319de5")
        );
    }

    #[test]
    fn allow_echoes_the_input_and_deny_can_interrupt() {
        let (_, pending) = from_can_use_tool(&fixture_request());
        let allow = answer(
            &pending,
            &ProviderPermissionResponse::Allow {
                selected_action_id: None,
                updated_input: None,
                updated_permissions: None,
            },
        );
        assert_eq!(
            allow.response,
            json!({"behavior": "allow", "updatedInput": pending.input})
        );
        let deny = answer(
            &pending,
            &ProviderPermissionResponse::Deny {
                selected_action_id: None,
                message: Some("no".into()),
                interrupt: Some(true),
            },
        );
        assert_eq!(
            deny.response,
            json!({"behavior": "deny", "message": "no", "interrupt": true})
        );
        assert!(deny.interrupt);
    }

    #[test]
    fn plan_approval_offers_actions_and_switches_mode() {
        let req: ControlRequest = serde_json::from_value(json!({
            "request_id": "r1",
            "request": {"subtype": "can_use_tool", "tool_name": "ExitPlanMode", "input": {"plan": "1. do it"}, "tool_use_id": "t1"}
        }))
        .unwrap();
        let (request, pending) = from_can_use_tool(&req);
        assert_eq!(request.kind, PermissionKind::Plan);
        assert_eq!(request.actions.map(|a| a.len()), Some(3));
        let a = answer(
            &pending,
            &ProviderPermissionResponse::Allow {
                selected_action_id: Some("implement_resume".into()),
                updated_input: None,
                updated_permissions: None,
            },
        );
        assert_eq!(a.set_mode, Some("bypassPermissions"));
    }

    #[test]
    fn ask_user_question_is_a_question_answered_with_the_hosts_input() {
        let req: ControlRequest = serde_json::from_value(json!({
            "request_id": "q1",
            "request": {"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "tool_use_id": "t9",
                "input": {"questions": [{"question": "Which?", "header": "Pick", "options": [{"label": "A"}], "multiSelect": false}]}}
        }))
        .unwrap();
        let (request, pending) = from_can_use_tool(&req);
        assert_eq!(request.kind, PermissionKind::Question);
        assert!(request.actions.is_none());
        let mut answered = pending.input.as_object().cloned().unwrap_or_default();
        answered.insert("answers".into(), json!({"Which?": "A"}));
        let a = answer(
            &pending,
            &ProviderPermissionResponse::Allow {
                selected_action_id: None,
                updated_input: Some(answered.clone()),
                updated_permissions: None,
            },
        );
        assert_eq!(a.response["updatedInput"], Value::Object(answered.clone()));
        assert_eq!(a.set_mode, None);
        assert_eq!(request.title.as_deref(), Some("Which?"));
        // Only the answers: the questions asked stay in the input.
        let mut only = JsonMap::new();
        only.insert("answers".into(), json!({"Which?": "A"}));
        let a = answer(
            &pending,
            &ProviderPermissionResponse::Allow {
                selected_action_id: None,
                updated_input: Some(only),
                updated_permissions: None,
            },
        );
        assert_eq!(a.response["updatedInput"], Value::Object(answered));
        // Dismissed: a deny that says so.
        let d = answer(
            &pending,
            &ProviderPermissionResponse::Deny {
                selected_action_id: None,
                message: None,
                interrupt: None,
            },
        );
        assert_eq!(
            d.response,
            json!({"behavior": "deny", "message": "The user dismissed the question without answering."})
        );
    }
}
